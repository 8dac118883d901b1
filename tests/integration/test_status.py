#!/usr/bin/env python3
"""skillsfs status: a running mount summed up from its status.json, with
real mounts: a clean one, one with a broken skill, --json, every mount of
the user with no argument, and the clear errors for a folder that is no
mount."""

import json
import os
import shutil
import tempfile
import unittest

from intlib import SKILLSFS, MountTestCase, clean_env, run, write, write_skill

BROKEN = "---\nname: Broken_Name\n---\nA skill with no description.\n"


def status(*args):
    return run([SKILLSFS, "status", *args], env=clean_env())


class Status(MountTestCase):
    def clean_mount(self):
        root = self.copy_examples()
        return root, self.mount([root])

    def broken_mount(self):
        root = self.copy_examples()
        write(os.path.join(root, "broken", "SKILL.md"), BROKEN)
        return root, self.mount([root])

    def test_clean_mount(self):
        root, m = self.clean_mount()
        served = m.json("status.json")["counts"]["served"]
        self.assertGreater(served, 0)
        r = status(m.path)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stderr, "")
        self.assertIn(os.path.realpath(m.path) + ": generation ", r.stdout)
        self.assertIn("  %s (from --skills-dir): serves %d skills" % (root, served), r.stdout)
        self.assertIn("skills: %d served, 0 invalid, 0 shadowed; 0 errors" % served, r.stdout)
        self.assertNotIn("findings:", r.stdout)
        self.assertTrue(r.stdout.endswith("status: ok\n"), r.stdout)

    def test_broken_skill_is_shown_under_its_skill(self):
        root, m = self.broken_mount()
        r = status(m.path)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        lines = r.stdout.splitlines()
        head = "  broken (invalid): %s" % os.path.join(root, "broken")
        self.assertIn(head, lines)
        under = lines[lines.index(head) + 1:]
        skill_md = os.path.join(root, "broken", "SKILL.md")
        self.assertRegex(under[0], r"^    %s:\d+:\d+: error: description: required field is missing"
                         % skill_md)
        self.assertRegex(under[1], r"^    %s:\d+:\d+: warning: name: " % skill_md)
        self.assertIn("1 invalid", r.stdout)
        self.assertIn("status: something is wrong", r.stdout)

    def test_shadowed_skill_names_what_shadows_it(self):
        first, second = self.make_dir(), self.make_dir()
        write_skill(first, "twice")
        write_skill(second, "twice")
        m = self.mount([first, second])
        r = status(m.path)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("1 shadowed", r.stdout)
        self.assertIn("  twice (shadowed by %s): %s"
                      % (os.path.join(first, "twice"), os.path.join(second, "twice")),
                      r.stdout)

    def test_json_is_the_status_document(self):
        _, m = self.broken_mount()
        r = status("--json", m.path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.encode(), m.read("status.json"))

    def test_no_argument_lists_every_mount(self):
        _, clean = self.clean_mount()
        _, broken = self.broken_mount()
        r = status()
        # Other mounts of this user may be running too: these two are
        # among those named, each with its summary.
        for m in (clean, broken):
            self.assertIn("\n%s: generation " % os.path.realpath(m.path), "\n" + r.stdout)
        self.assertNotEqual(r.returncode, 0, "one of them has a broken skill")
        r = status("--json")
        listed = {e["mountpoint"]: e["status"] for e in json.loads(r.stdout)}
        for m in (clean, broken):
            self.assertEqual(listed[os.path.realpath(m.path)], m.json("status.json"))

    def test_a_folder_that_is_no_mount(self):
        d = tempfile.mkdtemp(prefix="skillsfs-status-")
        self.addCleanup(shutil.rmtree, d, True)
        r = status(d)
        self.assertEqual(r.returncode, 3)
        self.assertEqual(r.stdout, "")
        self.assertIn("skillsfs status: %s is not a skillsfs mount: name the folder" % d, r.stderr)
        r = status(os.path.join(d, "missing"))
        self.assertEqual(r.returncode, 3)
        self.assertIn("%s: No such file or directory" % os.path.join(d, "missing"), r.stderr)

    def test_a_folder_inside_a_mount_names_the_mount(self):
        _, m = self.clean_mount()
        r = status(m.file("skills"))
        self.assertEqual(r.returncode, 3)
        self.assertIn("is inside the skillsfs mount %s: name that folder"
                      % os.path.realpath(m.path), r.stderr)

    def test_usage(self):
        r = status("a", "b")
        self.assertEqual(r.returncode, 2)
        self.assertIn("unexpected argument 'b'", r.stderr)
        r = status("--bogus")
        self.assertEqual(r.returncode, 2)


if __name__ == "__main__":
    unittest.main()
