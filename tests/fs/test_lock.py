#!/usr/bin/env python3
"""Lockfiles: `skillsfs lock MOUNTPOINT` names every source of a running
mount with what it serves, and `skillsfs MOUNTPOINT --lock FILE` mounts
exactly that again, over a folder and a bare git repository made here with
git itself: the locked commit after the branch moved on, byte-identical
index.json from every mount of one lockfile, a start refused when a locked
commit or a locked skill's content is gone, a locked skill edited while
mounted withdrawn, and the usage errors.  And over an MCP server (the
SDK's, on loopback): each skill's digest locked, a skill changed on the
server refusing the start or withdrawn at the next SIGHUP, the server's
token from the configuration file."""

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import unittest

from mountlib import SKILLSFS, Mount, MountTestCase, wait_for, write_skill
from test_git_sources import GitRepos, skill_md, write
from test_mcp_source import files_of, fill

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from mcpskillserver import SkillServer  # noqa: E402

# a skill withdrawn after an edit goes once a second look agrees
# (refresh.c), so the waits here are a little longer than mountlib's
CHANGE_TIMEOUT = 15.0


def content_digest(folder):
    """The digest of a skill's content as skillsfs(5) defines it, from the
    files themselves: SHA-256 over "PATH NUL SIZE NUL HEX LF" per file,
    sorted by path."""
    files = []
    for dirpath, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in names:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                data = f.read()
            rel = os.path.relpath(path, folder).encode()
            files.append((rel, len(data), hashlib.sha256(data).hexdigest()))
    h = hashlib.sha256()
    for rel, size, hexdigest in sorted(files):
        h.update(rel + b"\0" + str(size).encode() + b"\0" + hexdigest.encode() + b"\n")
    return "sha256:" + h.hexdigest()


def folder_entries(m):
    """status.json's skill folders: dir -> (state, [messages])."""
    return {s["dir"]: (s["state"], [(d["severity"], d["message"]) for d in s["diagnostics"]])
            for s in m.json("status.json")["skills"]}


class LockTestCase(MountTestCase):
    """What the tests of lockfiles share: `skillsfs lock` of a mount, and a
    mount that must not start.  self.env and self.lockfile are set up by
    each class."""

    def lock(self, m, *args):
        """`skillsfs lock`; returns (exit status, stdout, stderr)."""
        r = subprocess.run([SKILLSFS, "lock"] + list(args) + [m.path if m else ""],
                           capture_output=True, text=True, env=self.env, timeout=60)
        return r.returncode, r.stdout, r.stderr

    def write_lock(self, m):
        rc, out, err = self.lock(m, "-o", self.lockfile)
        self.assertEqual((rc, out, err), (0, "", ""))
        with open(self.lockfile) as f:
            return json.load(f)

    def refused(self, options):
        """A mount that must not start: its exit status and stderr.  A
        daemon that did start is unmounted (and the test fails)."""
        m = Mount([], options, env=self.env)
        self.addCleanup(m.cleanup)
        m._stderr = open(m.stderr_path, "wb")
        m.proc = subprocess.Popen(m.argv(), stdout=subprocess.DEVNULL,
                                  stderr=m._stderr, env=self.env)
        try:
            rc = m.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            m.stop()
            self.fail("the mount started:\n" + m.stderr())
        return rc, m.stderr()


class Locks(LockTestCase):
    def setUp(self):
        # HOME holds the folder source, so that the lockfile names it ~/skills
        self.home = self.make_dir()
        self.env = dict(os.environ, HOME=self.home)
        self.folder = os.path.join(self.home, "skills")
        write_skill(self.folder, "local-notes", files={"notes.md": "# Notes\n\none\n"})
        self.repos = GitRepos(self.make_dir())
        self.work = self.repos.init("work")
        write(os.path.join(self.work, "skills", "pdf-forms", "SKILL.md"), skill_md("pdf-forms"))
        write(os.path.join(self.work, "skills", "pdf-forms", "reference.md"), "version one\n")
        write(os.path.join(self.work, "skills", "csv-report", "SKILL.md"), skill_md("csv-report"))
        self.first = self.repos.commit(self.work, "first")
        self.bare = self.repos.bare_clone(self.work, "skills.git")
        self.url = "git+file://%s#main:skills" % self.bare
        self.lockfile = os.path.join(self.make_dir(), "skills.lock")

    # ---- helpers ----------------------------------------------------------

    def mount_sources(self):
        return self.mount([self.folder], ["--source", self.url], env=self.env)

    def mount_lock(self, lockfile=None):
        return self.mount([], ["--lock", lockfile or self.lockfile], env=self.env)

    def push(self, path, text, message):
        write(os.path.join(self.work, path), text)
        commit = self.repos.commit(self.work, message)
        self.repos.git(self.work, "push", "-q", self.bare, "main")
        return commit

    # ---- the lockfile -------------------------------------------------------

    def test_lockfile_names_every_source(self):
        m = self.mount_sources()
        lock = self.write_lock(m)
        notes = os.path.join(self.folder, "local-notes")
        self.assertEqual(lock, {
            "lockfileVersion": 1,
            "sources": [
                {"path": "~/skills", "skills": {"local-notes": content_digest(notes)}},
                {"url": "git+file://%s#%s:skills" % (self.bare, self.first), "commit": self.first},
            ]})
        # standard output, byte for byte the file
        rc, out, _ = self.lock(m)
        with open(self.lockfile) as f:
            self.assertEqual((rc, out), (0, f.read()))

    def test_two_locked_mounts_serve_the_locked_commit_byte_for_byte(self):
        m = self.mount_sources()
        index = m.read("index.json")
        self.write_lock(m)
        m.cleanup()
        second = self.push("skills/pdf-forms/reference.md", "version two\n", "second")

        a = self.mount_lock()
        b = self.mount_lock()
        for locked in (a, b):
            self.assertEqual(locked.json("status.json")["roots"][1]["commit"], self.first)
            self.assertEqual(locked.read("index.json"), index)
            self.assertEqual(locked.read("skills", "pdf-forms", "reference.md"), b"version one\n")
        self.assertEqual(files_of(a.file("skills")), files_of(b.file("skills")))
        # locking a locked mount gives the same lockfile
        with open(self.lockfile) as f:
            self.assertEqual(self.lock(a), (0, f.read(), ""))

        # without the lock, the branch's new commit
        moved = self.mount_sources()
        self.assertEqual(moved.json("status.json")["roots"][1]["commit"], second)
        self.assertEqual(moved.read("skills", "pdf-forms", "reference.md"), b"version two\n")
        self.assertNotEqual(moved.read("index.json"), index)

    def test_lock_from_the_configuration_file(self):
        m = self.mount_sources()
        index = m.read("index.json")
        self.write_lock(m)
        config = os.path.join(os.path.dirname(self.lockfile), "skillsfs.yaml")
        with open(config, "w") as f:
            f.write("lock: skills.lock\n")
        locked = self.mount([], ["--config", config], env=self.env)
        self.assertEqual(locked.read("index.json"), index)
        self.assertEqual([r["source"] for r in locked.json("status.json")["roots"]],
                         ["config lock", "config lock"])

        # skillsfs check --config checks what a mount of the lock would serve
        check = [SKILLSFS, "check", "--config", config]
        r = subprocess.run(check, capture_output=True, text=True, env=self.env, timeout=60)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        write(os.path.join(self.folder, "local-notes", "notes.md"), "# Notes\n\ntwo\n")
        r = subprocess.run(check, capture_output=True, text=True, env=self.env, timeout=60)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn('error: skill "local-notes" differs from the lock', r.stdout)

    # ---- refusing to start --------------------------------------------------

    def test_a_locked_skill_edited_or_gone_refuses_the_start(self):
        m = self.mount_sources()
        locked = self.write_lock(m)["sources"][0]["skills"]["local-notes"]
        m.cleanup()
        notes = os.path.join(self.folder, "local-notes")
        write(os.path.join(notes, "notes.md"), "# Notes\n\ntwo\n")
        rc, err = self.refused(["--lock", self.lockfile])
        self.assertEqual(rc, 1, err)
        self.assertIn('%s: skill "local-notes" differs from the lock: locked %s, found %s'
                      % (self.folder, locked, content_digest(notes)), err)
        self.assertIn("1 locked skill is not as locked; not mounting", err)

        shutil.rmtree(notes)
        rc, err = self.refused(["--lock", self.lockfile])
        self.assertEqual(rc, 1, err)
        self.assertIn('%s: skill "local-notes" is locked (%s) but not found' % (self.folder, locked), err)

    def test_a_locked_commit_the_repository_lacks_refuses_the_start(self):
        m = self.mount_sources()
        self.write_lock(m)
        m.cleanup()
        # the same path, another history: the locked commit is not in it
        shutil.rmtree(self.bare)
        other = self.repos.init("other")
        write(os.path.join(other, "skills", "pdf-forms", "SKILL.md"), skill_md("pdf-forms", "Other.\n"))
        self.repos.commit(other, "another first")
        self.repos.bare_clone(other, "skills.git")
        rc, err = self.refused(["--lock", self.lockfile])
        pinned = "git+file://%s#%s:skills" % (self.bare, self.first)
        self.assertEqual(rc, 1, err)
        self.assertIn("%s is not a branch, tag or commit of %s" % (self.first, self.bare), err)
        self.assertIn("--lock: the locked source %s cannot be read" % pinned, err)

    # ---- while mounted ------------------------------------------------------

    def test_a_locked_skill_edited_while_mounted_is_withdrawn(self):
        m = self.mount_sources()
        locked = self.write_lock(m)["sources"][0]["skills"]["local-notes"]
        m.cleanup()
        m = self.mount_lock()
        notes = os.path.join(self.folder, "local-notes")
        self.assertIn("local-notes", os.listdir(m.file("skills")))

        write(os.path.join(notes, "notes.md"), "# Notes\n\nedited\n")
        found = content_digest(notes)
        wait_for(lambda: "local-notes" not in os.listdir(m.file("skills")),
                 timeout=CHANGE_TIMEOUT, what="the edited skill to be withdrawn")
        state, diags = folder_entries(m)[notes]
        self.assertEqual(state, "invalid")
        self.assertIn(("error", 'skill "local-notes" differs from the lock: locked %s, found %s'
                       % (locked, found)), diags)
        self.assertNotIn(b"local-notes", m.read("index.json"))

        # a skill the lock does not name is not served
        fresh = write_skill(self.folder, "fresh-skill")
        wait_for(lambda: fresh in folder_entries(m), timeout=CHANGE_TIMEOUT,
                 what="the new skill in status.json")
        state, diags = folder_entries(m)[fresh]
        self.assertEqual(state, "unlocked")
        self.assertTrue(any(sev == "warning" and 'skill "fresh-skill" is not in the lock' in msg
                            for sev, msg in diags), diags)
        self.assertNotIn("fresh-skill", os.listdir(m.file("skills")))
        self.assertEqual(m.json("status.json")["counts"]["unlocked"], 1)

        # as locked again: served again
        write(os.path.join(notes, "notes.md"), "# Notes\n\none\n")
        wait_for(lambda: "local-notes" in os.listdir(m.file("skills")),
                 timeout=CHANGE_TIMEOUT, what="the skill as locked to be served again")

    # ---- usage --------------------------------------------------------------

    def test_lock_with_skills_dir_is_a_usage_error(self):
        m = self.mount_sources()
        self.write_lock(m)
        r = subprocess.run([SKILLSFS, self.make_dir(), "--lock", self.lockfile,
                            "--skills-dir", self.folder], capture_output=True, text=True,
                           env=self.env, timeout=30)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--lock names every source: it cannot be combined with --skills-dir", r.stderr)

    def test_lock_of_what_is_no_mount(self):
        plain = self.make_dir()
        r = subprocess.run([SKILLSFS, "lock", plain], capture_output=True, text=True,
                           env=self.env, timeout=30)
        self.assertEqual((r.returncode, r.stdout), (1, ""))
        self.assertIn("skillsfs lock: %s is not a skillsfs mount: cannot read %s/status.json"
                      % (plain, plain), r.stderr)
        r = subprocess.run([SKILLSFS, "lock"], capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 2)
        self.assertIn("missing MOUNTPOINT", r.stderr)
        r = subprocess.run([SKILLSFS, "lock", "--help"], capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 0)
        self.assertIn("usage: skillsfs lock [-o FILE] MOUNTPOINT", r.stdout)

    def test_a_malformed_lockfile_is_named(self):
        with open(self.lockfile, "w") as f:
            f.write('{"lockfileVersion": 1, "sources": [{"path": "~/skills"}]}\n')
        r = subprocess.run([SKILLSFS, self.make_dir(), "--lock", self.lockfile],
                           capture_output=True, text=True, env=self.env, timeout=30)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("%s: error: sources[0].skills: missing" % self.lockfile, r.stderr)


@unittest.skipUnless(SkillServer.available(),
                     "needs node and the MCP SDK (npm ci in tests/mcp)")
class McpLock(LockTestCase):
    """An MCP server (the SDK's, tests/lib/mcpskillserver.py) in a lockfile:
    its URL and the digest of each skill it served, which a mount of the
    lock holds the server's listing to.  A folder comes first, so that the
    server is the second root and source."""

    def setUp(self):
        self.env = dict(os.environ)
        self.folder = os.path.join(self.make_dir(), "local")
        write_skill(self.folder, "local-notes")
        self.served = os.path.join(self.make_dir(), "skills")
        fill(self.served)
        self.srv = SkillServer(self.served)
        self.addCleanup(self.srv.stop)
        self.url = "mcp+" + self.srv.url
        self.lockfile = os.path.join(self.make_dir(), "skills.lock")

    def cache(self):
        """Options of a mount with a cache folder of its own: nothing
        fetched before, and no fetch but at the start and on SIGHUP."""
        return ["-o", "cache_dir=" + self.make_dir(), "-o", "fetch_interval=0"]

    def mount_server(self):
        return self.mount([self.folder], ["--source", self.url] + self.cache(), env=self.env)

    def mount_lock(self, *options):
        return self.mount([], ["--lock", self.lockfile] + self.cache() + list(options),
                          env=self.env)

    def digest(self, skill):
        return content_digest(os.path.join(self.served, skill))

    def edit_on_the_server(self):
        """Another fields.md for pdf-forms, which the server then lists."""
        write(os.path.join(self.served, "pdf-forms", "references", "fields.md"),
              "# Fields\n\nname, date\n")
        self.srv.reload()

    def skill_entries(self, m):
        """status.json's skill folders: id -> (state, [messages])."""
        return {s["id"]: (s["state"], [(d["severity"], d["message"]) for d in s["diagnostics"]])
                for s in m.json("status.json")["skills"]}

    def test_lock_names_each_skill_with_its_digest(self):
        m = self.mount_server()
        index = m.read("index.json")
        self.assertEqual(self.write_lock(m), {
            "lockfileVersion": 1,
            "sources": [
                {"path": self.folder, "skills": {
                    "local-notes": content_digest(os.path.join(self.folder, "local-notes"))}},
                {"url": self.url, "skills": {
                    "csv-report": self.digest("csv-report"),
                    "pdf-forms": self.digest("pdf-forms")}}]})
        m.cleanup()

        # a fresh cache: the same listing fetched again, served as locked
        locked = self.mount_lock()
        self.assertEqual(locked.read("index.json"), index)
        self.assertEqual([r["source"] for r in locked.json("status.json")["roots"]],
                         ["--lock", "--lock"])
        for skill in ("csv-report", "pdf-forms"):
            self.assertEqual(files_of(locked.file("skills", skill)),
                             files_of(os.path.join(self.served, skill)))
        # locking a locked mount gives the same lockfile
        with open(self.lockfile) as f:
            self.assertEqual(self.lock(locked), (0, f.read(), ""))

    def test_lock_waits_for_a_first_fetch_under_way(self):
        # the server is stopped while the mount starts: the start serves
        # the folder without it, and a lock taken at once (README's
        # sequence) waits for the fetch rather than failing
        os.kill(self.srv.proc.pid, signal.SIGSTOP)
        self.addCleanup(lambda: self.srv.proc.poll() is None and
                        os.kill(self.srv.proc.pid, signal.SIGCONT))
        m = Mount([self.folder], ["--source", self.url] + self.cache(), env=self.env,
                  wait_fetched=False)
        self.addCleanup(m.cleanup)
        m.start()
        lock = subprocess.Popen([SKILLSFS, "lock", "-o", self.lockfile, m.path],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=self.env)
        self.addCleanup(lambda: lock.poll() is None and lock.kill())
        # it says it waits (its first line), and has not given up
        self.assertIn("waiting for the first fetch", lock.stderr.readline())
        self.assertIsNone(lock.poll())
        os.kill(self.srv.proc.pid, signal.SIGCONT)
        out, err = lock.communicate(timeout=120)
        self.assertEqual((lock.returncode, out, err), (0, "", ""))
        with open(self.lockfile) as f:
            self.assertEqual(json.load(f)["sources"][1]["skills"], {
                "csv-report": self.digest("csv-report"),
                "pdf-forms": self.digest("pdf-forms")})

    def test_a_skill_changed_on_the_server_refuses_the_start(self):
        locked = self.write_lock(self.mount_server())["sources"][1]["skills"]
        write_skill(self.served, "writing", description="Write clearly.")
        self.edit_on_the_server()
        rc, err = self.refused(["--lock", self.lockfile] + self.cache())
        self.assertEqual(rc, 1, err)
        self.assertIn('%s: skill "pdf-forms" differs from the lock: locked %s, found %s'
                      % (self.url, locked["pdf-forms"], self.digest("pdf-forms")), err)
        self.assertIn("1 locked skill is not as locked; not mounting", err)

        # as locked again: it starts, and the skill the lock does not
        # name is not served
        write(os.path.join(self.served, "pdf-forms", "references", "fields.md"),
              "# Fields\n\nname, date, signature\n")
        self.srv.reload()
        m = self.mount_lock()
        self.assertEqual(sorted(os.listdir(m.file("skills"))),
                         ["csv-report", "local-notes", "pdf-forms"])
        state, diags = self.skill_entries(m)["writing"]
        self.assertEqual(state, "unlocked")
        self.assertTrue(any(sev == "warning" and 'skill "writing" is not in the lock of %s'
                            % self.url in msg for sev, msg in diags), diags)
        self.assertNotIn(b"writing", m.read("index.json"))

    def test_a_skill_changed_while_mounted_is_withdrawn_at_sighup(self):
        locked = self.write_lock(self.mount_server())["sources"][1]["skills"]
        m = self.mount_lock()
        self.assertEqual(m.read("skills", "pdf-forms", "references", "fields.md"),
                         b"# Fields\n\nname, date, signature\n")
        self.edit_on_the_server()
        # fetch_interval=0: the server's change is seen at SIGHUP
        m.sighup()
        self.assertEqual(sorted(os.listdir(m.file("skills"))), ["csv-report", "local-notes"])
        state, diags = self.skill_entries(m)["pdf-forms"]
        self.assertEqual(state, "invalid")
        self.assertIn(("error", 'skill "pdf-forms" differs from the lock: locked %s, found %s'
                       % (locked["pdf-forms"], self.digest("pdf-forms"))), diags)
        self.assertNotIn(b"pdf-forms", m.read("index.json"))
        # the unchanged skill is still served, byte for byte
        self.assertEqual(files_of(m.file("skills", "csv-report")),
                         files_of(os.path.join(self.served, "csv-report")))

    def test_a_server_never_read_cannot_be_locked(self):
        # a mount that never had the server's listing serves nothing of
        # it, which is nothing to pin
        self.srv.stop()
        m = self.mount_server()
        rc, out, err = self.lock(m)
        self.assertEqual((rc, out), (1, ""), err)
        self.assertIn("the mount could not read the source %s (status.json names no "
                      "listing of it" % self.url, err)

    def test_token_file_from_the_configuration(self):
        keys = self.make_dir()
        token = os.path.join(keys, "server.token")
        write(token, "alpha-1\n")
        os.chmod(token, 0o600)   # a token file others may read is refused
        self.srv.stop()
        self.srv = SkillServer(self.served, token_file=token)
        self.addCleanup(self.srv.stop)
        self.url = "mcp+" + self.srv.url
        config = os.path.join(keys, "skillsfs.yaml")
        write(config, "sources:\n  - url: %s\n    token_file: %s\n" % (self.url, token))
        m = self.mount([], ["--config", config] + self.cache(), env=self.env)
        index = m.read("index.json")
        self.write_lock(m)
        m.cleanup()

        # the lock names the server; the configuration gives its token
        locked = self.mount_lock("--config", config)
        self.assertEqual(locked.read("index.json"), index)
        self.assertEqual(locked.read("skills", "csv-report", "template.md"), b"| a | b |\n")
        # without it, the server refuses the mount's requests: no start
        rc, err = self.refused(["--lock", self.lockfile] + self.cache())
        self.assertEqual(rc, 1, err)
        self.assertIn("needs a token (401): give token_file", err)
        self.assertIn("--lock: the locked source %s cannot be read" % self.url, err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
