#!/usr/bin/env python3
"""What a hostile skill's author chose (a folder name, a frontmatter key,
a file name) never reaches the terminal raw through skillsfs check,
status or gc: an ESC (clear the screen, OSC 52 clipboard write, OSC 8
link), an 8-bit CSI, a CR or newline that overwrites or forges a line,
a bidi override that reorders one.  Each is shown as an escape
(\\x1b, \\r, \\n, \\u009b, \\u202e); --json stays exact JSON."""

import json
import os
import unittest

from intlib import SKILLSFS, MountTestCase, clean_env, run, write

# What would steer a terminal: ESC, CSI (8-bit), CR, LF, BEL, the bidi
# override and isolate characters, the line separator.
RAW = ("\x1b", "\x9b", "\r", "\x07", "\u202e", "\u2066", "\u2028")

# A folder name the library serves (it refuses C0 controls in folder
# names) that reorders a line and starts an 8-bit CSI.
FOLDER = "gnp\u202eexe\u009b2J"
# A frontmatter key that clears the screen, writes the clipboard, rings,
# overwrites the line and forges a finding of its own on the next.
KEY = ("k\x1b[2J\x1b]52;c;aGk=\x07\r\n"
       "/etc/passwd:1:1: error: name: forged\u2066")


def hostile_root(test):
    root = test.make_dir()
    key = json.dumps(KEY)       # a YAML double-quoted scalar
    write(os.path.join(root, FOLDER, "SKILL.md"),
          "---\nname: hostile\ndescription: A skill with a hostile key.\n"
          "%s: 1\n---\nBody.\n" % key)
    return root


class Terminal(MountTestCase):
    def assert_visible(self, out, what):
        for c in RAW:
            self.assertNotIn(c, out, "%s wrote %r raw" % (what, c))
        self.assertNotRegex(out, r"(?m)^/etc/passwd", "%s: a forged line" % what)

    def test_check_shows_controls_as_escapes(self):
        root = hostile_root(self)
        r = run([SKILLSFS, "check", root], env=clean_env())
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assert_visible(r.stdout + r.stderr, "check")
        folder = os.path.join(root, "gnp\\u202eexe\\u009b2J")
        self.assertIn("%s/SKILL.md:2:7: warning: name: \"hostile\" does not match the "
                      "folder name \"gnp\\u202eexe\\u009b2J\"\n" % folder, r.stdout)
        # the key itself the library quotes (\x1B); what it leaves, the
        # command escapes: the bell, the clipboard's OSC, the isolate
        self.assertIn("\\u2066", r.stdout)
        self.assertIn("]52;c;aGk=", r.stdout)

    def test_check_json_stays_exact(self):
        root = hostile_root(self)
        r = run([SKILLSFS, "check", "--json", root], env=clean_env())
        self.assertEqual(r.returncode, 0, r.stderr)
        files = [d["file"] for d in json.loads(r.stdout)["findings"]]
        self.assertIn(os.path.join(root, FOLDER, "SKILL.md"), files)

    def test_status_shows_controls_as_escapes(self):
        root = hostile_root(self)
        m = self.mount([root])
        r = run([SKILLSFS, "status", m.path], env=clean_env())
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assert_visible(r.stdout + r.stderr, "status")
        folder = os.path.join(root, "gnp\\u202eexe\\u009b2J")
        self.assertIn("  hostile (served): %s\n" % folder, r.stdout)
        # a security finding as check writes it: its rule and risk
        self.assertIn("    %s: security/mixed-script-name (high): the name " % folder, r.stdout)
        r = run([SKILLSFS, "status", "--json", m.path], env=clean_env())
        self.assertEqual(r.stdout.encode(), m.read("status.json"))

    def test_gc_shows_controls_as_escapes(self):
        cache = os.path.join(self.make_dir(), "cache\x1b[2J")
        name = "h\x1b]8;;https:127.0.0.1\x07ere\r"
        write(os.path.join(cache, "folder-units", name), "units\n")
        r = run([SKILLSFS, "gc", "--cache-dir", cache, "--max", "0", "--dry-run"],
                env=clean_env())
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assert_visible(r.stdout + r.stderr, "gc")
        self.assertIn("would remove   folder-units/h\\x1b]8;;https:127.0.0.1\\aere\\r (",
                      r.stdout)
        self.assertIn("\n%s: 6 bytes before, 0 bytes after a gc" % cache.replace("\x1b", "\\x1b"),
                      "\n" + r.stdout)
        self.assertTrue(os.path.exists(os.path.join(cache, "folder-units", name)))

if __name__ == "__main__":
    unittest.main(verbosity=2)
