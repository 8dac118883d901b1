#!/usr/bin/env python3
"""--help and --version on every program and subcommand, and man pages that
format without warnings."""

import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from intlib import SKILLSFS, SKILLSFS_MCP, SOURCE_ROOT, clean_env, run

COMMANDS = [
    [SKILLSFS],
    [SKILLSFS, "check"],
    [SKILLSFS, "export"],
    [SKILLSFS, "lock"],
    [SKILLSFS, "status"],
    [SKILLSFS, "gc"],
    [SKILLSFS_MCP],
    [SKILLSFS_MCP, "instructions"],
]


def check_config(test, text):
    """skillsfs check --config FILE of a configuration text, in a
    temporary home removed after the test."""
    top = tempfile.mkdtemp(prefix="skillsfs-config-")
    test.addCleanup(shutil.rmtree, top, True)
    cfg = os.path.join(top, "skillsfs.yaml")
    with open(cfg, "w") as f:
        f.write(text)
    return run([SKILLSFS, "check", "--config", cfg], env=clean_env(HOME=top))


class HelpAndVersion(unittest.TestCase):
    def answers(self, flags, pattern):
        """Every program answers each flag with exit 0, stdout matching
        pattern and nothing on stderr."""
        for cmd in COMMANDS:
            for flag in flags:
                with self.subTest(cmd=cmd[1:], flag=flag):
                    r = run(cmd + [flag], env=clean_env())
                    self.assertEqual(r.returncode, 0, r.stderr)
                    self.assertRegex(r.stdout, pattern)
                    self.assertEqual(r.stderr, "")

    def test_help(self):
        self.answers(("--help", "-h"), r"(?i)^usage: ")

    def test_version(self):
        self.answers(("--version", "-V"), r"^skillsfs(-mcp)?( \w+)? \d+\.\d+\.\d+")

    def test_a_bad_option_is_a_usage_error(self):
        """Exit 2, nothing on stdout, and on stderr what was wrong and
        where the help is."""
        for cmd in COMMANDS:
            with self.subTest(cmd=cmd[1:]):
                r = run(cmd + ["--no-such-option"], env=clean_env())
                self.assertEqual((r.returncode, r.stdout), (2, ""), r.stderr)
                prog = os.path.basename(cmd[0])
                said = ": ".join([prog] + cmd[1:])    # skillsfs-mcp: instructions
                name = " ".join([prog] + cmd[1:])     # skillsfs check
                helped = prog if cmd[0] == SKILLSFS_MCP else name
                self.assertRegex(r.stderr, r"^(%s|%s): unknown (option|argument) "
                                 r"'--no-such-option'\nTry '%s --help'\.\n$"
                                 % (re.escape(name), re.escape(said), re.escape(helped)))

    def test_each_help_names_the_options_it_takes(self):
        takes = {
            "check": ("--skills-dir", "--source", "--config", "--strict", "--json"),
            "export": ("--anthropic", "--skills-dir", "--source", "--config"),
            "lock": ("--output",),
            "status": ("--json", "--config"),
            "gc": ("--config", "--cache-dir", "--lock", "--max", "--dry-run"),
        }
        for cmd, options in takes.items():
            text = run([SKILLSFS, cmd, "--help"], env=clean_env()).stdout
            for opt in options + ("--help", "--version"):
                with self.subTest(cmd=cmd, option=opt):
                    self.assertRegex(text, r"\n  (-\w, )?%s\b" % opt)

    def test_help_names_every_command(self):
        r = run([SKILLSFS, "--help"], env=clean_env())
        for cmd in ("check", "export", "lock", "status", "gc"):
            self.assertRegex(r.stdout, r"\n       skillsfs %s " % cmd)

    def test_help_names_the_new_options(self):
        r = run([SKILLSFS, "--help"], env=clean_env())
        for opt in ("--config", "--docs-dir", "docs_dir=", "config=", "export --anthropic",
                    "~/.agents/skills"):
            self.assertIn(opt, r.stdout)
        r = run([SKILLSFS_MCP, "--help"], env=clean_env())
        for opt in ("--config", "--docs-dir"):
            self.assertIn(opt, r.stdout)


@unittest.skipUnless(shutil.which("groff"), "needs groff")
class ManPages(unittest.TestCase):
    def test_format_without_warnings(self):
        for page in ("skillsfs.1", "skillsfs-mcp.1", "skillsfs.5"):
            with self.subTest(page):
                path = os.path.join(SOURCE_ROOT, "man", page)
                r = subprocess.run(["groff", "-man", "-t", "-ww", "-z", path],
                                   capture_output=True, text=True)
                self.assertEqual((r.returncode, r.stderr), (0, ""))

    def test_format_at_80_columns_without_warnings(self):
        """man(1) at 80 columns: a table wider than the line is a warning."""
        if not shutil.which("man"):
            self.skipTest("needs man")
        for page in ("skillsfs.1", "skillsfs-mcp.1", "skillsfs.5"):
            with self.subTest(page):
                r = subprocess.run(["man", "--warnings", "-l",
                                    os.path.join(SOURCE_ROOT, "man", page)],
                                   capture_output=True, text=True,
                                   env=dict(os.environ, MANWIDTH="80", MANPAGER="cat"))
                self.assertEqual((r.returncode, r.stderr), (0, ""))

    def test_every_option_of_the_help_is_in_the_man_page(self):
        """Each long option a program's --help names, and each -o option
        of the mount, is described in its man page."""
        with open(os.path.join(SOURCE_ROOT, "man", "skillsfs.1")) as f:
            one = f.read()
        with open(os.path.join(SOURCE_ROOT, "man", "skillsfs-mcp.1")) as f:
            mcp = f.read()
        for cmd in COMMANDS:
            page = mcp if cmd[0] == SKILLSFS_MCP else one
            text = run(cmd + ["--help"], env=clean_env()).stdout
            options = set(re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*)", text))
            self.assertTrue(options, cmd)
            for opt in sorted(options):
                with self.subTest(cmd=cmd[1:], option=opt):
                    self.assertIn(r"\-\-" + opt.replace("-", r"\-"), page)
        text = run([SKILLSFS, "--help"], env=clean_env()).stdout
        mount_options = re.findall(r"^    -o ([a-z_]+)", text, re.M)
        self.assertIn("cache_max", mount_options)
        for opt in mount_options:
            with self.subTest(option=opt):
                self.assertRegex(one, r"\n\.B[IR]? [^\n]*\b%s\b" % re.escape(opt))

    def test_documented(self):
        with open(os.path.join(SOURCE_ROOT, "man", "skillsfs.5")) as f:
            five = f.read()
        self.assertIn(".SH CONFIGURATION", five)
        for word in ("include", "exclude", "docs_dir", "mountpoint", "resource://docs/"):
            self.assertIn(word, five)
        with open(os.path.join(SOURCE_ROOT, "man", "skillsfs.1")) as f:
            one = f.read()
        for word in (r"\-\-config", r"\-\-docs\-dir", "export", r"\-\-anthropic",
                     "skillsfs@.service"):
            self.assertIn(word, one)
        self.assertTrue(re.search(r"\.agents/skills", one))

    def test_example_configuration_is_valid(self):
        """The example of skillsfs(5) CONFIGURATION reads without error."""
        with open(os.path.join(SOURCE_ROOT, "man", "skillsfs.5")) as f:
            five = f.read()
        start = five.index("# /etc/skillsfs/mnt\\-skills.yaml")
        text = five[start:five.index(".EE", start)]
        text = text.replace("\\-", "-").replace("\\(aq", "'")
        r = check_config(self, text)
        # the example's folders do not exist here: findings (1), not a
        # usage error (2)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("skills folder does not exist", r.stdout)


class Readme(unittest.TestCase):
    """The client snippets and the configuration example of README.md."""

    def blocks(self, lang):
        with open(os.path.join(SOURCE_ROOT, "README.md")) as f:
            text = f.read()
        return re.findall(r"```%s\n(.*?)```" % lang, text, re.S)

    def test_json_snippets_parse(self):
        blocks = self.blocks("json")
        self.assertGreaterEqual(len(blocks), 3)
        for block in blocks:
            with self.subTest(block[:40]):
                doc = json.loads(block)
                servers = doc.get("mcpServers") or doc.get("servers")
                self.assertIn("skills", servers)
                self.assertEqual(os.path.basename(servers["skills"]["command"]),
                                 "skillsfs-mcp")

    def test_yaml_example_is_a_valid_configuration(self):
        (block,) = self.blocks("yaml")
        r = check_config(self, block)
        self.assertEqual(r.returncode, 1, r.stderr)   # its folders do not exist here

    def test_conformance_lines(self):
        with open(os.path.join(SOURCE_ROOT, "README.md")) as f:
            text = f.read()
        self.assertIn("Conformance: `ninja -C build && tests/mcp/conformance.sh` mounts "
                      "tests/skills", text)
        self.assertIn("`meson test -C build --suite conformance`", text)
        self.assertIn("BENCHMARKS.md", text)


if __name__ == "__main__":
    unittest.main(verbosity=2)
