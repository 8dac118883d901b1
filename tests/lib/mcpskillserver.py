"""mcpskillserver.py - a remote MCP server with the Skills extension on
loopback for the tests: the official TypeScript SDK's loadSkills and
createMcpHandler serving a folder (tests/mcp/lib/skills-server.mjs), on a
port the kernel chooses and the server prints, never guessed.

    srv = SkillServer(folder, lie=["skill://a/ref.md"])
    srv.url                 # http://127.0.0.1:PORT/mcp
    srv.expect("expired")   # waits for the server to print that line

The options of skills-server.mjs: era="modern" (only the stateless
2026-07-28 era), page_size=N, token_file=PATH (a bearer token required),
tls=(CERT, KEY) (https), sessions=N (sessions that expire at the Nth use),
count_pages=True ("page N" printed for each skills/list answered),
lie_frontmatter=[URI] (the listing's description of that SKILL.md altered),
ttl_ms=N (the listing's ttlMs), storm=N (N list_changed notifications,
10 ms apart, each with another listing, once a listener listens; then
"storm over"), counts=FILE (how many requests of each method, as JSON).
    srv.reload()            # reads the folder again; returns once it did
    srv.stop()              # ends the server; also when a test failed

SkillServer.available() says whether node and the SDK are installed
(`npm ci` in tests/mcp).
"""
import os
import queue
import shutil
import subprocess
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
MCP_TESTS = os.path.join(HERE, "..", "mcp")
SCRIPT = os.path.join(MCP_TESTS, "lib", "skills-server.mjs")
# the same over stdio, run by skillsfs itself (a config file's command:)
STDIO_SCRIPT = os.path.join(MCP_TESTS, "lib", "skills-stdio-server.mjs")
SDK = os.path.join(MCP_TESTS, "node_modules", "@modelcontextprotocol", "server",
                   "dist", "ext", "skills", "node.mjs")
DEADLINE = 30.0


class SkillServer:
    def __init__(self, folder, lie=(), era=None, page_size=None, token_file=None,
                 tls=None, sessions=None, count_pages=False, lie_frontmatter=(),
                 ttl_ms=None, storm=None, counts=None):
        argv = [shutil.which("node") or "node", SCRIPT, folder]
        for uri in lie:
            argv += ["--lie", uri]
        for uri in lie_frontmatter:
            argv += ["--lie-frontmatter", uri]
        for name, value in (("--era", era), ("--page-size", page_size),
                            ("--token-file", token_file), ("--sessions", sessions),
                            ("--ttl-ms", ttl_ms), ("--storm", storm),
                            ("--counts", counts)):
            if value is not None:
                argv += [name, str(value)]
        if tls:
            argv += ["--tls", tls[0], tls[1]]
        if count_pages:
            argv.append("--count-pages")
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        self.lines = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        try:
            self.url = self._line()
        except Exception:
            self.stop()
            raise

    @staticmethod
    def available():
        return shutil.which("node") is not None and os.path.isfile(SDK)

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def _line(self):
        try:
            line = self.lines.get(timeout=DEADLINE)
        except queue.Empty:
            raise AssertionError("the MCP test server said nothing for %.0fs" % DEADLINE)
        if line is None:
            raise AssertionError("the MCP test server ended: %s" % self.proc.stderr.read())
        return line

    def expect(self, want, ignore=()):
        """Waits for the server to print the line `want`, passing over the
        lines in `ignore` (a listener's "listening" comes when it comes)."""
        line = self._line()
        while line in ignore:
            line = self._line()
        if line != want:
            raise AssertionError("the MCP test server said %r, not %r" % (line, want))

    def reload(self):
        """Has the server read its folder again, and waits until it did;
        returns whether the listing changed (the server then notified its
        listeners of it)."""
        self.proc.send_signal(1)   # SIGHUP
        line = self._line()
        while line == "listening":   # a listener that came (back) meanwhile
            line = self._line()
        if line not in ("reloaded", "reloaded, notified"):
            raise AssertionError("the MCP test server said %r, not 'reloaded'" % line)
        return line == "reloaded, notified"

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.reader.join(timeout=10)
        self.proc.stdout.close()
        self.proc.stderr.close()
