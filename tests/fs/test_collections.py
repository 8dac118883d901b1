"""Skill collections as people have them, on a real mount: the serving rule
(a skill under its name, else its folder's name), skills a conforming MCP
client would refuse left out of index.json only, the `skills` installer's
symlink layout, dot folders, Claude Code plugins and marketplaces (made
with real git), and the lines the daemon logs about what it leaves out."""

import json
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mountlib import SKILLSFS, MountTestCase, unmount, wait_for, write_skill  # noqa: E402


def write_md(folder, frontmatter, body="Body.\n"):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "SKILL.md"), "w") as f:
        f.write("---\n" + frontmatter + "---\n" + body)
    return folder


def write_json(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(value, f, indent=2)


def git(cwd, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")
    subprocess.run(["git", "-c", "init.defaultBranch=main", *args], cwd=cwd, env=env,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def daemons_of(mnt):
    """The pids of processes whose command line names mnt (the daemon in
    the background, which no Popen handle holds)."""
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if mnt.encode() in argv and argv[0].endswith(b"skillsfs"):
            pids.append(int(pid))
    return pids


def stop_background(mnt):
    """Unmounts mnt and makes sure its daemon is gone."""
    unmount(mnt)
    try:
        wait_for(lambda: not daemons_of(mnt), timeout=10, what="the daemon to exit")
    except AssertionError:
        for pid in daemons_of(mnt):
            os.kill(pid, 9)
        raise


def index_ids(m):
    return sorted(s["uri"][len("skill://"):-len("/SKILL.md")] for s in m.json("index.json")["skills"])


def listed_ids(m):
    return sorted(s["id"] for s in m.json("catalog/skills_index.json")["skills"])


class Collections(MountTestCase):
    def test_serving_rule_and_listing(self):
        root = os.path.join(self.make_dir(), "skills")
        write_md(os.path.join(root, "foo"), "name: vercel-foo\ndescription: Differs from its folder.\n")
        write_md(os.path.join(root, "ahrefs-automation"),
                 "name: Ahrefs Automation\ndescription: A display-style name.\n")
        write_md(os.path.join(root, "no-name"), "description: No name at all.\n")
        write_md(os.path.join(root, "long-desc"), "name: long-desc\ndescription: " + "d" * 1068 + "\n")
        write_md(os.path.join(root, "meta"), "name: meta\ndescription: M.\nmetadata:\n  version: 1.0\n")
        write_md(os.path.join(root, "compat"), "name: compat\ndescription: C.\ncompatibility: " +
                 "c" * 501 + "\n")
        write_md(os.path.join(root, "Bad Folder"), "description: Neither name is an id.\n")
        write_skill(root, "plain")
        m = self.mount([root])

        served = ["ahrefs-automation", "compat", "long-desc", "meta", "no-name", "plain", "vercel-foo"]
        self.assertEqual(listed_ids(m), served)
        self.assertEqual(sorted(os.listdir(m.file("skills"))), served)
        for sid in served:
            self.assertTrue(os.path.exists(m.file("catalog", sid + ".json")), sid)
        # a client lists only what it would accept; the name is the id
        self.assertEqual(index_ids(m), ["plain", "vercel-foo"])
        status = m.json("status.json")
        unlisted = {u["id"]: u for u in status["unlisted"]}
        self.assertEqual(sorted(unlisted), ["ahrefs-automation", "compat", "long-desc", "meta", "no-name"])
        self.assertEqual(unlisted["long-desc"]["source"], os.path.join(root, "long-desc"))
        self.assertIn("description is 1068 characters, not 1-1024", unlisted["long-desc"]["reasons"])
        self.assertIn("metadata is not a mapping of strings to strings", unlisted["meta"]["reasons"])
        self.assertEqual(unlisted["no-name"]["reasons"], ["frontmatter has no string name"])
        states = {e["dir"]: e["state"] for e in status["skills"]}
        self.assertEqual(states[os.path.join(root, "Bad Folder")], "invalid")
        # frontmatter is served verbatim
        with open(os.path.join(root, "ahrefs-automation", "SKILL.md"), "rb") as f:
            self.assertEqual(m.read("skills", "ahrefs-automation", "SKILL.md"), f.read())

        # the daemon said what it left out, and the counts
        err = m.stderr()
        self.assertIn("skillsfs: rejected: %s: " % os.path.join(root, "Bad Folder"), err)
        self.assertIn("skillsfs: 7 served, 1 rejected, 0 shadowed: see %s/status.json" % m.path, err)

    def test_strict_rejects_departures(self):
        root = os.path.join(self.make_dir(), "skills")
        write_md(os.path.join(root, "foo"), "name: vercel-foo\ndescription: Differs.\n")
        write_skill(root, "plain")
        m = self.mount([root], ["-o", "strict"])
        self.assertEqual(listed_ids(m), ["plain"])
        self.assertEqual(m.json("status.json")["counts"]["invalid"], 1)

    def test_log_lines_newly_left_out(self):
        top = self.make_dir()
        r1, r2 = os.path.join(top, "r1"), os.path.join(top, "r2")
        write_skill(r1, "dup")
        write_skill(r2, "dup")
        write_md(os.path.join(r1, "broken"), "name: broken\n")
        m = self.mount([r1, r2])
        wait_for(lambda: "1 served, 1 rejected, 1 shadowed" in m.stderr(), what="the start summary")
        err = m.stderr()
        self.assertIn("skillsfs: shadowed: %s: skill \"dup\" is served from %s"
                      % (os.path.join(r2, "dup"), os.path.join(r1, "dup")), err)
        self.assertIn("skillsfs: rejected: %s: %s:1:1: description: required field is missing"
                      % (os.path.join(r1, "broken"), os.path.join(r1, "broken", "SKILL.md")), err)

        # a refresh names only what is newly left out
        write_md(os.path.join(r1, "also-broken"), "description: [unclosed\n")
        wait_for(lambda: "1 served, 2 rejected, 1 shadowed" in m.stderr(), what="the refresh summary")
        err = m.stderr()
        self.assertEqual(err.count("rejected: %s:" % os.path.join(r1, "also-broken")), 1)
        self.assertEqual(err.count("rejected: %s:" % os.path.join(r1, "broken")), 1)
        self.assertEqual(err.count("shadowed: %s:" % os.path.join(r2, "dup")), 1)

    @unittest.skipUnless(os.environ.get("SKILLSFS_SYSLOG_CAPTURE"), "no syslog shim")
    def test_log_lines_to_syslog_in_background(self):
        top = self.make_dir()
        root = os.path.join(top, "skills")
        write_skill(root, "good")
        write_md(os.path.join(root, "broken"), "name: broken\n")
        mnt = os.path.join(top, "mnt")
        os.makedirs(mnt)
        log = os.path.join(top, "syslog")
        env = dict(os.environ, LD_PRELOAD=os.environ["SKILLSFS_SYSLOG_CAPTURE"],
                   SKILLSFS_TEST_SYSLOG=log)
        self.addCleanup(stop_background, mnt)
        # without -f: the daemon goes to the background once mounted
        subprocess.run([SKILLSFS, mnt, "--skills-dir", root], env=env, check=True, timeout=30,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wait_for(lambda: os.path.ismount(mnt), what="the mount")

        def logged():
            with open(log) as f:
                return f.read()
        wait_for(lambda: "1 served, 1 rejected, 0 shadowed" in logged(), what="the start summary")
        self.assertIn("%d rejected: %s: " % (4, os.path.join(root, "broken")), logged())
        self.assertIn("%d 1 served, 1 rejected, 0 shadowed: see %s/status.json" % (6, mnt), logged())
        write_md(os.path.join(root, "also-broken"), "name: also-broken\n")
        wait_for(lambda: "1 served, 2 rejected, 0 shadowed" in logged(), what="the refresh summary")
        self.assertEqual(logged().count("rejected: %s:" % os.path.join(root, "broken")), 1)

    def test_installer_symlinks_and_dot_folders(self):
        home = self.make_dir()
        agents = os.path.join(home, ".agents", "skills")
        claude = os.path.join(home, ".claude", "skills")
        os.makedirs(claude)
        write_skill(agents, "installed", files={"scripts/run.sh": "echo hi\n"})
        os.symlink("../../.agents/skills/installed", os.path.join(claude, "installed"))
        dev = os.path.join(home, "dev", "my-skill")
        write_skill(os.path.dirname(dev), "my-skill", files={"inside.txt": "in\n"})
        os.symlink(os.path.join(dev, "inside.txt"), os.path.join(dev, "abs-link"))
        os.symlink("inside.txt", os.path.join(dev, "rel-link"))
        os.symlink(dev, os.path.join(claude, "my-skill"))
        os.symlink("..", os.path.join(claude, "loop"))
        write_skill(os.path.join(claude, "vendor", ".system"), "sys-skill")
        write_skill(os.path.join(claude, ".experimental"), "exp-skill")
        write_skill(os.path.join(claude, "node_modules"), "dep-skill")
        m = self.mount([claude])

        self.assertEqual(listed_ids(m), ["exp-skill", "installed", "my-skill", "sys-skill"])
        self.assertEqual(index_ids(m), ["exp-skill", "installed", "my-skill", "sys-skill"])
        self.assertEqual(m.read("skills", "installed", "scripts", "run.sh"), b"echo hi\n")
        # the linked folder is the skill's boundary: links inside it that
        # stay inside are kept, an absolute one is hidden
        self.assertEqual(sorted(os.listdir(m.file("skills", "my-skill"))),
                         ["SKILL.md", "inside.txt", "rel-link"])
        diags = m.json("status.json")["diagnostics"]
        self.assertTrue(any(d["file"] == os.path.join(claude, "loop") and "not followed" in d["message"]
                            for d in diags), diags)
        # an edit in the real folder of a linked skill is seen
        with open(os.path.join(dev, "inside.txt"), "w") as f:
            f.write("edited\n")
        wait_for(lambda: m.read("skills", "my-skill", "inside.txt") == b"edited\n",
                 what="an edit in a linked skill's real folder")
        write_skill(agents, "later")
        os.symlink("../../.agents/skills/later", os.path.join(claude, "later"))
        wait_for(lambda: "later" in listed_ids(m), what="a new installer link")

        # both folders as roots: each installed skill is one skill folder
        both = self.mount([agents, claude])
        self.assertEqual(listed_ids(both), ["exp-skill", "installed", "later", "my-skill", "sys-skill"])
        self.assertEqual(both.json("status.json")["counts"]["shadowed"], 0)
        self.assertNotIn("skillsfs: shadowed: ", both.stderr())
        self.assertIn("5 served, 0 rejected, 0 shadowed", both.stderr())

    def test_plugins_and_marketplace(self):
        top = self.make_dir()
        # a marketplace repository laid out like anthropics/skills, cloned
        repo = os.path.join(top, "src", "market")
        write_json(os.path.join(repo, ".claude-plugin", "marketplace.json"), {
            "name": "test-market", "owner": {"name": "t"},
            "plugins": [
                {"name": "document-skills", "source": "./", "strict": False,
                 "skills": ["./skills/xlsx"]},
                {"name": "dev-tools", "source": "./plugins/dev-tools"},
                {"name": "remote", "source": {"source": "github", "repo": "o/r"}},
            ]})
        write_md(os.path.join(repo, "skills", "xlsx"), "name: xlsx\ndescription: Sheets.\n")
        write_json(os.path.join(repo, "plugins", "dev-tools", ".claude-plugin", "plugin.json"),
                   {"name": "dev-tools", "version": "1.2.0"})
        write_md(os.path.join(repo, "plugins", "dev-tools", "skills", "lint"),
                 "name: lint\ndescription: Lints.\n")
        git(repo, "init", "-q")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "marketplace")
        root = os.path.join(top, "skills")
        os.makedirs(root)
        git(root, "clone", "-q", repo, "market")
        write_skill(root, "own")
        m = self.mount([root])

        self.assertEqual(listed_ids(m), ["lint", "own", "xlsx"])
        self.assertEqual(m.json("catalog", "xlsx.json")["plugin"], "document-skills")
        self.assertEqual(m.json("catalog", "lint.json")["plugin"], "dev-tools")
        self.assertNotIn("plugin", m.json("catalog", "own.json"))
        lines = {s["id"]: s for s in m.json("catalog", "skills_index.json")["skills"]}
        self.assertEqual(lines["lint"]["plugin"], "dev-tools")
        self.assertNotIn("plugin", lines["own"])

    def test_claude_plugins_folder(self):
        plugins = os.path.join(self.make_dir(), ".claude", "plugins")
        current = os.path.join(plugins, "cache", "mkt", "helper", "1.1.0")
        write_json(os.path.join(current, ".claude-plugin", "plugin.json"),
                   {"name": "helper", "version": "1.1.0"})
        write_md(os.path.join(current, "skills", "assist"), "name: assist\ndescription: New.\n")
        write_md(os.path.join(plugins, "cache", "mkt", "helper", "1.0.0", "skills", "assist"),
                 "name: assist\ndescription: Old.\n")
        write_md(os.path.join(plugins, "marketplaces", "mkt", "plugins", "unused", "skills", "nope"),
                 "name: nope\ndescription: Not installed.\n")
        write_json(os.path.join(plugins, "installed_plugins.json"), {
            "version": 2, "plugins": {"helper@mkt": [{
                "scope": "user", "installPath": current, "version": "1.1.0",
                "installedAt": "2026-11-01T00:00:00.000Z", "lastUpdated": "2026-11-01T00:00:00.000Z",
                "gitCommitSha": "0" * 40}]}})
        write_json(os.path.join(plugins, "known_marketplaces.json"), {})
        m = self.mount([plugins])
        self.assertEqual(listed_ids(m), ["assist"])
        rec = m.json("catalog", "assist.json")
        self.assertEqual((rec["plugin"], rec["description"]), ("helper", "New."))
        # the default roots include it (HOME without other skill folders)
        env = dict(os.environ, HOME=os.path.dirname(os.path.dirname(plugins)))
        out = subprocess.run([os.environ.get("SKILLSFS", "skillsfs"), "check", "--json"], env=env,
                             cwd=os.path.dirname(plugins), capture_output=True, text=True)
        self.assertEqual(json.loads(out.stdout)["summary"]["skills"], 1, out.stdout + out.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
