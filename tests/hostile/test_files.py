#!/usr/bin/env python3
"""Hostile files: a SKILL.md that is a folder, a FIFO or a device; a 0-byte
and a 100 MB SKILL.md; names with spaces, newlines, escape sequences and
bytes that are not UTF-8; 100,000 files in one skill; 20 folder levels;
files and folders the daemon cannot read."""

import json
import os
import stat
import subprocess
import unittest

from hostilelib import (SKILLSFS, HostileCase, Mount, display_path, run_check, wait_for,
                        write_skill, needs_root)

FRONTMATTER = "---\nname: %s\ndescription: A hostile skill.\n---\n"


def skill_dir(root, skill_id):
    d = os.path.join(root, skill_id)
    os.makedirs(d)
    return d


class OddSkillMd(HostileCase):
    """SKILL.md that is no regular file: reported, never opened for long."""

    def check_unserved(self, skill_id, words):
        self.mount_root()
        self.assert_safe()
        self.assertNotIn(skill_id, self.index_ids())
        self.assert_diag(os.path.join(self.root, skill_id, "SKILL.md"), words, "error")

    def test_folder(self):
        os.makedirs(os.path.join(self.root, "md-folder", "SKILL.md"))
        self.check_unserved("md-folder", ["SKILL.md is a folder"])

    def test_fifo(self):
        # nobody ever writes: opening it for reading without O_NONBLOCK hangs
        d = skill_dir(self.root, "md-fifo")
        os.mkfifo(os.path.join(d, "SKILL.md"))
        self.check_unserved("md-fifo", ["FIFO"])

    @needs_root("mknod of a device")
    def test_device(self):
        # /dev/zero: reading it never ends
        d = skill_dir(self.root, "md-device")
        os.mknod(os.path.join(d, "SKILL.md"), 0o644 | stat.S_IFCHR, os.makedev(1, 5))
        self.check_unserved("md-device", ["device"])

    @needs_root("mknod of devices")
    def test_odd_files_beside_skill_md(self):
        d = write_skill(self.root, "odd-files", files={"ok.md": "ok\n"})
        os.mkfifo(os.path.join(d, "pipe"))
        os.mknod(os.path.join(d, "zero"), 0o644 | stat.S_IFCHR, os.makedev(1, 5))
        os.mknod(os.path.join(d, "block"), 0o644 | stat.S_IFBLK, os.makedev(7, 0))
        self.mount_root()
        self.assert_safe()
        self.assertEqual(sorted(os.listdir(self.m.file("skills/odd-files"))),
                         ["SKILL.md", "ok.md"])
        self.assert_diag(os.path.join(d, "pipe"), ["FIFO"], "warning")
        self.assert_diag(os.path.join(d, "zero"), ["device"], "warning")
        self.assert_diag(os.path.join(d, "block"), ["device"], "warning")


class Sizes(HostileCase):
    def test_empty_skill_md(self):
        d = skill_dir(self.root, "empty")
        open(os.path.join(d, "SKILL.md"), "w").close()
        self.mount_root()
        self.assert_safe()
        self.assertNotIn("empty", self.index_ids())
        self.assert_diag(os.path.join(d, "SKILL.md"), [], "error")

    def test_100mb_skill_md(self):
        d = skill_dir(self.root, "huge")
        path = os.path.join(d, "SKILL.md")
        line = ("All work and no play makes a long skill. " * 24 + "\n").encode()
        chunk = line * ((1 << 20) // len(line))
        with open(path, "wb") as f:
            f.write((FRONTMATTER % "huge").encode())
            while f.tell() < 100 << 20:
                f.write(chunk)
        size = os.path.getsize(path)
        m = self.mount_root()
        self.assert_safe(mcp=False)
        # served whole, with its exact size and digest, and a warning
        self.assertIn("huge", self.index_ids())
        entry = [e for e in m.json("index.json")["skills"] if "//huge/" in e["uri"]][0]
        self.assertEqual(entry["resources"][0]["size"], size)
        self.assertEqual(os.stat(m.file("skills/huge/SKILL.md")).st_size, size)
        self.assert_diag(d, ["16 MiB"], "warning")
        # skillsfs-mcp refuses to put 100 MB into one message, and says where
        s = self.mcp()
        r = s.tool("get_skill", {"id": "huge"})
        self.assertTrue(r["result"].get("isError"), r)
        self.assertIn(m.file("skills/huge/SKILL.md"), r["result"]["content"][0]["text"])
        r = s.request("resources/read", {"uri": "skill://huge/SKILL.md"})
        self.assertIn("error", r)
        self.assertIn(m.file("skills/huge/SKILL.md"), r["error"]["message"])
        r = s.request("skills/list", {})
        self.assertIn("huge", [e["uri"].split("/")[2] for e in r["result"]["skills"]])
        s.finish()


class Names(HostileCase):
    SERVED = ["with space.md", "-rf", "back\\slash.md", "\u00fcn\u00efc\u00f8d\u00e9.md",
              "x" * 250 + ".md", "SKILL.md ", "trailing.dot.", 'quote".md', "brace}{.md",
              "line\u2028sep.md", "emoji-\U0001F600.md", "\ufeffbom.md"]
    HIDDEN = [b"new\nline.md", b"tab\there.md", b"bad\xffname.md", b"\x1b[31mred.md",
              b"cr\rreturn.md", b"overlong\xc0\xafslash.md"]

    def test_names(self):
        d = write_skill(self.root, "names")
        bd = os.fsencode(d)
        for n in self.SERVED:
            with open(os.path.join(d, n), "w") as f:
                f.write("served\n")
        for n in self.HIDDEN:
            with open(os.path.join(bd, n), "w") as f:
                f.write("hidden\n")
        os.makedirs(os.path.join(bd, b"folder\xfe", b"inside"))
        with open(os.path.join(bd, b"folder\xfe", b"inside", b"file.md"), "w") as f:
            f.write("hidden\n")
        # a category folder in the root whose name is not UTF-8
        cat = os.path.join(os.fsencode(self.root), b"cat\xff")
        write_skill(os.fsdecode(cat), "in-bad-folder")

        m = self.mount_root()
        walk = self.assert_safe()
        self.assertEqual(walk["errors"], [])
        listing = sorted(os.listdir(m.file("skills/names")))
        self.assertEqual(listing, sorted(["SKILL.md"] + self.SERVED))
        for n in self.SERVED:
            self.assertEqual(m.read("skills/names", n), b"served\n")
        for n in self.HIDDEN + [b"folder\xfe"]:
            self.assert_diag(os.path.join(bd, n), [], "warning")
        self.assert_diag(os.path.join(cat), ["not searched"], "warning")
        self.assertNotIn("in-bad-folder", self.index_ids())
        # every generated file is valid UTF-8 JSON (m.json decodes bytes)
        for f in ("index.json", "status.json", "catalog/skills_index.json",
                  "catalog/names.json"):
            m.json(f)
        # skillsfs check: one line per finding, however the names look
        p = subprocess.run([SKILLSFS, "check", "--skills-dir", self.root],
                           capture_output=True, timeout=30)
        lines = p.stdout.decode("utf-8").splitlines()
        self.assertEqual(len(lines), len(run_check([self.root])[1]) + 1, lines)
        # every served name reads through skillsfs-mcp by its URI
        s = self.mcp()
        for n in self.SERVED:
            r = s.request("resources/read", {"uri": "skill://names/" + n})
            self.assertEqual(r["result"]["contents"][0]["text"], "served\n", n)
        s.finish()

    def test_frontmatter_strings(self):
        # quotes, backslashes, separators and markup survive every rendering
        desc = 'Say "hi" \\\\ C:\\\\path a < b > c \u2028 \u00e9 \U0001F600 {"skills":[ ]}'
        d = os.path.join(self.root, "quoting")
        os.makedirs(d)
        with open(os.path.join(d, "SKILL.md"), "w") as f:
            yaml_string = json.dumps(desc, ensure_ascii=False).replace("\u2028", "\\u2028")
            f.write("---\nname: quoting\ndescription: %s\n---\nBody\n" % yaml_string)
        m = self.mount_root()
        self.assert_safe()
        entry = [e for e in m.json("index.json")["skills"] if "//quoting/" in e["uri"]][0]
        self.assertEqual(entry["frontmatter"]["description"], desc)
        rows = m.json("catalog/skills_index.json")["skills"]
        self.assertEqual([r for r in rows if r["id"] == "quoting"][0]["description"], desc)
        self.assertEqual(m.json("catalog/quoting.json")["description"], desc)
        # one skill per line still holds
        lines = m.read("index.json").split(b"\n")
        self.assertEqual(len(lines), len(self.index_ids()) + 3)
        s = self.mcp()
        r = s.tool("list_skills", {"query": '"HI" \U0001F600 path'})
        self.assertEqual([x["description"] for x in r["result"]["structuredContent"]["skills"]],
                         [desc])
        s.finish()

    def test_display_of_hidden_names(self):
        # the finding spells the bytes it cannot show as \xNN
        self.assertEqual(display_path(b"/a/bad\xffname\n"), "/a/bad\\xFFname\\x0A")


class Counts(HostileCase):
    @needs_root("a tmpfs")
    def test_100000_files(self):
        # on a tmpfs: quick to fill, and gone at once at the end
        self.root_on_tmpfs("size=64m,nr_inodes=200000")
        d = write_skill(self.root, "many")
        data = os.path.join(d, "data")
        os.makedirs(data)
        for i in range(100000):     # empty but the first 1000: a page each
            path = os.path.join(data, "f%06d.txt" % i)
            if i >= 1000:
                os.mknod(path, 0o644 | stat.S_IFREG)
                continue
            fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
            os.write(fd, b"%d\n" % i)
            os.close(fd)
        m = self.mount_root()
        # a walk of 100,000 entries: past STEP_TIMEOUT under ASan on a
        # loaded machine (CI), so a deadline of its own
        self.assert_safe(max_reads=200, mcp=False, timeout=120)
        self.assertIn("many", self.index_ids())
        # the first 100000 entries are served (SKILL.md, data/, 99998 files)
        names = os.listdir(m.file("skills/many/data"))
        self.assertEqual(len(names), 99998)
        self.assertEqual(m.read("skills/many/data/f000123.txt"), b"123\n")
        self.assert_diag(d, ["only the first 100000"], "warning")
        self.assert_diag(d, ["512"], "warning", check=False)
        # skillsfs-mcp pages through it and answers within its deadlines
        s = self.mcp()
        r = s.request("resources/directory/read", {"uri": "skill://many/data"})
        self.assertIn("nextCursor", r["result"])
        r = s.request("skills/get", {"uri": "skill://many/SKILL.md"})
        self.assertIn("result", r)
        r = s.tool("list_skills", {})
        self.assertFalse(r["result"].get("isError"), r)
        s.finish()

    def test_paths_longer_than_path_max(self):
        d = write_skill(self.root, "long-paths")
        cur = os.open(d, os.O_RDONLY)
        made = []
        for i in range(16):         # 16 folders of 255 bytes: past 4096
            name = "%02d" % i + "x" * 253
            os.mkdir(name, dir_fd=cur)
            made.append(name)
            nxt = os.open(name, os.O_RDONLY, dir_fd=cur)
            os.close(cur)
            cur = nxt
            fd = os.open("here.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=cur)
            os.write(fd, b"level %d\n" % i)
            os.close(fd)
        os.close(cur)
        # cleanup: rmtree cannot take such paths
        self.addCleanup(subprocess.run, ["rm", "-rf", d], timeout=30)
        m = self.mount_root()
        self.assert_safe()
        # every served file reads; the first path past the limit is hidden
        entry = [e for e in m.json("index.json")["skills"] if "//long-paths/" in e["uri"]][0]
        served = [r["uri"][len("skill://long-paths/"):] for r in entry["resources"]]
        for rel in served:
            parts = rel.split("/")
            fd = os.open(m.file("skills/long-paths"), os.O_RDONLY)
            for p in parts[:-1]:
                nxt = os.open(p, os.O_RDONLY, dir_fd=fd)
                os.close(fd)
                fd = nxt
            f = os.open(parts[-1], os.O_RDONLY, dir_fd=fd)
            self.assertTrue(os.read(f, 100), rel)
            os.close(f)
            os.close(fd)
        limit = len(d) + 1
        hidden = [i for i in range(16) if limit + 256 * (i + 1) + len("here.md") >= 4096]
        self.assertTrue(hidden)
        self.assertEqual(len(served), 1 + hidden[0])
        diags = [x for x in self.status()["skills"] if x["id"] == "long-paths"][0]["diagnostics"]
        self.assertIn("path longer than 4095 bytes", [x["message"].split(";")[0] for x in diags])

    def test_20_levels(self):
        d = write_skill(self.root, "deep")
        levels = ["l%02d" % i for i in range(20)]
        deep = os.path.join(d, *levels)
        os.makedirs(deep)
        with open(os.path.join(deep, "bottom.md"), "w") as f:
            f.write("bottom\n")
        with open(os.path.join(d, *levels[:10], "middle.md"), "w") as f:
            f.write("middle\n")
        # a skill 20 folders below the root
        far = os.path.join(self.root, *levels)
        os.makedirs(far)
        write_skill(far, "far-away")
        m = self.mount_root()
        self.assert_safe()
        self.assertEqual(m.read("skills/deep", *levels[:10], "middle.md"), b"middle\n")
        self.assertFalse(os.path.exists(m.file("skills/deep", *levels)))
        # 16 levels below the skill folder are served, the 17th is not
        self.assertTrue(os.path.isdir(m.file("skills/deep", *levels[:16])))
        self.assertFalse(os.path.exists(m.file("skills/deep", *levels[:17])))
        self.assert_diag(os.path.join(d, *levels[:17]), ["nested too deep"], "warning")
        self.assertNotIn("far-away", self.index_ids())
        self.assert_diag(os.path.join(self.root, *levels[:17]), ["not searched"], "warning")


NO_DAC = ["setpriv", "--inh-caps=-dac_override,-dac_read_search",
          "--bounding-set=-dac_override,-dac_read_search"]


class NoDacMount(Mount):
    """The daemon as root without the capabilities that let root read any
    file: modes then apply to it as to any user."""

    def argv(self):
        return NO_DAC + super().argv()


class Unreadable(HostileCase):
    def test_unreadable_files_and_folders(self):
        d = write_skill(self.root, "locked", files={"open.md": "open\n",
                                                    "private/notes.md": "notes\n",
                                                    "closed.md": "closed\n"})
        os.chmod(os.path.join(d, "closed.md"), 0)
        os.chmod(os.path.join(d, "private"), 0)
        d2 = write_skill(self.root, "locked-md")
        os.chmod(os.path.join(d2, "SKILL.md"), 0)
        cat = os.path.join(self.root, "locked-category")
        write_skill(cat, "behind-lock")
        os.chmod(cat, 0)
        self.addCleanup(os.chmod, cat, 0o755)
        m = NoDacMount([self.root], [])
        self.addCleanup(m.cleanup)
        self.m = m.start()
        with open("/proc/%d/status" % m.proc.pid) as f:
            eff = [int(line.split()[1], 16) for line in f if line.startswith("CapEff")][0]
        self.assertEqual(eff & 0b110, 0, "the daemon can still override file modes")
        self.assert_safe()
        self.assertIn("locked", self.index_ids())
        self.assertEqual(sorted(os.listdir(m.file("skills/locked"))), ["SKILL.md", "open.md"])
        self.assertNotIn("locked-md", self.index_ids())
        self.assertNotIn("behind-lock", self.index_ids())
        check = lambda p, w, sev: self.assert_diag(p, w, sev, check=False)  # noqa: E731
        check(os.path.join(d, "closed.md"), ["Permission denied"], "warning")
        check(os.path.join(d, "private"), ["Permission denied"], "warning")
        check(os.path.join(d2, "SKILL.md"), ["Permission denied"], "error")
        check(cat, ["Permission denied"], "warning")
        # skillsfs check without the capabilities says the same
        p = subprocess.run(NO_DAC + [SKILLSFS, "check", "--json", "--skills-dir", self.root],
                           capture_output=True, timeout=30)
        found = {(f["file"], f["severity"]) for f in json.loads(p.stdout)["findings"]
                 if "Permission denied" in f["message"]}
        self.assertEqual(found, {(os.path.join(d, "closed.md"), "warning"),
                                 (os.path.join(d, "private"), "warning"),
                                 (os.path.join(d2, "SKILL.md"), "error"),
                                 (cat, "warning")})
        # a file that becomes readable is served after the refresh
        os.chmod(os.path.join(d, "closed.md"), 0o644)
        wait_for(lambda: os.path.exists(m.file("skills/locked/closed.md")),
                 what="a file made readable")
        self.assertEqual(m.read("skills/locked/closed.md"), b"closed\n")


class MadeUnreadable(HostileCase):
    """A file made unreadable after the mount started is hidden with a
    finding, as at mount time, and its published bytes are no longer
    served from the copy the generation kept."""

    def test_file_made_unreadable_after_mount(self):
        d = write_skill(self.root, "locking", files={"open.md": "open\n",
                                                     "closed.md": "soon closed\n"})
        m = NoDacMount([self.root], [])
        self.addCleanup(m.cleanup)
        self.m = m.start()
        self.assertEqual(m.read("skills/locking/closed.md"), b"soon closed\n")
        os.chmod(os.path.join(d, "closed.md"), 0)
        wait_for(lambda: sorted(os.listdir(m.file("skills/locking"))) == ["SKILL.md", "open.md"],
                 what="the unreadable file hidden")
        self.assertIn("locking", self.index_ids())
        self.assert_diag(os.path.join(d, "closed.md"), ["Permission denied"], "warning",
                         check=False)
        self.assert_safe()

if __name__ == "__main__":
    unittest.main(verbosity=2)
