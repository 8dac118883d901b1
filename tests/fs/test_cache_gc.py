#!/usr/bin/env python3
"""The cache folder under a bound: `skillsfs gc` and -o cache_max.  Real git
repositories served on loopback (tests/lib/gitserver.py) fetched into the
cache by real mounts and by `skillsfs check`; an MCP server (the official
SDK's, tests/lib/mcpskillserver.py) that never stops changing its listing.
gc --dry-run removes nothing; gc removes the least recently fetched first
and keeps what a running mount leases (two mounts sharing one cache) and
what a lockfile pins; a dead mount's lease is ignored; a link planted in the
cache is never followed; and a mount keeps the cache under its cache_max
while a server's listing storms."""

import hashlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import unittest

from mountlib import SKILLSFS, MountTestCase, wait_for
from test_git_sources import GitRepos, fill_work

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from gitserver import GitServer  # noqa: E402
from mcpskillserver import SkillServer  # noqa: E402
from test_mcp_source import fill as fill_served  # noqa: E402
from test_wellknown_source import CSV, PDF, Site, entry, sha, skill_md  # noqa: E402
from stallserver import StallServer  # noqa: E402

OLD = 1_500_000_000     # 2017: long before anything these tests fetch
# tests/fs/cache_pause.c: a collection or a lease held at a point
CACHE_PAUSE = os.environ.get("SKILLSFS_CACHE_PAUSE") or os.path.join(
    os.environ.get("SKILLSFS_BUILD_ROOT", "build"), "tests", "fs", "cache_pause")


class Paused:
    """A cache_pause process: it says each point it is held at in a line,
    and goes on when told.  Ended after the test, also when it fails."""

    def __init__(self, test, *args):
        self.proc = subprocess.Popen([CACHE_PAUSE] + list(args), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        self.lines = queue.Queue()
        self.reader = threading.Thread(target=self._read)
        self.reader.start()
        test.addCleanup(self.end)

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def expect(self, word, timeout=60):
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError("cache_pause did not say %r in %ds" % (word, timeout))
        if line != word:
            raise AssertionError("cache_pause said %r, not %r: %s" % (
                line, word, self.proc.stderr.read() if line is None else ""))

    def go(self):
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()

    def finish(self, timeout=60):
        """Everything else it says, once it has ended well."""
        self.proc.stdin.close()
        self.proc.wait(timeout=timeout)
        self.reader.join()
        said = []
        while (line := self.lines.get()) is not None:
            said.append(line)
        if self.proc.returncode != 0:
            raise AssertionError("cache_pause failed: " + self.proc.stderr.read())
        return said

    def end(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.reader.join()
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if not f.closed:
                f.close()


def cache_bytes(cache):
    """What gc counts: the regular files of its entries, no link followed."""
    total = 0
    for top in ("git", "mcp", "wellknown", "git-blobs", "git-units"):
        for dirpath, dirs, files in os.walk(os.path.join(cache, top)):
            for name in files:
                st = os.lstat(os.path.join(dirpath, name))
                if os.path.isfile(os.path.join(dirpath, name)) and not os.path.islink(
                        os.path.join(dirpath, name)):
                    total += st.st_size
    digests = os.path.join(cache, "git-digests")
    if os.path.isfile(digests) and not os.path.islink(digests):
        total += os.lstat(digests).st_size
    return total


def snapshot(folder):
    """Every entry below folder with its kind, size and mtime, but the
    collector's lock file and the mounts' leases."""
    out = {}
    for dirpath, dirs, files in os.walk(folder):
        for name in dirs + files:
            p = os.path.join(dirpath, name)
            rel = os.path.relpath(p, folder)
            if rel == "gc.lock" or rel.split(os.sep)[0] == "leases":
                continue
            st = os.lstat(p)
            out[rel] = (st.st_mode, st.st_size, st.st_mtime_ns)
    return out


def age(path, when=OLD):
    """Makes a cache entry look last used at `when` (gc reads the mtimes of
    the entry and of what it holds at its top)."""
    for name in os.listdir(path):
        os.utime(os.path.join(path, name), (when, when), follow_symlinks=False)
    os.utime(path, (when, when), follow_symlinks=False)


class CacheGc(MountTestCase):
    def setUp(self):
        self.repos = GitRepos(self.make_dir())
        served = os.path.join(self.repos.top, "served")
        os.makedirs(served)
        for name in ("alpha", "beta", "gamma", "delta"):
            work = self.repos.init(name + "-work")
            fill_work(work)
            self.repos.commit(work, "first")
            self.repos.git(self.repos.top, "clone", "-q", "--bare", work,
                           os.path.join(served, name + ".git"))
        self.server = GitServer(served)
        self.addCleanup(self.server.stop)
        self.xdg = self.make_dir()
        self.cache = os.path.join(self.xdg, "skillsfs")

    def url(self, name):
        return "git+" + self.server.url(name + ".git") + "#main:skills"

    def mount_git(self, *names, options=()):
        sources = []
        for name in names:
            sources += ["--source", self.url(name)]
        return self.mount([], sources + ["-o", "cache_dir=" + self.cache] + list(options))

    def run_cmd(self, *args):
        return subprocess.run([SKILLSFS] + list(args), capture_output=True, text=True,
                              timeout=120, env=dict(os.environ, XDG_CACHE_HOME=self.xdg))

    def fetch(self, name):
        r = self.run_cmd("check", "--source", self.url(name))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def gc(self, *args, status=0):
        r = self.run_cmd("gc", *args)
        self.assertEqual(r.returncode, status, r.stdout + r.stderr)
        return r.stdout

    def clone(self, name):
        """The entry of the clone of repository `name`, or None."""
        found = [d for d in os.listdir(os.path.join(self.cache, "git"))
                 if d.startswith(name + "-") and d.endswith(".git")]
        return "git/" + found[0] if found else None

    def line(self, out, entry):
        [line] = [x for x in out.splitlines() if " %s (" % entry in x]
        return line

    def test_gc_drops_the_least_recently_used_and_keeps_what_mounts_and_locks_need(self):
        live = self.mount_git("alpha")
        # gamma pinned by a lockfile written from a mount that then ends
        pinned = self.mount_git("gamma")
        lockfile = os.path.join(self.make_dir(), "skills.lock")
        r = self.run_cmd("lock", "-o", lockfile, pinned.path)
        self.assertEqual(r.returncode, 0, r.stderr)
        pinned.stop()
        self.fetch("beta")
        self.fetch("delta")
        clones = {n: self.clone(n) for n in ("alpha", "beta", "gamma", "delta")}
        self.assertTrue(all(clones.values()), clones)
        # alpha and gamma are the oldest of all, beta older than delta
        for name, when in (("alpha", OLD - 20), ("gamma", OLD - 10), ("beta", OLD),
                           ("delta", OLD + 10)):
            age(os.path.join(self.cache, clones[name]), when)
        # kept SKILL.md files, as an earlier build's first mounts wrote
        # them: gc still removes them
        os.makedirs(os.path.join(self.cache, "git-blobs"), exist_ok=True)
        for n in ("0" * 40, "1" * 40):
            with open(os.path.join(self.cache, "git-blobs", n), "w") as f:
                f.write("---\nname: old\ndescription: Kept.\n---\n")
        for folder in ("git-blobs", "git-units"):
            for n in os.listdir(os.path.join(self.cache, folder)) if os.path.isdir(
                    os.path.join(self.cache, folder)) else []:
                os.utime(os.path.join(self.cache, folder, n), (OLD + 20, OLD + 20))
        if os.path.exists(os.path.join(self.cache, "git-digests")):
            os.utime(os.path.join(self.cache, "git-digests"), (OLD + 20, OLD + 20))

        # a dry run says what would go and removes nothing
        before = snapshot(self.cache)
        out = self.gc("--dry-run", "--lock", lockfile, "--max", "0", status=1)
        self.assertEqual(snapshot(self.cache), before)
        self.assertIn("would remove", self.line(out, clones["beta"]))
        self.assertIn("would remove", self.line(out, clones["delta"]))
        self.assertIn("in use by a running mount", self.line(out, clones["alpha"]))
        self.assertIn("pinned by the lockfile", self.line(out, clones["gamma"]))
        self.assertIn("1 running mount", out)

        # a bound that beta's going meets: beta alone goes, least recently
        # used of what may go; alpha and gamma, older, stay
        beta_bytes = cache_bytes(self.cache) - cache_bytes_without(self.cache, clones["beta"])
        bound = cache_bytes(self.cache) - beta_bytes
        out = self.gc("--lock", lockfile, "--max", str(bound))
        self.assertIn("removed", self.line(out, clones["beta"]))
        self.assertEqual(self.clone("beta"), None)
        for name in ("alpha", "gamma", "delta"):
            self.assertEqual(self.clone(name), clones[name])
        self.assertLessEqual(cache_bytes(self.cache), bound)

        # nothing may stay but what is in use: what is in use alone is
        # over a bound of 0, which gc says
        r = self.run_cmd("gc", "--lock", lockfile, "--max", "0")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("what is in use alone is over cache_max", r.stderr)
        self.assertEqual(self.clone("delta"), None)
        self.assertEqual(os.listdir(os.path.join(self.cache, "git-blobs")), [])
        self.assertEqual(self.clone("alpha"), clones["alpha"])
        self.assertEqual(self.clone("gamma"), clones["gamma"])
        # the live mount still fetches into its clone and serves it
        gen = live.generation()
        live.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: live.generation() > gen, what="the build SIGHUP made")
        self.assertIn(b"version one", live.read("skills", "pdf-forms", "reference.md"))

    def test_least_recently_used_is_by_reads_not_by_fetches(self):
        # alpha fetched and mounted long ago (its start marked it used
        # then), gamma mounted as long ago and never read; beta fetched
        # after both by a command, and never read
        m = self.mount_git("alpha", "gamma", options=["-o", "fetch_interval=0"])
        self.fetch("beta")
        alpha, beta, gamma = self.clone("alpha"), self.clone("beta"), self.clone("gamma")
        age(os.path.join(self.cache, alpha), OLD)
        age(os.path.join(self.cache, gamma), OLD)
        age(os.path.join(self.cache, beta), OLD + 10)
        # the mount reads alpha's files, and ends
        self.assertIn(b"version one", m.read("skills", "pdf-forms", "reference.md"))
        m.stop()
        # alpha, read last, is the most recently used; gamma, only
        # mounted, stays as old as it was
        out = self.gc("--dry-run", "--max", "0")
        self.assertNotIn("used 2017", self.line(out, alpha))
        self.assertIn("used 2017", self.line(out, gamma))
        self.assertIn("used 2017", self.line(out, beta))
        # a bound that one clone's going meets: gamma's, then beta's
        # (what was never read), never alpha's
        bound = cache_bytes_without(self.cache, gamma)
        bound -= cache_bytes(self.cache) - cache_bytes_without(self.cache, beta)
        out = self.gc("--max", str(bound))
        self.assertEqual((self.clone("gamma"), self.clone("beta")), (None, None))
        self.assertEqual(self.clone("alpha"), alpha)
        self.assertIn("keep", self.line(out, alpha))

    def test_check_and_export_lease_what_they_fetch_while_they_run(self):
        for command in (["check"], ["export", "--anthropic"]):
            with self.subTest(command=command[0]):
                # the command fetches beta, then waits on a server that
                # never answers a read: it runs on, holding beta
                srv = StallServer("read")
                self.addCleanup(srv.stop)
                args = command + [os.path.join(self.make_dir(), "out")] \
                    if command[0] == "export" else command
                proc = subprocess.Popen(
                    [SKILLSFS] + args + ["--source", self.url("beta"),
                                         "--source", "mcp+" + srv.url],
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                    env=dict(os.environ, XDG_CACHE_HOME=self.xdg))
                try:
                    srv.wait_for("resources/read")
                    beta = self.clone("beta")
                    self.assertTrue(beta)
                    out = self.gc("--max", "0", status=1)
                    self.assertIn("in use by a running mount or command",
                                  self.line(out, beta))
                    self.assertIn("1 running mount or command", out)
                    self.assertEqual(self.clone("beta"), beta)
                finally:
                    srv.stop()
                    try:
                        proc.communicate(timeout=120)
                    finally:
                        if proc.poll() is None:
                            proc.kill()
                            proc.communicate()
                # the command has ended: its lease with it
                self.assertEqual(os.listdir(os.path.join(self.cache, "leases")), [])
                out = self.gc("--max", "0")
                self.assertIn("removed", self.line(out, beta))
                self.assertEqual(self.clone("beta"), None)

    @unittest.skipUnless(SkillServer.available(),
                         "needs node and the MCP SDK (npm ci in tests/mcp)")
    def test_two_mounts_share_a_cache_and_a_dead_mounts_lease_is_ignored(self):
        served = os.path.join(self.make_dir(), "skills")
        fill_served(served)
        srv = SkillServer(served)
        self.addCleanup(srv.stop)
        first = self.mount_git("alpha")
        # the server first: its skills shadow the repositories' of the
        # same names
        second = self.mount([], ["--source", "mcp+" + srv.url,
                                 "--source", self.url("alpha"), "--source", self.url("beta"),
                                 "-o", "cache_dir=" + self.cache])
        self.assertEqual(second.read("skills", "pdf-forms", "scripts", "fill.py"),
                         b"print('filled')\n")
        alpha, beta = self.clone("alpha"), self.clone("beta")
        mcp = os.path.join(self.cache, "mcp")
        [server] = [d for d in os.listdir(mcp) if d != "blobs"]
        blobs = os.listdir(os.path.join(mcp, "blobs"))
        self.assertTrue(blobs)
        out = self.gc("--max", "0", status=1)
        self.assertIn("2 running mounts", out)
        self.assertEqual((self.clone("alpha"), self.clone("beta")), (alpha, beta))
        self.assertIn("in use by a running mount", self.line(out, "mcp/" + server))
        self.assertIn("named by a kept listing", self.line(out, "mcp/blobs/" + blobs[0]))
        self.assertEqual(os.listdir(os.path.join(mcp, "blobs")), blobs)
        # the second ends: its lease goes with it, alpha stays the first's
        second.stop()
        self.gc("--max", "0", status=1)
        self.assertEqual((self.clone("alpha"), self.clone("beta")), (alpha, None))
        self.assertEqual(sorted(os.listdir(mcp)), ["blobs"])
        self.assertEqual(os.listdir(os.path.join(mcp, "blobs")), [])
        # the first is killed: its lease stays behind, held by nobody
        first.terminate(signal.SIGKILL)
        leases = os.listdir(os.path.join(self.cache, "leases"))
        self.assertEqual(len(leases), 1, leases)
        out = self.gc("--max", "0")
        self.assertIn("removed 1 lease of mounts that ended", out)
        self.assertEqual(self.clone("alpha"), None)
        self.assertEqual(os.listdir(os.path.join(self.cache, "leases")), [])

    def test_a_mount_that_starts_while_gc_runs_keeps_its_clone(self):
        # gc has listed the entries, alpha's clone with them, and is held
        # there; a mount of alpha starts (and takes its lease) meanwhile
        self.fetch("alpha")
        alpha = self.clone("alpha")
        gc = Paused(self, "gc", self.cache, "0")
        gc.expect("listed")
        m = self.mount_git("alpha", options=["-o", "fetch_interval=0"])
        gc.go()
        gc.expect("moved")
        self.assertEqual(self.clone("alpha"), alpha)
        gc.go()
        self.assertIn("kept " + alpha, gc.finish())
        self.assertEqual(self.clone("alpha"), alpha)
        self.assertIn(b"version one", m.read("skills", "pdf-forms", "reference.md"))
        # what went is deleted, trash/ with it
        self.assertFalse(os.path.lexists(os.path.join(self.cache, "trash")))
        m.stop()
        out = self.gc("--max", "0")
        self.assertIn("removed", self.line(out, alpha))
        self.assertEqual(self.clone("alpha"), None)
        self.assertFalse(os.path.lexists(os.path.join(self.cache, "trash")))

    def test_a_mount_that_starts_while_gc_deletes_its_clone_fetches_it_whole(self):
        # gc has moved alpha's clone out of its place and is held before
        # deleting it: a mount of alpha that starts then finds no clone,
        # never half of one, and clones it again
        self.fetch("alpha")
        alpha = self.clone("alpha")
        gc = Paused(self, "gc", self.cache, "0")
        gc.expect("listed")
        gc.go()
        gc.expect("moved")
        self.assertEqual(self.clone("alpha"), None)
        trash = os.path.join(self.cache, "trash")
        self.assertTrue(any(os.path.isdir(os.path.join(trash, n, "objects"))
                            for n in os.listdir(trash)), os.listdir(trash))
        m = self.mount_git("alpha", options=["-o", "fetch_interval=0"])
        self.assertEqual(self.clone("alpha"), alpha)
        gc.go()
        self.assertIn("removed " + alpha, gc.finish())
        # the deleting took what it moved, not the new clone
        self.assertFalse(os.path.lexists(trash))
        self.assertEqual(self.clone("alpha"), alpha)
        self.assertIn(b"version one", m.read("skills", "pdf-forms", "reference.md"))
        out = self.gc("--max", "0", status=1)
        self.assertIn("in use by a running mount", self.line(out, alpha))

    def test_a_lease_is_whole_while_it_is_refreshed(self):
        # a lease on alpha, as a mount's; held midway through the refresh
        # a mount does once it has daemonized, and after it
        self.fetch("alpha")
        alpha = self.clone("alpha")
        held = Paused(self, "lease", self.cache, self.url("alpha"))
        for point in ("leased", "refreshing", "refreshed"):
            held.expect(point)
            out = self.gc("--max", "0", status=1)
            self.assertIn("in use by a running mount", self.line(out, alpha), point)
            self.assertIn("1 running mount", out, point)
            self.assertNotIn("lease of mounts that ended", out, point)
            self.assertEqual(self.clone("alpha"), alpha, point)
            held.go()
        held.finish()
        # dropped: the lease, and the temporary of its refresh, are gone
        self.assertEqual(os.listdir(os.path.join(self.cache, "leases")), [])
        out = self.gc("--max", "0")
        self.assertIn("removed", self.line(out, alpha))

    def test_a_lease_temporary_a_killed_writer_left_goes_and_a_writers_stays(self):
        # a lease held midway through its refresh: its temporary is
        # written and locked; made to look old, it stays all the same
        self.fetch("alpha")
        leases = os.path.join(self.cache, "leases")
        held = Paused(self, "lease", self.cache, self.url("alpha"))
        held.expect("leased")
        held.go()
        held.expect("refreshing")
        [writing] = [n for n in os.listdir(leases) if n.endswith(".lease.new")]
        os.utime(os.path.join(leases, writing), (OLD, OLD))
        # temporaries of writers killed before their rename: one old,
        # one just made (its writer may not have locked it yet)
        dead, fresh = ".1-0badc0de.lease.new", ".2-0badc0de.lease.new"
        for name in (dead, fresh):
            with open(os.path.join(leases, name), "w") as f:
                f.write("pid 1\n")
        os.utime(os.path.join(leases, dead), (OLD, OLD))
        out = self.gc("--max", "0", status=1)
        self.assertIn("removed 1 lease of mounts that ended", out)
        self.assertFalse(os.path.lexists(os.path.join(leases, dead)))
        self.assertTrue(os.path.exists(os.path.join(leases, fresh)))
        self.assertTrue(os.path.exists(os.path.join(leases, writing)))
        held.go()
        held.expect("refreshed")
        held.go()
        held.finish()
        # the writer's went into place, the fresh one waits its minute
        self.assertEqual(os.listdir(leases), [fresh])
        out = self.gc("--max", "0")
        self.assertNotIn("lease of mounts that ended", out)
        self.assertEqual(os.listdir(leases), [fresh])

    def test_a_listing_stored_while_gc_runs_keeps_the_file_it_names(self):
        # a running mount's lease on an MCP server's folder, which holds a
        # listing naming one verified file; another verified file, named
        # by no listing, is in the cache too
        root = "mcp+http://127.0.0.1:9/mcp"
        self.fetch("alpha")
        held = Paused(self, "lease", self.cache, root)
        held.expect("leased")
        leases = os.path.join(self.cache, "leases")
        [lease] = os.listdir(leases)
        with open(os.path.join(leases, lease)) as f:
            entry = f.read().splitlines()[1]
        server = os.path.join(self.cache, entry)
        blobs = os.path.join(self.cache, "mcp", "blobs")
        os.makedirs(server, mode=0o700)
        os.makedirs(blobs, mode=0o700)
        named, other = b"named by the first listing\n", b"already here\n"
        for data in (named, other):
            with open(os.path.join(blobs, sha(data)), "wb") as f:
                f.write(data)

        def store(data):
            # a listing as the mount's update stores it (mcp_fetch.c):
            # written aside, renamed into place, then named current
            text = json.dumps({"url": root, "skills": [{"resources": [
                {"sha256": "sha256:" + sha(data), "size": len(data)}]}]})
            h = hashlib.sha256(text.encode()).hexdigest()
            for name, body in (("listing-%s.json" % h, text), ("current", h)):
                with open(os.path.join(server, ".new"), "w") as f:
                    f.write(body)
                os.rename(os.path.join(server, ".new"), os.path.join(server, name))
        store(named)
        # gc has listed the entries, the unnamed file with them; the
        # mount stores a new listing that names that file meanwhile
        gc = Paused(self, "gc", self.cache, "0")
        gc.expect("listed")
        store(other)
        gc.go()
        gc.expect("moved")
        gc.go()
        said = gc.finish()
        self.assertIn("kept mcp/blobs/" + sha(other), said)
        self.assertIn("kept " + entry, said)
        self.assertTrue(os.path.exists(os.path.join(blobs, sha(other))))
        for point in ("refreshing", "refreshed"):
            held.go()
            held.expect(point)
        held.go()
        held.finish()

    def test_what_a_gc_ended_midway_left_goes_and_a_planted_trash_is_not_followed(self):
        # what a collection killed while deleting left in trash/
        self.fetch("beta")
        left = os.path.join(self.cache, "trash", "0badc0de-3")
        os.makedirs(os.path.join(left, "objects"))
        with open(os.path.join(left, "objects", "pack"), "wb") as f:
            f.write(b"half deleted")
        self.gc("--max", "0")
        self.assertFalse(os.path.lexists(os.path.join(self.cache, "trash")))
        self.assertEqual(self.clone("beta"), None)
        # trash/ a link out of the cache: never followed, what goes is
        # removed in place
        self.fetch("beta")
        beta = self.clone("beta")
        outside = self.make_dir()
        with open(os.path.join(outside, "precious"), "w") as f:
            f.write("not the cache's\n")
        os.symlink(outside, os.path.join(self.cache, "trash"))
        before = snapshot(outside)
        out = self.gc("--max", "0")
        self.assertIn("removed", self.line(out, beta))
        self.assertEqual(self.clone("beta"), None)
        self.assertEqual(snapshot(outside), before)
        self.assertTrue(os.path.islink(os.path.join(self.cache, "trash")))

    def test_a_link_planted_in_the_cache_is_never_followed(self):
        self.fetch("beta")
        outside = self.make_dir()
        with open(os.path.join(outside, "precious"), "w") as f:
            f.write("not the cache's\n")
        beta = os.path.join(self.cache, self.clone("beta"))
        os.symlink(outside, os.path.join(beta, "objects", "planted"))
        os.symlink(outside, os.path.join(beta, "planted-top"))
        os.symlink(outside, os.path.join(self.cache, "git", "planted.git"))
        os.makedirs(os.path.join(self.cache, "git-blobs"), exist_ok=True)
        os.symlink(outside, os.path.join(self.cache, "git-blobs", "0" * 40))
        os.symlink(os.path.join(outside, "precious"), os.path.join(self.cache, "git-digests.link"))
        before = snapshot(outside)
        out = self.gc("--max", "0")
        self.assertIn("removed", self.line(out, "git/" + os.path.basename(beta)))
        self.assertFalse(os.path.lexists(beta))
        self.assertEqual(snapshot(outside), before)
        with open(os.path.join(outside, "precious")) as f:
            self.assertEqual(f.read(), "not the cache's\n")
        # the links that are no entries of the cache are left as they are
        self.assertTrue(os.path.islink(os.path.join(self.cache, "git", "planted.git")))

    def test_cache_max_and_the_config_file(self):
        self.fetch("beta")
        conf = os.path.join(self.make_dir(), "skillsfs.yaml")
        with open(conf, "w") as f:
            f.write("options:\n  cache_dir: %s\n  cache_max: 1G\n" % self.cache)
        out = self.gc("--config", conf, "--dry-run")
        self.assertIn("of 1.0 GiB (cache_max)", out)
        self.assertIn("keep", self.line(out, self.clone("beta")))
        with open(conf, "w") as f:
            f.write("options:\n  cache_dir: %s\n  cache_max: 0\n" % self.cache)
        self.gc("--config", conf)
        self.assertEqual(self.clone("beta"), None)
        with open(conf, "w") as f:
            f.write("options:\n  cache_max: 12Q\n")
        r = self.run_cmd("gc", "--config", conf)
        self.assertEqual(r.returncode, 2)
        self.assertIn("cache_max: expected a size in bytes, or with K, M, G or T", r.stderr)
        r = self.run_cmd("gc", "--max", "lots")
        self.assertEqual(r.returncode, 2)
        self.assertIn("bad --max", r.stderr)


class WellKnownCacheGc(MountTestCase):
    """A website's cache (wellknown/): a new index prunes the listings but
    the last two and the verified files only older ones named; gc keeps
    what a running mount leases and a lockfile pins, and drops the rest."""

    def setUp(self):
        self.site = Site(self.make_dir())
        self.addCleanup(self.site.stop)
        self.site.put_skill("pdf-forms", PDF)
        self.site.put_skill("csv-report", CSV)
        self.site.put_index([entry("csv-report", "Summarize a CSV file.", CSV),
                             entry("pdf-forms", "Fill in PDF forms.", PDF)])
        self.xdg = self.make_dir()
        self.cache = os.path.join(self.xdg, "skillsfs")
        self.wk = os.path.join(self.cache, "wellknown")

    def run_cmd(self, *args):
        return subprocess.run([SKILLSFS] + list(args), capture_output=True, text=True,
                              timeout=120, env=dict(os.environ, XDG_CACHE_HOME=self.xdg))

    def gc(self, *args, status=0):
        r = self.run_cmd("gc", *args)
        self.assertEqual(r.returncode, status, r.stdout + r.stderr)
        return r.stdout

    def line(self, out, entry):
        [line] = [x for x in out.splitlines() if " %s (" % entry in x]
        return line

    def site_folder(self):
        [name] = [d for d in os.listdir(self.wk) if d != "blobs"]
        return name

    def listings(self):
        folder = os.path.join(self.wk, self.site_folder())
        return sorted(n for n in os.listdir(folder) if n.startswith("listing-"))

    def blobs(self):
        return set(os.listdir(os.path.join(self.wk, "blobs")))

    def publish(self, version):
        """A new SKILL.md of pdf-forms; csv-report no longer listed."""
        files = dict(PDF, **{"SKILL.md": skill_md("pdf-forms", "Fill in PDF forms, v%d." % version)})
        self.site.put_skill("pdf-forms", files)
        self.site.put_index([entry("pdf-forms", "Fill in PDF forms, v%d." % version, files)])
        return files

    def test_a_websites_cache_is_pruned_and_collected(self):
        m = self.mount([], ["--source", self.site.url, "-o", "cache_dir=" + self.cache,
                            "-o", "fetch_interval=0"])
        self.assertEqual(m.read("skills", "csv-report", "template.md"), CSV["template.md"])
        site = "wellknown/" + self.site_folder()
        csv_md = sha(CSV["SKILL.md"])
        self.assertIn(csv_md, self.blobs())
        self.assertEqual(len(self.listings()), 1)
        # what only csv-report named is older than a fetch under way
        for name in self.blobs():
            os.utime(os.path.join(self.wk, "blobs", name), (OLD, OLD))

        # two new indexes: the first listing goes, and with it what only
        # it named; the one before the current stays (a build may serve it)
        self.publish(2)
        m.sighup()
        self.assertEqual(len(self.listings()), 2)
        self.assertIn(csv_md, self.blobs())
        v3 = self.publish(3)
        m.sighup()
        self.assertEqual(len(self.listings()), 2)
        self.assertNotIn(csv_md, self.blobs())
        self.assertNotIn(sha(CSV["template.md"]), self.blobs())
        self.assertIn(sha(v3["SKILL.md"]), self.blobs())
        self.assertEqual(sorted(os.listdir(m.file("skills"))), ["pdf-forms"])

        # a running mount's website stays, and the files its listings name
        out = self.gc("--max", "0", status=1)
        self.assertIn("in use by a running mount", self.line(out, site))
        kept = "wellknown/blobs/" + sha(v3["SKILL.md"])
        self.assertIn("named by a kept listing", self.line(out, kept))
        self.assertTrue(os.path.isdir(os.path.join(self.cache, site)))

        # a lockfile pins it once the mount has ended
        lockfile = os.path.join(self.make_dir(), "skills.lock")
        r = self.run_cmd("lock", "-o", lockfile, m.path)
        self.assertEqual(r.returncode, 0, r.stderr)
        m.stop()
        out = self.gc("--lock", lockfile, "--max", "0", status=1)
        self.assertIn("pinned by the lockfile", self.line(out, site))
        self.assertIn(sha(v3["SKILL.md"]), self.blobs())

        # nothing needs it: the website's folder and its files go
        out = self.gc("--max", "0")
        self.assertIn("removed", self.line(out, site))
        self.assertEqual(sorted(os.listdir(self.wk)), ["blobs"])
        self.assertEqual(self.blobs(), set())
        self.assertEqual(cache_bytes(self.cache), 0)


def cache_bytes_without(cache, entry):
    """cache_bytes with the entry's bytes left out."""
    skip = 0
    for dirpath, dirs, files in os.walk(os.path.join(cache, entry)):
        for name in files:
            p = os.path.join(dirpath, name)
            if os.path.isfile(p) and not os.path.islink(p):
                skip += os.lstat(p).st_size
    return cache_bytes(cache) - skip


@unittest.skipUnless(SkillServer.available(),
                     "needs node and the MCP SDK (npm ci in tests/mcp)")
class CacheMaxThroughAStorm(MountTestCase):
    def test_the_cache_stays_under_cache_max_while_a_listing_storms(self):
        served = os.path.join(self.make_dir(), "skills")
        fill_served(served)
        cache = self.make_dir()
        bound = 96 * 1024
        # what an earlier mount left: a clone and a server's folder that
        # nothing uses, and verified files no listing names (300 KiB)
        old_clone = os.path.join(cache, "git", "old-0123456789abcdef.git")
        os.makedirs(os.path.join(old_clone, "objects"))
        with open(os.path.join(old_clone, "objects", "pack"), "wb") as f:
            f.write(os.urandom(200 * 1024))
        old_server = os.path.join(cache, "mcp", "old.example-0123456789abcdef")
        os.makedirs(old_server)
        blobs = os.path.join(cache, "mcp", "blobs")
        os.makedirs(blobs)
        for i in range(10):
            data = os.urandom(10 * 1024)
            with open(os.path.join(blobs, hashlib.sha256(data).hexdigest()), "wb") as f:
                f.write(data)
        with open(os.path.join(old_server, "listing-%s.json" % ("1" * 64)), "w") as f:
            json.dump({"skills": []}, f)
        age(old_clone)
        age(old_server)
        self.assertGreater(cache_bytes(cache), bound)

        srv = SkillServer(served, era="modern", storm=400)
        self.addCleanup(srv.stop)
        m = self.mount([], ["--source", "mcp+" + srv.url, "-o", "cache_dir=" + cache,
                            "-o", "fetch_interval=0", "-o", "cache_max=%d" % bound])
        # read every file: the verified files of the listing served
        for skill in ("pdf-forms", "csv-report"):
            for dirpath, dirs, files in os.walk(m.file("skills", skill)):
                for name in files:
                    with open(os.path.join(dirpath, name), "rb") as f:
                        f.read()
        # sampled while the storm's fetches go on, from the mount's start
        sizes, done = [], threading.Event()

        def sample():
            while not done.is_set():
                sizes.append(cache_bytes(cache))
                done.wait(0.01)
        sampler = threading.Thread(target=sample)
        sampler.start()
        try:
            line = srv._line()
            while line == "listening":
                line = srv._line()
            self.assertEqual(line, "storm over")
            wait_for(lambda: cache_bytes(cache) <= bound, timeout=30,
                     what="the cache under cache_max")
        finally:
            done.set()
            sampler.join()
        sizes.append(cache_bytes(cache))
        # once under the bound, the cache never went over it again
        under = next(i for i, s in enumerate(sizes) if s <= bound)
        self.assertLessEqual(max(sizes[under:]), bound, sizes)
        self.assertFalse(os.path.exists(old_clone))
        self.assertEqual(sorted(os.listdir(m.file("skills"))), ["csv-report", "pdf-forms"])
        self.assertEqual(m.read("skills", "pdf-forms", "scripts", "fill.py"),
                         b"print('filled')\n")


if __name__ == "__main__":
    unittest.main()
