#!/usr/bin/env python3
"""Confidentiality under allow_other,default_permissions (skillsfs(5),
SECURITY): nothing another user could not read from the sources is
readable through the mount or a skillsfs-mcp of theirs, the frontmatter
rendered into index.json, catalog/ and status.json included.  A canary in
a 0600 SKILL.md of a 0700 folder owned by root never reaches the user
skillsfs-test, while a world-readable skill beside it is served; root, the
owner, still reads all of it."""

import json
import os
import pwd
import subprocess
import unittest

from hostilelib import CONTROL_ID, HostileCase, become, write_skill

TEST_USER = "skillsfs-test"
HIDDEN = "hidden-notes"


def test_user():
    """The uid of the system user skillsfs-test, created when missing (as
    scripts/deps --test-user does)."""
    try:
        return pwd.getpwnam(TEST_USER).pw_uid
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell",
                        "/usr/sbin/nologin", TEST_USER], check=True, timeout=60)
        return pwd.getpwnam(TEST_USER).pw_uid


def become_test_user(uid):
    gid = pwd.getpwuid(uid).pw_gid

    def drop():
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
    return drop


class OtherUserCase(HostileCase):
    """Root's sources, and the test user (self.uid) beside: the root and
    the folders above readable by every user; self.canary, bytes to put
    where only root may read."""

    needs_root = "needs root"    # why the test is skipped as another user

    def setUp(self):
        super().setUp()
        if os.geteuid() != 0:
            self.skipTest(self.needs_root)
        self.uid = test_user()
        self.canary = b"SKILLSFS-CANARY-" + os.urandom(8).hex().encode()
        for d in (os.path.dirname(self.root), self.root):
            os.chmod(d, 0o755)


class Confidential(OtherUserCase):
    needs_root = "needs root: mounts with allow_other and becomes another user"

    def setUp(self):
        super().setUp()
        self.markers = [self.canary] + self.markers
        for dirpath, dirs, files in os.walk(os.path.join(self.root, CONTROL_ID)):
            os.chmod(dirpath, 0o755)
            for f in files:
                os.chmod(os.path.join(dirpath, f), 0o644)
        canary = self.canary.decode()
        d = write_skill(self.root, HIDDEN,
                        description="Private notes %s for root only." % canary,
                        body="The body says %s too.\n" % canary,
                        extra_frontmatter="metadata:\n  secret: %s\n" % canary,
                        files={"references/more.md": "more %s\n" % canary})
        os.chmod(os.path.join(d, "SKILL.md"), 0o600)
        os.chmod(d, 0o700)
        self.hidden_dir = d
        self.m = self.mount_root(["-o", "allow_other,default_permissions"])
        os.chmod(self.m.workdir, 0o711)   # let the user reach the mountpoint

    def as_user(self, *argv):
        return subprocess.run(list(argv), capture_output=True, timeout=30,
                              preexec_fn=become_test_user(self.uid))

    def test_other_user_never_sees_the_canary(self):
        walk = self.walk(as_uid=self.uid)
        self.assertEqual(walk["found"], [], "the canary is readable by %s" % TEST_USER)
        # grep over the whole mount as the user finds nothing either
        g = self.as_user("grep", "-r", "-l", "-a", self.canary.decode(), self.m.path)
        self.assertEqual(g.stdout, b"", g.stdout)
        self.assertNotEqual(g.returncode, 0)
        # the world-readable skill beside it is served to the user
        r = self.as_user("cat", self.m.file("skills", CONTROL_ID, "references", "guide.md"))
        self.assertEqual(r.returncode, 0, r.stderr)
        idx = self.as_user("cat", self.m.file("index.json"))
        self.assertEqual(idx.returncode, 0)
        ids = [e["uri"].split("/")[2] for e in json.loads(idx.stdout)["skills"]]
        self.assertEqual(ids, [CONTROL_ID])
        # status.json names the folder that was left out, and nothing more
        st = json.loads(self.as_user("cat", self.m.file("status.json")).stdout)
        self.assertEqual([p["dir"] for p in st["private"]], [self.hidden_dir])
        self.assertNotIn(HIDDEN + '"', json.dumps(st["skills"]))

    def test_search_and_views_never_show_it(self):
        # search/ and views/ are shared documents too: the words of the
        # hidden skill's description find nothing, no view lists it, and
        # the control skill beside it is found
        for words in ("private notes root only", self.canary.decode()):
            r = self.as_user("cat", self.m.file("search", words))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertNotIn(self.canary, r.stdout)
            self.assertNotIn(HIDDEN.encode(), r.stdout)
        for view in os.listdir(self.m.file("views")):
            self.assertNotIn(HIDDEN, os.listdir(self.m.file("views", view)))
        r = self.as_user("cat", self.m.file("search", CONTROL_ID))
        self.assertIn(CONTROL_ID.encode() + b"\t", r.stdout)

    def test_other_users_mcp_never_sees_the_canary(self):
        s = self.mcp(preexec_fn=become_test_user(self.uid))
        r = s.request("skills/list", {})
        self.assert_no_marker(s.last_raw, "skills/list")
        self.assertEqual([e["uri"].split("/")[2] for e in r["result"]["skills"]],
                         [CONTROL_ID])
        r = s.tool("list_skills", {})
        self.assert_no_marker(s.last_raw, "list_skills")
        self.assertIn(CONTROL_ID, json.dumps(r))
        r = s.tool("get_skill", {"id": HIDDEN})
        self.assert_no_marker(s.last_raw, "get_skill")
        r = s.tool("get_skill", {"id": CONTROL_ID})
        self.assertNotIn("error", r)
        self.assertFalse(r["result"].get("isError"), r)
        for uri in ("skill://%s/SKILL.md" % HIDDEN, "resource://catalog/skills/%s" % HIDDEN,
                    "resource://catalog/skills_index", "skill://index.json"):
            s.request("resources/read", {"uri": uri})
            self.assert_no_marker(s.last_raw, "resources/read " + uri)
        s.finish()
        self.assert_alive()

    def test_the_owner_still_reads_everything(self):
        self.assertIn(self.canary, self.m.read("skills", HIDDEN, "SKILL.md"))
        self.assertIn(self.canary, self.m.read("skills", HIDDEN, "references", "more.md"))
        self.assertIn(self.canary, self.m.read("catalog", HIDDEN + ".json"))
        st = os.stat(self.m.file("skills", HIDDEN))
        self.assertEqual((st.st_uid, st.st_mode & 0o777), (0, 0o500))
        st = os.stat(self.m.file("catalog", HIDDEN + ".json"))
        self.assertEqual((st.st_uid, st.st_mode & 0o777), (0, 0o400))
        # skillsfs-mcp finds skills by the shared documents: it offers
        # none of these, to the owner either (skillsfs(5), SECURITY)
        s = self.mcp()
        r = s.request("skills/list", {})
        self.assertEqual([e["uri"].split("/")[2] for e in r["result"]["skills"]],
                         [CONTROL_ID])
        s.finish()
        # made readable by every user, it joins the shared documents
        os.chmod(self.hidden_dir, 0o755)
        os.chmod(os.path.join(self.hidden_dir, "SKILL.md"), 0o644)
        self.wait_for_index([CONTROL_ID, HIDDEN])

    def test_made_private_after_mount(self):
        # a skill every user could read, then its SKILL.md becomes 0600
        canary = self.canary.decode()
        d = write_skill(self.root, "later-private",
                        description="Soon private %s." % canary)
        os.chmod(d, 0o755)
        os.chmod(os.path.join(d, "SKILL.md"), 0o644)
        self.wait_for_index([CONTROL_ID, "later-private"])
        for rel in ("catalog/later-private.json", "skills/later-private/SKILL.md"):
            r = self.as_user("cat", self.m.file(rel))
            self.assertEqual(r.returncode, 0, r.stderr)   # cached by the kernel
        os.chmod(os.path.join(d, "SKILL.md"), 0o600)
        self.wait_for_index([CONTROL_ID])
        for rel in ("catalog/later-private.json", "skills/later-private/SKILL.md"):
            r = self.as_user("cat", self.m.file(rel))
            self.assertNotEqual(r.returncode, 0, rel)
            self.assertNotIn(self.canary, r.stdout, rel)
        walk = self.walk(as_uid=self.uid)
        self.assertEqual(walk["found"], [], "the canary is readable by %s" % TEST_USER)

    def wait_for_index(self, want):
        from mountlib import wait_for
        wait_for(lambda: sorted(self.index_ids()) == sorted(want),
                 what="index.json to list %r" % (want,))


if __name__ == "__main__":
    unittest.main(verbosity=2)
