#!/usr/bin/env python3
"""Git sources (--source git+file://...): commits served straight from the
object database of repositories made here with the real git commands, bare
and not; pinned tags and commits byte-identical to `git archive`; a
followed branch that moves on SIGHUP while readers read; exec bits and
symlinks; submodules and Git LFS pointers reported and not served; sources
that cannot be read reported while the other roots are served."""

import hashlib
import os
import signal
import stat
import subprocess
import tarfile
import tempfile
import unittest

from mountlib import SKILLSFS, FileReaders, Mount, MountTestCase, wait_for, write_skill

LFS_POINTER = ("version https://git-lfs.github.com/spec/v1\n"
               "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
               "size 12345\n")


def skill_md(skill_id, body="Body.\n"):
    return "---\nname: %s\ndescription: A skill kept in git.\n---\n%s" % (skill_id, body)


class GitRepos:
    """Repositories in a temporary folder, made with git itself."""

    def __init__(self, top):
        self.top = top
        home = os.path.join(top, "home")
        os.makedirs(home, exist_ok=True)
        self.env = dict(os.environ, HOME=home, GIT_CONFIG_NOSYSTEM="1",
                        GIT_AUTHOR_NAME="Test", GIT_AUTHOR_EMAIL="test@example.com",
                        GIT_COMMITTER_NAME="Test", GIT_COMMITTER_EMAIL="test@example.com")

    def git(self, repo, *args):
        r = subprocess.run(["git", "-C", repo] + list(args), env=self.env,
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise AssertionError("git %s failed: %s" % (" ".join(args), r.stderr))
        return r.stdout.strip()

    def init(self, name):
        path = os.path.join(self.top, name)
        os.makedirs(path)
        self.git(path, "init", "-q", "-b", "main")
        return path

    def commit(self, repo, message):
        self.git(repo, "add", "-A")
        self.git(repo, "commit", "-q", "-m", message)
        return self.git(repo, "rev-parse", "HEAD")

    def bare_clone(self, repo, name):
        path = os.path.join(self.top, name)
        self.git(self.top, "clone", "-q", "--bare", repo, path)
        return path

    def archive(self, repo, rev):
        """git archive REV extracted into a new folder; its path."""
        out = tempfile.mkdtemp(prefix="archive-", dir=self.top)
        tar = os.path.join(self.top, "archive.tar")
        self.git(repo, "archive", "-o", tar, rev)
        with tarfile.open(tar) as t:
            t.extractall(out)
        os.unlink(tar)
        return out


def write(path, text, mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    if mode is not None:
        os.chmod(path, mode)


def fill_work(work):
    """Two skills under skills/: files, an executable script, a folder, a
    file symlink and a folder symlink inside the skill."""
    pdf = os.path.join(work, "skills", "pdf-forms")
    write(os.path.join(pdf, "SKILL.md"), skill_md("pdf-forms", "See [the reference](reference.md).\n"))
    write(os.path.join(pdf, "reference.md"), "# Reference\n\nversion one\n")
    write(os.path.join(pdf, "scripts", "fill.sh"), "#!/bin/sh\necho filled\n", 0o755)
    write(os.path.join(pdf, "assets", "data.txt"), "a,b\n1,2\n")
    os.symlink("reference.md", os.path.join(pdf, "ref-link.md"))
    os.symlink("assets", os.path.join(pdf, "assets-link"))
    write(os.path.join(work, "skills", "csv-report", "SKILL.md"), skill_md("csv-report"))
    write(os.path.join(work, "README.md"), "Not a skill.\n")


def two_commits(repos):
    """A work tree filled by fill_work() in repos, committed twice: the
    first commit tagged v1, the second changing pdf-forms/reference.md to
    version two.  (work, first, second)."""
    work = repos.init("work")
    fill_work(work)
    first = repos.commit(work, "first")
    repos.git(work, "tag", "-a", "v1", "-m", "version 1")
    write(os.path.join(work, "skills", "pdf-forms", "reference.md"),
          "# Reference\n\nversion two\n")
    return work, first, repos.commit(work, "second")


def tree_of(folder):
    """Every entry below folder: relative path -> ("link", target) |
    ("dir",) | ("file", bytes, executable)."""
    out = {}
    for dirpath, dirs, files in os.walk(folder):
        for name in dirs + files:
            p = os.path.join(dirpath, name)
            rel = os.path.relpath(p, folder)
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(p))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir",)
            else:
                with open(p, "rb") as f:
                    out[rel] = ("file", f.read(), bool(st.st_mode & 0o100))
    return out


def sha256_file_bytes(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


def root_status(m, i=0):
    return m.json("status.json")["roots"][i]


def messages(m):
    st = m.json("status.json")
    found = [d["message"] for d in st["diagnostics"]]
    for s in st["skills"]:
        found += ["%s: %s" % (d["file"], d["message"]) for d in s["diagnostics"]]
    return found


class GitSources(MountTestCase):
    def setUp(self):
        self.repos = GitRepos(self.make_dir())
        self.work, self.first, self.second = two_commits(self.repos)
        self.bare = self.repos.bare_clone(self.work, "skills.git")

    def mount_source(self, url, options=(), roots=()):
        return self.mount(list(roots), ["--source", url] + list(options))

    def assert_serves_archive(self, m, rev):
        archive = self.repos.archive(self.work, rev)
        skills = os.path.join(archive, "skills")
        ids = sorted(os.listdir(skills))
        self.assertEqual(sorted(os.listdir(m.file("skills"))), ids)
        for skill_id in ids:
            want = tree_of(os.path.join(skills, skill_id))
            got = tree_of(m.file("skills", skill_id))
            self.assertEqual(got, want, "skills/%s differs from git archive %s" % (skill_id, rev))

    def test_pinned_tag_is_git_archive(self):
        m = self.mount_source("git+file://%s#v1:skills" % self.bare)
        self.assert_serves_archive(m, "v1")
        root = root_status(m)
        self.assertEqual((root["kind"], root["commit"], root["exists"], root["skills"]),
                         ("git", self.first, True, 2))

    def test_pinned_commit_is_git_archive(self):
        m = self.mount_source("git+file://%s#%s:skills" % (self.bare, self.second))
        self.assert_serves_archive(m, self.second)
        self.assertEqual(root_status(m)["commit"], self.second)

    def test_export_of_a_git_source_is_its_archive(self):
        # skillsfs export reads a git source as check does (fetched into
        # the cache, each blob checked against its id); a file link is
        # exported as its target's bytes, a folder link as a link; only
        # SKILL.md's frontmatter is projected for the upload
        out = os.path.join(self.make_dir(), "upload")
        env = dict(os.environ, XDG_CACHE_HOME=self.make_dir())
        r = subprocess.run([SKILLSFS, "export", "--anthropic", out, "--source",
                            "git+file://%s#v1:skills" % self.bare], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("2 skills exported", r.stdout)
        skills = os.path.join(self.repos.archive(self.work, "v1"), "skills")
        for skill_id in ("pdf-forms", "csv-report"):
            want = tree_of(os.path.join(skills, skill_id))
            got = tree_of(os.path.join(out, skill_id))
            self.assertEqual(sorted(got), sorted(want))
            for rel, entry in want.items():
                if rel == "SKILL.md":
                    continue
                if entry[0] == "link" and rel == "ref-link.md":
                    self.assertEqual(got[rel][:2], ("file", b"# Reference\n\nversion one\n"))
                else:
                    self.assertEqual(got[rel], entry, rel)
        # a source that cannot be fetched now: nothing is exported
        out2 = os.path.join(self.make_dir(), "upload")
        r = subprocess.run([SKILLSFS, "export", "--anthropic", out2, "--source",
                            "git+file://%s/missing.git" % self.repos.top], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertIn("missing.git", r.stdout)
        self.assertFalse(os.path.exists(os.path.join(out2, "pdf-forms")))

    def test_non_bare_repository_at_head(self):
        m = self.mount_source("git+file://%s" % self.work)
        self.assertEqual(root_status(m)["commit"], self.second)
        self.assertEqual(m.read("skills", "pdf-forms", "reference.md"),
                         b"# Reference\n\nversion two\n")
        # the skills were found below skills/ without a SUBDIR; README.md
        # at the top is no skill
        self.assertEqual(sorted(os.listdir(m.file("skills"))), ["csv-report", "pdf-forms"])
        # nothing was checked out or written into the repository
        self.assertEqual(self.repos.git(self.work, "status", "--porcelain"), "")

    def test_executable_script_keeps_its_exec_bit(self):
        m = self.mount_source("git+file://%s#main:skills" % self.bare)
        script = m.file("skills", "pdf-forms", "scripts", "fill.sh")
        self.assertTrue(os.stat(script).st_mode & 0o100)
        self.assertFalse(os.stat(m.file("skills", "pdf-forms", "reference.md")).st_mode & 0o111)
        r = subprocess.run([script], capture_output=True, text=True, timeout=10)
        self.assertEqual((r.returncode, r.stdout), (0, "filled\n"))

    def test_followed_branch_moves_on_sighup_while_readers_read(self):
        m = self.mount_source("git+file://%s#main:skills" % self.bare)
        old = b"# Reference\n\nversion two\n"
        new = b"# Reference\n\nversion three, a little longer\n"
        path = m.file("skills", "pdf-forms", "reference.md")
        self.assertEqual(m.read("skills", "pdf-forms", "reference.md"), old)
        csv_before = os.stat(m.file("skills", "csv-report", "SKILL.md"))

        write(os.path.join(self.work, "skills", "pdf-forms", "reference.md"), new.decode())
        third = self.repos.commit(self.work, "third")
        self.repos.git(self.work, "push", "-q", self.bare, "main")
        # no SIGHUP yet: the generation still serves the commit it resolved
        self.assertEqual(root_status(m)["commit"], self.second)
        self.assertEqual(m.read("skills", "pdf-forms", "reference.md"), old)

        with FileReaders(path) as r:
            wait_for(lambda: old in r.seen, what="the readers' first reads")
            m.proc.send_signal(signal.SIGHUP)
            wait_for(lambda: root_status(m)["commit"] == third, what="the new commit in status.json")
            wait_for(lambda: new in r.seen, what="the readers to see the new bytes")
        self.assertEqual(r.errors, [])
        self.assertEqual(r.seen, {old, new})
        self.assertEqual(m.read("skills", "pdf-forms", "reference.md"), new)
        self.assertIsNone(m.proc.poll(), "the daemon is still serving after SIGHUP")
        # csv-report's tree is the same in both commits: the skill was
        # taken whole, its files under the same inodes and times
        self.assertEqual(os.stat(m.file("skills", "csv-report", "SKILL.md")), csv_before)

    def test_pinned_commit_stays_on_sighup(self):
        m = self.mount_source("git+file://%s#%s:skills" % (self.bare, self.first))
        gen = m.generation()
        ino = os.stat(m.file("skills", "pdf-forms", "reference.md")).st_ino
        write(os.path.join(self.work, "skills", "csv-report", "more.md"), "more\n")
        self.repos.commit(self.work, "third")
        self.repos.git(self.work, "push", "-q", self.bare, "main")
        m.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: m.generation() > gen, what="the rebuild after SIGHUP")
        self.assertEqual(root_status(m)["commit"], self.first)
        # the same commit: the same files, under the same inodes
        self.assertEqual(os.stat(m.file("skills", "pdf-forms", "reference.md")).st_ino, ino)
        self.assertEqual(m.read("skills", "pdf-forms", "reference.md"),
                         b"# Reference\n\nversion one\n")
        self.assertFalse(os.path.exists(m.file("skills", "csv-report", "more.md")))

    def test_submodule_and_lfs_pointer_are_reported_not_served(self):
        sub = self.repos.init("other")
        write(os.path.join(sub, "x.txt"), "x\n")
        sub_commit = self.repos.commit(sub, "other")
        write(os.path.join(self.work, "skills", "pdf-forms", "big.bin"), LFS_POINTER)
        self.repos.git(self.work, "add", "-A")
        self.repos.git(self.work, "update-index", "--add", "--cacheinfo",
                       "160000,%s,skills/pdf-forms/vendor" % sub_commit)
        self.repos.git(self.work, "commit", "-q", "-m", "submodule and LFS pointer")
        m = self.mount_source("git+file://%s#main:skills" % self.work)
        listing = os.listdir(m.file("skills", "pdf-forms"))
        self.assertIn("reference.md", listing)
        self.assertNotIn("vendor", listing)
        self.assertNotIn("big.bin", listing)
        found = messages(m)
        self.assertTrue(any("vendor" in f and "submodule" in f for f in found), found)
        self.assertTrue(any("big.bin" in f and "Git LFS pointer" in f for f in found), found)
        # the skill itself is served, with its warnings
        self.assertIn("pdf-forms", os.listdir(m.file("skills")))

    def test_big_files_are_served_whole_loose_packed_and_deltified(self):
        """Blobs past 1 MiB are streamed (git_stream.c): a loose object, a
        whole object in a pack and a delta read by libgit2 all give the
        bytes index.json publishes, read whole and from the middle."""
        big = os.urandom(3 * 2**20 + 12345)
        write(os.path.join(self.work, "skills", "pdf-forms", "big.bin"), "")
        with open(os.path.join(self.work, "skills", "pdf-forms", "big.bin"), "wb") as f:
            f.write(big)
        self.repos.commit(self.work, "a big file")
        # a second version, one byte changed: packed as a delta of the first
        big2 = big[:1000] + bytes([big[1000] ^ 1]) + big[1001:]
        with open(os.path.join(self.work, "skills", "pdf-forms", "big2.bin"), "wb") as f:
            f.write(big2)
        self.repos.commit(self.work, "its next version")
        packed = self.repos.bare_clone(self.work, "big.git")
        self.repos.git(packed, "repack", "-adf", "--window=10")
        # one cache folder: the second mount finds the digests there (and
        # reads the blobs all the same, to keep their bytes for the reads)
        cache = self.make_dir()
        for url, retain in (("git+file://%s#main:skills" % self.work, "16"),
                            ("git+file://%s#main:skills" % packed, "0")):
            m = self.mount_source(url, ["-o", "retain=" + retain, "-o", "cache_dir=" + cache])
            entry = [e for e in m.json("index.json")["skills"] if "pdf-forms" in e["uri"]][0]
            digests = {r["uri"]: (r["digest"], r["size"]) for r in entry["resources"]}
            for name, want in (("big.bin", big), ("big2.bin", big2)):
                got = m.read("skills", "pdf-forms", name)
                self.assertEqual(got, want, "%s of %s" % (name, url))
                self.assertEqual(digests["skill://pdf-forms/" + name],
                                 (sha256_file_bytes(want), len(want)))
                with open(m.file("skills", "pdf-forms", name), "rb") as f:
                    f.seek(2**20 + 7)
                    self.assertEqual(f.read(4096), want[2**20 + 7:2**20 + 7 + 4096])
            m.cleanup()

    def test_sources_that_cannot_be_read_are_reported(self):
        folder = self.make_dir()
        write_skill(folder, "local-skill")
        not_repo = self.make_dir()
        bad = ["git+file://%s#no-such-branch:skills" % self.bare,
               "git+file://%s" % not_repo,
               "git+file://%s#main:no-such-folder" % self.bare,
               # port 1 on loopback: nothing listens, the fetch is refused
               "git+http://127.0.0.1:1/team/skills.git#main"]
        options = ["-o", "cache_dir=" + self.make_dir()]
        for url in bad:
            options += ["--source", url]
        m = self.mount([folder], options)
        self.assertEqual(os.listdir(m.file("skills")), ["local-skill"])
        roots = m.json("status.json")["roots"]
        self.assertEqual([(r["path"], r["exists"]) for r in roots[1:]], [(u, False) for u in bad])
        self.assertEqual([r["commit"] for r in roots[1:]], [None] * 4)
        diags = {d["file"]: d["message"] for d in m.json("status.json")["diagnostics"]}
        self.assertIn("no-such-branch is not a branch, tag or commit of %s" % self.bare, diags[bad[0]])
        self.assertIn("%s is not a git repository" % not_repo, diags[bad[1]])
        self.assertIn("no-such-folder is not a folder in commit %s" % self.second, diags[bad[2]])
        self.assertIn("not fetched yet: cannot fetch http://127.0.0.1:1/team/skills.git",
                      diags[bad[3]])

    def test_strict_ends_on_a_source_that_cannot_be_read(self):
        url = "git+file://%s#no-such-branch" % self.bare
        m = Mount([], ["--source", url, "-o", "strict"])
        self.addCleanup(m.cleanup)
        m._stderr = open(m.stderr_path, "wb")
        m.proc = subprocess.Popen(m.argv(), stdout=subprocess.DEVNULL, stderr=m._stderr)
        self.assertEqual(m.proc.wait(timeout=30), 1)
        self.assertIn("no-such-branch is not a branch, tag or commit", m.stderr())
        self.assertIn("-o strict: the source %s cannot be read" % url, m.stderr())

    def test_bad_url_is_a_usage_error(self):
        r = subprocess.run([os.environ.get("SKILLSFS", "skillsfs"), self.make_dir(),
                            "--source", "git+file://relative/path"],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 2)
        self.assertIn("bad --source 'git+file://relative/path'", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
