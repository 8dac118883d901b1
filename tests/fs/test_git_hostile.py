#!/usr/bin/env python3
"""Git sources serving hostile repositories: trees made by hand with
`git hash-object -t tree --literally` that git fsck refuses (a name given
twice, names holding '/', '.', '..', '.git' in its NTFS and HFS+
spellings) are mounted; no such entry is served, each is a finding in
status.json naming the tree and the entry, and every file served has the
bytes index.json publishes for it.  The git caches forged or an object
rewritten in place: nothing but the blob's bytes is published or served.
And, under allow_other, a git or MCP root's skills shared with other users
(read as skillsfs-test) unless the source says private: true."""

import errno
import hashlib
import os
import pwd
import shutil
import sys
import signal
import subprocess
import unittest
import urllib.parse
import zlib

from mountlib import MountTestCase, wait_for, write_skill
from test_git_sources import GitRepos, messages, skill_md, write

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from mcpskillserver import SkillServer  # noqa: E402

BLOB = b"100644"
TREE = b"40000"
LINK = b"120000"


class HostileRepo:
    """A bare repository whose commits are made of trees written byte by
    byte, as no porcelain command would write them."""

    def __init__(self, repos, name):
        self.repos = repos
        self.path = os.path.join(repos.top, name)
        os.makedirs(self.path)
        repos.git(self.path, "init", "-q", "--bare", "-b", "main")

    def _hash(self, data, *args):
        r = subprocess.run(["git", "-C", self.path, "hash-object", "-w", "--stdin"] + list(args),
                           input=data, env=self.repos.env, capture_output=True)
        if r.returncode != 0:
            raise AssertionError("git hash-object failed: %s" % r.stderr.decode())
        return r.stdout.decode().strip()

    def blob(self, data):
        return self._hash(data.encode() if isinstance(data, str) else data)

    def tree(self, entries, in_order=True):
        """entries: (mode, name, id), names as str; in git's order (a
        folder's name read as if it ended in '/') unless in_order is
        false."""
        if in_order:
            entries = sorted(entries, key=lambda e: e[1].encode() + (b"/" if e[0] == TREE else b""))
        raw = b"".join(mode + b" " + name.encode() + b"\0" + bytes.fromhex(oid)
                       for mode, name, oid in entries)
        return self._hash(raw, "-t", "tree", "--literally")

    def commit(self, tree):
        oid = self.repos.git(self.path, "commit-tree", tree, "-m", "hostile")
        self.repos.git(self.path, "update-ref", "refs/heads/main", oid)
        return oid


def sha256(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


class GitHostileTrees(MountTestCase):
    def setUp(self):
        self.repos = GitRepos(self.make_dir())
        self.repo = HostileRepo(self.repos, "hostile.git")

    def skill(self, skill_id, extra=(), description="A skill kept in git."):
        md = self.repo.blob("---\nname: %s\ndescription: %s\n---\nBody.\n" % (skill_id, description))
        return self.repo.tree([(BLOB, "SKILL.md", md)] + list(extra))

    def mount_commit(self, skills):
        """skills: name -> tree id, under skills/ of the commit; mounted."""
        top = self.repo.tree([(TREE, "skills", self.repo.tree(
            [(TREE, name, oid) for name, oid in skills]))])
        self.repo.commit(top)
        return self.mount([], ["--source", "git+file://%s#main:skills" % self.repo.path,
                               "-o", "cache_dir=" + self.make_dir()])

    def assert_served_as_published(self, m):
        """Every resource index.json lists has, through the mount, the
        size and digest it publishes."""
        for entry in m.json("index.json")["skills"]:
            for res in entry.get("resources", []):
                rel = urllib.parse.unquote(res["uri"][len("skill://"):])
                data = m.read("skills", *rel.split("/"))
                self.assertEqual((sha256(data), len(data)), (res["digest"], res["size"]),
                                 "%s is not served as index.json publishes it" % res["uri"])

    def finding(self, m, folder, name):
        """The finding that names entry `name` of the tree at folder (a
        path below skills/)."""
        want = "git+file://%s#main:skills/%s: tree entry \"%s\"" % (self.repo.path, folder, name)
        hits = [f for f in messages(m) if f.startswith(want)]
        self.assertTrue(hits, "no finding for %r among %s" % (want, messages(m)))
        return hits[0]

    def test_a_name_given_twice_is_not_served(self):
        first = self.repo.blob("first bytes\n")
        second = self.repo.blob("second bytes, another size\n")
        sub = self.repo.tree([(BLOB, "x.md", first)])
        link = self.repo.blob("notes.md")
        m = self.mount_commit([
            ("dup-file", self.skill("dup-file", [
                (BLOB, "notes.md", first), (BLOB, "notes.md", second),
                (LINK, "ref.md", link), (BLOB, "kept.md", first)])),
            # a file and a folder of one name: git's order puts
            # "data.txt" between them
            ("dup-kinds", self.skill("dup-kinds", [
                (BLOB, "data", first), (BLOB, "data.txt", second), (TREE, "data", sub)])),
            ("fine", self.skill("fine")),
        ])
        self.assertEqual(sorted(os.listdir(m.file("skills"))), ["dup-file", "dup-kinds", "fine"])
        self.assertEqual(sorted(os.listdir(m.file("skills", "dup-file"))), ["SKILL.md", "kept.md"])
        self.assertEqual(sorted(os.listdir(m.file("skills", "dup-kinds"))), ["SKILL.md", "data.txt"])
        self.assertIn("twice", self.finding(m, "dup-file", "notes.md"))
        self.assertIn("hidden", self.finding(m, "dup-kinds", "data"))
        # a link to the name given twice leads nowhere it could be served
        self.assertTrue(any("ref.md" in f and "git fsck refuses" in f for f in messages(m)),
                        messages(m))
        self.assert_served_as_published(m)

    def test_skill_md_given_twice_is_no_skill(self):
        one = self.repo.blob("---\nname: dup-md\ndescription: The first one.\n---\nOne.\n")
        two = self.repo.blob("---\nname: dup-md\ndescription: The second one.\n---\nTwo.\n")
        m = self.mount_commit([
            ("dup-md", self.repo.tree([(BLOB, "SKILL.md", one), (BLOB, "SKILL.md", two)])),
            ("fine", self.skill("fine")),
        ])
        self.assertEqual(os.listdir(m.file("skills")), ["fine"])
        self.assertIn("the skill cannot be served", self.finding(m, "dup-md", "SKILL.md"))
        self.assertNotIn("second one", m.read("index.json").decode())
        self.assert_served_as_published(m)

    def test_names_git_fsck_refuses_are_not_served(self):
        data = self.repo.blob("data\n")
        sub = self.repo.tree([(BLOB, "config", data)])
        bad = [".", "..", ".git", ".GIT", ".git.", ".Git ", "git~1", "GIT~1",
               ".g\u200cit", "\ufeff.git", "x:y\\.git", "a/b", "../escape"]
        entries = [(TREE if i % 2 else BLOB, name, sub if i % 2 else data)
                   for i, name in enumerate(bad)]
        m = self.mount_commit([("names", self.skill("names", entries + [(BLOB, "ok.md", data)]))])
        self.assertEqual(sorted(os.listdir(m.file("skills", "names"))), ["SKILL.md", "ok.md"])
        for name in bad:
            self.assertIn("git fsck refuses it", self.finding(m, "names", name))
        self.assertFalse(os.path.exists(m.file("skills", "names", "b")))
        self.assert_served_as_published(m)

    def test_a_tree_out_of_order_is_not_served(self):
        data = self.repo.blob("data\n")
        md = self.repo.blob("---\nname: unordered\ndescription: Out of order.\n---\n")
        m = self.mount_commit([
            ("unordered", self.repo.tree([(BLOB, "b.md", data), (BLOB, "SKILL.md", md),
                                          (BLOB, "a.md", data)], in_order=False)),
            ("fine", self.skill("fine"))])
        self.assertEqual(os.listdir(m.file("skills")), ["fine"])
        self.assertIn("not in git's order", self.finding(m, "unordered", "SKILL.md"))
        self.assert_served_as_published(m)

    def test_skill_folders_git_fsck_refuses_are_not_searched(self):
        inner = self.skill("b")
        twin_one = self.skill("twin", description="The first twin.")
        twin_two = self.skill("twin", description="The second twin.")
        m = self.mount_commit([("a/b", inner), ("twin", twin_one), ("twin", twin_two),
                               (".git", self.skill("dotgit")), ("fine", self.skill("fine"))])
        self.assertEqual(os.listdir(m.file("skills")), ["fine"])
        index = m.read("index.json").decode()
        for text in ("skill://b/", "twin", "dotgit"):
            self.assertNotIn(text, index)
        found = messages(m)
        for name in ("a/b", "twin", ".git"):
            self.assertTrue(any('entry "%s" not searched' % name in f for f in found), found)
        self.assert_served_as_published(m)


class GitCachesVerified(MountTestCase):
    """The cache folder's git-blobs and git-digests, and the repository's
    objects, forged or rewritten between mounts or under one: no byte is
    published or served that is not the blob's."""

    DESCRIPTION = "A skill whose description is true."
    FORGED = "A skill whose description is FALSE"   # the same length

    def setUp(self):
        self.repos = GitRepos(self.make_dir())
        self.work = self.repos.init("work")
        write(os.path.join(self.work, "skills", "truth", "SKILL.md"),
              "---\nname: truth\ndescription: %s\n---\nBody.\n" % self.DESCRIPTION)
        write(os.path.join(self.work, "skills", "truth", "notes.md"), "the real notes\n")
        self.repos.commit(self.work, "first")
        self.cache = self.make_dir()
        self.url = "git+file://%s#main:skills" % self.work

    def mount_work(self, *options):
        return self.mount([], ["--source", self.url, "-o", "cache_dir=" + self.cache] + list(options))

    def blob_id(self, rel):
        return self.repos.git(self.work, "rev-parse", "HEAD:skills/truth/" + rel)

    def description(self, m, name="truth"):
        [entry] = [e for e in m.json("index.json")["skills"] if e["frontmatter"]["name"] == name]
        return entry["frontmatter"]["description"]

    def test_a_first_mount_writes_no_kept_skill_md(self):
        """A first mount parses SKILL.md from the bytes its listing
        inflated and the next start takes the skill from git-units: a
        git-blobs file per skill would only cost its write."""
        m = self.mount_work()
        self.assertEqual(self.description(m), self.DESCRIPTION)
        self.assertIn(self.DESCRIPTION.encode(), m.read("skills", "truth", "SKILL.md"))
        m.cleanup()
        self.kept_units()
        blobs = os.path.join(self.cache, "git-blobs")
        self.assertEqual(os.listdir(blobs) if os.path.isdir(blobs) else [], [])

    def test_a_forged_kept_skill_md_is_not_published(self):
        m = self.mount_work()
        self.assertEqual(self.description(m), self.DESCRIPTION)
        m.cleanup()
        # a start that cannot take the kept skills (git-units) reads
        # SKILL.md and keeps it in git-blobs for the next such start
        shutil.rmtree(os.path.join(self.cache, "git-units"))
        m = self.mount_work()
        self.assertEqual(self.description(m), self.DESCRIPTION)
        m.cleanup()
        kept = os.path.join(self.cache, "git-blobs", self.blob_id("SKILL.md"))
        with open(kept, "rb") as f:
            real = f.read()
        forged = real.replace(self.DESCRIPTION.encode(), self.FORGED.encode())
        self.assertEqual(len(forged), len(real))
        os.chmod(kept, 0o600)
        with open(kept, "wb") as f:
            f.write(forged)
        # the skill kept whole (git-units) would not read SKILL.md at all
        shutil.rmtree(os.path.join(self.cache, "git-units"))
        m = self.mount_work()
        self.assertEqual(self.description(m), self.DESCRIPTION)
        self.assertNotIn(self.FORGED, m.read("index.json").decode())
        with open(kept, "rb") as f:
            self.assertEqual(f.read(), real, "the forged file was not replaced")

    def kept_units(self):
        """The one file of git-units (the skills a mount kept for the next
        start)."""
        folder = os.path.join(self.cache, "git-units")
        names = os.listdir(folder) if os.path.isdir(folder) else []
        self.assertEqual(len(names), 1, "git-units holds %r" % names)
        return os.path.join(folder, names[0])

    def test_kept_skills_are_taken_at_a_start_and_a_changed_one_read_again(self):
        write(os.path.join(self.work, "skills", "other", "SKILL.md"),
              "---\nname: other\ndescription: Another skill.\n---\nBody.\n")
        self.repos.commit(self.work, "two skills")
        m = self.mount_work()
        self.assertEqual(len(m.json("index.json")["skills"]), 2)
        m.cleanup()
        kept = self.kept_units()
        with open(kept, "rb") as f:
            self.assertIn(self.DESCRIPTION.encode(), f.read())
        # the same commit again: served from what was kept, as it was
        m = self.mount_work()
        self.assertEqual(self.description(m, "truth"), self.DESCRIPTION)
        self.assertFalse(any("git-units" in t for t in messages(m)), messages(m))
        m.cleanup()
        # one skill changed in a new commit: read again (the new commit
        # time, every file's mtime, makes every kept skill another)
        changed = "A skill whose description changed."
        write(os.path.join(self.work, "skills", "truth", "SKILL.md"),
              "---\nname: truth\ndescription: %s\n---\nBody.\n" % changed)
        self.repos.commit(self.work, "changed")
        m = self.mount_work()
        self.assertEqual(self.description(m, "truth"), changed)
        self.assertEqual(self.description(m, "other"), "Another skill.")
        self.assertEqual(m.read("skills", "truth", "SKILL.md").decode().count(changed), 1)
        m.cleanup()
        with open(kept, "rb") as f:
            self.assertIn(changed.encode(), f.read(), "the changed skill was not kept")

    def test_forged_kept_skills_are_not_served_and_said(self):
        m = self.mount_work()
        self.assertEqual(self.description(m), self.DESCRIPTION)
        m.cleanup()
        kept = self.kept_units()
        with open(kept, "rb") as f:
            real = f.read()
        forged = real.replace(self.DESCRIPTION.encode(), self.FORGED.encode())
        self.assertNotEqual(forged, real)
        self.assertEqual(len(forged), len(real))
        for data in (forged, real[:len(real) // 2], b"not a cache file at all\n"):
            with open(kept, "wb") as f:
                f.write(data)
            m = self.mount_work()
            self.assertEqual(self.description(m), self.DESCRIPTION)
            self.assertNotIn(self.FORGED, m.read("index.json").decode())
            self.assertTrue(any("git-units) are not used" in t for t in messages(m)),
                            messages(m))
            m.cleanup()
            with open(kept, "rb") as f:
                self.assertEqual(f.read(), real, "the kept skills were not written again")

    def test_a_forged_digest_record_is_not_published(self):
        m = self.mount_work()
        real = m.read("skills", "truth", "notes.md")
        m.cleanup()
        path = os.path.join(self.cache, "git-digests")
        with open(path, "rb") as f:
            data = bytearray(f.read())
        at = data.find(bytes.fromhex(self.blob_id("notes.md")))
        self.assertGreater(at, 0, "no record of notes.md in git-digests")
        data[at + 28:at + 60] = hashlib.sha256(b"forged notes\n").digest()
        with open(path, "wb") as f:
            f.write(bytes(data))
        m = self.mount_work()
        [entry] = m.json("index.json")["skills"]
        digests = {r["uri"]: r["digest"] for r in entry["resources"]}
        self.assertEqual(digests["skill://truth/notes.md"], sha256(real))

    def rewrite_object(self, oid, data):
        """The loose object oid made to hold other bytes, as a disk or a
        hand would: its id no longer names them."""
        path = os.path.join(self.work, ".git", "objects", oid[:2], oid[2:])
        os.chmod(path, 0o644)
        with open(path, "wb") as f:
            f.write(zlib.compress(b"blob %d\0" % len(data) + data))

    def test_an_object_rewritten_in_place_is_not_served(self):
        # retain=0: no copy of the published bytes, every read opens the
        # blob in the repository
        m = self.mount_work("-o", "retain=0")
        [entry] = m.json("index.json")["skills"]
        digests = {r["uri"]: r["digest"] for r in entry["resources"]}
        self.assertEqual(digests["skill://truth/notes.md"], sha256(b"the real notes\n"))
        # same size, other bytes, before anything read the file
        self.rewrite_object(self.blob_id("notes.md"), b"the FAKE notes\n")
        with self.assertRaises(OSError) as e:
            m.read("skills", "truth", "notes.md")
        self.assertEqual(e.exception.errno, errno.EIO)
        gen = m.generation()
        m.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: m.generation() > gen, what="the rebuild after SIGHUP")
        for _ in range(3):
            try:
                data = m.read("skills", "truth", "notes.md")
            except OSError as err:
                self.assertEqual(err.errno, errno.EIO)
                continue
            self.fail("served %r under the digest %s" % (data, digests["skill://truth/notes.md"]))


    def test_a_skill_md_rewritten_in_place_is_neither_served_nor_kept(self):
        """A first mount keeps no SKILL.md file: a read through the mount
        opens the blob and checks it, and a start that opens it again
        (no git-units) keeps nothing of bytes that are not the blob."""
        m = self.mount_work("-o", "retain=0")
        self.assertEqual(self.description(m), self.DESCRIPTION)
        real = b"---\nname: truth\ndescription: %s\n---\nBody.\n" % self.DESCRIPTION.encode()
        forged = real.replace(self.DESCRIPTION.encode(), self.FORGED.encode())
        self.assertEqual(len(forged), len(real))
        self.rewrite_object(self.blob_id("SKILL.md"), forged)
        with self.assertRaises(OSError) as e:
            m.read("skills", "truth", "SKILL.md")
        self.assertEqual(e.exception.errno, errno.EIO)
        m.cleanup()
        shutil.rmtree(os.path.join(self.cache, "git-units"))
        m = self.mount_work("-o", "retain=0")
        self.assertNotIn(self.FORGED, m.read("index.json").decode())
        self.assertFalse(os.path.exists(os.path.join(self.cache, "git-blobs",
                                                     self.blob_id("SKILL.md"))))
        try:
            data = m.read("skills", "truth", "SKILL.md")
        except OSError as err:
            self.assertIn(err.errno, (errno.EIO, errno.ENOENT))
        else:
            self.fail("served %r" % data)

TEST_USER = "skillsfs-test"
# a python the other user may run
ANY_PYTHON = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable

READ_AS = """
import errno, sys
try:
    with open(sys.argv[1], "rb") as f:
        sys.stdout.write(f.read().decode())
except OSError as e:
    sys.stdout.write(errno.errorcode[e.errno])
"""


def test_user():
    try:
        return pwd.getpwnam(TEST_USER)
    except KeyError:
        return None


@unittest.skipUnless(os.geteuid() == 0 and test_user(),
                     "mounts with allow_other as root, reads as %s (scripts/deps --test-user)" % TEST_USER)
class GitSkillsUnderAllowOther(MountTestCase):
    """A system mount of a team's git repository (the README's service
    recipe with a git source): its skills are what the repository
    publishes, shared with every user with the tree's modes, unless the
    config file's source entry says private: true."""

    def setUp(self):
        self.repos = GitRepos(self.make_dir())
        self.work = self.repos.init("team")
        write(os.path.join(self.work, "skills", "team-skill", "SKILL.md"),
              skill_md("team-skill"))
        write(os.path.join(self.work, "skills", "team-skill", "run.sh"), "#!/bin/sh\n", 0o755)
        self.repos.commit(self.work, "team")

    def mount_config(self, private=None):
        conf = os.path.join(self.make_dir(), "mnt.yaml")
        with open(conf, "w") as f:
            f.write("sources:\n  - url: git+file://%s#main:skills\n" % self.work)
            if private is not None:
                f.write("    private: %s\n" % ("true" if private else "false"))
            f.write("options:\n  allow_other: true\n  cache_dir: %s\n" % self.make_dir())
        m = self.mount([], ["--config", conf, "-o", "default_permissions"])
        os.chmod(m.workdir, 0o711)     # let the other user reach the mountpoint
        return m

    def read_as_other(self, m, *rel):
        u = test_user()

        def drop():
            os.setgroups([])
            os.setgid(u.pw_gid)
            os.setuid(u.pw_uid)
        r = subprocess.run([ANY_PYTHON, "-c", READ_AS, m.file(*rel)], capture_output=True,
                           text=True, timeout=30, preexec_fn=drop)
        return r.stdout

    def test_shared_with_every_user(self):
        for private in (None, False):
            m = self.mount_config(private)
            index = json_of(self.read_as_other(m, "index.json"))
            self.assertEqual([e["uri"] for e in index["skills"]], ["skill://team-skill/SKILL.md"])
            self.assertEqual(self.read_as_other(m, "skills", "team-skill", "SKILL.md"),
                             skill_md("team-skill"))
            self.assertEqual(json_of(self.read_as_other(m, "status.json")).get("private", []), [])
            st = os.stat(m.file("skills", "team-skill", "run.sh"))
            self.assertEqual(st.st_mode & 0o777, 0o755)
            m.cleanup()

    def test_private_source_is_the_mounting_users_only(self):
        m = self.mount_config(private=True)
        self.assertEqual(json_of(self.read_as_other(m, "index.json"))["skills"], [])
        self.assertEqual(self.read_as_other(m, "skills", "team-skill", "SKILL.md"), "EACCES")
        # the mounting user (root) still reads it
        self.assertEqual(m.read("skills", "team-skill", "SKILL.md").decode(), skill_md("team-skill"))


@unittest.skipUnless(os.geteuid() == 0 and test_user() and SkillServer.available(),
                     "mounts with allow_other as root, reads as %s, serves with the MCP SDK "
                     "(npm ci in tests/mcp)" % TEST_USER)
class McpSkillsUnderAllowOther(MountTestCase):
    """The same rule for an MCP server's skills (the SDK's server on
    loopback): shared with every user unless the source says private."""

    def setUp(self):
        self.served = os.path.join(self.make_dir(), "skills")
        write_skill(self.served, "team-skill", description="A skill the server gives.")
        self.srv = SkillServer(self.served)
        self.addCleanup(self.srv.stop)

    def mount_config(self, private):
        conf = os.path.join(self.make_dir(), "mnt.yaml")
        with open(conf, "w") as f:
            f.write("sources:\n  - url: mcp+%s\n" % self.srv.url)
            if private:
                f.write("    private: true\n")
            f.write("options:\n  allow_other: true\n  fetch_interval: 0\n  cache_dir: %s\n"
                    % self.make_dir())
        m = self.mount([], ["--config", conf, "-o", "default_permissions"])
        os.chmod(m.workdir, 0o711)
        return m

    read_as_other = GitSkillsUnderAllowOther.read_as_other

    def test_shared_unless_private(self):
        with open(os.path.join(self.served, "team-skill", "SKILL.md")) as f:
            text = f.read()
        m = self.mount_config(private=False)
        index = json_of(self.read_as_other(m, "index.json"))
        self.assertEqual([e["uri"] for e in index["skills"]], ["skill://team-skill/SKILL.md"])
        self.assertEqual(self.read_as_other(m, "skills", "team-skill", "SKILL.md"), text)
        m.cleanup()
        m = self.mount_config(private=True)
        self.assertEqual(json_of(self.read_as_other(m, "index.json"))["skills"], [])
        self.assertEqual(self.read_as_other(m, "skills", "team-skill", "SKILL.md"), "EACCES")


def json_of(text):
    import json
    try:
        return json.loads(text)
    except ValueError:
        raise AssertionError("not JSON: %r" % text[:200])


if __name__ == "__main__":
    unittest.main(verbosity=2)
