#!/usr/bin/env python3
"""README.md's "Skills for a team or a fleet", run as written: each shell
block of the section, with only its placeholders filled in (the git and
skills hosts are servers on loopback, the home folder a temporary one, and
/srv, /net and /etc temporary folders), then what the text promises is
checked: a lockfile that pins the commit after the branch moved on, a
mount of a central skillsfs-mcp --http that serves its files byte for
byte, and a share whose new skill is found by polling."""

import os
import re
import shlex
import shutil
import subprocess
import sys
import unittest

from mountlib import (EXAMPLE_SKILLS, FETCHING, SKILLSFS, MountTestCase, unmount, wait_for,
                      write_skill)
from test_git_sources import GitRepos, fill_work, write

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.environ.get("SKILLSFS_SOURCE_ROOT", os.path.dirname(os.path.dirname(HERE)))
SKILLSFS_MCP = os.environ.get("SKILLSFS_MCP", os.path.join(
    os.path.dirname(os.path.dirname(SKILLSFS)), "mcp", "skillsfs-mcp"))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
from gitserver import GitServer  # noqa: E402


def section_blocks():
    with open(os.path.join(SOURCE_ROOT, "README.md")) as f:
        text = f.read()
    start = text.index("\n## Skills for a team or a fleet\n")
    end = text.find("\n## ", start + 1)
    return re.findall(r"```sh\n(.*?)```", text[start:end], re.S)


def json_of(path):
    import json
    with open(path) as f:
        return json.load(f)


class TeamPatterns(MountTestCase):
    def setUp(self):
        self.top = self.make_dir()
        self.home = os.path.join(self.top, "home")
        os.makedirs(self.home)
        self.mnt = os.path.join(self.home, "mnt", "skills")
        self.addCleanup(unmount, self.mnt)
        # skillsfs and skillsfs-mcp as a user has them: on PATH
        bindir = os.path.join(self.top, "bin")
        os.makedirs(bindir)
        for name, path in (("skillsfs", SKILLSFS), ("skillsfs-mcp", SKILLSFS_MCP)):
            os.symlink(os.path.abspath(shutil.which(path) or path), os.path.join(bindir, name))
        self.env = dict(os.environ, HOME=self.home,
                        PATH=bindir + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"))
        self.env.pop("XDG_CACHE_HOME", None)
        self.blocks = section_blocks()
        self.assertEqual(len(self.blocks), 4, "the section has its four blocks")

    def fill(self, text, pairs):
        for old, new in pairs:
            self.assertIn(old, text, "the README block names %s" % old)
            text = text.replace(old, new)
        return text

    def sh(self, script):
        r = subprocess.run(["bash", "-e", "-c", script], env=self.env, capture_output=True,
                           text=True, timeout=120)
        self.assertEqual(r.returncode, 0, "%s\n%s%s" % (script, r.stdout, r.stderr))

    def status(self):
        return json_of(os.path.join(self.mnt, "status.json"))

    def test_shared_git_repository_pinned_by_a_lockfile(self):
        repos = GitRepos(os.path.join(self.top, "git"))
        work = repos.init("work")
        fill_work(work)
        locked = repos.commit(work, "first")
        served = os.path.join(repos.top, "served")
        os.makedirs(served)
        repos.git(repos.top, "clone", "-q", "--bare", work, os.path.join(served, "skills.git"))
        server = GitServer(served, tls_dir=self.make_dir())
        self.addCleanup(server.stop)
        self.env["SSL_CERT_FILE"] = server.cert
        script = self.fill(self.blocks[0], [
            ("https://git.example.com/team/skills.git", server.url("skills.git"))])
        lines = [l for l in script.splitlines() if l.strip()]
        self.assertEqual(len(lines), 5)
        for line in lines[:4]:
            self.sh(line)
        # the branch moves on before the other host mounts the lock
        write(os.path.join(work, "skills", "pdf-forms", "reference.md"), "moved on\n")
        repos.commit(work, "second")
        repos.git(work, "push", "-q", os.path.join(served, "skills.git"), "main")
        self.sh(lines[4])
        root = self.status()["roots"][0]
        self.assertEqual((root["kind"], root["commit"]), ("git", locked))
        self.assertEqual(sorted(os.listdir(os.path.join(self.mnt, "skills"))),
                         ["csv-report", "pdf-forms"])
        with open(os.path.join(self.mnt, "skills", "pdf-forms", "reference.md")) as f:
            self.assertEqual(f.read(), "# Reference\n\nversion one\n")

    def test_central_skillsfs_mcp_over_http(self):
        srv_skills = os.path.join(self.top, "srv", "skills")
        shutil.copytree(EXAMPLE_SKILLS, srv_skills, symlinks=True)
        token = os.path.join(self.top, "etc", "skillsfs", "token")
        os.makedirs(os.path.dirname(token))
        with open(os.open(token, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write("team-token-0123456789abcdef\n")
        host = self.fill(self.blocks[1].strip(), [
            ("0.0.0.0:8750", "127.0.0.1:0"),     # loopback only in tests
            ("/etc/skillsfs/token", token), ("/srv/skills", srv_skills)])
        url, _ = self.serve_mcp_http(shlex.split(host), env=self.env)
        port = re.search(r":(\d+)/mcp$", url).group(1)
        config = os.path.join(self.home, ".config", "skillsfs")
        os.makedirs(config)
        with open(os.open(os.path.join(config, "token"), os.O_WRONLY | os.O_CREAT, 0o600),
                  "w") as f:
            f.write("team-token-0123456789abcdef\n")
        self.sh(self.fill(self.blocks[2], [("skills.example.com:8750", "127.0.0.1:" + port)]))
        # a server slower than the start's half second comes with the
        # next generation (skillsfs(1), Slow and silent servers)
        wait_for(lambda: not any(FETCHING in d["message"]
                                 for d in self.status()["diagnostics"]),
                 timeout=60, what="the server's first fetch")
        # the skill folders of /srv/skills, by name
        want = {os.path.basename(d): d for d, _, files in os.walk(srv_skills)
                if "SKILL.md" in files}
        got = sorted(os.listdir(os.path.join(self.mnt, "skills")))
        self.assertEqual(got, sorted(want), self.status()["diagnostics"])
        for sid in got:
            for d, _, files in os.walk(want[sid]):
                for name in files:
                    rel = os.path.relpath(os.path.join(d, name), want[sid])
                    with open(os.path.join(self.mnt, "skills", sid, rel), "rb") as a, \
                            open(os.path.join(d, name), "rb") as b:
                        self.assertEqual(a.read(), b.read(), "%s/%s" % (sid, rel))
        self.assertEqual(self.status()["roots"][0]["kind"], "mcp")
        # a skill added on the host reaches the team's mounts by itself:
        # skillsfs-mcp notifies resources/list_changed on the session's
        # stream, and the mount lists again (its fetch_interval is 300 s)
        write_skill(srv_skills, "added-on-the-host")
        wait_for(lambda: "added-on-the-host" in os.listdir(os.path.join(self.mnt, "skills")),
                 timeout=30, what="the skill added on the host, notified")

    def test_network_share_watched_by_polling(self):
        share = os.path.join(self.top, "net", "team", "skills")
        shutil.copytree(EXAMPLE_SKILLS, share, symlinks=True)
        self.sh(self.fill(self.blocks[3], [("/net/team/skills", share)]))
        self.assertEqual(self.status()["refresh_mode"], "polling")
        write_skill(share, "added-on-another-host")
        wait_for(lambda: "added-on-another-host" in os.listdir(os.path.join(self.mnt, "skills")),
                 timeout=30, what="the new skill found by polling")


if __name__ == "__main__":
    unittest.main(verbosity=2)
