#!/usr/bin/env python3
"""Who may read the mount (skillsfs(5), SECURITY): only the user who mounted
it; with allow_other every user, and every file the daemon can read, modes
notwithstanding; with allow_other,default_permissions the kernel applies
the source's modes and owners, which the mount keeps, for the mount and
for a skillsfs-mcp of another user alike."""

import errno
import json
import os
import subprocess
import unittest

from hostilelib import ANY_PYTHON, CONTROL_ID, HostileCase, become, write_skill, needs_root

NOBODY = 65534


def as_nobody(code, *args):
    """Runs python code as nobody; returns (exit status, stdout)."""
    p = subprocess.run([ANY_PYTHON, "-c", code] + list(args), capture_output=True,
                       timeout=30, preexec_fn=become(NOBODY))
    return p.returncode, p.stdout.decode().strip()


READ = """
import errno, sys
try:
    with open(sys.argv[1], "rb") as f:
        f.read()
    print("read")
except OSError as e:
    print(errno.errorcode[e.errno])
"""


@needs_root("reading as another user (nobody)")
class Access(HostileCase):
    def setUp(self):
        super().setUp()
        # sources every user may read natively (a mount shared with
        # allow_other leaves the others out of its documents, and
        # test_confidential.py covers them)
        for folder in (os.path.dirname(self.root), self.root):
            os.chmod(folder, 0o755)
        d = write_skill(self.root, "private", files={"open.md": "open\n",
                                                     "mine.md": "owner only\n"})
        os.chmod(os.path.join(d, "mine.md"), 0o600)

    def mount_for_others(self, options):
        m = self.mount_root(options)
        os.chmod(m.workdir, 0o711)       # let nobody reach the mountpoint
        return m

    def reads(self, m, *rel):
        return as_nobody(READ, m.file(*rel))[1]

    def test_only_the_mounting_user(self):
        m = self.mount_for_others([])
        self.assertEqual(self.reads(m, "index.json"), "EACCES")
        self.assertEqual(self.reads(m, "skills", "private", "open.md"), "EACCES")

    def test_allow_other_ignores_modes(self):
        # documented: without default_permissions nothing checks modes
        m = self.mount_for_others(["-o", "allow_other"])
        self.assertEqual(self.reads(m, "skills", "private", "mine.md"), "read")
        self.assertEqual(os.stat(m.file("skills/private/mine.md")).st_mode & 0o777, 0o600)

    def test_default_permissions_applies_modes(self):
        m = self.mount_for_others(["-o", "allow_other,default_permissions"])
        self.assertEqual(self.reads(m, "skills", "private", "mine.md"), "EACCES")
        self.assertEqual(self.reads(m, "skills", "private", "open.md"), "read")
        self.assertEqual(self.reads(m, "index.json"), "read")
        self.assertEqual(self.reads(m, "skills", CONTROL_ID, "references", "guide.md"), "read")
        # a walk as nobody sees no secret, and trips on exactly one file:
        # under skills/, and in each view that holds the skill (views/)
        walk = self.walk(m, as_uid=NOBODY)
        self.assert_nothing_leaks(walk)
        views = [v for v in os.listdir(m.file("views"))
                 if "private" in os.listdir(m.file("views", v))]
        want = sorted([m.file("skills", "private", "mine.md")] +
                      [m.file("views", v, "private", "mine.md") for v in views])
        self.assertEqual(sorted(e[0] for e in walk["errors"]), want)
        self.assertEqual({e[1] for e in walk["errors"]}, {"EACCES"})
        # skillsfs-mcp run by nobody gets what nobody may read
        s = self.mcp(m, preexec_fn=become(NOBODY))
        r = s.request("resources/read", {"uri": "skill://private/open.md"})
        self.assertEqual(r["result"]["contents"][0]["text"], "open\n")
        r = s.request("resources/read", {"uri": "skill://private/mine.md"})
        self.assertIn("error", r)
        self.assertIn(os.strerror(errno.EACCES), r["error"]["message"])
        self.assertNotIn("owner only", json.dumps(r))
        s.finish()
        self.assert_alive()


if __name__ == "__main__":
    unittest.main(verbosity=2)
