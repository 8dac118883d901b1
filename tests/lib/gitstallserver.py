"""gitstallserver.py - a git server on loopback that stalls, for the
tests and scripts/bench-stalls: it accepts a connection and then never
answers ("silent"), or answers the request a byte a second without ever
finishing ("trickle"), until it is stopped.

    srv = GitStallServer("silent")    # or "trickle"
    srv.url("skills.git")             # http://127.0.0.1:PORT/skills.git
    srv.wait_connected(timeout)       # until a client holds a connection
    srv.open_connections()            # how many it still holds open
    srv.sent                          # bytes trickled so far
    srv.stop()                        # closes every connection, ends it

The port is the kernel's (port 0), read back.  A connection counts as
open until the client closes it (the server sees end of file) or the
server stops.
"""
import socket
import threading
import time

# the answer trickled: a status line and one header that never ends
TRICKLE = b"HTTP/1.1 200 OK\r\nX-Trickle: " + b"a" * 100000


class GitStallServer:
    def __init__(self, mode="silent"):
        self.mode = mode
        self.lock = threading.Lock()
        self.cond = threading.Condition(self.lock)
        self.open = 0
        self.accepted = 0
        self.sent = 0
        self.stopping = threading.Event()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.threads = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def url(self, name):
        return "http://127.0.0.1:%d/%s" % (self.port, name)

    def _accept(self):
        while not self.stopping.is_set():
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            with self.cond:
                self.open += 1
                self.accepted += 1
                self.cond.notify_all()
            t = threading.Thread(target=self._hold, args=(conn,), daemon=True)
            self.threads.append(t)
            t.start()

    def _hold(self, conn):
        """Holds conn until the client closes it or the server stops,
        trickling the answer a byte a second in "trickle" mode."""
        conn.settimeout(0.2 if self.mode == "silent" else 1.0)
        at = 0
        try:
            while not self.stopping.is_set():
                try:
                    if conn.recv(65536) == b"":
                        break          # the client closed it
                except socket.timeout:
                    pass
                if self.mode == "trickle" and at < len(TRICKLE):
                    conn.sendall(TRICKLE[at:at + 1])
                    at += 1
                    with self.cond:
                        self.sent += 1
                        self.cond.notify_all()
        except OSError:
            pass
        finally:
            conn.close()
            with self.cond:
                self.open -= 1
                self.cond.notify_all()

    def open_connections(self):
        with self.cond:
            return self.open

    def wait_connected(self, timeout, sent=0):
        """Until a connection is held open (and, with sent, that many
        bytes were trickled); fails after timeout seconds."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while not (self.open > 0 and self.sent >= sent):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("no client held a connection to the stalling git "
                                         "server within %.0fs" % timeout)
                self.cond.wait(left)

    def stop(self):
        self.stopping.set()
        try:
            self.sock.close()
        except OSError:
            pass
        self.thread.join()
        for t in self.threads:
            t.join()
