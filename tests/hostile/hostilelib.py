"""Helpers for the hostile-corpus and fault tests.

Every case builds a root with one hostile skill beside a control skill,
plants a secret file outside the roots, mounts, and then asserts the same
five things: the daemon is alive (no crash), every step ends before its
deadline (no hang), no byte of the secret or of /etc/passwd can be read
through the mount or through skillsfs-mcp, a diagnostic names the hostile
path in status.json and in `skillsfs check`, and the control skill is still
served whole."""

import base64
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(os.path.dirname(HERE), "fs"), os.path.join(os.path.dirname(HERE), "lib")]

from mountlib import (SKILLSFS, Mount, MountTestCase, is_stale, unmount,  # noqa: E402,F401
                      wait_for, write_skill)
from mcpclient import SKILLSFS_MCP, McpClient  # noqa: E402,F401
WALKER = os.path.join(HERE, "walker.py")
# children that drop to another user need a python that user may run
ANY_PYTHON = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
STEP_TIMEOUT = 30.0          # any one walk, check or MCP request
CONTROL_ID = "control"
CONTROL_FILES = {"references/guide.md": "# Guide\n\nPlain text.\n",
                 "scripts/run.sh": "#!/bin/sh\necho control\n"}


def needs_root(why):
    """Skips a test that only root can set up, in the unprivileged runs."""
    return unittest.skipUnless(os.geteuid() == 0, "needs root: " + why)


def passwd_marker():
    """The first line of /etc/passwd: bytes no skill of ours contains."""
    with open("/etc/passwd", "rb") as f:
        return f.readline().rstrip(b"\n")


def run_check(roots, timeout=STEP_TIMEOUT, preexec_fn=None, argv_prefix=()):
    """`skillsfs check --json` over roots: (exit status, findings)."""
    args = list(argv_prefix) + [SKILLSFS, "check", "--json"]
    for r in roots:
        args += ["--skills-dir", r]
    p = subprocess.run(args, capture_output=True, timeout=timeout, preexec_fn=preexec_fn)
    if p.returncode not in (0, 1):
        raise AssertionError("skillsfs check exited with %d:\n%s" % (
            p.returncode, p.stderr.decode("utf-8", "replace")))
    # json.loads(bytes) refuses invalid UTF-8: the output must be valid.
    return p.returncode, json.loads(p.stdout)["findings"]


def all_diags(status):
    """Every diagnostic of a status.json, global and per skill folder."""
    out = list(status.get("diagnostics", []))
    for s in status.get("skills", []):
        out += s.get("diagnostics", [])
    return out


def blobs_of(resp):
    """Decoded base64 blobs of a resources/read answer."""
    out = []
    for c in resp.get("result", {}).get("contents", []):
        if "blob" in c:
            out.append(base64.b64decode(c["blob"]))
    return out


class HostileCase(MountTestCase):
    """One hostile input per test, beside a control skill, a secret outside."""

    mount_options = ()

    def setUp(self):
        self.outside = self.make_dir()
        self.marker = b"SKILLSFS-SECRET-" + os.urandom(12).hex().encode()
        self.secret = os.path.join(self.outside, "secret.txt")
        with open(self.secret, "wb") as f:
            f.write(b"top secret: " + self.marker + b"\n")
        self.markers = [self.marker, passwd_marker()]
        self.root = os.path.join(self.make_dir(), "skills")
        os.makedirs(self.root)
        write_skill(self.root, CONTROL_ID, files=CONTROL_FILES)

    def root_on_tmpfs(self, options):
        """Moves the root (with the control skill) onto a tmpfs of its own,
        mounted with `options` and unmounted after the test (after the
        skillsfs mount, which is stopped first)."""
        fs = self.make_dir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", options + ",mode=0755",
                        "skillsfs-test", fs], check=True, timeout=30)
        self.addCleanup(umount_quietly, fs)
        self.root = os.path.join(fs, "skills")
        os.makedirs(self.root)
        write_skill(self.root, CONTROL_ID, files=CONTROL_FILES)
        return fs

    # ---- the mount ------------------------------------------------------

    def mount_root(self, options=None, **kw):
        opts = list(self.mount_options if options is None else options)
        self.m = self.mount([self.root], opts, **kw)
        return self.m

    def status(self, m=None):
        return (m or self.m).json("status.json")

    def index_ids(self, m=None):
        return [e["uri"].split("/")[2] for e in (m or self.m).json("index.json")["skills"]]

    def walk(self, m=None, max_reads=None, timeout=STEP_TIMEOUT, as_uid=None):
        """Lists and reads the whole mount in a child, with a deadline."""
        m = m or self.m
        python = sys.executable if as_uid is None else ANY_PYTHON
        args = [python, WALKER, m.path] + [x.hex() for x in self.markers]
        env = dict(os.environ)
        if max_reads is not None:
            env["WALK_MAX_READS"] = str(max_reads)
        pre = None if as_uid is None else become(as_uid)
        try:
            p = subprocess.run(args, capture_output=True, timeout=timeout, env=env,
                               preexec_fn=pre)
        except subprocess.TimeoutExpired:
            self.fail("reading the mount took more than %.0fs (a hang)\n%s"
                      % (timeout, m.stderr()))
        if p.returncode != 0:
            self.fail("walker failed:\n%s" % p.stderr.decode("utf-8", "replace"))
        return json.loads(p.stdout)

    def assert_alive(self, m=None):
        m = m or self.m
        self.assertIsNone(m.proc.poll(), "the daemon died:\n" + m.stderr())
        m.check_sanitizers()

    def assert_nothing_leaks(self, walk):
        self.assertEqual(walk["found"], [], "secret bytes readable through the mount")
        self.assertEqual(walk["escapes"], [], "symlinks in the mount lead outside a skill")

    def assert_control_served(self, m=None):
        m = m or self.m
        self.assertIn(CONTROL_ID, self.index_ids(m))
        for rel, content in CONTROL_FILES.items():
            self.assertEqual(m.read("skills", CONTROL_ID, rel), content.encode())

    def assert_diag(self, path, words, severity=None, m=None, check=True):
        """A finding whose file is `path` (bytes or str) and whose message
        holds every word, in status.json and in `skillsfs check --json`."""
        want = path if isinstance(path, str) else display_path(path)
        sources = [("status.json", all_diags(self.status(m)))]
        if check:
            sources.append(("skillsfs check", run_check([self.root])[1]))
        for where, diags in sources:
            hits = [d for d in diags if d["file"] == want and
                    all(w in d["message"] for w in words) and
                    (severity is None or d["severity"] == severity)]
            self.assertTrue(hits, "%s has no finding about %r with %r:\n%s" % (
                where, want, words, json.dumps(diags, indent=1)))

    def assert_skill_refused(self, skill_id, path, words):
        """A mount of the root serves nothing of skill_id, safely, and an
        error names path with words."""
        self.mount_root()
        self.assert_safe()
        self.assertNotIn(skill_id, self.index_ids())
        self.assert_diag(path, words, "error")

    def assert_safe(self, m=None, max_reads=None, mcp=True, timeout=STEP_TIMEOUT):
        """The common checks of every case, in one call."""
        m = m or self.m
        walk = self.walk(m, max_reads=max_reads, timeout=timeout)
        self.assert_nothing_leaks(walk)
        self.assert_alive(m)
        self.assert_control_served(m)
        if mcp:
            self.assert_mcp_safe(m)
        return walk

    # ---- skillsfs-mcp ---------------------------------------------------

    def mcp(self, m=None, args=(), preexec_fn=None):
        """A session with skillsfs-mcp on the mount, initialized; end it
        with finish() (a clean exit); it is killed after the test anyway."""
        s = McpClient(["--mount", (m or self.m).path] + list(args), preexec_fn=preexec_fn,
                      stderr_path=os.path.join(self.outside, "mcp.stderr.%d" % time.monotonic_ns()),
                      timeout=STEP_TIMEOUT)
        self.addCleanup(s.kill)
        s.handshake(client="hostile-test")
        return s

    def mcp_http(self, listen, run_dir):
        """skillsfs-mcp --http LISTEN --skills-dir ROOT, its runtime folder
        run_dir, ended after the test: (url, the token file it named, or
        None when it named none)."""
        url, said = self.serve_mcp_http(
            [SKILLSFS_MCP, "--http", listen, "--skills-dir", self.root, "--linger", "0"],
            env=dict(os.environ, XDG_RUNTIME_DIR=run_dir), timeout=STEP_TIMEOUT)
        token = re.search(r"bearer token in (\S+):", said)
        return url, token.group(1) if token else None

    def assert_no_marker(self, raw, what):
        for mk in self.markers:
            self.assertNotIn(mk, raw, "secret bytes in the answer to " + what)

    def assert_mcp_safe(self, m=None, max_files=200):
        """Lists every skill and reads its files through skillsfs-mcp."""
        s = self.mcp(m)
        resp = s.request("skills/list", {})
        self.assertIn("result", resp, resp)
        self.assert_no_marker(s.last_raw, "skills/list")
        ids = [e["uri"].split("/")[2] for e in resp["result"]["skills"]]
        self.assertIn(CONTROL_ID, ids)
        budget = [max_files]
        for sid in ids:
            r = s.tool("get_skill", {"id": sid})
            self.assert_no_marker(s.last_raw, "get_skill " + sid)
            self.walk_mcp_dir(s, "skill://" + sid, budget)
        r = s.request("resources/read", {"uri": "skill://%s/references/guide.md" % CONTROL_ID})
        self.assertEqual(r["result"]["contents"][0]["text"],
                         CONTROL_FILES["references/guide.md"])
        s.finish()

    def walk_mcp_dir(self, s, uri, budget, depth=0):
        if depth > 40 or budget[0] <= 0:
            return
        cursor = None
        while True:
            params = {"uri": uri}
            if cursor:
                params["cursor"] = cursor
            r = s.request("resources/directory/read", params)
            self.assert_no_marker(s.last_raw, "resources/directory/read " + uri)
            if "error" in r:
                return
            for res in r["result"]["resources"]:
                if budget[0] <= 0:
                    return
                if res.get("mimeType") == "inode/directory":
                    self.walk_mcp_dir(s, res["uri"], budget, depth + 1)
                    continue
                budget[0] -= 1
                rr = s.request("resources/read", {"uri": res["uri"]})
                self.assert_no_marker(s.last_raw, "resources/read " + res["uri"])
                for blob in blobs_of(rr):
                    self.assert_no_marker(blob, "resources/read " + res["uri"])
            cursor = r["result"].get("nextCursor")
            if not cursor:
                return


def display_path(b):
    """How a path of raw bytes appears in a diagnostic: valid UTF-8 kept,
    every other byte and every control character as \\xNN."""
    out = []
    s = b.decode("utf-8", "surrogateescape")
    for ch in s:
        o = ord(ch)
        if 0xDC80 <= o <= 0xDCFF:
            out.append("\\x%02X" % (o - 0xDC00))
        elif o < 0x20 or o == 0x7F:
            out.append("\\x%02X" % o)
        else:
            out.append(ch)
    return "".join(out)


def umount_quietly(path):
    r = subprocess.run(["umount", path], capture_output=True, timeout=30)
    if r.returncode != 0:
        subprocess.run(["umount", "-l", path], capture_output=True, timeout=30)


def temp_dir(prefix):
    return tempfile.mkdtemp(prefix=prefix)


def become(uid):
    """A preexec_fn that drops to uid (and the same gid)."""
    def drop():
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    return drop
