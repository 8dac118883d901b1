#!/usr/bin/env python3
"""--config FILE for skillsfs (mount, check, export) and skillsfs-mcp:
roots, options and include/exclude patterns from YAML; unknown keys are
errors naming the key and line; the command line overrides the file; and
the default roots when nothing names any."""

import json
import os
import shutil
import tempfile
import unittest

from intlib import (EXAMPLE_SKILLS, SKILLSFS, CustomMount, McpClient, MountTestCase,
                    clean_env, run, wait_for, write, write_skill)


def check(*args, env=None, cwd=None):
    r = run([SKILLSFS, "check", *args], env=env or clean_env(), cwd=cwd)
    return r.returncode, r.stdout, r.stderr


def served_ids(mount):
    return sorted(s["uri"].split("/")[2] for s in mount.json("index.json")["skills"])


class ConfigMount(MountTestCase):
    def setUp(self):
        self.top = self.make_dir()
        self.team = os.path.join(self.top, "team")
        for sid in ("pdf-forms", "pdf-draft", "csv-report", "notes"):
            write_skill(self.team, sid)
        write_skill(os.path.join(self.team, "experimental"), "wild-idea")
        self.docs = os.path.join(self.top, "docs")
        write(os.path.join(self.docs, "index.md"), "# Docs\n")

    def config(self, text, name="skillsfs.yaml"):
        return write(os.path.join(self.top, name), text)

    def test_roots_options_and_patterns(self):
        cfg = self.config(
            "roots:\n"
            "  - team\n"                      # relative to the file's folder
            "docs_dir: docs\n"
            "include: ['pdf-*', 'csv-*', 'experimental/*']\n"
            "exclude: ['*-draft']\n"
            "options:\n"
            "  nocasefallback: true\n"
            "  debounce: 20\n")
        m = self.mount([], ["--config", cfg])
        self.assertEqual(served_ids(m), ["csv-report", "pdf-forms", "wild-idea"])
        status = m.json("status.json")
        self.assertEqual(status["roots"], [{"path": self.team, "source": "config",
                                            "exists": True, "skills": 3}])
        # left-out folders are not read, counted or reported
        self.assertEqual(status["counts"]["invalid"], 0)
        self.assertEqual(status["skills"], [])
        self.assertEqual(os.listdir(m.file("docs")), ["index.md"])
        # nocasefallback from the file
        self.assertFalse(os.path.exists(m.file("skills", "pdf-forms", "skill.MD")))

    def test_command_line_overrides_the_file(self):
        other = os.path.join(self.top, "other")
        write_skill(other, "only-here")
        cfg = self.config("roots: [team]\noptions:\n  nocasefallback: true\n")
        m = self.mount([other], ["--config", cfg, "-o", "casefallback"])
        self.assertEqual(served_ids(m), ["only-here"])
        self.assertEqual([r["source"] for r in m.json("status.json")["roots"]],
                         ["--skills-dir"])
        self.assertTrue(os.path.exists(m.file("skills", "only-here", "skill.MD")))

    def test_mountpoint_from_the_file(self):
        mnt = os.path.join(self.top, "mnt")
        os.mkdir(mnt)
        cfg = self.config("roots: [team]\nmountpoint: mnt\n")
        m = CustomMount(mnt, [SKILLSFS, "--config", cfg, "-f"])
        self.addCleanup(m.cleanup)
        m.start()
        self.assertIn("pdf-forms", served_ids(m))

    def test_config_through_fstab_option(self):
        cfg = self.config("roots: [team]\nexclude: ['pdf-*']\n")
        m = self.mount([], ["-o", "config=" + cfg])
        self.assertEqual(served_ids(m), ["csv-report", "notes", "wild-idea"])

    def test_strict_from_the_file(self):
        write_skill(self.team, "long-body", body="line\n" * 600)   # a warning
        cfg = self.config("roots: [team]\noptions:\n  strict: true\n")
        m = self.mount([], ["--config", cfg])
        self.assertNotIn("long-body", served_ids(m))
        self.assertIn("pdf-forms", served_ids(m))

    def test_bad_files_are_usage_errors(self):
        mnt = self.make_dir()
        for text, where in [
                ("roots: [team]\nroots_dir: x\n", ":2:1: error: roots_dir: unknown key"),
                ("options:\n  debounce: fast\n",
                 ":2:13: error: options.debounce: expected milliseconds"),
                ("options:\n  strict: true\n  polling: maybe\n",
                 ":3:12: error: options.polling: expected true or false"),
                ("roots: [a\n", ":2:1: error: not valid YAML")]:
            with self.subTest(text):
                cfg = self.config(text, "bad.yaml")
                r = run([SKILLSFS, mnt, "--config", cfg, "-f"], env=clean_env())
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn("skillsfs: " + cfg + where, r.stderr)
                self.assertFalse(os.path.ismount(mnt))
        r = run([SKILLSFS, mnt, "--config", os.path.join(self.top, "nope.yaml")],
                env=clean_env())
        self.assertEqual(r.returncode, 2)
        self.assertIn("nope.yaml: error: cannot read: No such file or directory", r.stderr)


class ConfigCheck(unittest.TestCase):
    def setUp(self):
        self.top = tempfile.mkdtemp(prefix="skillsfs-int-")
        self.addCleanup(shutil.rmtree, self.top, True)
        self.root = os.path.join(self.top, "skills")
        write_skill(self.root, "good-one")
        write_skill(self.root, "long-body", body="line\n" * 600)
        bad = os.path.join(self.root, "broken")
        os.makedirs(bad)
        write(os.path.join(bad, "SKILL.md"), "---\nname: broken\n---\n")   # no description

    def cfg(self, text):
        return write(os.path.join(self.top, "c.yaml"), text)

    def test_check_with_a_config(self):
        rc, out, err = check("--config", self.cfg("roots: [skills]\n"))
        self.assertEqual(rc, 1, err)
        self.assertTrue(out.endswith("3 skills, 1 errors, 1 warnings, 0 shadowed\n"), out)
        rc, out, err = check("--config", self.cfg("roots: [skills]\nexclude: [broken]\n"))
        self.assertEqual((rc, out.splitlines()[-1]),
                         (0, "2 skills, 0 errors, 1 warnings, 0 shadowed"))
        cfg = self.cfg("roots: [skills]\nexclude: [broken]\noptions: {strict: true}\n")
        rc, out, err = check("--config", cfg)
        self.assertEqual((rc, out.splitlines()[-1]),
                         (1, "2 skills, 1 errors, 0 warnings, 0 shadowed"))
        rc, out, err = check("--config", self.cfg("roots: [skills]\ninclude: [good-*]\n"),
                             "--json")
        self.assertEqual(json.loads(out)["summary"],
                         {"skills": 1, "errors": 0, "warnings": 0, "shadowed": 0})
        # --skills-dir replaces the file's roots
        rc, out, err = check("--config", self.cfg("roots: [skills]\n"),
                             "--skills-dir", EXAMPLE_SKILLS)
        self.assertEqual((rc, out), (0, "3 skills, 0 errors, 0 warnings, 0 shadowed\n"))

    def test_unknown_key(self):
        rc, out, err = check("--config", self.cfg("roots: [skills]\n\nstrictness: 1\n"))
        self.assertEqual(rc, 2)
        self.assertEqual(err.splitlines()[0], "skillsfs check: %s:3:1: error: strictness: "
                         "unknown key (known: roots, sources, lock, mountpoint, docs_dir, "
                         "include, exclude, views, accept, options)" % os.path.join(self.top, "c.yaml"))


class DefaultRoots(unittest.TestCase):
    """Without --skills-dir, SKILLSFS_SKILLS_DIRS or a config: the standard
    user and project skill folders of agents that exist."""

    def setUp(self):
        self.top = tempfile.mkdtemp(prefix="skillsfs-int-")
        self.addCleanup(shutil.rmtree, self.top, True)
        self.home = os.path.join(self.top, "home")
        self.project = os.path.join(self.top, "project")
        write_skill(os.path.join(self.home, ".agents", "skills"), "mine")
        # the same folder twice: counted once
        os.makedirs(os.path.join(self.home, ".claude"))
        os.symlink(os.path.join(self.home, ".agents", "skills"),
                   os.path.join(self.home, ".claude", "skills"))
        write_skill(os.path.join(self.project, ".claude", "skills"), "team-one")
        write_skill(os.path.join(self.project, ".github", "skills"), "mine",
                    description="Shadowed by the user's own skill.")
        self.env = clean_env(HOME=self.home)

    def test_check_uses_the_standard_folders(self):
        rc, out, err = check("--json", env=self.env, cwd=self.project)
        self.assertEqual(rc, 0, err)
        summary = json.loads(out)["summary"]
        self.assertEqual(summary, {"skills": 3, "errors": 0, "warnings": 1, "shadowed": 1})

    def test_mount_lists_where_roots_came_from(self):
        mnt = os.path.join(self.top, "mnt")
        os.mkdir(mnt)
        m = CustomMount(mnt, [SKILLSFS, mnt, "-f"], env=self.env, cwd=self.project)
        self.addCleanup(m.cleanup)
        m.start()
        roots = m.json("status.json")["roots"]
        self.assertEqual(roots, [
            {"path": os.path.join(self.home, ".agents/skills"), "source": "default",
             "exists": True, "skills": 1},
            {"path": os.path.join(self.project, ".claude/skills"), "source": "default",
             "exists": True, "skills": 1},
            {"path": os.path.join(self.project, ".github/skills"), "source": "default",
             "exists": True, "skills": 0},
        ])
        self.assertEqual(served_ids(m), ["mine", "team-one"])

    def test_environment_before_defaults(self):
        rc, out, err = check(env=dict(self.env, SKILLSFS_SKILLS_DIRS=EXAMPLE_SKILLS),
                             cwd=self.project)
        self.assertEqual((rc, out), (0, "3 skills, 0 errors, 0 warnings, 0 shadowed\n"))

    def test_no_standard_folder(self):
        empty = os.path.join(self.top, "empty")
        os.mkdir(empty)
        rc, out, err = check(env=clean_env(HOME=empty), cwd=empty)
        self.assertEqual(rc, 2)
        self.assertIn("~/.agents/skills", err)
        r = run([SKILLSFS, empty], env=clean_env(HOME=empty), cwd=empty)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no skills directory", r.stderr)


class ConfigMcp(unittest.TestCase):
    """skillsfs-mcp --config: the mountpoint from the file, and skillsfs run
    with the same file when nothing is mounted there."""

    def test_mcp_with_a_config(self):
        top = tempfile.mkdtemp(prefix="skillsfs-int-")
        self.addCleanup(shutil.rmtree, top, True)
        shutil.copytree(EXAMPLE_SKILLS, os.path.join(top, "skills"))
        cfg = write(os.path.join(top, "skillsfs.yaml"),
                    "roots: [skills]\nmountpoint: mnt\nexclude: [csv-report]\n")
        client = McpClient(["--config", cfg, "--linger", "0"], env=clean_env())
        try:
            client.handshake()
            r = client.request("tools/call", {"name": "list_skills", "arguments": {}})
            text = json.dumps(r["result"])
            self.assertIn("pdf-forms", text)
            self.assertNotIn("csv-report", text)
            self.assertTrue(os.path.ismount(os.path.join(top, "mnt")))
        finally:
            self.assertEqual(client.close(), 0)
        # the keeper unmounts once no session holds the mount
        wait_for(lambda: not os.path.exists(os.path.join(top, "mnt")),
                 what="the mount point to go after the last session")

    def test_mcp_bad_config(self):
        top = tempfile.mkdtemp(prefix="skillsfs-int-")
        self.addCleanup(shutil.rmtree, top, True)
        cfg = write(os.path.join(top, "c.yaml"), "mountpoint: /x\nbogus: 1\n")
        r = run([os.environ.get("SKILLSFS_MCP", "skillsfs-mcp"), "--config", cfg])
        self.assertEqual(r.returncode, 2)
        self.assertIn(cfg + ":2:1: error: bogus: unknown key", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
