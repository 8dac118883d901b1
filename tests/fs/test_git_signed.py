#!/usr/bin/env python3
"""A git source held to signed commits (a config file's verify: FILE, an
allowed-signers file as git's gpg.ssh.allowedSignersFile and ssh-keygen
-Y verify read it), with commits signed by the real `git commit -S` and
SSH keys made by ssh-keygen in the test: a followed branch serves its
signed tip; a new tip that is unsigned, or signed by a key not listed,
is not served (the last signed commit is, and status.json says why)
until a signed commit follows; a pinned commit that no allowed signer
signed refuses the mount; an allowed-signers file another user could
change is refused."""

import os
import subprocess
import unittest

from mountlib import SKILLSFS, Mount, MountTestCase, wait_for, write_skill
from test_git_sources import GitRepos


def warnings_about(m, url):
    return [d["message"] for d in m.json("status.json")["diagnostics"] if d["file"] == url]


class SignedCommits(MountTestCase):
    def setUp(self):
        self.repos = GitRepos(self.make_dir())
        keys = self.make_dir()
        self.key = os.path.join(keys, "dev")
        self.stranger = os.path.join(keys, "stranger")
        for k in (self.key, self.stranger):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C",
                            os.path.basename(k), "-f", k], check=True)
        with open(self.key + ".pub") as f:
            kind, blob = f.read().split()[:2]
        self.allowed = os.path.join(keys, "allowed_signers")
        with open(self.allowed, "w") as f:
            f.write("# who may sign the team's skills\n")
            f.write("dev@example.com %s %s\n" % (kind, blob))
        self.work = self.repos.init("work")
        write_skill(self.work, "pdf-forms", body="version one\n")
        self.signed = self.commit("one", self.key)
        self.bare = self.repos.bare_clone(self.work, "skills.git")
        self.url = "git+file://%s#main" % self.bare

    def commit(self, message, key=None):
        self.repos.git(self.work, "add", "-A")
        args = ["-c", "gpg.format=ssh"]
        if key:
            args += ["-c", "user.signingkey=%s.pub" % key, "commit", "-q", "-S"]
        else:
            args += ["-c", "commit.gpgsign=false", "commit", "-q"]
        self.repos.git(self.work, *args, "-m", message)
        return self.repos.git(self.work, "rev-parse", "HEAD")

    def push(self):
        self.repos.git(self.work, "push", "-q", self.bare, "main")

    def config(self, url, verify=None):
        path = os.path.join(self.make_dir(), "skillsfs.yaml")
        with open(path, "w") as f:
            f.write("sources:\n  - url: %s\n    verify: %s\n"
                    "options:\n  fetch_interval: 0\n" % (url, verify or self.allowed))
        return path

    def body(self, m):
        return m.read("skills", "pdf-forms", "SKILL.md").decode()

    def edit(self, text, key=None):
        write_skill(self.work, "pdf-forms", body=text)
        commit = self.commit(text.strip(), key)
        self.push()
        return commit

    def test_a_followed_branch_serves_only_what_an_allowed_signer_signed(self):
        m = self.mount([], ["--config", self.config(self.url)])
        root = m.json("status.json")["roots"][0]
        self.assertEqual(root["commit"], self.signed)
        self.assertIn("version one", self.body(m))
        self.assertEqual(warnings_about(m, self.url), [])

        unsigned = self.edit("version two\n")
        m.sighup()
        self.assertEqual(m.json("status.json")["roots"][0]["commit"], self.signed)
        self.assertIn("version one", self.body(m))
        [w] = warnings_about(m, self.url)
        self.assertIn("main is at %s, which is not signed by an allowed signer" % unsigned[:12], w)
        self.assertIn("it is not signed", w)
        self.assertIn("signed by dev@example.com", w)

        self.edit("version three\n", self.stranger)
        m.sighup()
        self.assertIn("version one", self.body(m))
        [w] = warnings_about(m, self.url)
        self.assertIn("the signing key is not in the allowed signers", w)

        good = self.edit("version four\n", self.key)
        m.sighup()
        self.assertEqual(m.json("status.json")["roots"][0]["commit"], good)
        self.assertIn("version four", self.body(m))
        self.assertEqual(warnings_about(m, self.url), [])

    def start_refused(self, config):
        m = Mount([], ["--config", config])
        self.addCleanup(m.cleanup)
        m._stderr = open(m.stderr_path, "wb")
        m.proc = subprocess.Popen(m.argv(), stdout=subprocess.DEVNULL, stderr=m._stderr)
        self.assertEqual(m.proc.wait(timeout=60), 1)
        return m.stderr()

    def test_a_pinned_commit_no_allowed_signer_signed_refuses_the_mount(self):
        unsigned = self.edit("version two\n")
        err = self.start_refused(self.config("git+file://%s#%s" % (self.bare, unsigned)))
        self.assertIn("the pinned commit %s is not signed by an allowed signer of %s"
                      % (unsigned[:12], self.allowed), err)
        self.assertIn("not mounted", err)
        # the signed one is served
        m = self.mount([], ["--config", self.config("git+file://%s#%s" % (self.bare, self.signed))])
        self.assertIn("version one", self.body(m))

    def test_an_allowed_signers_file_others_may_change_is_refused(self):
        os.chmod(self.allowed, 0o666)
        m = self.mount([], ["--config", self.config(self.url)])
        self.assertEqual(os.listdir(m.file("skills")), [])
        [e] = warnings_about(m, self.url)
        self.assertIn(self.allowed, e)
        self.assertIn("nothing is served", e)

    def test_check_says_why_the_tip_is_not_served(self):
        unsigned = self.edit("version two\n")
        env = dict(os.environ, XDG_CACHE_HOME=self.make_dir())
        r = subprocess.run([SKILLSFS, "check", "--config", self.config(self.url)], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("main is at %s, which is not signed by an allowed signer" % unsigned[:12],
                      r.stdout)


if __name__ == "__main__":
    unittest.main()
