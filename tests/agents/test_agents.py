#!/usr/bin/env python3
"""The real agents against a skillsfs mount (issue 23).

    test_agents.py AGENT [unittest options]     AGENT: claude-code, codex, gemini, copilot

Each test runs the agent program from tests/agents/node_modules in a
temporary HOME whose skills folder is a symlink into the mount, against a
scripted model on loopback (mockmodel.py), and reads what the agent sent
to the model:

  - it lists every skill of its folder, each with its description, none
    twice, and logs no over-budget warning; a file it reads through its own
    tool reaches the model whole;
  - with README's links for every agent in one HOME (its `ln -s` lines as
    written), it lists exactly the folder README says it sees;
  - over skillsfs-mcp (an MCP server of the agent), it reads a reference
    and runs a script at the path get_skill returned (Gemini CLI only with
    README's context.includeDirectories: without, it refuses the path);
  - with ~1,000 skills mounted and views/ in the mount: it lists its whole
    view with descriptions and no warning, and reaches a skill outside its
    view through find-skills in at most two tool calls after reading
    find-skills' SKILL.md.  These skip, saying why, while the mount has no
    views/ folder.

As root the whole test runs in a network namespace of its own (loopback
only); otherwise the agents get a proxy on a closed loopback port.
"""

import os
import re
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import agentlib  # noqa: E402
from agentlib import (AGENTS, Mount, MockModel, SOURCE_ROOT, folder_skills,  # noqa: E402
                      skills_folder, view_folder)

AGENT = None                # the agent under test, from argv
LARGE_CATALOG = 1000

REFERENCE_TOKEN = "field-map-token-5d91"
SCRIPT_ANSWER = "report rows: 42"       # computed by the script, not in its text


def generate(count, folder, seed=7):
    subprocess.run([sys.executable, os.path.join(SOURCE_ROOT, "scripts", "gen-corpus"),
                    "--seed", str(seed), str(count), folder],
                   check=True, stdout=subprocess.DEVNULL)


def write_report_skill(root):
    """A hand-written skill whose reference and script the MCP test uses:
    the reference holds a token, the script prints what only running it
    gives."""
    d = os.path.join(root, "quarterly-report-fill")
    os.makedirs(os.path.join(d, "references"))
    os.makedirs(os.path.join(d, "scripts"))
    with open(os.path.join(d, "SKILL.md"), "w") as f:
        f.write("---\nname: quarterly-report-fill\n"
                "description: Fill the quarterly report form from the ledger export. "
                "Use when the finance team asks for the quarterly report.\n---\n"
                "# Quarterly report\n\n1. Read [the field map](references/fields.md).\n"
                "2. Run `scripts/count-rows.sh` to count the rows.\n")
    with open(os.path.join(d, "references", "fields.md"), "w") as f:
        f.write("# Field map\n\nThe map is %s.\n" % REFERENCE_TOKEN)
    script = os.path.join(d, "scripts", "count-rows.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\necho \"report rows: $((6 * 7))\"\n")
    os.chmod(script, 0o755)


class AgentCase(unittest.TestCase):
    """Helpers: a mount, an agent configured for a folder, a mock model."""

    def new_agent(self, folder, mount, mcp=False):
        """folder: what the agent's own skills folder links to, or None."""
        workdir = agentlib.new_workdir(AGENT)
        self.addCleanup(shutil.rmtree, workdir, True)
        agent = AGENTS[AGENT](workdir)
        agent.configure(folder, mount.path, mcp=mcp)
        return agent

    def new_mock(self, steps):
        # SKILLSFS_AGENTS_RECORD=DIR keeps every request the agent sent, one
        # JSON file per test, to see what an agent does
        record = os.environ.get("SKILLSFS_AGENTS_RECORD")
        if record:
            record = os.path.join(record, "%s.%s.jsonl" % (AGENT, self.id().split(".")[-1]))
            if os.path.exists(record):
                os.unlink(record)
        mock = MockModel(steps, record).start()
        self.addCleanup(mock.stop)
        return mock

    def run_agent(self, agent, mock, prompt):
        run = agent.run(mock, prompt)
        if mock.script.errors:
            raise mock.script.errors[0]
        self.assertEqual(run.returncode, 0, run.describe())
        main = agent.main_requests(mock)
        self.assertTrue(main, "%s sent no request offering its tools:\n%s" % (
            agent.name, run.describe()))
        return run, main

    def assert_lists(self, agent, run, request, expected, catalog=()):
        """Every skill of expected ({id: description}) in the listing of
        request, with that description, none twice, none of catalog that is
        not in expected, no budget warning."""
        self.assertEqual(agent.over_budget(run), [], "over-budget warning")
        listed = agent.listing(request)
        self.assertIsNotNone(listed, "%s put no skills listing in its request" % agent.name)
        print("%s: %d skills in its folder, %d listed with a description (its own included)"
              % (agent.name, len(expected), sum(1 for v in listed.values() if v)),
              file=sys.stderr)
        self.assertNotIn("__twice__", listed, "skills listed twice: %s" % listed.get("__twice__"))
        extra = sorted((set(listed) & set(catalog)) - set(expected))
        self.assertFalse(extra, "%d skills listed from outside its folder, e.g. %s" % (
            len(extra), extra[:5]))
        missing = sorted(set(expected) - set(listed))
        self.assertFalse(missing, "%d of %d skills not listed, e.g. %s" % (
            len(missing), len(expected), missing[:5]))
        bare = sorted(i for i in expected if not listed[i])
        self.assertFalse(bare, "%d skills listed without a description, e.g. %s" % (
            len(bare), bare[:5]))
        wrong = sorted(i for i in expected if listed[i].strip() != expected[i].strip())
        self.assertFalse(wrong, "descriptions changed, e.g. %s: %r != %r" % (
            (wrong[:1] or [""])[0], listed.get((wrong or [""])[0]),
            expected.get((wrong or [""])[0])))
        return listed


class MountedCatalog(AgentCase):
    """A generated catalog of `size` skills, mounted once for the class."""
    size = None
    ready_timeout = 20

    @classmethod
    def write_catalog(cls, root):
        generate(cls.size, root)

    @classmethod
    def setUpClass(cls):
        cls.src = agentlib.new_workdir("src")
        cls.root = os.path.join(cls.src, "skills")
        cls.mount = Mount([cls.root])
        try:
            cls.write_catalog(cls.root)
            cls.mount.start(timeout=cls.ready_timeout)
        except BaseException:
            shutil.rmtree(cls.src, ignore_errors=True)
            raise

    @classmethod
    def tearDownClass(cls):
        cls.mount.cleanup()
        shutil.rmtree(cls.src, ignore_errors=True)


class SmallCatalog(MountedCatalog):
    """A dozen skills, the agent's skills folder on skills_folder()."""
    size = 12

    @classmethod
    def write_catalog(cls, root):
        generate(cls.size, root)
        write_report_skill(root)

    def test_lists_every_skill_and_reads_one(self):
        folder = skills_folder(self.mount, AGENT)
        expected = folder_skills(folder)
        self.assertGreaterEqual(len(expected), 13)
        skill_md = os.path.join(folder, "quarterly-report-fill", "SKILL.md")
        with open(skill_md) as f:
            body = f.read()
        mock = self.new_mock([("read", skill_md), ("text", "Read it.")])
        agent = self.new_agent(folder, self.mount)
        run, main = self.run_agent(agent, mock, "Fill the quarterly report.")
        self.assert_lists(agent, run, main[0], expected)
        results = mock.results_seen()
        self.assertTrue(results, "the read's result never reached the model")
        self.assertIn("Read [the field map](references/fields.md)", results[0])
        self.assertIn(body.splitlines()[-1], results[0])

    def test_readme_links_in_one_home(self):
        # README's links for every agent in one HOME: each agent reads one
        # of them, lists that folder, each skill once, and complains about
        # none of its skills folders
        agent = self.new_agent(None, self.mount)
        sees = agentlib.link_readme_home(agent, self.mount)
        self.assertEqual(len(sees), 1, "%s reads %d of README's links: %s" % (
            AGENT, len(sees), agentlib.readme_links()))
        expected = folder_skills(skills_folder(self.mount, sees[0]))
        mock = self.new_mock([("text", "Nothing to do.")])
        run, main = self.run_agent(agent, mock, "Which skills do you have?")
        self.assert_lists(agent, run, main[0], expected,
                          catalog=folder_skills(self.mount.file("skills")))
        self.assertEqual(agent.skill_complaints(run), [])

    def test_gemini_reads_the_mount_only_when_included(self):
        # without README's context.includeDirectories, Gemini CLI's
        # read_file refuses the path get_skill returns
        if AGENT != "gemini":
            self.skipTest("Gemini CLI's workspace setting")
        workdir = agentlib.new_workdir(AGENT)
        self.addCleanup(shutil.rmtree, workdir, True)
        agent = AGENTS[AGENT](workdir)
        agent.configure(None, self.mount.path, mcp=True, include_mount=False)

        def read_reference(results):
            m = re.search(r"(/[^\s\"\\]+)/SKILL\.md", results[0])
            self.assertIsNotNone(m, "get_skill gave no SKILL.md path: %s" % results[0][:500])
            return ("read", m.group(1) + "/references/fields.md")

        mock = self.new_mock([("mcp", "get_skill", {"id": "quarterly-report-fill"}),
                              read_reference, ("text", "Done.")])
        self.run_agent(agent, mock, "Fill the quarterly report.")
        results = mock.results_seen()
        self.assertEqual(len(results), 2, results)
        self.assertNotIn(REFERENCE_TOKEN, results[1])
        self.assertIn("Path not in workspace", results[1])

    def test_mcp_get_skill_then_reference_and_script(self):
        folder = skills_folder(self.mount, AGENT)

        def skill_dir(results):
            m = re.search(r"(/[^\s\"\\]+)/SKILL\.md", results[0])
            self.assertIsNotNone(m, "get_skill gave no SKILL.md path: %s" % results[0][:500])
            return m.group(1)

        steps = [
            ("mcp", "get_skill", {"id": "quarterly-report-fill"}),
            lambda results: ("read", skill_dir(results) + "/references/fields.md"),
            lambda results: ("shell", skill_dir(results) + "/scripts/count-rows.sh"),
            ("text", "The report is filled."),
        ]
        mock = self.new_mock(steps)
        agent = self.new_agent(folder, self.mount, mcp=True)
        run, main = self.run_agent(agent, mock, "Fill the quarterly report.")
        results = mock.results_seen()
        self.assertGreaterEqual(len(results), 3, "tool results: %r\n%s" % (results, run.describe()))
        path = skill_dir(results)
        self.assertTrue(path.startswith(self.mount.path + "/"),
                        "get_skill's path %s is not in the mount %s" % (path, self.mount.path))
        self.assertIn(REFERENCE_TOKEN, results[1])
        self.assertIn(SCRIPT_ANSWER, results[2])


class LargeCatalogViews(MountedCatalog):
    """~1,000 generated skills; the agent's skills folder on its view."""
    size = LARGE_CATALOG
    ready_timeout = 60

    def setUp(self):
        if not os.path.isdir(self.mount.file("views")):
            self.skipTest("the mount has no views/ folder yet (issue 23's views)")
        self.view = view_folder(self.mount, AGENT)
        self.assertTrue(os.path.isdir(self.view), "views/ has no %s view" % AGENT)

    def test_lists_whole_view_without_budget_warning(self):
        expected = folder_skills(self.view)
        self.assertIn("find-skills", expected)
        self.assertLess(len(expected), LARGE_CATALOG, "the view selects nothing")
        mock = self.new_mock([("text", "Nothing to do.")])
        agent = self.new_agent(self.view, self.mount)
        run, main = self.run_agent(agent, mock, "Which skills do you have?")
        catalog = folder_skills(self.mount.file("skills"))
        listed = self.assert_lists(agent, run, main[0], expected, catalog=catalog)
        # what the model reads: how many more skills find-skills reaches
        more = len(catalog) - (len(expected) - 1)
        self.assertRegex(listed["find-skills"], r"\b%d\b" % more,
                         "find-skills' description does not say there are %d more" % more)

    def test_reaches_a_skill_outside_its_view_through_find_skills(self):
        in_view = set(folder_skills(self.view))
        everything = folder_skills(self.mount.file("skills"))
        target = sorted(set(everything) - in_view)[len(everything) // 3]
        words = " ".join(re.findall(r"[a-z0-9]+", everything[target].lower())[:4])
        find_skills = os.path.join(self.view, "find-skills", "SKILL.md")

        def search(results):
            # as a model would: the search folder find-skills names, the task's words
            m = re.search(r"(/[^\s\"'`]+/search)/", results[0])
            self.assertIsNotNone(m, "find-skills names no search path:\n" + results[0][:2000])
            return ("shell", 'cat "%s/%s"' % (m.group(1), words))

        def open_match(results):
            # the agents wrap a command's output in lines of their own
            # (exit code, "Output:"): a match is a line naming a SKILL.md
            matches = [m.groups() for m in
                       (re.search(r"(?:^|\s)([a-z0-9][a-z0-9-]*)\t.*?(/\S*/SKILL\.md)", line)
                        for line in results[1].splitlines()) if m]
            for skill_id, path in matches[:3]:
                if skill_id == target:
                    return ("read", path)
            self.fail("%s not in the top 3 of search %r:\n%s" % (target, words, results[1][:2000]))

        steps = [("read", find_skills), search, open_match, ("text", "Found it.")]
        mock = self.new_mock(steps)
        agent = self.new_agent(self.view, self.mount)
        run, main = self.run_agent(agent, mock, everything[target])
        results = mock.results_seen()
        self.assertEqual(len(results), 3, "tool results: %r\n%s" % (results, run.describe()))
        with open(os.path.join(self.mount.file("skills"), target, "SKILL.md")) as f:
            body_end = f.read().strip().splitlines()[-1]
        self.assertIn(body_end, results[2])


def main():
    global AGENT
    agentlib.isolate_network()     # may re-execute this file, same argv
    if len(sys.argv) < 2 or sys.argv[1] not in AGENTS:
        sys.exit("usage: test_agents.py {%s} [unittest options]" % ",".join(AGENTS))
    AGENT = sys.argv.pop(1)
    why = agentlib.installed()
    if why:
        sys.exit(why)
    unittest.main(verbosity=2)


if __name__ == "__main__":
    main()
