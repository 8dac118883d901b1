"""Helpers for the integration tests: the mount helpers of tests/fs, a small
stdio MCP client for skillsfs-mcp, and the programs under test."""

import json
import os
import select
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fs"))

from mountlib import (EXAMPLE_SKILLS, SKILLSFS, SOURCE_ROOT, Mount,  # noqa: E402,F401
                      MountTestCase, is_stale, unmount, wait_for, write_skill)

SKILLSFS_MCP = os.environ.get("SKILLSFS_MCP", "skillsfs-mcp")
BUILD_ROOT = os.environ.get("SKILLSFS_BUILD_ROOT", os.path.join(SOURCE_ROOT, "build"))
RENDER_TOOL = os.environ.get("RENDER_TOOL", os.path.join(BUILD_ROOT, "tests", "check", "render_tool"))


def run(args, env=None, cwd=None, timeout=60):
    """Runs a program; returns the CompletedProcess (text)."""
    return subprocess.run(args, capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=timeout)


def clean_env(**extra):
    """The environment without SKILLSFS_SKILLS_DIRS, plus `extra`."""
    env = dict(os.environ)
    env.pop("SKILLSFS_SKILLS_DIRS", None)
    env.update(extra)
    return env


def write(path, text, mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    if mode is not None:
        os.chmod(path, mode)
    return path


def tree_state(top):
    """Every entry under top with its kind, mode, size, mtime and bytes (or
    link target): to prove that something was left untouched."""
    state = {}
    for dirpath, dirnames, filenames in os.walk(top):
        for name in sorted(dirnames + filenames):
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            if os.path.islink(p):
                content = os.readlink(p)
            elif os.path.isfile(p):
                with open(p, "rb") as f:
                    content = f.read()
            else:
                content = None
            state[os.path.relpath(p, top)] = (st.st_mode, st.st_size, st.st_mtime_ns, content)
    return state


class McpClient:
    """skillsfs-mcp on a pipe: newline-delimited JSON-RPC, answers awaited
    with a deadline; always closed (which unmounts what it mounted)."""

    def __init__(self, args, env=None, cwd=None):
        self.proc = subprocess.Popen([SKILLSFS_MCP] + list(args), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=env, cwd=cwd)
        self.next_id = 1
        self.buf = b""

    def send(self, msg):
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()

    def _line(self, deadline):
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("skillsfs-mcp did not answer in time")
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                raise AssertionError("skillsfs-mcp ended: %s" % self.stderr())
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def request(self, method, params=None, timeout=30):
        rid = self.next_id
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        deadline = time.monotonic() + timeout
        while True:
            answer = self._line(deadline)
            if answer.get("id") == rid:
                return answer

    def handshake(self):
        res = self.request("initialize", {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "integration-tests", "version": "1"}}, timeout=40)
        if "result" not in res:
            raise AssertionError("initialize failed: %s" % res)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return res["result"]

    def stderr(self):
        try:
            return self.proc.stderr.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""

    def close(self, timeout=30):
        """Ends the server with EOF on stdin; returns its exit status."""
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        for f in (self.proc.stdout, self.proc.stderr):
            try:
                f.close()
            except OSError:
                pass
        return self.proc.returncode


class CustomMount(Mount):
    """A mount started with a command line of its own, in a working folder
    of its own: the mount point comes from the caller (it may be named in a
    configuration file).  Always unmounted, like every Mount."""

    def __init__(self, mountpoint, argv, env=None, cwd=None):
        super().__init__([], env=env)
        self.path = mountpoint
        self._argv = list(argv)
        self.cwd = cwd

    def argv(self):
        return self._argv

    def start(self, *args, **kw):
        old = os.getcwd()
        if self.cwd:
            os.chdir(self.cwd)
        try:
            return super().start(*args, **kw)
        finally:
            os.chdir(old)
