"""The one stdio MCP client of the Python tests: skillsfs-mcp on pipes,
newline-delimited JSON-RPC, every wait bounded by a deadline.

The server's stderr goes to a file (never a pipe nobody drains), so it can
be read at any moment and quoted in a failure.  Whoever starts a client
ends it: close() (EOF, then kill after a timeout) or kill(), also on
failure; `with McpClient(...)` kills on the way out."""

import json
import os
import select
import signal
import subprocess
import tempfile
import time

SKILLSFS_MCP = os.environ.get("SKILLSFS_MCP", "skillsfs-mcp")
TIMEOUT = 30.0
SANITIZER_MARKERS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")


class McpClient:
    """skillsfs-mcp started with `args` (after `prefix`, e.g. valgrind);
    requests are answered in order, notifications met on the way are kept
    in `notes`, the raw line of the last message in `last_raw`."""

    def __init__(self, args, env=None, cwd=None, preexec_fn=None, stderr_path=None,
                 prefix=(), name="skillsfs-mcp", timeout=TIMEOUT):
        self.name = name
        self.timeout = timeout
        self._own_stderr = stderr_path is None
        if stderr_path is None:
            fd, stderr_path = tempfile.mkstemp(prefix="mcp-stderr-")
            os.close(fd)
        self.stderr_path = stderr_path
        self._stderr_text = None
        with open(stderr_path, "wb") as err:
            self.proc = subprocess.Popen(list(prefix) + [SKILLSFS_MCP] + list(args),
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=err, env=env, cwd=cwd, preexec_fn=preexec_fn)
        self.buf = b""
        self.eof = False
        self.next_id = 1
        self.notes = []
        self.last_raw = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.kill()

    # ---- writing --------------------------------------------------------

    def send_raw(self, data):
        """Writes bytes as they are: malformed lines included."""
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, msg):
        self.send_raw(json.dumps(msg).encode() + b"\n")

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)

    # ---- reading --------------------------------------------------------

    def _fail(self, what):
        raise AssertionError("%s: %s (exit %r)\n%s" % (self.name, what, self.proc.poll(),
                                                       self.stderr()))

    def _line(self, deadline):
        """The next output line (bytes), or None at end of output."""
        while b"\n" not in self.buf:
            if self.eof:
                return None
            left = deadline - time.monotonic()
            if left <= 0:
                self._fail("no answer in time")
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
                self.eof = not chunk
                self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def receive(self, timeout=None):
        """The next message; json.loads(bytes) also insists on valid UTF-8."""
        raw = self._line(time.monotonic() + (timeout or self.timeout))
        if raw is None:
            self._fail("closed its output")
        try:
            msg = json.loads(raw)
        except ValueError:
            self._fail("not JSON: %r" % raw[:200])
        self.last_raw = raw
        return msg

    def reply(self, rid, timeout=None):
        """The response to request `rid` (None for an unreadable request);
        notifications meanwhile are kept, any other message is a failure."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            msg = self.receive(max(deadline - time.monotonic(), 0.001))
            if "method" in msg and "id" not in msg:
                self.notes.append(msg)
            elif msg.get("id") == rid and "method" not in msg:
                return msg
            else:
                self._fail("unexpected message %s" % json.dumps(msg)[:400])

    def request(self, method, params=None, timeout=None):
        rid = self.next_id
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return self.reply(rid, timeout)

    def tool(self, name, arguments):
        return self.request("tools/call", {"name": name, "arguments": arguments})

    def handshake(self, version="2025-11-25", client="skillsfs-tests", timeout=None):
        """initialize and notifications/initialized; returns the result.
        The first answer may wait for an automount: a longer deadline."""
        r = self.request("initialize", {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": client, "version": "1"}},
            timeout or max(self.timeout, 40))
        if "result" not in r:
            self._fail("initialize failed: %s" % json.dumps(r)[:400])
        self.notify("notifications/initialized")
        return r["result"]

    def wait_note(self, method, timeout=None):
        """Waits until a notification `method` has come."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while not any(n["method"] == method for n in self.notes):
            left = deadline - time.monotonic()
            if left <= 0:
                self._fail("no %s in time" % method)
            msg = self.receive(left)
            if "method" not in msg or "id" in msg:
                self._fail("unexpected message %s" % json.dumps(msg)[:400])
            self.notes.append(msg)

    def rest(self, timeout=10):
        """Every message still unread, up to the end of output."""
        out = []
        deadline = time.monotonic() + timeout
        while True:
            raw = self._line(deadline)
            if raw is None:
                return out
            out.append(json.loads(raw))

    # ---- the end --------------------------------------------------------

    def stderr(self):
        if self._stderr_text is not None:
            return self._stderr_text
        with open(self.stderr_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def close(self, timeout=30, how="eof", drain=False):
        """Ends the server with EOF on stdin (or SIGTERM); returns its exit
        status.  One that does not exit in time is killed and is a failure.
        With drain, the messages it wrote last are kept in `leftover`."""
        if self.proc.poll() is None:
            try:
                if how == "eof":
                    self.proc.stdin.close()
                else:
                    self.proc.send_signal(signal.SIGTERM)
            except OSError:
                pass
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill()
                self._fail("did not exit within %ds of %s" % (timeout, how))
        if drain:
            self.leftover = self.rest()
        self._release()
        return self.proc.returncode

    def finish(self, timeout=10):
        """close(), and the server must have exited 0 without a sanitizer
        report."""
        rc = self.close(timeout)
        if rc != 0:
            self._fail("exited with %d" % rc)
        for marker in SANITIZER_MARKERS:
            if marker in self.stderr():
                self._fail("sanitizer report")

    def kill(self):
        """For cleanups: ends the server whatever state it is in."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._release()

    def _release(self):
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        if self._own_stderr and self._stderr_text is None:
            self._stderr_text = self.stderr()
            os.unlink(self.stderr_path)
