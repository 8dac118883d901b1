#!/usr/bin/env python3
"""skillsfs gc as an operator meets it first: no cache folder yet, a
folder of other things given by mistake, one others may write, and what
--dry-run says.  (tests/fs/test_cache_gc.py tests the collection with
mounts, leases and lockfiles.)"""

import os
import shutil
import tempfile
import unittest

from intlib import SKILLSFS, clean_env, run, tree_state, write


def gc(*args):
    return run([SKILLSFS, "gc", *args], env=clean_env())


class Gc(unittest.TestCase):
    def setUp(self):
        self.top = tempfile.mkdtemp(prefix="skillsfs-gc-")
        self.addCleanup(shutil.rmtree, self.top, True)

    def test_no_cache_folder_yet(self):
        missing = os.path.join(self.top, "cache")
        r = gc("--cache-dir", missing, "--max", "0")
        self.assertEqual((r.returncode, r.stdout, r.stderr),
                         (0, "%s: no cache folder yet: nothing to do\n" % missing, ""))
        self.assertFalse(os.path.exists(missing), "a collection makes no cache folder")

    def test_a_folder_of_other_things(self):
        write(os.path.join(self.top, "notes.txt"), "mine\n")
        write(os.path.join(self.top, "git", "project", "README"), "mine too\n")
        before = tree_state(self.top)
        r = gc("--cache-dir", self.top, "--max", "0")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stderr, "skillsfs gc: nothing in %s is an entry of a skillsfs cache "
                         "folder, so nothing was removed: is it the cache folder? (skillsfs "
                         "status names a mount's)\n" % self.top)
        after = tree_state(self.top)
        self.assertEqual({k: after.get(k) for k in before}, before)
        # besides, only what a collection keeps for itself
        self.assertLessEqual(set(after) - set(before), {"gc.lock", "leases", "trash"})

    def test_a_folder_others_may_write(self):
        cache = os.path.join(self.top, "cache")
        os.mkdir(cache)
        os.chmod(cache, 0o777)
        r = gc("--cache-dir", cache)
        self.assertEqual((r.returncode, r.stdout), (1, ""))
        self.assertRegex(r.stderr, r"^skillsfs gc: %s: refusing %s, owned by .* with mode 0777: "
                         r"others may write this folder and replace what it holds; chmod go-w "
                         r"it, or use another folder\n$" % (cache, cache))

    def test_dry_run_says_what_would_go(self):
        entry = os.path.join(self.top, "folder-units", "0123abcd")
        write(entry, "x" * 2048)
        r = gc("--cache-dir", self.top, "--max", "0", "--dry-run")
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        lines = r.stdout.splitlines()
        self.assertRegex(lines[0], r"^would remove   folder-units/0123abcd \(2\.0 KiB, used "
                         r"\d{4}-\d\d-\d\d \d\d:\d\d\)$")
        self.assertEqual(lines[1], "%s: 2.0 KiB before, 0 bytes after a gc, of 0 bytes "
                         "(cache_max); 0 running mounts or commands" % self.top)
        self.assertTrue(os.path.exists(entry))
        r = gc("--cache-dir", self.top, "--max", "0")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("removed        folder-units/0123abcd ("), r.stdout)
        self.assertFalse(os.path.exists(entry))


if __name__ == "__main__":
    unittest.main(verbosity=2)
