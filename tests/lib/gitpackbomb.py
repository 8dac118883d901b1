"""gitpackbomb.py - a hostile git server on loopback for the tests: it
speaks just enough smart HTTP (protocol v0) to advertise one branch,
main, and then answers the fetch with a pack that never ends, as fast
as the client takes it: a header that promises 20 million objects, then blob
after distinct blob.

    srv = GitPackBomb(blob=65536)   # each object a blob of this many bytes
                                    # (stored, uncompressed, on the wire)
    srv = GitPackBomb(blob=0)       # each object a tiny blob (~15 bytes)
    srv.url("skills.git")           # http://127.0.0.1:PORT/skills.git
    srv.sent                        # pack bytes sent so far
    srv.stop()                      # ends every answer and the server

The port is the kernel's (port 0), read back.
"""
import http.server
import os
import socketserver
import struct
import threading
import zlib

# the commit advertised: any id, the pack never gets to it
HEAD = "1" * 40
# the objects the pack promises: more than any bound, few enough that
# libgit2 does not refuse the count at once
COUNT = 20000000


def pkt(data):
    return b"%04x" % (len(data) + 4) + data


def object_header(kind, size):
    """A pack entry's type-and-size varint."""
    b = (kind << 4) | (size & 15)
    size >>= 4
    out = bytearray()
    while size:
        out.append(b | 0x80)
        b = size & 0x7f
        size >>= 7
    out.append(b)
    return bytes(out)


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class GitPackBomb:
    def __init__(self, blob=65536):
        self.blob = blob
        self.sent = 0
        self.ended = threading.Event()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                if "service=git-upload-pack" not in self.path:
                    self.send_error(404)
                    return
                caps = b"symref=HEAD:refs/heads/main agent=git/bomb"
                body = (pkt(b"# service=git-upload-pack\n") + b"0000" +
                        pkt(HEAD.encode() + b" HEAD\0" + caps + b"\n") +
                        pkt(HEAD.encode() + b" refs/heads/main\n") + b"0000")
                self.send_response(200)
                self.send_header("Content-Type",
                                 "application/x-git-upload-pack-advertisement")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                n = int(self.headers.get("Content-Length", "0"))
                if n:
                    self.rfile.read(n)
                else:   # chunked
                    while True:
                        size = int(self.rfile.readline().split(b";")[0], 16)
                        self.rfile.read(size + 2)
                        if not size:
                            break
                self.send_response(200)
                self.send_header("Content-Type", "application/x-git-upload-pack-result")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                self.close_connection = True
                try:
                    self.chunk(pkt(b"NAK\n") + b"PACK" + struct.pack(">II", 2, COUNT))
                    outer._objects(self.chunk)
                except OSError:     # the client gave up
                    pass

            def chunk(self, data):
                self.wfile.write(b"%x\r\n" % len(data) + data + b"\r\n")
                outer.sent += len(data)

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def _objects(self, send):
        filler = os.urandom(self.blob)
        i = 0
        while not self.ended.is_set():
            batch = []
            for _ in range(256 if self.blob else 4096):
                data = b"%d\n" % i + filler
                i += 1
                batch.append(object_header(3, len(data)) +
                             zlib.compress(data, 0 if self.blob else 1))
            send(b"".join(batch))

    def url(self, name):
        return "http://127.0.0.1:%d/%s" % (self.port, name)

    def stop(self):
        self.ended.set()
        self.server.shutdown()
        self.server.server_close()
