"""stallserver.py - a hostile MCP server on loopback for the tests: it
speaks just enough Streamable HTTP (the handshake era, JSON answers) to
list one skill, and then stalls where it is told to.

    srv = StallServer(stall="read")     # resources/read never answered
    srv = StallServer(stall="trickle")  # resources/read: a byte a second
    srv = StallServer(stall="all")      # nothing is ever answered
    srv.url                   # http://127.0.0.1:PORT/mcp (port the kernel chose)
    srv.wait_for("resources/read")      # until such a request arrived
    srv.stop()                # ends every stalled answer and the server

Run as a program it is the same server over stdio (a config file's
command:), one JSON-RPC message a line:

    python3 stallserver.py read|all     # stalls as above, until killed

The skill is "slow": SKILL.md (whose frontmatter the listing gives, so a
mount serves the skill before any read), notes.md and more/0.md ...
more/11.md.  `stall` may be changed while it runs: it applies to the
requests that come after.
"""
import hashlib
import http.server
import json
import socketserver
import sys
import threading
import time

DEADLINE = 30.0
SKILL_MD = b"---\nname: slow\ndescription: A skill whose server stalls.\n---\n\nBody.\n"
NOTES = b"notes of a slow server\n"
FILES = {"skill://slow/SKILL.md": SKILL_MD, "skill://slow/notes.md": NOTES}
# files that many readers can wait on at once (one page lock each)
MORE = 12
FILES.update(("skill://slow/more/%d.md" % i, b"more %d\n" % i) for i in range(MORE))


def listing():
    return {"skills": [{
        "uri": "skill://slow/SKILL.md",
        "name": "slow",
        "frontmatter": {"name": "slow", "description": "A skill whose server stalls."},
        "resources": [{"uri": uri, "size": len(data),
                       "digest": "sha256:" + hashlib.sha256(data).hexdigest()}
                      for uri, data in FILES.items()],
    }]}


def result(method, msg):
    """The answer to a request that is answered."""
    if method == "initialize":
        return {"protocolVersion": "2025-11-25", "capabilities": {"resources": {}},
                "serverInfo": {"name": "stall", "version": "1"}}
    if method == "skills/list":
        return listing()
    if method == "resources/read":
        uri = msg["params"]["uri"]
        return {"contents": [{"uri": uri, "mimeType": "text/markdown",
                              "text": FILES[uri].decode()}]}
    return {}


def serve_stdio(stall):
    for line in sys.stdin:
        msg = json.loads(line)
        method = msg.get("method", "")
        if stall == "all" or (stall == "read" and method == "resources/read"):
            threading.Event().wait()    # never answers, until killed
        if "id" in msg:
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"],
                                         "result": result(method, msg)}) + "\n")
            sys.stdout.flush()


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class StallServer:
    def __init__(self, stall="read"):
        self.stall = stall
        self.ended = threading.Event()
        self.seen = {}
        self.cond = threading.Condition()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                self.send_response(405)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_DELETE(self):
                self.do_GET()

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                msg = json.loads(body)
                method = msg.get("method", "")
                with outer.cond:
                    outer.seen[method] = outer.seen.get(method, 0) + 1
                    outer.cond.notify_all()
                if outer.stall == "all" or (outer.stall == "read" and
                                            method == "resources/read"):
                    outer.ended.wait()      # never answers
                    self.close_connection = True
                    return
                if "id" not in msg:
                    self.send_response(202)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                answer = json.dumps({"jsonrpc": "2.0", "id": msg["id"],
                                     "result": outer.result(method, msg)}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Mcp-Session-Id", "stall-session")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                if outer.stall == "trickle" and method == "resources/read":
                    for b in answer:        # a byte a second
                        if outer.ended.wait(1.0):
                            self.close_connection = True
                            return
                        try:
                            self.wfile.write(bytes([b]))
                            self.wfile.flush()
                        except OSError:     # the client gave up
                            return
                    return
                self.wfile.write(answer)

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d/mcp" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def result(self, method, msg):
        return result(method, msg)



    def wait_for(self, method, timeout=DEADLINE):
        """Waits until a request `method` arrived; returns how many did."""
        end = time.monotonic() + timeout
        with self.cond:
            while not self.seen.get(method):
                left = end - time.monotonic()
                if left <= 0:
                    raise AssertionError("no %s reached the test server in %.0fs"
                                         % (method, timeout))
                self.cond.wait(left)
            return self.seen[method]

    def stop(self):
        self.ended.set()
        self.server.shutdown()
        self.server.server_close()


if __name__ == "__main__":
    serve_stdio(sys.argv[1])
