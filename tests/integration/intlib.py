"""Helpers for the integration tests: the mount helpers of tests/fs, the
stdio MCP client of tests/lib, and the programs under test."""

import os
import subprocess
import sys

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(TESTS, "fs"), os.path.join(TESTS, "lib")]

from mountlib import (EXAMPLE_SKILLS, SKILLSFS, SOURCE_ROOT, Mount,  # noqa: E402,F401
                      MountTestCase, half_written, is_stale, unmount, wait_for, write_skill)
from mcpclient import SKILLSFS_MCP, McpClient  # noqa: E402,F401

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
