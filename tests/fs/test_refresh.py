#!/usr/bin/env python3
"""Live refresh without remounting: skills and whole roots added, edited,
removed and renamed in the sources show in index.json, catalog/ and skills/
within a second; readers holding a file open keep reading consistently;
the polling fallback."""

import json
import os
import shutil
import time
import unittest

from mountlib import MountTestCase, sha256_file, wait_for, write_skill



def index_ids(m):
    return [e["uri"].split("/")[2] for e in m.json("index.json")["skills"]]


class Refresh(MountTestCase):
    options = ()
    expected_mode = "inotify"

    def setUp(self):
        self.root = self.copy_examples()
        self.m = self.mount([self.root], self.options)

    def shows(self, skill_id):
        m = self.m
        return (skill_id in index_ids(m)
                and os.path.exists(m.file("catalog", skill_id + ".json"))
                and os.path.exists(m.file("skills", skill_id, "SKILL.md"))
                and skill_id in [s["id"] for s in m.json("catalog/skills_index.json")["skills"]])

    def gone(self, skill_id):
        m = self.m
        return (skill_id not in index_ids(m)
                and not os.path.exists(m.file("catalog", skill_id + ".json"))
                and not os.path.exists(m.file("skills", skill_id)))

    def timed(self, predicate, what):
        # How soon a change shows is measured by scripts/bench (refresh
        # visible, worst of 10), not asserted here: a bound in a test
        # fails on a loaded machine and proves nothing on an idle one.
        return wait_for(predicate, what=what)

    def test_mode(self):
        self.assertEqual(self.m.json("status.json")["refresh_mode"], self.expected_mode)

    def test_add_skill(self):
        self.assertFalse(self.shows("added"))
        gen = self.m.generation()
        write_skill(self.root, "added", files={"scripts/run.sh": "echo hi\n"})
        self.timed(lambda: self.shows("added"), "a new skill")
        self.assertEqual(self.m.read("skills/added/scripts/run.sh"), b"echo hi\n")
        # status.json is invalidated last of a generation
        wait_for(lambda: self.m.generation() > gen, what="status.json")
        rec = self.m.json("catalog/added.json")
        self.assertEqual(rec["digest"], sha256_file(os.path.join(self.root, "added", "SKILL.md")))

    def test_add_nested_skill(self):
        write_skill(os.path.join(self.root, "writing"), "nested-one")
        self.timed(lambda: self.shows("nested-one"), "a skill in a category folder")

    def test_edit_skill(self):
        path = os.path.join(self.root, "csv-report", "SKILL.md")
        before_ino = os.stat(self.m.file("skills/csv-report/SKILL.md")).st_ino
        before_rec = self.m.read("catalog/csv-report.json")
        with open(path, "a") as f:
            f.write("\nAn added line.\n")
        self.timed(lambda: self.m.read("skills/csv-report/SKILL.md").endswith(b"An added line.\n"),
                   "an edited SKILL.md")
        with open(path, "rb") as f:
            self.assertEqual(self.m.read("skills/csv-report/SKILL.md"), f.read())
        self.assertNotEqual(os.stat(self.m.file("skills/csv-report/SKILL.md")).st_ino, before_ino)
        wait_for(lambda: self.m.read("catalog/csv-report.json") != before_rec, what="record")
        self.assertEqual(self.m.json("catalog/csv-report.json")["digest"], sha256_file(path))
        entry = next(e for e in self.m.json("index.json")["skills"]
                     if e["uri"] == "skill://csv-report/SKILL.md")
        self.assertEqual(entry["resources"][0]["digest"], sha256_file(path))
        self.assertEqual(entry["resources"][0]["size"], os.path.getsize(path))

    def test_edit_frontmatter_by_rename(self):
        """Editors save by writing a new file and renaming it over."""
        path = os.path.join(self.root, "pdf-forms", "SKILL.md")
        with open(path) as f:
            text = f.read()
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write(text.replace("version: 1.2.0", "version: 1.3.0"))
        os.rename(tmp, path)
        self.timed(lambda: self.m.json("catalog/pdf-forms.json")["version"] == "1.3.0",
                   "a new version")
        self.assertIn('"version":"1.3.0"', self.m.read("catalog/skills_index.json").decode())

    def test_add_and_edit_file(self):
        skill = os.path.join(self.root, "pdf-forms")
        with open(os.path.join(skill, "assets", "new.txt"), "w") as f:
            f.write("new\n")
        # The daemon invalidates the skill's files before index.json, so
        # wait for both: between the two, a reader may see either alone.
        self.timed(lambda: os.path.exists(self.m.file("skills/pdf-forms/assets/new.txt"))
                   and "skill://pdf-forms/assets/new.txt" in self.m.read("index.json").decode(),
                   "a new file")
        self.assertIn("new.txt", os.listdir(self.m.file("skills/pdf-forms/assets")))
        os.chmod(os.path.join(skill, "assets", "new.txt"), 0o600)
        self.timed(lambda: os.stat(self.m.file("skills/pdf-forms/assets/new.txt")).st_mode & 0o777
                   == 0o600, "a chmod")

    def test_edit_nested_file_in_place(self):
        """A file rewritten in place changes no folder's listing; the
        watcher's account of the folders that changed brings it."""
        path = os.path.join(self.root, "pdf-forms", "references", "field-types.md")
        # settle: a generation after the first, so that the next one is
        # built from what the watcher saw
        gen = self.m.generation()
        write_skill(self.root, "settle")
        wait_for(lambda: self.m.generation() > gen, what="a generation")
        with open(path, "r+b") as f:
            f.seek(0, os.SEEK_END)
            f.write(b"\nEdited in place.\n")
        digest = sha256_file(path)
        with open(path, "rb") as f:
            content = f.read()
        self.timed(lambda: digest in self.m.read("index.json").decode()
                   and self.m.read("skills/pdf-forms/references/field-types.md")
                   == content, "an edit in place")

    def test_last_write_of_a_burst_is_served(self):
        """A file appended to every 2 ms while generations are being built:
        after each burst the mount serves the last version.  An append that
        lands while a build is reading the sources must not go unseen (in
        polling mode it once did: the fingerprint taken after the build
        already held it, so no later check differed)."""
        for i in range(1000):      # builds long enough for writes to land in
            write_skill(self.root, "bulk-%04d" % i)
        wait_for(lambda: "bulk-0999" in index_ids(self.m), what="1,000 new skills")
        path = os.path.join(self.root, "pdf-forms", "references", "field-types.md")
        served = self.m.file("skills/pdf-forms/references/field-types.md")
        for burst in range(8):
            end = time.monotonic() + 0.3 + burst * 0.037
            k = 0
            while time.monotonic() < end:
                with open(path, "a") as f:
                    f.write("burst %d, line %d\n" % (burst, k))
                k += 1
                time.sleep(0.002)
            with open(path, "rb") as f:
                want = f.read()

            def current():
                with open(served, "rb") as f:
                    return f.read() == want
            wait_for(current, what="the last version after burst %d" % burst)

    def test_delete_skill(self):
        self.assertTrue(self.shows("pdf-forms"))
        shutil.rmtree(os.path.join(self.root, "pdf-forms"))
        self.timed(lambda: self.gone("pdf-forms"), "a removed skill")
        self.assertFalse(os.path.exists(self.m.file("refs/pdf-forms")))
        self.assertNotIn("pdf-forms", os.listdir(self.m.file("skills")))

    def test_rename_skill(self):
        old = os.path.join(self.root, "csv-report")
        new = os.path.join(self.root, "tsv-report")
        os.rename(old, new)
        md = os.path.join(new, "SKILL.md")
        with open(md) as f:
            text = f.read()
        with open(md, "w") as f:
            f.write(text.replace("name: csv-report", "name: tsv-report"))
        self.timed(lambda: self.shows("tsv-report") and self.gone("csv-report"), "a renamed skill")
        self.assertTrue(os.access(self.m.file("skills/tsv-report/scripts/summarize.py"), os.X_OK))

    def test_rename_makes_invalid(self):
        # A folder renamed away from its skill's name keeps the skill
        # served under its name, with a warning; a SKILL.md without a
        # description then makes it invalid.
        moved = os.path.join(self.root, "other-name")
        os.rename(os.path.join(self.root, "csv-report"), moved)

        def renamed():
            status = self.m.json("status.json")
            return {e["dir"]: e["state"] for e in status["skills"]}.get(moved) == "served"
        wait_for(renamed, what="status.json naming the new folder")
        self.assertTrue(self.shows("csv-report"))
        with open(os.path.join(moved, "SKILL.md"), "w") as f:
            f.write("---\nname: csv-report\n---\nBody.\n")
        self.timed(lambda: self.gone("csv-report"), "a skill without a description")
        wait_for(lambda: self.m.json("status.json")["counts"]["invalid"] >= 1, what="status.json")
        status = self.m.json("status.json")
        states = {e["dir"]: e["state"] for e in status["skills"]}
        self.assertEqual(states.get(moved), "invalid")

    def test_root_removed_and_back(self):
        away = self.root + ".away"
        os.rename(self.root, away)
        self.timed(lambda: index_ids(self.m) == [], "a root renamed away")
        self.assertEqual(os.listdir(self.m.file("skills")), [])
        wait_for(lambda: not self.m.json("status.json")["roots"][0]["exists"], what="status.json")
        os.rename(away, self.root)
        self.timed(lambda: len(index_ids(self.m)) == 3, "a root back")
        shutil.rmtree(self.root)
        self.timed(lambda: index_ids(self.m) == [], "a root deleted")
        os.makedirs(self.root)
        write_skill(self.root, "fresh")
        self.timed(lambda: self.shows("fresh"), "a recreated root")

    def test_status_inode_per_generation(self):
        ino = os.stat(self.m.file("status.json")).st_ino
        gen = self.m.generation()
        write_skill(self.root, "bump")
        wait_for(lambda: self.m.generation() > gen, what="a new generation")
        self.assertNotEqual(os.stat(self.m.file("status.json")).st_ino, ino)
        # unchanged files keep their inode
        self.assertEqual(os.stat(self.m.file("skills/pdf-forms/SKILL.md")).st_ino,
                         os.stat(self.m.file("skills/pdf-forms/SKILL.md")).st_ino)

    def test_unchanged_inodes_stay(self):
        before = {p: os.stat(self.m.file(p)).st_ino for p in
                  ("skills/pdf-forms/SKILL.md", "skills/pdf-forms", "catalog/pdf-forms.json",
                   "refs/pdf-forms/field-types.md")}
        write_skill(self.root, "another")
        wait_for(lambda: self.shows("another"), what="another skill")
        after = {p: os.stat(self.m.file(p)).st_ino for p in before}
        self.assertEqual(before, after)

    def test_reader_keeps_old_content(self):
        """A generated file held open across a refresh reads the old bytes."""
        old = self.m.read("index.json")
        fd = os.open(self.m.file("index.json"), os.O_RDONLY)
        self.addCleanup(os.close, fd)
        first = os.read(fd, 100)
        write_skill(self.root, "during-read", description="x" * 1024)
        wait_for(lambda: "during-read" in index_ids(self.m), what="the refresh")
        rest = b""
        while True:
            chunk = os.read(fd, 7)
            if not chunk:
                break
            rest += chunk
        self.assertEqual(first + rest, old)
        self.assertEqual(os.pread(fd, len(old) + 10, 0), old)
        self.assertEqual(os.fstat(fd).st_size, len(old))
        self.assertNotEqual(self.m.read("index.json"), old)
        # without the page cache the daemon itself answers from the old
        # generation, which lives as long as the kernel holds the inode
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        self.assertEqual(os.pread(fd, len(old) + 10, 0), old)
        write_skill(self.root, "during-read-2")
        wait_for(lambda: "during-read-2" in index_ids(self.m), what="another refresh")
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        self.assertEqual(os.pread(fd, len(old) + 10, 0), old)
        # a skill file held open while its skill is deleted keeps its pages
        sfd = os.open(self.m.file("skills/commit-messages/SKILL.md"), os.O_RDONLY)
        self.addCleanup(os.close, sfd)
        content = os.pread(sfd, 1 << 16, 0)
        shutil.rmtree(os.path.join(self.root, "writing"))
        wait_for(lambda: self.gone("commit-messages"), what="the deletion")
        self.assertEqual(os.pread(sfd, 1 << 16, 0), content)

    def test_missing_root_appears(self):
        later = os.path.join(self.make_dir(), "not", "yet")
        m = self.mount([self.root, later], self.options)
        st = m.json("status.json")
        self.assertFalse(st["roots"][1]["exists"])
        self.assertIn("does not exist", m.stderr())
        os.makedirs(later)
        write_skill(later, "late-skill")
        wait_for(lambda: "late-skill" in index_ids(m), what="a root that appeared")
        wait_for(lambda: m.json("status.json")["roots"][1]["exists"], what="status.json")

    def test_shadowing_across_roots(self):
        second = os.path.join(self.make_dir(), "second")
        os.makedirs(second)
        write_skill(second, "csv-report", description="The shadowed copy.")
        write_skill(second, "only-second")
        m = self.mount([self.root, second], self.options)
        self.assertIn("only-second", index_ids(m))
        self.assertEqual(m.json("catalog/csv-report.json")["source"],
                         os.path.join(self.root, "csv-report"))
        # the first root's copy goes: the second root's copy takes its place
        shutil.rmtree(os.path.join(self.root, "csv-report"))
        wait_for(lambda: m.json("catalog/csv-report.json")["source"] ==
                 os.path.join(second, "csv-report"), what="the shadowed copy served")
        self.assertIn(b"The shadowed copy.", m.read("skills/csv-report/SKILL.md"))


class PollingRefresh(Refresh):
    """The same behaviour with the polling fallback (-o polling)."""
    options = ("-o", "polling,poll_interval=100")
    expected_mode = "polling"


SHIM = os.environ.get("SKILLSFS_INOTIFY_FAIL", "")


@unittest.skipUnless(SHIM and os.path.exists(SHIM), "needs the inotify_fail shim (meson test)")
class InotifyFailures(MountTestCase):
    """The polling fallback takes over where inotify cannot watch."""

    def mount_failing(self, how):
        root = self.copy_examples()
        env = dict(os.environ, LD_PRELOAD=SHIM, SKILLSFS_TEST_INOTIFY=how,
                   ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0")
        return root, self.mount([root], ["-o", "poll_interval=200"], env=env)

    def check_polling(self, root, m):
        self.assertEqual(m.json("status.json")["refresh_mode"], "polling")
        write_skill(root, "polled")
        # (deadlines, not measurements: a loaded machine may take long)
        wait_for(lambda: "polled" in index_ids(m), timeout=20, what="a refresh by polling")
        with open(os.path.join(root, "pdf-forms", "SKILL.md"), "a") as f:
            f.write("\nEdited in place.\n")
        wait_for(lambda: m.read("skills/pdf-forms/SKILL.md").endswith(b"Edited in place.\n"),
                 timeout=20, what="an edit found by polling")

    def test_out_of_watches(self):
        root, m = self.mount_failing("no-watches")
        self.assertIn("max_user_watches", m.stderr())
        self.check_polling(root, m)

    def test_no_inotify(self):
        root, m = self.mount_failing("no-inotify")
        self.assertIn("inotify is not available", m.stderr())
        self.check_polling(root, m)


if __name__ == "__main__":
    unittest.main(verbosity=2)
