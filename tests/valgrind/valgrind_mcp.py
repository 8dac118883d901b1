#!/usr/bin/env python3
"""skillsfs-mcp under valgrind: scripted sessions against a real skillsfs
mount of tests/skills must be free of memory errors and of definite and
indirect leaks.

  1. a handshake-era session calling every method once, the modern era,
     a few errors of each kind, an oversized line, and a generation change
     that must bring list_changed notifications; it ends at EOF;
  2. a modern session that holds a subscription and ends with SIGTERM,
     which closes it;
  3. an automount session (--skills-dir): skillsfs-mcp mounts and unmounts
     the mount itself.

Usage: valgrind_mcp.py [--sanitize B_SANITIZE]; exits 77 (skipped) when
valgrind is missing or the build uses sanitizers (they do not mix).
Environment: SKILLSFS, SKILLSFS_MCP.
"""

import json
import os
import shutil
import signal
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(os.path.dirname(HERE), "fs"), os.path.join(os.path.dirname(HERE), "lib")]
from mountlib import EXAMPLE_SKILLS, Mount, unmount, wait_for, write_skill  # noqa: E402
from mcpclient import McpClient  # noqa: E402
REPLY_TIMEOUT = 60.0   # valgrind is slow, the first request most of all
MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {}}
VALGRIND = ["valgrind", "--error-exitcode=1", "--leak-check=full",
            "--errors-for-leak-kinds=definite,indirect",
            "--show-leak-kinds=definite,indirect", "--num-callers=30"]


class Session(McpClient):
    """skillsfs-mcp under valgrind, spoken to one line at a time."""

    def __init__(self, work, name, args):
        self.log = os.path.join(work, name + ".valgrind")
        super().__init__(args, stderr_path=os.path.join(work, name + ".stderr"),
                         prefix=VALGRIND + ["--log-file=" + self.log], name=name,
                         timeout=REPLY_TIMEOUT)

    def call(self, method, params=None, modern=False, expect="result"):
        """A request that must bring `expect` (result or error)."""
        if params is not None or modern:
            params = dict(params or {})
            if modern:
                params["_meta"] = MODERN
        r = self.request(method, params)
        if expect not in r:
            raise AssertionError("%s: %s %s: expected %s, got %s"
                                 % (self.name, method, json.dumps(params)[:200], expect,
                                    json.dumps(r)[:400]))
        return r[expect]

    def end(self, how="eof"):
        """Ends the server; raises unless valgrind found nothing.  Returns
        the messages it wrote last."""
        rc = self.close(timeout=120, how=how, drain=True)
        with open(self.log) as f:
            report = f.read()
        if rc != 0 or "ERROR SUMMARY: 0 errors" not in report:
            raise AssertionError("%s: skillsfs-mcp under valgrind exited %d\n--- valgrind ---\n%s"
                                 "--- stderr ---\n%s" % (self.name, rc, report, self.stderr()))
        summary = [l for l in report.splitlines() if "ERROR SUMMARY" in l or "definitely lost" in l
                   or "indirectly lost" in l or "All heap blocks were freed" in l]
        print("# %s: %s" % (self.name, "; ".join(s.split("== ", 1)[-1] for s in summary)))
        return self.leftover


def handshake_session(work, mnt, src):
    """Every method once in the handshake era, errors, a generation change."""
    s = Session(work, "handshake", ["--mount", mnt, "--audit-log",
                                    os.path.join(work, "audit.jsonl")])
    try:
        init = s.call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                     "clientInfo": {"name": "valgrind", "version": "1"}})
        assert init["protocolVersion"] == "2025-11-25", init
        s.notify("notifications/initialized")
        s.call("ping")
        s.call("server/discover", {}, modern=True)
        tools = s.call("tools/list")["tools"]
        assert {t["name"] for t in tools} >= {"list_skills", "get_skill"}, tools
        s.call("tools/call", {"name": "list_skills", "arguments": {"query": "pdf", "limit": 1}})
        s.call("tools/call", {"name": "get_skill", "arguments": {"id": "pdf-forms"}})
        r = s.call("tools/call", {"name": "get_skill", "arguments": {"id": "pdf-form"}})
        assert r.get("isError"), r
        listed = s.call("resources/list")["resources"]
        assert any(x["uri"] == "skill://pdf-forms/SKILL.md" for x in listed), listed
        s.call("resources/templates/list")
        for uri in ("resource://catalog/skills_index", "resource://catalog/skills/pdf-forms",
                    "resource://skills/pdf-forms/document",
                    "resource://skills/pdf-forms/references/field-types",
                    "skill://pdf-forms/scripts/fill.sh", "skill://commit-messages/SKILL.md"):
            s.call("resources/read", {"uri": uri})
        s.call("resources/directory/read", {"uri": "skill://pdf-forms"})
        s.call("skills/list")
        s.call("skills/get", {"uri": "skill://csv-report/SKILL.md"})
        s.call("prompts/list")
        s.call("prompts/get", {"name": "csv-report"})
        s.call("prompts/get", {"name": "init-skills"})

        # errors of each kind
        s.call("resources/read", {"uri": "skill://pdf-forms/../../etc/passwd"}, expect="error")
        s.call("resources/read", {"uri": "skill://nope/SKILL.md"}, expect="error")
        s.call("resources/read", {"uri": 7}, expect="error")
        s.call("tools/call", {"name": "nope"}, expect="error")
        s.call("no/such/method", expect="error")
        s.call("tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": "1999-01-01"}},
               expect="error")
        s.send_raw(b"{not json\n")
        assert s.reply(None)["error"]["code"] == -32700
        s.send_raw(b'[{"jsonrpc":"2.0","id":99,"method":"ping"}]\n')
        assert s.reply(None)["error"]["code"] == -32600
        s.send_raw(b'{"jsonrpc":"2.0","id":"x","method":"ping"}' + b" " * (5 << 20) + b"\n")
        assert s.reply(None)["error"]["code"] == -32600
        s.call("ping")   # still serving after the oversized line

        # a generation change: the legacy session hears of it
        write_skill(src, "valgrind-added", description="Added during the session. Use when testing.")
        s.wait_note("notifications/resources/list_changed")
        s.wait_note("notifications/prompts/list_changed")
        listed = s.call("skills/list")
        assert "valgrind-added" in json.dumps(listed), listed
        s.end("eof")
    finally:
        s.kill()


def subscription_session(work, mnt):
    """The modern era, with a subscription that SIGTERM closes."""
    s = Session(work, "subscription", ["--mount", mnt])
    try:
        s.call("server/discover", {}, modern=True)
        s.call("tools/list", {}, modern=True)
        s.call("resources/read", {"uri": "resource://catalog/skills_index"}, modern=True)
        s.send({"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen",
                "params": {"_meta": MODERN, "notifications": {"resourcesListChanged": True}}})
        s.wait_note("notifications/subscriptions/acknowledged")
        s.send({"jsonrpc": "2.0", "id": 12, "method": "subscriptions/listen",
                "params": {"_meta": MODERN, "notifications": {"promptsListChanged": True}}})
        s.wait_note("notifications/subscriptions/acknowledged")
        s.notify("notifications/cancelled", {"requestId": 12})
        s.call("ping", {"_meta": MODERN}, expect="error")   # no ping in 2026-07-28
        rest = s.end("sigterm")
        assert any(m.get("id") == "listen-1" and "result" in m for m in rest), rest
    finally:
        s.kill()


def automount_session(work, src):
    """skillsfs-mcp mounts the skills itself; its keeper unmounts them after the
    session (no linger)."""
    mnt = os.path.join(work, "automount")
    os.makedirs(mnt)
    s = Session(work, "automount", ["--mount", mnt, "--skills-dir", src, "--linger", "0"])
    try:
        s.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "valgrind", "version": "1"}})
        s.call("resources/read", {"uri": "skill://pdf-forms/SKILL.md"})
        s.call("tools/call", {"name": "list_skills", "arguments": {}})
        s.end("eof")
        wait_for(lambda: not os.path.ismount(mnt), timeout=10, what="the automount to go")
    finally:
        s.kill()
        unmount(mnt)


def main():
    sanitize = "none"
    if len(sys.argv) == 3 and sys.argv[1] == "--sanitize":
        sanitize = sys.argv[2]
    if not shutil.which("valgrind"):
        print("valgrind is not installed: skipped")
        return 77
    if sanitize not in ("none", ""):
        print("a -Db_sanitize=%s build cannot run under valgrind: skipped" % sanitize)
        return 77

    work = tempfile.mkdtemp(prefix="skillsfs-valgrind-")
    src = os.path.join(work, "skills")
    shutil.copytree(EXAMPLE_SKILLS, src, symlinks=True)
    m = Mount([src], workdir=os.path.join(work, "m"))

    def on_signal(sig, frame):
        raise SystemExit("stopped by signal %d" % sig)
    signal.signal(signal.SIGTERM, on_signal)

    status = 0
    try:
        m.start()
        for name, run in (("handshake", lambda: handshake_session(work, m.path, src)),
                          ("subscription", lambda: subscription_session(work, m.path)),
                          ("automount", lambda: automount_session(work, src))):
            t0 = time.monotonic()
            try:
                run()
                print("ok %s (%.1fs)" % (name, time.monotonic() - t0))
            except AssertionError as e:
                status = 1
                print("FAIL %s: %s" % (name, e))
    finally:
        m.cleanup()
        unmount(os.path.join(work, "automount"))
        shutil.rmtree(work, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
