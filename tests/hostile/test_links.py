#!/usr/bin/env python3
"""Hostile links: symlink loops, symlinks that escape (absolute, "..", to
/etc), symlinked skill folders, and hard links to files outside the root.
Nothing outside a skill folder may be read through the mount or the MCP
server; every hidden link is reported with its path."""

import os
import unittest

from hostilelib import CONTROL_ID, HostileCase, write_skill


class SymlinkLoops(HostileCase):
    def test_loops(self):
        d = write_skill(self.root, "loops", files={"real.md": "real\n"})
        os.symlink("self", os.path.join(d, "self"))
        os.symlink("pong", os.path.join(d, "ping"))
        os.symlink("ping", os.path.join(d, "pong"))
        os.makedirs(os.path.join(d, "sub"))
        os.symlink("..", os.path.join(d, "sub", "up"))       # the skill folder itself
        os.symlink(".", os.path.join(d, "sub", "here"))      # its own folder
        os.symlink("real.md", os.path.join(d, "ok.md"))      # a good one stays
        m = self.mount_root()
        self.assert_safe()
        for name, words in (("self", ["loop"]), ("ping", ["loop"]), ("pong", ["loop"]),
                            ("sub/up", ["outside"])):
            self.assert_diag(os.path.join(d, name), words, "warning")
        self.assertIn("loops", self.index_ids())
        listing = sorted(os.listdir(m.file("skills/loops")))
        self.assertEqual(listing, ["SKILL.md", "ok.md", "real.md", "sub"])
        self.assertEqual(os.readlink(m.file("skills/loops/ok.md")), "real.md")
        self.assertEqual(m.read("skills/loops/ok.md"), b"real\n")

    def test_skill_md_loop(self):
        d = os.path.join(self.root, "md-loop")
        os.makedirs(d)
        os.symlink("SKILL.md", os.path.join(d, "SKILL.md"))
        self.assert_skill_refused("md-loop", os.path.join(d, "SKILL.md"), ["loop"])


class SymlinkEscapes(HostileCase):
    def test_absolute(self):
        d = write_skill(self.root, "absolute")
        os.symlink(self.secret, os.path.join(d, "secret.txt"))
        os.symlink(self.outside, os.path.join(d, "outside-dir"))
        self.mount_root()
        self.assert_safe()
        self.assertIn("absolute", self.index_ids())
        self.assertEqual(sorted(os.listdir(self.m.file("skills/absolute"))), ["SKILL.md"])
        for name in ("secret.txt", "outside-dir"):
            self.assert_diag(os.path.join(d, name), ["absolute target"], "warning")

    def test_dotdot(self):
        d = write_skill(self.root, "dotdot")
        os.makedirs(os.path.join(d, "refs"))
        rel_secret = os.path.relpath(self.secret, os.path.join(d, "refs"))
        os.symlink(rel_secret, os.path.join(d, "refs", "secret.md"))
        os.symlink("../control/SKILL.md", os.path.join(d, "sibling.md"))   # another skill
        os.symlink("../../" + os.path.basename(os.path.dirname(self.root)),
                   os.path.join(d, "root-parent"))
        # lexically inside, but through a folder link that leads out
        os.symlink(self.outside, os.path.join(d, "hop"))
        os.symlink("hop/secret.txt", os.path.join(d, "via-hop.md"))
        self.mount_root()
        self.assert_safe()
        self.assertEqual(sorted(os.listdir(self.m.file("skills/dotdot"))), ["SKILL.md", "refs"])
        for name in ("refs/secret.md", "sibling.md", "root-parent", "via-hop.md"):
            self.assert_diag(os.path.join(d, name), ["outside the skill folder"], "warning")

    def test_to_etc(self):
        d = write_skill(self.root, "etc")
        depth = os.path.abspath(d).count("/")
        os.symlink("../" * depth + "etc/passwd", os.path.join(d, "passwd"))
        os.symlink("/etc", os.path.join(d, "etc"))
        os.symlink("/etc/passwd", os.path.join(d, "SKILL-extra.md"))
        self.mount_root()
        self.assert_safe()
        self.assertEqual(sorted(os.listdir(self.m.file("skills/etc"))), ["SKILL.md"])
        self.assert_diag(os.path.join(d, "passwd"), ["outside the skill folder"])
        self.assert_diag(os.path.join(d, "etc"), ["absolute target"])

    def test_skill_md_escapes(self):
        d = os.path.join(self.root, "md-escape")
        os.makedirs(d)
        os.symlink(os.path.relpath(self.secret, d), os.path.join(d, "SKILL.md"))
        self.assert_skill_refused("md-escape", os.path.join(d, "SKILL.md"),
                                  ["outside the skill folder"])

    def test_linked_skill_folders(self):
        # A skill outside the root, linked in, is followed: the folder the
        # link resolves to is its boundary, so a link inside it that
        # leaves it is still hidden.  Links to / (which holds the root)
        # and to a folder that holds the link (a loop) are reported, not
        # followed; a link to /etc is searched and finds no skill.
        elsewhere = write_skill(self.outside, "linked")
        os.symlink(self.secret, os.path.join(elsewhere, "leak.md"))
        os.symlink("../linked/SKILL.md", os.path.join(elsewhere, "roundabout.md"))
        os.symlink(elsewhere, os.path.join(self.root, "linked"))
        os.symlink("/", os.path.join(self.root, "slash"))
        os.symlink(".", os.path.join(self.root, "dot"))
        os.symlink("/etc", os.path.join(self.root, "etc"))
        self.mount_root()
        self.assert_safe()
        self.assertIn("linked", self.index_ids())
        self.assertEqual(sorted(os.listdir(self.m.file("skills/linked"))), ["SKILL.md"])
        self.assert_diag(os.path.join(self.root, "linked", "leak.md"), ["absolute target"], "warning")
        self.assert_diag(os.path.join(self.root, "linked", "roundabout.md"), ["outside"], "warning")
        self.assert_diag(os.path.join(self.root, "slash"), ["holds the skills folder", "not followed"],
                         "warning")
        self.assert_diag(os.path.join(self.root, "dot"), ["(a loop)", "not followed"], "warning")


class HardLinks(HostileCase):
    """A hard link is the same inode under another name: its content is the
    outside file's.  skillsfs hides a file whose link count is larger than
    the names it has inside its skill folder."""

    def test_hard_link_to_outside_file(self):
        d = write_skill(self.root, "hard", files={"twin-a.md": "twins\n"})
        os.link(self.secret, os.path.join(d, "leak.md"))
        os.link(os.path.join(d, "twin-a.md"), os.path.join(d, "twin-b.md"))
        self.mount_root()
        self.assert_safe()
        self.assertIn("hard", self.index_ids())
        self.assertEqual(sorted(os.listdir(self.m.file("skills/hard"))),
                         ["SKILL.md", "twin-a.md", "twin-b.md"])
        self.assertEqual(self.m.read("skills/hard/twin-b.md"), b"twins\n")
        self.assert_diag(os.path.join(d, "leak.md"), ["hard link", "outside"], "warning")

    def test_hard_link_reached_by_symlink(self):
        d = write_skill(self.root, "hard-sym")
        os.link(self.secret, os.path.join(d, "leak.md"))
        os.symlink("leak.md", os.path.join(d, "alias.md"))
        self.mount_root()
        self.assert_safe()
        self.assertEqual(sorted(os.listdir(self.m.file("skills/hard-sym"))), ["SKILL.md"])
        self.assert_diag(os.path.join(d, "alias.md"), ["hard link"], "warning")

    def test_hard_linked_skill_md(self):
        d = os.path.join(self.root, "hard-md")
        os.makedirs(d)
        src = os.path.join(self.outside, "SKILL.md")
        with open(src, "w") as f:
            f.write("---\nname: hard-md\ndescription: linked in\n---\n" +
                    self.marker.decode() + "\n")
        os.link(src, os.path.join(d, "SKILL.md"))
        self.assert_skill_refused("hard-md", os.path.join(d, "SKILL.md"), ["hard link"])


class HostileDocs(HostileCase):
    """The docs folder (--docs-dir) is a source too: the same rules."""

    def test_docs(self):
        docs = self.make_dir()
        with open(os.path.join(docs, "fine.md"), "w") as f:
            f.write("# Fine\n")
        os.link(self.secret, os.path.join(docs, "leak.md"))
        os.symlink(self.secret, os.path.join(docs, "abs.md"))
        os.symlink(os.path.relpath(self.secret, docs), os.path.join(docs, "rel.md"))
        os.mkfifo(os.path.join(docs, "fifo.md"))
        bad = os.path.join(os.fsencode(docs), b"bad\xff.md")
        with open(bad, "w") as f:
            f.write("bad name\n")
        m = self.mount_root(["--docs-dir", docs])
        self.assert_safe()
        self.assertEqual(sorted(os.listdir(m.file("docs"))), ["fine.md"])
        for name, words in (("leak.md", ["hard link"]), ("abs.md", ["out of the docs"]),
                            ("rel.md", ["out of the docs"]), ("fifo.md", ["not a regular"])):
            self.assert_diag(os.path.join(docs, name), words, "warning", check=False)
        self.assert_diag(bad, ["UTF-8"], "warning", check=False)
        s = self.mcp()
        r = s.request("resources/list", {})
        uris = [x["uri"] for x in r["result"]["resources"]]
        self.assertIn("resource://docs/fine.md", uris)
        for name in ("leak.md", "abs.md", "rel.md", "fifo.md"):
            self.assertNotIn("resource://docs/" + name, uris)
            r = s.request("resources/read", {"uri": "resource://docs/" + name})
            self.assertIn("error", r)
            self.assert_no_marker(s.last_raw, name)
        s.finish()


class UriTricks(HostileCase):
    """skillsfs-mcp refuses URIs that try to leave a skill."""

    TRICKS = ["skill://control/../dotdot/SKILL.md", "skill://control/%2e%2e/%2e%2e/etc/passwd",
              "skill://control/references/..%2f..%2fSKILL.md", "skill://control//etc/passwd",
              "skill://control/%2Fetc%2Fpasswd", "skill://../../etc/passwd",
              "skill://control/references/guide.md%00.png", "skill://control/\u2024\u2024/x",
              "resource://docs/../../etc/passwd", "resource://skills/control/../../etc/passwd",
              "skill://control/references/guide.md?x=/etc/passwd", "file:///etc/passwd",
              "skill://control/%ff%fe", "skill://CONTROL/SKILL.md", "skill://control/link-out"]

    def test_uris(self):
        d = os.path.join(self.root, CONTROL_ID)
        os.symlink(self.secret, os.path.join(d, "link-out"))
        self.mount_root()
        s = self.mcp()
        for uri in self.TRICKS:
            for method in ("resources/read", "resources/directory/read"):
                r = s.request(method, {"uri": uri})
                self.assertIn("error", r, (method, uri, r))
                self.assertEqual(r["error"]["code"], -32602, (method, uri, r))
                self.assert_no_marker(s.last_raw, uri)
        for sid in ("../control", "control/..", "/etc", "control\n"):
            r = s.tool("get_skill", {"id": sid})
            self.assertTrue(r["result"].get("isError"), (sid, r))
        s.finish()
        self.assert_safe()


if __name__ == "__main__":
    unittest.main(verbosity=2)
