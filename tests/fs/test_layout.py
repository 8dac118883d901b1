#!/usr/bin/env python3
"""The mount's layout and content against the sources: generated JSON with
digests recomputed here, every skill file byte for byte with its mode, refs
links, EROFS on every write path, hidden symlink escapes, the case
fallback, and running a skill's script in place."""

import errno
import json
import os
import stat
import subprocess
import sys
import unittest

from mountlib import MountTestCase, sha256_file

EXPECTED_SKILLS = {
    # id: folder relative to the root (nested folders are flattened)
    "commit-messages": "writing/commit-messages",
    "csv-report": "csv-report",
    "pdf-forms": "pdf-forms",
}


def source_files(skill_dir):
    """Every regular file and folder of a skill, relative paths."""
    files, dirs = [], []
    for top, dnames, fnames in os.walk(skill_dir):
        for d in dnames:
            dirs.append(os.path.relpath(os.path.join(top, d), skill_dir))
        for f in fnames:
            files.append(os.path.relpath(os.path.join(top, f), skill_dir))
    return sorted(files), sorted(dirs)


class Layout(MountTestCase):
    @classmethod
    def setUpClass(cls):
        # one mount for the read-only checks of this class
        cls.case = MountTestCase("run")
        cls.root = cls.case.copy_examples()
        cls.m = cls.case.mount([cls.root])

    @classmethod
    def tearDownClass(cls):
        cls.case.doCleanups()

    def src(self, skill_id, *parts):
        return os.path.join(self.root, EXPECTED_SKILLS[skill_id], *parts)

    def test_top_level(self):
        self.assertEqual(sorted(os.listdir(self.m.path)),
                         ["catalog", "index.json", "refs", "search", "skills",
                          "status.json", "views"])
        for name in ("catalog", "refs", "skills"):
            st = os.stat(self.m.file(name))
            self.assertTrue(stat.S_ISDIR(st.st_mode))
            self.assertEqual(stat.S_IMODE(st.st_mode), 0o555)
        for name in ("index.json", "status.json", "catalog/skills_index.json"):
            st = os.stat(self.m.file(name))
            self.assertTrue(stat.S_ISREG(st.st_mode))
            self.assertEqual(stat.S_IMODE(st.st_mode), 0o444)
            self.assertEqual(st.st_uid, os.getuid())
            # exact sizes in stat
            self.assertEqual(st.st_size, len(self.m.read(name)))

    def test_mountinfo(self):
        with open("/proc/self/mountinfo") as f:
            line = next(l for l in f if (" %s " % self.m.path) in l)
        fields = line.split(" - ")[1].split()
        self.assertEqual(fields[0], "fuse.skillsfs")
        self.assertEqual(fields[1], "skillsfs")
        self.assertIn("ro", line.split(" - ")[0].split()[5].split(","))

    def test_index_json(self):
        raw = self.m.read("index.json").decode()
        lines = raw.split("\n")
        self.assertEqual(lines[0], '{"skills":[')
        self.assertEqual(lines[-2:], ["]}", ""])
        entries = lines[1:-2]
        self.assertEqual(len(entries), len(EXPECTED_SKILLS))
        for i, line in enumerate(entries):
            self.assertEqual(line.endswith(","), i < len(entries) - 1)
        doc = json.loads(raw)
        ids = [e["uri"].split("/")[2] for e in doc["skills"]]
        self.assertEqual(ids, sorted(EXPECTED_SKILLS))
        for entry in doc["skills"]:
            sid = entry["uri"].split("/")[2]
            self.assertEqual(entry["uri"], "skill://%s/SKILL.md" % sid)
            self.assertEqual(entry["frontmatter"]["name"], sid)
            files, _ = source_files(self.src(sid))
            expected = ["SKILL.md"] + sorted(f for f in files if f != "SKILL.md")
            got = [r["uri"][len("skill://%s/" % sid):] for r in entry["resources"]]
            self.assertEqual(got, expected)
            for r, rel in zip(entry["resources"], expected):
                path = self.src(sid, rel)
                self.assertEqual(r["digest"], sha256_file(path), rel)
                self.assertEqual(r["size"], os.path.getsize(path), rel)

    def test_skills_index(self):
        raw = self.m.read("catalog", "skills_index.json").decode()
        self.assertTrue(raw.startswith('{"skills":[\n'))
        self.assertTrue(raw.endswith("\n]}\n"))
        doc = json.loads(raw)
        self.assertEqual([s["id"] for s in doc["skills"]], sorted(EXPECTED_SKILLS))
        for s in doc["skills"]:
            self.assertEqual(s["name"], s["id"])
            self.assertIn("resource://skills/%s/document" % s["id"], s["capabilities"])
        pdf = next(s for s in doc["skills"] if s["id"] == "pdf-forms")
        self.assertEqual(pdf["tags"], ["pdf", "forms"])
        self.assertEqual(pdf["version"], "1.2.0")

    def test_catalog_records(self):
        self.assertEqual(sorted(os.listdir(self.m.file("catalog"))),
                         sorted(["skills_index.json"] +
                                ["%s.json" % s for s in EXPECTED_SKILLS]))
        for sid in EXPECTED_SKILLS:
            raw = self.m.read("catalog", sid + ".json").decode()
            self.assertTrue(raw.startswith('{\n\t"id":'), raw[:40])
            self.assertTrue(raw.endswith("}\n"))
            rec = json.loads(raw)
            self.assertEqual(list(rec)[:3], ["id", "name", "description"])
            self.assertEqual(rec["id"], sid)
            self.assertEqual(rec["document"], {
                "uri": "resource://skills/%s/document" % sid,
                "path": "SKILL.md",
                "skill_uri": "skill://%s/SKILL.md" % sid})
            self.assertEqual(rec["root"], self.root)
            self.assertEqual(rec["source"], self.src(sid))
            self.assertEqual(rec["digest"], sha256_file(self.src(sid, "SKILL.md")))
            for ref_id, ref in rec["references"].items():
                self.assertTrue(os.path.isfile(self.src(sid, ref["path"])))
                self.assertEqual(ref["uri"],
                                 "resource://skills/%s/references/%s" % (sid, ref_id))
        pdf = json.loads(self.m.read("catalog", "pdf-forms.json"))
        self.assertEqual(sorted(pdf["references"]), ["field-types", "troubleshooting"])

    def test_status_json(self):
        st = self.m.json("status.json")
        self.assertGreaterEqual(st["generation"], 1)
        self.assertEqual(st["refresh_mode"], "inotify")
        self.assertRegex(st["last_refresh"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
        self.assertEqual(st["roots"], [{"path": self.root, "source": "--skills-dir",
                                        "exists": True, "skills": 3}])
        self.assertEqual(st["counts"]["served"], 3)
        self.assertEqual(st["counts"]["errors"], 0)

    def test_skill_files_identical(self):
        """Like diff -r, with modes, owners and mtimes."""
        self.assertEqual(sorted(os.listdir(self.m.file("skills"))), sorted(EXPECTED_SKILLS))
        for sid in EXPECTED_SKILLS:
            files, dirs = source_files(self.src(sid))
            mfiles, mdirs = source_files(self.m.file("skills", sid))
            self.assertEqual(mfiles, files, sid)
            self.assertEqual(mdirs, dirs, sid)
            for rel in files:
                s, m = self.src(sid, rel), self.m.file("skills", sid, rel)
                with open(s, "rb") as a, open(m, "rb") as b:
                    self.assertEqual(a.read(), b.read(), rel)
                ss, ms = os.lstat(s), os.lstat(m)
                self.assertEqual(ms.st_mode, ss.st_mode, rel)
                self.assertEqual(ms.st_size, ss.st_size, rel)
                self.assertEqual((ms.st_uid, ms.st_gid), (ss.st_uid, ss.st_gid), rel)
                self.assertEqual(ms.st_mtime_ns, ss.st_mtime_ns, rel)
            for rel in dirs:
                self.assertEqual(stat.S_IMODE(os.stat(self.m.file("skills", sid, rel)).st_mode),
                                 0o555)
        # scripts stay executable
        self.assertTrue(os.access(self.m.file("skills/csv-report/scripts/summarize.py"), os.X_OK))

    def test_diff_r(self):
        for sid in EXPECTED_SKILLS:
            r = subprocess.run(["diff", "-r", self.src(sid), self.m.file("skills", sid)],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_refs_links(self):
        self.assertEqual(os.listdir(self.m.file("refs")), ["pdf-forms"])
        self.assertEqual(sorted(os.listdir(self.m.file("refs/pdf-forms"))),
                         ["field-types.md", "troubleshooting.md"])
        rec = json.loads(self.m.read("catalog", "pdf-forms.json"))
        for ref_id, ref in rec["references"].items():
            link = self.m.file("refs/pdf-forms", ref_id + ".md")
            self.assertTrue(os.path.islink(link))
            self.assertEqual(os.readlink(link), "../../skills/pdf-forms/" + ref["path"])
            with open(link, "rb") as f, open(self.src("pdf-forms", ref["path"]), "rb") as g:
                self.assertEqual(f.read(), g.read())

    def test_run_script_in_place(self):
        csv = os.path.join(self.case.make_dir(), "data.csv")
        with open(csv, "w") as f:
            f.write("name,score\na,1\nb,3\n")
        script = self.m.file("skills/csv-report/scripts/summarize.py")
        r = subprocess.run([script, csv], capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("rows: 2", r.stdout)
        # and from inside the skill folder, with a relative path
        r = subprocess.run([sys.executable, "scripts/summarize.py", csv], capture_output=True,
                           text=True, cwd=self.m.file("skills/csv-report"), timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_erofs_everywhere(self):
        m = self.m
        skill_md = m.file("skills/pdf-forms/SKILL.md")
        attempts = {
            "open O_WRONLY": lambda: os.open(skill_md, os.O_WRONLY),
            "open O_RDWR index.json": lambda: os.open(m.file("index.json"), os.O_RDWR),
            "open O_CREAT": lambda: os.open(m.file("skills/pdf-forms/new.txt"),
                                            os.O_WRONLY | os.O_CREAT, 0o644),
            "open O_TRUNC": lambda: os.open(skill_md, os.O_WRONLY | os.O_TRUNC),
            "mkdir": lambda: os.mkdir(m.file("skills/new")),
            "mkdir catalog": lambda: os.mkdir(m.file("catalog/x")),
            "unlink": lambda: os.unlink(skill_md),
            "unlink json": lambda: os.unlink(m.file("index.json")),
            "rmdir": lambda: os.rmdir(m.file("skills/pdf-forms/assets")),
            "rename": lambda: os.rename(skill_md, m.file("skills/pdf-forms/X.md")),
            "rename dir": lambda: os.rename(m.file("skills/pdf-forms"), m.file("skills/x")),
            "chmod": lambda: os.chmod(skill_md, 0o777),
            "chown": lambda: os.chown(skill_md, 1, 1),
            "truncate": lambda: os.truncate(skill_md, 0),
            "utime": lambda: os.utime(skill_md, (0, 0)),
            "setxattr": lambda: os.setxattr(skill_md, "user.x", b"1"),
            "removexattr": lambda: os.removexattr(skill_md, "user.x"),
            "symlink": lambda: os.symlink("SKILL.md", m.file("skills/pdf-forms/l")),
            "link": lambda: os.link(skill_md, m.file("skills/pdf-forms/h")),
            "mknod fifo": lambda: os.mkfifo(m.file("skills/pdf-forms/fifo")),
        }
        for what, attempt in attempts.items():
            with self.subTest(what):
                with self.assertRaises(OSError) as cm:
                    attempt()
                self.assertEqual(cm.exception.errno, errno.EROFS,
                                 "%s: %s" % (what, cm.exception))
        # nothing changed in the sources
        r = subprocess.run(["diff", "-r", self.src("pdf-forms"), m.file("skills/pdf-forms")],
                           capture_output=True)
        self.assertEqual(r.returncode, 0)

    def test_case_fallback(self):
        base = self.m.file("skills/pdf-forms/references")
        with open(os.path.join(base, "FIELD-TYPES.md"), "rb") as f:
            self.assertEqual(f.read(), self.m.read("skills/pdf-forms/references/field-types.md"))
        self.assertTrue(os.path.isdir(self.m.file("skills/pdf-forms/Scripts")))
        self.assertFalse(os.path.exists(self.m.file("skills/PDF-forms/SKILL.md")))
        # listings show the real names only
        self.assertNotIn("FIELD-TYPES.md", os.listdir(base))
        # outside skills/<id>/ there is no fallback
        self.assertFalse(os.path.exists(self.m.file("INDEX.json")))
        self.assertFalse(os.path.exists(self.m.file("catalog/PDF-forms.json")))

    def test_missing_names(self):
        for rel in ("nope", "skills/nope", "skills/pdf-forms/nope", "catalog/nope.json",
                    "refs/csv-report"):
            self.assertFalse(os.path.lexists(self.m.file(rel)), rel)
        with self.assertRaises(NotADirectoryError):
            os.listdir(self.m.file("index.json"))


class Links(MountTestCase):
    def test_symlinks_inside_and_escapes(self):
        root = self.copy_examples()
        skill = os.path.join(root, "csv-report")
        os.symlink("/etc/passwd", os.path.join(skill, "abs-escape"))
        os.symlink("../../../../../../etc/hostname", os.path.join(skill, "rel-escape"))
        os.symlink("../SKILL.md", os.path.join(skill, "scripts", "doc.md"))
        os.symlink("scripts", os.path.join(skill, "bin"))
        m = self.mount([root])
        names = os.listdir(m.file("skills/csv-report"))
        self.assertNotIn("abs-escape", names)
        self.assertNotIn("rel-escape", names)
        self.assertFalse(os.path.lexists(m.file("skills/csv-report/abs-escape")))
        link = m.file("skills/csv-report/scripts/doc.md")
        self.assertTrue(os.path.islink(link))
        self.assertEqual(os.readlink(link), "../SKILL.md")
        self.assertEqual(m.read("skills/csv-report/scripts/doc.md"),
                         m.read("skills/csv-report/SKILL.md"))
        if os.path.lexists(m.file("skills/csv-report/bin")):
            self.assertEqual(os.readlink(m.file("skills/csv-report/bin")), "scripts")
        status = m.json("status.json")
        reported = json.dumps(status)
        self.assertIn(os.path.join(skill, "abs-escape"), reported)
        self.assertIn(os.path.join(skill, "rel-escape"), reported)
        for e in status["skills"]:
            if e["dir"] == skill:
                self.assertEqual(e["state"], "served")
        # nothing outside the root is readable through the mount
        out = subprocess.run(["grep", "-r", "root:", m.file("skills")], capture_output=True)
        self.assertNotIn(b"/bin/", out.stdout)


class CaseFallbackOff(MountTestCase):
    def test_nocasefallback(self):
        m = self.mount([self.copy_examples()], ["-o", "nocasefallback"])
        self.assertTrue(os.path.exists(m.file("skills/pdf-forms/references/field-types.md")))
        self.assertFalse(os.path.exists(m.file("skills/pdf-forms/references/FIELD-TYPES.md")))

    def test_ambiguous_case(self):
        root = self.copy_examples()
        refs = os.path.join(root, "pdf-forms", "references")
        with open(os.path.join(refs, "Notes.md"), "w") as f:
            f.write("a\n")
        with open(os.path.join(refs, "NOTES.md"), "w") as f:
            f.write("b\n")
        m = self.mount([root])
        self.assertEqual(m.read("skills/pdf-forms/references/Notes.md"), b"a\n")
        self.assertEqual(m.read("skills/pdf-forms/references/NOTES.md"), b"b\n")
        # two candidates: no guess
        self.assertFalse(os.path.exists(m.file("skills/pdf-forms/references/notes.md")))


if __name__ == "__main__":
    unittest.main(verbosity=2)
