"""gitserver.py - a git server on loopback for the tests: git's own smart
HTTP server program (git http-backend, a CGI program) behind Python's HTTP
server, over plain HTTP or HTTPS with a certificate made for the test.

    with GitServer(project_root, tls_dir=None) as srv:
        url = srv.url("skills.git")    # http(s)://127.0.0.1:PORT/skills.git

The port is chosen by the kernel (port 0) and read back, never guessed.
Every request is counted (srv.requests) so a test can tell whether a fetch
went to the network.  srv.stop() (or leaving the with block) ends the
server thread; srv.fail = True makes it answer 503 to everything, as an
unreachable or broken server would; srv.stall = True makes it hold every
request unanswered until it is stopped (srv.stalled counts them);
srv.trickle_pack = True makes it answer a fetch's pack all but the last
byte of its 12-byte header at once, nothing for srv.trickle_hold seconds,
then a byte a second (srv.trickled counts the packs begun, srv.dropped
those whose client closed the connection before their end).
"""
import http.server
import os
import shutil
import ssl
import subprocess
import threading

GIT = shutil.which("git") or "/usr/bin/git"


def make_certificate(folder):
    """A self-signed certificate for 127.0.0.1 and localhost, made with
    openssl; returns (cert, key) paths.  The certificate is its own
    authority: a client trusts it through SSL_CERT_FILE."""
    cert = os.path.join(folder, "cert.pem")
    key = os.path.join(folder, "key.pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
         "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
         "-addext", "basicConstraints=critical,CA:TRUE"],
        check=True, capture_output=True)
    return cert, key


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):   # quiet: the test prints what matters
        pass

    def do_GET(self):
        self._cgi()

    def do_POST(self):
        self._cgi()

    def _cgi(self):
        srv = self.server.owner
        with srv.lock:
            srv.requests += 1
            failing = srv.fail
            stalling = srv.stall
            srv.stalled += stalling
        if stalling:
            srv.stopping.wait()     # never answered while it runs
            return
        if failing:
            self.send_error(503, "the test made this server fail")
            return
        path, _, query = self.path.partition("?")
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_PROJECT_ROOT": srv.root,
            "GIT_HTTP_EXPORT_ALL": "1",
            "REQUEST_METHOD": self.command,
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(length),
            "REMOTE_ADDR": self.client_address[0],
            "GIT_CONFIG_NOSYSTEM": "1",
            "HOME": srv.root,
        }
        if self.headers.get("Content-Encoding"):
            env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
        if self.headers.get("Git-Protocol"):
            env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
        out = subprocess.run([GIT, "http-backend"], input=body, env=env,
                             capture_output=True).stdout
        head, _, payload = out.partition(b"\r\n\r\n")
        if srv.trickle_pack and path.endswith("/git-upload-pack"):
            self._trickle(payload)
            return
        status = 200
        headers = []
        for line in head.split(b"\r\n"):
            name, _, value = line.decode("latin-1").partition(":")
            if name.lower() == "status":
                status = int(value.strip().split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


    def _trickle(self, payload):
        """Answers an upload-pack request with payload's pack as the
        class says, in side-band packets (its other packets first,
        progress messages left out), until the client closes the
        connection or the server stops."""
        srv = self.server.owner
        head, pack, pos = b"", b"", 0
        while pos + 4 <= len(payload):
            n = int(payload[pos:pos + 4], 16)
            pkt = payload[pos + 4:pos + n] if n >= 4 else b""
            if pkt[:1] == b"\x01":
                pack += pkt[1:]
            elif n >= 4 and pkt[:1] not in (b"\x02", b"\x03"):
                head += payload[pos:pos + n]
            pos += max(n, 4)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-git-upload-pack-result")
        self.end_headers()      # HTTP/1.0: the answer ends with the connection
        with srv.lock:
            srv.trickled += 1
        try:
            self.wfile.write(head + b"%04x\x01" % (5 + 11) + pack[:11])
            if srv.stopping.wait(srv.trickle_hold):
                return
            for byte in pack[11:]:
                self.wfile.write(b"0006\x01" + bytes([byte]))
                if srv.stopping.wait(1.0):
                    return
        except OSError:
            with srv.lock:
                srv.dropped += 1


class GitServer:
    def __init__(self, root, tls_dir=None):
        self.root = os.path.abspath(root)
        self.lock = threading.Lock()
        self.requests = 0
        self.fail = False
        self.stall = False
        self.stalled = 0
        self.trickle_pack = False
        self.trickle_hold = 0
        self.trickled = 0
        self.dropped = 0
        self.stopping = threading.Event()
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                                     _Handler)
        self.httpd.owner = self
        self.httpd.daemon_threads = True
        self.scheme = "http"
        self.cert = None
        if tls_dir:
            self.cert, key = make_certificate(tls_dir)
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(self.cert, key)
            self.httpd.socket = ctx.wrap_socket(self.httpd.socket,
                                                server_side=True)
            self.scheme = "https"
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       daemon=True)
        self.thread.start()

    def url(self, name):
        # https names the host "localhost": libgit2's TLS (mbed TLS)
        # matches the host against the certificate's DNS names only
        host = "localhost" if self.cert else "127.0.0.1"
        return "%s://%s:%d/%s" % (self.scheme, host, self.port, name)

    def stop(self):
        self.stopping.set()
        if self.thread:
            self.httpd.shutdown()
            self.httpd.server_close()
            self.thread.join()
            self.thread = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
