#!/usr/bin/env python3
"""A folder root's skills kept across starts (CACHE/folder-units): a
restart of the daemon over unchanged folders serves what it kept without
keeping them again; a skill changed while no daemon ran (an edit of the
same size with its mtime put back, a touch, a rename, a file added or
removed, a linked skill whose target changed) is read again and served as
it now is; a kept file that is damaged is said in status.json and ignored;
two mounts of one root may share the cache; `skillsfs gc` removes the kept
file and the next start keeps it again; and a start from kept units still
follows a live edit."""

import os
import subprocess
import time
import unittest

from mountlib import SKILLSFS, MountTestCase, sha256_file, wait_for, write_skill

# the build's margin (SFS_CTIME_MARGIN_MS), and a little more: an entry
# that changed less than this before a start is read again at the next
MARGIN_S = 2.2


def newest_ctime(root):
    newest = os.lstat(root).st_ctime
    for top, dirs, files in os.walk(root, followlinks=True):
        for name in dirs + files:
            newest = max(newest, os.lstat(os.path.join(top, name)).st_ctime)
    return newest


def wait_past_margin(*roots):
    """Until every entry of roots last changed more than the margin ago:
    a start then trusts them all next time."""
    since = max(newest_ctime(r) for r in roots) + MARGIN_S
    wait_for(lambda: time.time() > since, timeout=10,
             what="the clock to pass the ctime margin")


def on_disk(root):
    """{skill id: {uri: digest}} of every skill folder below root, as a
    build from nothing would publish them."""
    skills = {}
    for name in sorted(os.listdir(root)):
        top = os.path.join(root, name)
        if not os.path.isfile(os.path.join(top, "SKILL.md")):
            continue
        files = {}
        for here, _dirs, names in os.walk(top):
            for n in names:
                path = os.path.join(here, n)
                rel = os.path.relpath(path, top)
                files["skill://%s/%s" % (name, rel)] = sha256_file(path)
        skills[name] = files
    return skills


def served(m):
    return {e["frontmatter"]["name"]: {r["uri"]: r["digest"] for r in e["resources"]}
            for e in m.json("index.json")["skills"]}


def messages(m):
    return [d["message"] for d in m.json("status.json")["diagnostics"]]


class FolderUnits(MountTestCase):
    def setUp(self):
        work = self.make_dir()
        self.root = os.path.join(work, "skills")
        self.agents = os.path.join(work, "agents")
        self.cache = os.path.join(work, "cache")
        os.makedirs(self.cache, mode=0o700)
        for sid in ("edited", "touched", "renamed", "added", "removed", "still"):
            d = write_skill(self.root, sid, description="The %s skill." % sid)
            os.makedirs(os.path.join(d, "references"))
            with open(os.path.join(d, "references", "guide.md"), "w") as f:
                f.write("# Guide of %s\n" % sid)
        # the `skills` installer's layout: a link to the skill's folder
        write_skill(self.agents, "linked", description="The linked skill.")
        os.symlink(os.path.join("..", "agents", "linked"), os.path.join(self.root, "linked"))
        wait_past_margin(self.root, self.agents)

    def start(self):
        m = self.mount([self.root], ["-o", "cache_dir=" + self.cache])
        self.assertEqual(served(m), on_disk(self.root))
        return m

    def kept(self):
        """The one file of folder-units and its identity."""
        folder = os.path.join(self.cache, "folder-units")
        names = os.listdir(folder) if os.path.isdir(folder) else []
        self.assertEqual(len(names), 1, "folder-units holds %r" % names)
        path = os.path.join(folder, names[0])
        st = os.stat(path)
        return path, (st.st_ino, st.st_mtime_ns)

    def restart(self, m):
        m.cleanup()
        return self.start()

    def test_a_restart_takes_what_it_kept_and_reads_what_changed_meanwhile(self):
        m = self.start()
        path, first = self.kept()
        m = self.restart(m)
        self.assertEqual(self.kept()[1], first,
                         "a restart over unchanged folders kept its skills again")
        self.assertFalse(any("folder-units" in t for t in messages(m)), messages(m))
        m.cleanup()

        # changed while no daemon ran
        md = os.path.join(self.root, "edited", "SKILL.md")
        st = os.stat(md)
        with open(md, "r+") as f:
            text = f.read()
            f.seek(0)
            f.write(text.replace("The edited", "THE EDITED"))
        os.utime(md, ns=(st.st_atime_ns, st.st_mtime_ns))
        self.assertEqual(os.stat(md).st_size, st.st_size)
        self.assertEqual(os.stat(md).st_mtime_ns, st.st_mtime_ns)
        os.utime(os.path.join(self.root, "touched", "references", "guide.md"))
        os.rename(os.path.join(self.root, "renamed", "references", "guide.md"),
                  os.path.join(self.root, "renamed", "references", "moved.md"))
        with open(os.path.join(self.root, "added", "notes.md"), "w") as f:
            f.write("notes\n")
        os.unlink(os.path.join(self.root, "removed", "references", "guide.md"))
        write_skill(self.agents, "linked", description="The linked skill, changed.")
        wait_past_margin(self.root, self.agents)

        m = self.start()
        index = {e["frontmatter"]["name"]: e["frontmatter"]["description"]
                 for e in m.json("index.json")["skills"]}
        self.assertEqual(index["edited"], "THE EDITED skill.")
        self.assertEqual(index["linked"], "The linked skill, changed.")
        with open(md, "rb") as f:
            self.assertEqual(m.read("skills", "edited", "SKILL.md"), f.read())
        self.assertTrue(os.path.exists(m.file("skills", "renamed", "references", "moved.md")))
        self.assertFalse(os.path.exists(m.file("skills", "renamed", "references", "guide.md")))
        self.assertEqual(m.read("skills", "added", "notes.md"), b"notes\n")
        self.assertFalse(os.path.exists(m.file("skills", "removed", "references", "guide.md")))
        now = self.kept()[1]
        self.assertNotEqual(now, first, "the skills read again were not kept")
        with open(path, "rb") as f:
            self.assertIn(b"THE EDITED skill.", f.read())
        m = self.restart(m)
        self.assertEqual(self.kept()[1], now)

    def test_a_damaged_kept_file_is_said_and_ignored(self):
        m = self.start()
        path, _ = self.kept()
        m.cleanup()
        with open(path, "rb") as f:
            real = f.read()
        at = real.find(b"The still skill.")
        self.assertGreater(at, 0)
        forged = real[:at] + b"The STILL skill." + real[at + 16:]
        for data in (forged, real[:len(real) // 2], b"not a cache file at all\n"):
            with open(path, "wb") as f:
                f.write(data)
            m = self.start()
            self.assertTrue(any("folder-units) are not used" in t for t in messages(m)),
                            messages(m))
            self.assertNotIn("STILL", m.read("index.json").decode())
            m.cleanup()
            with open(path, "rb") as f:
                self.assertEqual(len(f.read()), len(real), "the kept skills were not written again")
        m = self.start()
        self.assertFalse(any("folder-units" in t for t in messages(m)), messages(m))

    def test_two_mounts_share_the_cache(self):
        a = self.start()
        b = self.start()
        self.assertEqual(served(b), served(a))
        _, both = self.kept()
        a.cleanup()
        b.cleanup()
        m = self.start()
        self.assertFalse(any("folder-units" in t for t in messages(m)), messages(m))
        self.assertEqual(self.kept()[1], both)

    def test_gc_removes_the_kept_skills_and_the_next_start_keeps_them(self):
        self.start().cleanup()
        path, _ = self.kept()
        r = subprocess.run([SKILLSFS, "gc", "--cache-dir", self.cache, "--max", "0"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertFalse(os.path.exists(path), "gc left " + path)
        self.start().cleanup()
        self.kept()

    def test_a_start_from_kept_skills_follows_a_live_edit(self):
        self.start().cleanup()
        m = self.start()
        write_skill(self.root, "still", description="The still skill, edited live.")
        wait_for(lambda: served(m) == on_disk(self.root), what="the live edit to be served")


if __name__ == "__main__":
    unittest.main(verbosity=2)
