#!/usr/bin/env python3
"""Faults: the daemon killed with SIGKILL under a running skillsfs-mcp; the
inotify event queue overflowing; the inotify watches of the daemon's user
used up; the MCP client vanishing in the middle of a large response."""

import ctypes
import errno
import json
import os
import select
import shutil
import signal
import subprocess
import time
import unittest

from hostilelib import (SKILLSFS_MCP, CONTROL_ID, HostileCase, Mount, is_stale, unmount,
                        wait_for, write_skill, needs_root)

NOBODY = 65534


class DaemonKilled(HostileCase):
    def test_sigkill_under_mcp(self):
        m = self.mount_root()
        s = self.mcp()
        r = s.tool("list_skills", {})
        self.assertFalse(r["result"].get("isError"), r)
        m.proc.kill()
        m.proc.wait(timeout=10)
        wait_for(lambda: is_stale(m.path), what="the mount to go stale")

        # every kind of request answers at once, naming the mount and the cure
        def says_broken(text):
            return m.path in text and "fusermount3 -u" in text
        r = s.tool("list_skills", {})
        self.assertTrue(r["result"].get("isError"), r)
        self.assertTrue(says_broken(r["result"]["content"][0]["text"]), r)
        r = s.tool("get_skill", {"id": CONTROL_ID})
        self.assertTrue(r["result"].get("isError"), r)
        self.assertTrue(says_broken(r["result"]["content"][0]["text"]), r)
        for method, params in (("skills/list", {}), ("resources/list", {}),
                               ("resources/read", {"uri": "skill://control/SKILL.md"}),
                               ("resources/directory/read", {"uri": "skill://control"}),
                               ("prompts/list", {})):
            r = s.request(method, params)
            self.assertIn("error", r, (method, r))
            self.assertTrue(says_broken(r["error"]["message"]), (method, r))
        self.assertIn("fusermount3 -u", s.stderr())

        # mounted again (with a new skill): the same server recovers
        unmount(m.path)
        self.assertFalse(is_stale(m.path))
        r = s.tool("list_skills", {})      # nothing mounted: say how to mount
        self.assertTrue(r["result"].get("isError"), r)
        self.assertIn("skillsfs %s --skills-dir" % m.path, r["result"]["content"][0]["text"])
        write_skill(self.root, "after-restart")
        m2 = Mount([self.root], workdir=m.workdir)
        self.addCleanup(m2.stop)
        m2.start()
        r = s.tool("list_skills", {})
        self.assertFalse(r["result"].get("isError"), r)
        ids = [x["id"] for x in r["result"]["structuredContent"]["skills"]]
        self.assertIn("after-restart", ids)
        r = s.request("resources/read", {"uri": "skill://after-restart/SKILL.md"})
        self.assertIn("result", r, r)
        self.assertIn("answers again", s.stderr())
        s.finish()
        self.m = m2
        self.assert_safe()


class QueueOverflow(HostileCase):
    """The daemon stopped while a writer makes more events than the queue
    holds (fs.inotify.max_queued_events, 16384 by default): the kernel
    drops them, and the daemon must rescan everything."""

    def test_overflow_then_full_rescan(self):
        with open("/proc/sys/fs/inotify/max_queued_events") as f:
            queue = int(f.read())
        if queue > 200000:
            self.skipTest("fs.inotify.max_queued_events is %d" % queue)
        write_skill(self.root, "doomed")
        write_skill(self.root, "edited", body="Before.\n")
        m = self.mount_root()
        os.kill(m.proc.pid, signal.SIGSTOP)
        try:
            noise = os.path.join(self.root, "noise")
            os.makedirs(noise)
            for i in range(queue // 2 + 100):
                p = os.path.join(self.root, "n%06d" % i)
                with open(p, "w"):
                    pass
                os.unlink(p)            # create, close-write, delete: 3 events
            shutil.rmtree(noise)
            write_skill(self.root, "added")
            shutil.rmtree(os.path.join(self.root, "doomed"))
            write_skill(self.root, "edited", body="After.\n")
        finally:
            os.kill(m.proc.pid, signal.SIGCONT)
        wait_for(lambda: "overflow" in m.stderr(), what="the overflow noticed")
        wait_for(lambda: sorted(self.index_ids()) == ["added", CONTROL_ID, "edited"],
                 what="the rescan")
        wait_for(lambda: m.read("skills/edited/SKILL.md").endswith(b"After.\n"),
                 what="the edit")
        # exactly what a fresh mount of the same root shows
        fresh = self.mount([self.root])
        wait_for(lambda: m.read("index.json") == fresh.read("index.json"),
                 what="the same index as a fresh mount")
        self.assertEqual(self.status()["refresh_mode"], "inotify")
        self.assert_safe()


def libc():
    return ctypes.CDLL(None, use_errno=True)


class WatchHog:
    """A child process of user `uid` that takes that user's inotify watches
    (fs.inotify.max_user_watches) until the kernel says ENOSPC, keeping
    one inotify instance free for the daemon."""

    def __init__(self, uid, folders):
        r, w = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            os.close(r)
            code = 1
            try:
                os.setgid(uid)
                os.setuid(uid)
                code = self.hog(folders, w)
            finally:
                os._exit(code)
        os.close(w)
        with os.fdopen(r, "rb") as f:
            self.report = f.readline().decode()

    @staticmethod
    def hog(folders, w):
        c = libc()
        with open("/proc/sys/fs/inotify/max_user_instances") as f:
            instances = int(f.read()) - 1
        taken = 0
        for _ in range(instances):
            fd = c.inotify_init1(os.O_CLOEXEC)
            if fd < 0:
                break
            for d in folders:
                if c.inotify_add_watch(fd, d, 0x100) < 0:   # IN_CREATE
                    if ctypes.get_errno() == errno.ENOSPC:
                        os.write(w, b"full %d\n" % taken)
                        signal.pause()
                        return 0
                    os.write(w, b"error %d\n" % ctypes.get_errno())
                    return 1
                taken += 1
        os.write(w, b"not full %d\n" % taken)
        signal.pause()
        return 0

    def stop(self):
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)


class NobodyMount(Mount):
    """The daemon as user nobody (with the capabilities to mount and to read
    the test's folders), so that exhausting its watches costs no one else."""

    def argv(self):
        return ["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups",
                "--inh-caps=+sys_admin,+dac_override",
                "--ambient-caps=+sys_admin,+dac_override"] + super().argv()


@needs_root("lowering fs.inotify.max_user_watches")
class WatchesExhausted(HostileCase):
    # far above what any one user here needs (root's mounts and their
    # tests hold some 30,000), far below what would make the hog costly
    LOWER_TO = 262144

    def test_polling_takes_over(self):
        path = "/proc/sys/fs/inotify/max_user_watches"
        with open(path) as f:
            limit = int(f.read())
        # a machine with a huge limit would need a huge hog: lower it for
        # the test and restore it after
        if limit > self.LOWER_TO:
            self.addCleanup(self.write_sysctl, path, limit)
            self.write_sysctl(path, self.LOWER_TO)
            limit = self.LOWER_TO
        with open("/proc/sys/fs/inotify/max_user_instances") as f:
            instances = int(f.read()) - 1
        hog_dirs = os.path.join(self.make_dir(), "hog")
        per = limit // instances + 2
        folders = []
        for i in range(per):
            folders.append(os.path.join(hog_dirs, "%d" % i).encode())
            os.makedirs(folders[-1])
        os.chmod(os.path.dirname(hog_dirs), 0o755)
        hog = WatchHog(NOBODY, folders)
        self.addCleanup(hog.stop)
        self.assertTrue(hog.report.startswith("full"), hog.report)

        # allow_other lets this test read a mount of nobody's; the
        # documents it shares then show only what every user could read
        for d in (os.path.dirname(self.root), self.root):
            os.chmod(d, 0o755)
        m = NobodyMount([self.root], ["-o", "allow_other,poll_interval=200"])
        self.addCleanup(m.cleanup)
        self.m = m.start()
        self.assertIn("max_user_watches", m.stderr())
        self.assertEqual(self.status()["refresh_mode"], "polling")
        write_skill(self.root, "polled")
        wait_for(lambda: "polled" in self.index_ids(), what="a refresh by polling")
        with open(os.path.join(self.root, CONTROL_ID, "SKILL.md"), "a") as f:
            f.write("Edited.\n")
        wait_for(lambda: self.m.read("skills", CONTROL_ID, "SKILL.md").endswith(b"Edited.\n"),
                 what="an edit found by polling")
        self.assert_safe()

    @staticmethod
    def write_sysctl(path, value):
        with open(path, "w") as f:
            f.write("%d\n" % value)


class ClientVanishes(HostileCase):
    """The client goes away while skillsfs-mcp writes a large response."""

    def setUp(self):
        super().setUp()
        big = ("A line of a large reference, repeated. " * 3 + "\n") * 60000   # ~7 MB
        write_skill(self.root, "large", files={"references/big.md": big})

    def start(self, args):
        p = subprocess.Popen([SKILLSFS_MCP] + args, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.addCleanup(lambda: p.poll() is None and p.kill())
        lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "vanishing", "version": "0"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "resources/read",
             "params": {"uri": "skill://large/references/big.md"}}]
        for x in lines:
            p.stdin.write(json.dumps(x).encode() + b"\n")
        p.stdin.flush()
        return p

    def read_some(self, p, n):
        """Reads n bytes of output (the handshake and a piece of the answer)."""
        got = b""
        deadline = time.monotonic() + 20
        while len(got) < n:
            self.assertLess(time.monotonic(), deadline, "no output")
            ready, _, _ = select.select([p.stdout], [], [], 1)
            if ready:
                chunk = os.read(p.stdout.fileno(), n - len(got))
                self.assertTrue(chunk)
                got += chunk
        return got

    def exits(self, p):
        try:
            rc = p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.fail("skillsfs-mcp hangs after its client went away")
        err = p.stderr.read().decode("utf-8", "replace")
        p.stderr.close()
        for f in (p.stdin, p.stdout):
            try:
                f.close()
            except OSError:
                pass
        self.assertGreaterEqual(rc, 0, "skillsfs-mcp killed by signal %d\n%s" % (-rc, err))
        for marker in ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:"):
            self.assertNotIn(marker, err)
        return rc, err

    def test_output_closed_mid_response(self):
        m = self.mount_root()
        p = self.start(["--mount", m.path])
        self.read_some(p, 70000)
        p.stdout.close()                # stdin stays open: only writes fail
        self.exits(p)
        self.assert_safe()

    def test_client_gone_entirely(self):
        m = self.mount_root()
        p = self.start(["--mount", m.path])
        self.read_some(p, 70000)
        p.stdout.close()
        p.stdin.close()
        self.exits(p)
        self.assert_safe()

    def test_automounted_mount_goes_with_it(self):
        # the mount skillsfs-mcp made goes once no session holds it
        mnt = os.path.join(self.make_dir(), "mnt")
        os.makedirs(mnt)
        self.addCleanup(unmount, mnt)
        p = self.start(["--mount", mnt, "--skills-dir", self.root, "--linger", "0"])
        self.read_some(p, 70000)
        p.stdout.close()
        p.stdin.close()
        self.exits(p)
        wait_for(lambda: not (os.path.ismount(mnt) or is_stale(mnt)),
                 what="the mount to go after the last session")


if __name__ == "__main__":
    unittest.main(verbosity=2)
