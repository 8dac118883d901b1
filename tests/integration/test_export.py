#!/usr/bin/env python3
"""skillsfs export --anthropic OUTDIR: the upload projection of the
frontmatter contract.  Standard frontmatter only, x-personal-mcp moved into
metadata as namespaced string keys, body and files byte-identical with
their modes, sources untouched; the output is read back with the library
(render_tool, skillsfs check) and must validate clean."""

import json
import os
import shutil
import stat
import subprocess
import tempfile
import unittest

from intlib import (EXAMPLE_SKILLS, RENDER_TOOL, SKILLSFS, clean_env, run, tree_state,
                    write)

STANDARD = {"name", "description", "license", "compatibility", "allowed-tools", "metadata"}

RICH_FRONTMATTER = """---
name: pdf-tools
description: "Split, merge and stamp PDFs: use for any PDF chore. It's quick."
license: Apache-2.0
compatibility: Needs qpdf
allowed-tools:
  - Bash(qpdf:*)
  - Read
when_to_use: When a PDF must change.
disable-model-invocation: false
argument-hint: "[file]"
metadata:
  author: docs-team
  reviewed: true
x-personal-mcp:
  id: pdf-tools
  version: 1.2.0
  tags: [pdf, merge]
  capabilities:
    - resource://skills/pdf-tools/document
  depends_on: []
  references:
    qpdf-notes:
      path: references/qpdf.md
      title: "qpdf: notes"
---
"""
RICH_BODY = "\r\n# PDF tools\n\nRead [the notes](references/qpdf.md) first.\nTrailing spaces   \n\n"


def render_index(root):
    """The output parsed by the library: index.json entries by id."""
    r = run([RENDER_TOOL, "--skills-dir", root, "index"])
    if r.returncode != 0:
        raise AssertionError("render_tool failed: " + r.stderr)
    return {e["frontmatter"]["name"]: e for e in json.loads(r.stdout)["skills"]}


class Export(unittest.TestCase):
    def setUp(self):
        self.top = tempfile.mkdtemp(prefix="skillsfs-export-")
        self.addCleanup(shutil.rmtree, self.top, True)
        self.root = os.path.join(self.top, "skills")
        shutil.copytree(EXAMPLE_SKILLS, self.root, symlinks=True)
        skill = os.path.join(self.root, "docs", "pdf-tools")   # in a category folder
        write(os.path.join(skill, "SKILL.md"), RICH_FRONTMATTER + RICH_BODY)
        write(os.path.join(skill, "references", "qpdf.md"), "# qpdf\n")
        write(os.path.join(skill, "scripts", "merge.sh"), "#!/bin/sh\nqpdf \"$@\"\n", 0o750)
        write(os.path.join(skill, "private.txt"), "owner only\n", 0o600)
        with open(os.path.join(skill, "assets.bin"), "wb") as f:
            f.write(bytes(range(256)) * 4)
        os.symlink("references/qpdf.md", os.path.join(skill, "notes.md"))
        os.symlink("references", os.path.join(skill, "refs"))
        os.utime(os.path.join(skill, "private.txt"), ns=(1_600_000_000_000_000_000,) * 2)
        self.skill = skill
        self.out = os.path.join(self.top, "out")

    def export(self, *args, out=None):
        r = run([SKILLSFS, "export", "--anthropic", out or self.out, *args], env=clean_env())
        return r.returncode, r.stdout, r.stderr

    def test_projection(self):
        before = tree_state(self.root)
        rc, out, err = self.export("--skills-dir", self.root)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, "4 skills exported to %s\n" % self.out)
        self.assertIn("pdf-tools: left out when_to_use, disable-model-invocation, "
                      "argument-hint (not standard frontmatter)", err)
        self.assertEqual(tree_state(self.root), before, "the sources changed")
        self.assertEqual(sorted(os.listdir(self.out)),
                         ["commit-messages", "csv-report", "pdf-forms", "pdf-tools"])

        index = render_index(self.out)
        fm = index["pdf-tools"]["frontmatter"]
        self.assertEqual(list(fm), ["name", "description", "license", "compatibility",
                                    "allowed-tools", "metadata"])
        self.assertEqual(fm["description"],
                         "Split, merge and stamp PDFs: use for any PDF chore. It's quick.")
        self.assertEqual(fm["license"], "Apache-2.0")
        self.assertEqual(fm["allowed-tools"], "Bash(qpdf:*) Read")
        meta = fm["metadata"]
        self.assertTrue(all(isinstance(v, str) for v in meta.values()), meta)
        self.assertEqual(meta["author"], "docs-team")
        self.assertEqual(meta["reviewed"], "true")
        self.assertEqual(meta["x-personal-mcp.id"], "pdf-tools")
        self.assertEqual(meta["x-personal-mcp.version"], "1.2.0")
        self.assertEqual(json.loads(meta["x-personal-mcp.tags"]), ["pdf", "merge"])
        self.assertEqual(json.loads(meta["x-personal-mcp.capabilities"]),
                         ["resource://skills/pdf-tools/document"])
        self.assertEqual(json.loads(meta["x-personal-mcp.depends_on"]), [])
        self.assertEqual(json.loads(meta["x-personal-mcp.references"]),
                         {"qpdf-notes": {"path": "references/qpdf.md", "title": "qpdf: notes"}})
        for sid, entry in index.items():
            with self.subTest(sid):
                self.assertLessEqual(set(entry["frontmatter"]), STANDARD)
                self.assertNotIn("x-personal-mcp", entry["frontmatter"])

        # the body, byte for byte
        with open(os.path.join(self.out, "pdf-tools", "SKILL.md"), "rb") as f:
            projected = f.read()
        self.assertTrue(projected.endswith(b"\n---\n" + RICH_BODY.encode()), projected)

        # the output validates clean, even with --strict
        r = run([SKILLSFS, "check", "--strict", "--json", "--skills-dir", self.out])
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertEqual(json.loads(r.stdout), {"findings": [], "summary": {
            "skills": 4, "errors": 0, "warnings": 0, "shadowed": 0}})

    def test_files_byte_identical_with_modes(self):
        rc, out, err = self.export("--skills-dir", self.root)
        self.assertEqual(rc, 0, err)
        pairs = [(os.path.join(EXAMPLE_SKILLS, "pdf-forms"), os.path.join(self.out, "pdf-forms")),
                 (self.skill, os.path.join(self.out, "pdf-tools"))]
        for src, dst in pairs:
            for dirpath, dirnames, filenames in os.walk(src):
                for name in dirnames + filenames:
                    s = os.path.join(dirpath, name)
                    d = os.path.join(dst, os.path.relpath(s, src))
                    with self.subTest(s):
                        if name == "SKILL.md" and dirpath == src:
                            self.assertEqual(os.stat(d).st_mode, os.stat(s).st_mode)
                            continue
                        if os.path.islink(s) and os.path.isdir(s):
                            self.assertEqual(os.readlink(d), os.readlink(s))
                            continue
                        st, dt = os.stat(s), os.lstat(d)   # file links: their target
                        self.assertEqual(stat.S_IFMT(dt.st_mode), stat.S_IFMT(st.st_mode))
                        self.assertEqual(dt.st_mode, st.st_mode)
                        if stat.S_ISREG(st.st_mode):
                            with open(s, "rb") as a, open(d, "rb") as b:
                                self.assertEqual(a.read(), b.read())
                            self.assertEqual(dt.st_mtime_ns, st.st_mtime_ns)
        self.assertEqual(os.stat(os.path.join(self.out, "pdf-tools", "private.txt")).st_mode
                         & 0o7777, 0o600)
        self.assertTrue(os.access(os.path.join(self.out, "pdf-tools", "scripts", "merge.sh"),
                                  os.X_OK))

    def test_outdir_rules(self):
        os.makedirs(self.out)
        write(os.path.join(self.out, "keep.txt"), "x\n")
        rc, out, err = self.export("--skills-dir", self.root)
        self.assertEqual(rc, 1)
        self.assertIn("is not empty", err)
        self.assertEqual(os.listdir(self.out), ["keep.txt"])

        before = tree_state(self.root)
        for outdir in (os.path.join(self.root, "exported"),     # inside a source
                       os.path.join(self.skill, "out"),
                       self.root,
                       self.top):                               # holds a source
            with self.subTest(outdir):
                rc, out, err = self.export("--skills-dir", self.root, out=outdir)
                self.assertEqual(rc, 1)
                self.assertIn("never writes into a source", err)
        self.assertEqual(tree_state(self.root), before)

        link = os.path.join(self.top, "sneaky")
        os.symlink(self.root, link)
        rc, out, err = self.export("--skills-dir", self.root, out=os.path.join(link, "x"))
        self.assertEqual(rc, 1)
        self.assertIn("never writes into a source", err)
        self.assertEqual(tree_state(self.root), before)

        rc, out, err = self.export("--skills-dir", self.root,
                                   out=os.path.join(self.top, "no", "such", "parent"))
        self.assertEqual(rc, 1)
        self.assertIn("No such file or directory", err)

        empty = os.path.join(self.top, "empty")
        os.mkdir(empty)
        rc, out, err = self.export("--skills-dir", self.root, out=empty)
        self.assertEqual(rc, 0, err)

    def test_invalid_and_refused_skills(self):
        write(os.path.join(self.root, "broken", "SKILL.md"), "---\nname: broken\n---\nbody\n")
        write(os.path.join(self.root, "claude-helper", "SKILL.md"),
              "---\nname: claude-helper\ndescription: Uses a reserved word.\n---\nbody\n")
        rc, out, err = self.export("--skills-dir", self.root)
        self.assertEqual(rc, 1)
        self.assertIn("broken: not exported: invalid", err)
        self.assertIn("claude-helper: not exported: name:", err)
        self.assertEqual(sorted(os.listdir(self.out)),
                         ["commit-messages", "csv-report", "pdf-forms", "pdf-tools"])

    def test_config_patterns(self):
        cfg = write(os.path.join(self.top, "c.yaml"), "roots: [skills]\nexclude: ['pdf-*']\n")
        rc, out, err = self.export("--config", cfg)
        self.assertEqual(rc, 0, err)
        self.assertEqual(sorted(os.listdir(self.out)), ["commit-messages", "csv-report"])

    def test_usage(self):
        r = run([SKILLSFS, "export", "--skills-dir", self.root], env=clean_env())
        self.assertEqual(r.returncode, 2)
        self.assertIn("give --anthropic OUTDIR", r.stderr)
        r = run([SKILLSFS, "export", "--anthropic", self.out, "--zip"], env=clean_env())
        self.assertEqual(r.returncode, 2)
        self.assertFalse(os.path.exists(self.out))


if __name__ == "__main__":
    unittest.main(verbosity=2)
