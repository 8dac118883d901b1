#!/usr/bin/env python3
"""Sources that change under the daemon: files deleted, truncated or swapped
for links between the scan and the read, a root that disappears and comes
back, a root whose filesystem fills up.

A long debounce keeps the inotify refresh away, so each read really comes
after the change and before the refresh that notices it.  Without a copy
of the published bytes (-o retain=0) such a read fails cleanly (ENOENT or
ESTALE, never other bytes), and makes the daemon refresh at once rather
than after the debounce; with copies (the default) it returns exactly the
published bytes, never the new ones."""

import errno
import os
import shutil
import time
import unittest

from hostilelib import HostileCase, wait_for, write_skill, needs_root

SLOW = ["-o", "debounce=3000"]      # inotify alone would refresh after 3-12 s
NO_COPIES = ["-o", "retain=0"]
SOON = 2.5                          # a read-triggered refresh comes well before


def read_errno(path):
    """None when path reads, else the errno."""
    try:
        with open(path, "rb") as f:
            f.read()
        return None
    except OSError as e:
        return e.errno


def swap_for_hard_link(case):
    """Replaces the skill's swap.md by a hard link to the secret, given the
    old file's size and mtime; the secret's new bytes are one more marker
    that must never be read.  Returns the path and the old file's stat."""
    with open(case.secret, "wb") as f:
        f.write(b"swap " + case.marker[:2] + b"\n")
    case.markers.append(b"swap " + case.marker[:2])
    src = os.path.join(case.d, "swap.md")
    st = os.stat(src)
    os.utime(case.secret, ns=(st.st_atime_ns, st.st_mtime_ns))
    tmp = src + ".tmp"
    os.link(case.secret, tmp)
    os.rename(tmp, src)
    return src, st


class ChangedBeforeRead(HostileCase):
    mount_options = SLOW + NO_COPIES

    def setUp(self):
        super().setUp()
        self.d = write_skill(self.root, "changing", files={
            "gone.md": "soon gone\n", "short.md": "x" * 10000 + "\n",
            "references/doc.md": "the real reference\n", "swap.md": "swap me\n"})

    def assert_read_hides(self, m, rel, hidden, what):
        """A read of skills/changing/REL fails (stale or gone: never other
        bytes) and the refresh after it hides skills/changing/HIDDEN."""
        self.assertIn(read_errno(m.file("skills/changing/" + rel)), (errno.ESTALE, errno.ENOENT))
        wait_for(lambda: not os.path.exists(m.file("skills/changing/" + hidden)), what=what)
        self.assert_safe()

    def test_deleted(self):
        m = self.mount_root()
        os.unlink(os.path.join(self.d, "gone.md"))
        start = time.monotonic()
        self.assertIn(read_errno(m.file("skills/changing/gone.md")),
                      (errno.ENOENT, errno.ESTALE))
        wait_for(lambda: not os.path.exists(m.file("skills/changing/gone.md")),
                 what="the refresh after a failed read")
        self.assertLess(time.monotonic() - start, SOON)
        self.assert_safe()

    def test_truncated(self):
        m = self.mount_root()
        path = m.file("skills/changing/short.md")
        with open(path, "rb") as held:          # opened before the change
            os.truncate(os.path.join(self.d, "short.md"), 100)
            start = time.monotonic()
            try:
                got = held.read()
                self.fail("read %d bytes of a truncated source" % len(got))
            except OSError as e:
                self.assertEqual(e.errno, errno.ESTALE)
        wait_for(lambda: os.path.getsize(path) == 100, what="the truncated size")
        self.assertLess(time.monotonic() - start, SOON)
        self.assertEqual(m.read("skills/changing/short.md"), b"x" * 100)
        entry = [e for e in m.json("index.json")["skills"] if "//changing/" in e["uri"]][0]
        sizes = {r["uri"]: r["size"] for r in entry["resources"]}
        self.assertEqual(sizes["skill://changing/short.md"], 100)
        self.assert_safe()

    def test_folder_swapped_for_link_outside(self):
        m = self.mount_root()
        # same name, same size, same mtime: only where it leads differs
        refs = os.path.join(self.d, "references")
        decoy = os.path.join(self.outside, "decoy")
        os.makedirs(decoy)
        lure = self.marker[:18] + b"\n"      # as long as the real one
        self.markers.append(lure)
        with open(os.path.join(decoy, "doc.md"), "wb") as f:
            f.write(lure)
        st = os.stat(os.path.join(refs, "doc.md"))
        os.utime(os.path.join(decoy, "doc.md"), ns=(st.st_atime_ns, st.st_mtime_ns))
        os.rename(refs, refs + ".old")
        os.symlink(decoy, refs)
        self.assert_read_hides(m, "references/doc.md", "references", "the swapped folder hidden")
        self.assert_diag(refs, ["absolute target"], "warning")

    def test_file_swapped_for_hard_link(self):
        m = self.mount_root()
        src, st = swap_for_hard_link(self)
        self.assertEqual(os.path.getsize(src), st.st_size)
        self.assert_read_hides(m, "swap.md", "swap.md", "the hard link hidden")
        self.assert_diag(src, ["hard link"], "warning")



class ChangedBeforeReadRetained(HostileCase):
    """The same changes with copies of the published bytes: every read
    returns the version index.json publishes, never the new bytes, never
    what a swapped link leads to."""
    mount_options = SLOW

    def setUp(self):
        super().setUp()
        self.d = write_skill(self.root, "changing", files={
            "short.md": "x" * 10000 + "\n", "swap.md": "swap me\n"})

    def retained(self, m):
        wait_for(lambda: "generation 1: retained" in m.stderr(), what="the copies")

    def test_truncated(self):
        m = self.mount_root(options=self.mount_options + ["-d"])
        self.retained(m)
        path = m.file("skills/changing/short.md")
        with open(path, "rb") as held:
            os.truncate(os.path.join(self.d, "short.md"), 100)
            self.assertEqual(held.read(), b"x" * 10000 + b"\n")
        self.assertEqual(m.read("skills/changing/short.md"), b"x" * 10000 + b"\n")
        wait_for(lambda: os.path.getsize(path) == 100, timeout=15, what="the truncated size")
        self.assertEqual(m.read("skills/changing/short.md"), b"x" * 100)
        self.assert_safe()

    def test_file_swapped_for_hard_link(self):
        m = self.mount_root(options=self.mount_options + ["-d"])
        self.retained(m)
        src, _ = swap_for_hard_link(self)
        self.assertEqual(m.read("skills/changing/swap.md"), b"swap me\n")
        wait_for(lambda: not os.path.exists(m.file("skills/changing/swap.md")),
                 timeout=15, what="the hard link hidden")
        self.assert_safe()
        self.assert_diag(src, ["hard link"], "warning")

class RootComesAndGoes(HostileCase):
    def test_root_disappears_and_returns(self):
        other = os.path.join(self.make_dir(), "other")
        write_skill(other, "elsewhere", files={"notes.md": "notes\n"})
        m = self.mount([self.root, other])
        self.m = m
        held = open(m.file("skills/elsewhere/notes.md"), "rb")
        self.addCleanup(held.close)
        away = other + ".away"
        os.rename(other, away)
        wait_for(lambda: "elsewhere" not in self.index_ids(), what="a root gone")
        roots = self.status()["roots"]
        self.assertEqual([r["exists"] for r in roots], [True, False])
        self.assert_diag(other, ["does not exist"], "error", check=False)
        # the open file's source moved with its root: same inode, still read
        self.assertEqual(held.read(), b"notes\n")
        self.assert_safe()
        # skillsfs-mcp while the root is gone: a clean answer
        s = self.mcp()
        r = s.request("skills/get", {"uri": "skill://elsewhere/SKILL.md"})
        self.assertIn("error", r)
        s.finish()
        os.rename(away, other)
        wait_for(lambda: "elsewhere" in self.index_ids(), what="the root back")
        self.assertEqual(m.read("skills/elsewhere/notes.md"), b"notes\n")
        self.assertEqual([r["exists"] for r in self.status()["roots"]], [True, True])
        # deleted and made again, with other content
        shutil.rmtree(other)
        wait_for(lambda: "elsewhere" not in self.index_ids(), what="a root deleted")
        write_skill(other, "recreated")
        wait_for(lambda: "recreated" in self.index_ids(), what="a root recreated")
        self.assert_safe()


class FullFilesystem(HostileCase):
    """The root on a 1 MiB tmpfs that a writer fills: what the writer left
    half-written is reported, the rest served, and all served once the
    writer finishes."""

    def setUp(self):
        super().setUp()
        self.fs = self.root_on_tmpfs("size=1m,nr_inodes=400")

    def fill(self):
        """Writes until the filesystem says ENOSPC."""
        with self.assertRaises(OSError) as cm:
            with open(os.path.join(self.fs, "ballast"), "wb") as f:
                while True:
                    f.write(b"\0" * 65536)
                    f.flush()
                    os.fsync(f.fileno())
        self.assertEqual(cm.exception.errno, errno.ENOSPC)

    @needs_root("a tmpfs")
    def test_filesystem_fills_up(self):
        m = self.mount_root()
        self.fill()
        # a writer adds a skill: the folder and an empty SKILL.md fit,
        # the content does not
        d = os.path.join(self.root, "half")
        os.makedirs(d)
        path = os.path.join(d, "SKILL.md")
        with self.assertRaises(OSError):
            with open(path, "w") as f:
                f.write("---\nname: half\ndescription: " + "x" * 100000 + "\n---\nBody\n")
        # and runs out of inodes for more
        made = 0
        with self.assertRaises(OSError) as cm:
            for i in range(1000):
                open(os.path.join(d, "extra%d.md" % i), "w").close()
                made += 1
        self.assertIn(cm.exception.errno, (errno.ENOSPC,))
        wait_for(lambda: any(x["file"] == path for s in self.status()["skills"]
                             for x in s["diagnostics"]), what="the half-written skill")
        self.assertNotIn("half", self.index_ids())
        self.assert_diag(path, [], "error")
        self.assert_safe()
        # space comes back; the writer finishes
        os.unlink(os.path.join(self.fs, "ballast"))
        for i in range(made):
            os.unlink(os.path.join(d, "extra%d.md" % i))
        write_skill(self.root, "half")
        wait_for(lambda: "half" in self.index_ids(), what="the finished skill")
        self.assert_safe()


if __name__ == "__main__":
    unittest.main(verbosity=2)
