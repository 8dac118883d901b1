#!/usr/bin/env python3
"""Remote git sources (--source git+https://..., git+http://...): fetched
from a git server on loopback (git http-backend behind Python's HTTP
server, tests/lib/gitserver.py) into a bare clone under -o cache_dir, and
served from its object database: byte-identical to `git archive`, a
followed branch that moves by itself every -o fetch_interval and at once
on SIGHUP while readers read, a pinned commit served from the cache without
the network, and a server that is down, fails or is not trusted reported
while the last good commit goes on being served."""

import getpass
import os
import signal
import subprocess
import sys
import unittest

from mountlib import SKILLSFS, FileReaders, Mount, MountTestCase, wait_for, write_skill
from test_git_sources import GitRepos, fill_work, root_status, tree_of, two_commits, write

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from gitserver import GitServer  # noqa: E402


class RemoteSources(MountTestCase):
    tls = True

    def setUp(self):
        self.repos = GitRepos(self.make_dir())
        self.work, self.first, self.second = two_commits(self.repos)
        served = os.path.join(self.repos.top, "served")
        os.makedirs(served)
        self.bare = os.path.join(served, "skills.git")
        self.repos.git(self.repos.top, "clone", "-q", "--bare", self.work, self.bare)
        self.server = GitServer(served, tls_dir=self.make_dir() if self.tls else None)
        self.addCleanup(self.server.stop)
        self.cache = self.make_dir()

    def env(self, trusted=True):
        env = dict(os.environ)
        env.pop("SSL_CERT_FILE", None)
        if trusted and self.server.cert:
            env["SSL_CERT_FILE"] = self.server.cert
        return env

    def url(self, fragment=""):
        return "git+" + self.server.url("skills.git") + fragment

    def mount_remote(self, fragment="#main:skills", options=(), roots=(), trusted=True):
        return self.mount(list(roots), ["--source", self.url(fragment),
                                        "-o", "cache_dir=" + self.cache] + list(options),
                          env=self.env(trusted))

    def push(self, text):
        write(os.path.join(self.work, "skills", "pdf-forms", "reference.md"), text)
        commit = self.repos.commit(self.work, "another")
        self.repos.git(self.work, "push", "-q", self.bare, "main")
        return commit

    def clones(self):
        # (not CLONE.fetching, there while a fetch_interval fetch runs)
        return [n for n in os.listdir(os.path.join(self.cache, "git"))
                if not n.endswith(".fetching")]

    def test_remote_branch_is_git_archive(self):
        m = self.mount_remote()
        archive = os.path.join(self.repos.archive(self.work, self.second), "skills")
        self.assertEqual(sorted(os.listdir(m.file("skills"))), ["csv-report", "pdf-forms"])
        for skill_id in ("csv-report", "pdf-forms"):
            self.assertEqual(tree_of(m.file("skills", skill_id)),
                             tree_of(os.path.join(archive, skill_id)))
        root = root_status(m)
        self.assertEqual((root["kind"], root["commit"], root["exists"], root["skills"]),
                         ("git", self.second, True, 2))
        # one bare clone in the cache, named after the repository; nothing
        # written into the served repository
        [clone] = self.clones()
        self.assertTrue(clone.startswith("skills-") and clone.endswith(".git"), clone)
        self.assertTrue(os.path.isfile(os.path.join(self.cache, "git", clone, "HEAD")))
        self.assertFalse(os.path.exists(os.path.join(self.cache, "git", clone, "index")))
        self.assertEqual(m.json("status.json")["diagnostics"], [])

    def test_pinned_tag_and_default_branch(self):
        m = self.mount_remote("#v1:skills")
        self.assertEqual(root_status(m)["commit"], self.first)
        self.assertEqual(m.read("skills", "pdf-forms", "reference.md"),
                         b"# Reference\n\nversion one\n")
        m.stop()
        # no REF: the remote's HEAD
        m = self.mount_remote("")
        self.assertEqual(root_status(m)["commit"], self.second)

    def test_followed_branch_moves_by_itself_while_readers_read(self):
        m = self.mount_remote(options=["-o", "fetch_interval=1"])
        gen = m.generation()
        old = b"# Reference\n\nversion two\n"
        new = b"# Reference\n\nversion three, pushed\n"
        path = m.file("skills", "pdf-forms", "reference.md")
        with FileReaders(path) as r:
            wait_for(lambda: old in r.seen, what="the readers' first reads")
            third = self.push(new.decode())
            wait_for(lambda: root_status(m)["commit"] == third,
                     what="the pushed commit in status.json, without SIGHUP")
            wait_for(lambda: new in r.seen, what="the readers to see the new bytes")
        self.assertEqual(r.errors, [])
        self.assertEqual(r.seen, {old, new})
        # fetches that find nothing new make no new generation
        now = m.generation()
        self.assertGreater(now, gen)
        # (a fetch that finds nothing new asks for the refs only: one
        # request each)
        asked = self.server.requests
        wait_for(lambda: self.server.requests >= asked + 2, timeout=30,
                 what="two more fetches")
        self.assertEqual(m.generation(), now)

    def test_sighup_fetches_at_once(self):
        m = self.mount_remote(options=["-o", "fetch_interval=0"])
        third = self.push("# Reference\n\nversion three\n")
        asked = self.server.requests
        self.assertEqual(root_status(m)["commit"], self.second)
        m.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: root_status(m)["commit"] == third, what="the commit SIGHUP fetched")
        self.assertGreater(self.server.requests, asked)
        self.assertEqual(m.read("skills", "pdf-forms", "reference.md"),
                         b"# Reference\n\nversion three\n")

    def test_pinned_commit_in_the_cache_needs_no_network(self):
        m = self.mount_remote("#%s:skills" % self.first)
        self.assertEqual(root_status(m)["commit"], self.first)
        m.stop()
        asked = self.server.requests
        self.server.stop()
        m = self.mount_remote("#%s:skills" % self.first)
        self.assertEqual(root_status(m)["commit"], self.first)
        self.assertEqual(m.read("skills", "pdf-forms", "reference.md"),
                         b"# Reference\n\nversion one\n")
        self.assertEqual(self.server.requests, asked)
        self.assertEqual(m.json("status.json")["diagnostics"], [])

    def test_server_down_at_start_serves_the_cache_with_a_warning(self):
        m = self.mount_remote()
        m.stop()
        self.server.stop()
        m = self.mount_remote()
        self.assertEqual(root_status(m)["commit"], self.second)
        self.assertEqual(m.read("skills", "pdf-forms", "reference.md"),
                         b"# Reference\n\nversion two\n")
        [d] = m.json("status.json")["diagnostics"]
        self.assertEqual((d["severity"], d["file"]), ("warning", self.url("#main:skills")))
        self.assertIn("serving commit %s, fetched before: cannot fetch" % self.second,
                      d["message"])

    def test_unreachable_at_start_is_reported_and_the_rest_served(self):
        folder = self.make_dir()
        write_skill(folder, "local-skill")
        self.server.stop()
        m = self.mount_remote(roots=[folder])
        self.assertEqual(os.listdir(m.file("skills")), ["local-skill"])
        root = root_status(m, 1)
        self.assertEqual((root["exists"], root["commit"]), (False, None))
        [d] = m.json("status.json")["diagnostics"]
        self.assertEqual(d["severity"], "error")
        self.assertIn("not fetched yet: cannot fetch %s" % self.server.url("skills.git"),
                      d["message"])

    def test_unreachable_at_start_ends_a_strict_mount(self):
        self.server.stop()
        m = Mount([], ["--source", self.url("#main"), "-o", "cache_dir=" + self.cache,
                       "-o", "strict"], env=self.env())
        self.addCleanup(m.cleanup)
        m._stderr = open(m.stderr_path, "wb")
        m.proc = subprocess.Popen(m.argv(), stdout=subprocess.DEVNULL, stderr=m._stderr,
                                  env=m.env)
        self.assertEqual(m.proc.wait(timeout=60), 1)
        self.assertIn("-o strict: the source %s cannot be read" % self.url("#main"), m.stderr())

    def test_failing_server_keeps_the_last_good_commit(self):
        m = self.mount_remote(options=["-o", "fetch_interval=1"])
        self.push("# Reference\n\nnot seen while the server fails\n")
        self.server.fail = True
        wait_for(lambda: any("cannot fetch" in d["message"]
                             for d in m.json("status.json")["diagnostics"]),
                 what="the failed fetch in status.json")
        self.assertEqual(root_status(m)["commit"], self.second)
        self.assertEqual(m.read("skills", "pdf-forms", "reference.md"),
                         b"# Reference\n\nversion two\n")
        self.server.fail = False
        wait_for(lambda: m.json("status.json")["diagnostics"] == [] and
                 root_status(m)["commit"] != self.second,
                 what="the recovered fetch")
        self.assertEqual(m.read("skills", "pdf-forms", "reference.md"),
                         b"# Reference\n\nnot seen while the server fails\n")

    def test_config_file_names_the_source_cache_and_interval(self):
        conf = os.path.join(self.make_dir(), "skillsfs.yaml")
        with open(conf, "w") as f:
            f.write("sources:\n  - url: %s\noptions:\n  fetch_interval: 1\n"
                    "  cache_dir: %s\n" % (self.url("#main:skills"), self.cache))
        m = self.mount([], ["--config", conf], env=self.env())
        self.assertEqual(root_status(m)["commit"], self.second)
        self.assertEqual(len(self.clones()), 1)
        third = self.push("# Reference\n\nversion three\n")
        wait_for(lambda: root_status(m)["commit"] == third,
                 what="the pushed commit, fetched every second as the file says")

    def test_lockfile_pins_the_remote_commit(self):
        m = self.mount_remote()
        lockfile = os.path.join(self.make_dir(), "skills.lock")
        r = subprocess.run([SKILLSFS, "lock", "-o", lockfile, m.path],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        index = m.read("index.json")
        m.stop()
        self.push("# Reference\n\nafter the lock\n")
        # a mount of the lock, with another cache: fetched, then pinned
        locked = self.mount([], ["--lock", lockfile, "-o", "cache_dir=" + self.make_dir()],
                            env=self.env())
        self.assertEqual(root_status(locked)["commit"], self.second)
        self.assertEqual(locked.read("index.json"), index)
        followed = self.mount_remote()
        self.assertNotEqual(root_status(followed)["commit"], self.second)

    def test_check_fetches_and_validates_the_remote(self):
        env = dict(self.env(), XDG_CACHE_HOME=self.cache)
        r = subprocess.run([SKILLSFS, "check", "--source", self.url("#main:skills")],
                           capture_output=True, text=True, timeout=60, env=env)
        self.assertEqual((r.returncode, r.stdout.splitlines()[-1]),
                         (0, "2 skills, 0 errors, 0 warnings, 0 shadowed"), r.stderr)
        # $XDG_CACHE_HOME/skillsfs is the default cache folder
        self.assertEqual(len(os.listdir(os.path.join(self.cache, "skillsfs", "git"))), 1)
        self.server.stop()
        r = subprocess.run([SKILLSFS, "check", "--source", self.url("#main:skills")],
                           capture_output=True, text=True, timeout=60,
                           env=dict(env, XDG_CACHE_HOME=self.make_dir()))
        self.assertEqual(r.returncode, 1)
        self.assertIn("%s: error: not fetched yet: cannot fetch" % self.url("#main:skills"),
                      r.stdout)

    def test_unknown_ref_is_reported(self):
        m = self.mount_remote("#no-such-branch")
        self.assertFalse(root_status(m)["exists"])
        messages = [d["message"] for d in m.json("status.json")["diagnostics"]]
        self.assertTrue(any("no-such-branch is not a branch, tag or commit of %s"
                            % self.server.url("skills.git") in t for t in messages), messages)


class RemoteSourcesPlainHTTP(RemoteSources):
    """The same over git+http:// (no TLS)."""
    tls = False


class UntrustedCertificate(RemoteSources):
    def test_untrusted_certificate_is_reported(self):
        m = self.mount_remote(trusted=False)
        self.assertFalse(root_status(m)["exists"])
        [d] = m.json("status.json")["diagnostics"]
        self.assertIn("certificate", d["message"])
        self.assertEqual(root_status(m)["commit"], None)
        # a clone whose first fetch failed is not left behind
        self.assertEqual(self.clones(), [])


SSHD = "/usr/sbin/sshd"


@unittest.skipUnless(os.path.exists(SSHD) and os.geteuid() == 0,
                     "needs openssh-server and root: sshd runs git-upload-pack as a user "
                     "with a login shell (the unprivileged test user has none)")
class SshRemote(MountTestCase):
    """git+ssh:// against OpenSSH's sshd on loopback, authenticated by the
    user's ssh agent and checked against ~/.ssh/known_hosts."""

    def setUp(self):
        self.repos = GitRepos(self.make_dir())
        self.work = self.repos.init("work")
        fill_work(self.work)
        self.commit = self.repos.commit(self.work, "first")
        self.bare = self.repos.bare_clone(self.work, "skills.git")
        self.dir = self.make_dir()
        for key in ("hostkey", "userkey"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f",
                            os.path.join(self.dir, key)], check=True)
        os.makedirs("/run/sshd", exist_ok=True)   # sshd's privilege separation
        self.port = self.start_sshd()
        self.home = os.path.join(self.dir, "home")
        os.makedirs(os.path.join(self.home, ".ssh"))
        self.agent_sock = os.path.join(self.dir, "agent.sock")
        agent = subprocess.Popen(["ssh-agent", "-D", "-a", self.agent_sock],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(self.end, agent)
        wait_for(lambda: os.path.exists(self.agent_sock), what="the ssh agent's socket")
        subprocess.run(["ssh-add", "-q", os.path.join(self.dir, "userkey")], check=True,
                       env=dict(os.environ, SSH_AUTH_SOCK=self.agent_sock))

    @staticmethod
    def end(proc):
        proc.terminate()
        proc.wait(timeout=10)

    def start_sshd(self):
        """sshd on a free loopback port (taken from the kernel, then given
        to sshd: another process may take it between, so try again)."""
        import socket
        with open(os.path.join(self.dir, "authorized_keys"), "w") as out, \
                open(os.path.join(self.dir, "userkey.pub")) as key:
            out.write(key.read())
        for _ in range(5):
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
            config = os.path.join(self.dir, "sshd_config")
            with open(config, "w") as f:
                f.write("Port %d\nListenAddress 127.0.0.1\nHostKey %s/hostkey\n"
                        "AuthorizedKeysFile %s/authorized_keys\nPubkeyAuthentication yes\n"
                        "PasswordAuthentication no\nKbdInteractiveAuthentication no\n"
                        "UsePAM no\nStrictModes no\nPermitRootLogin prohibit-password\n"
                        "PidFile none\nLogLevel ERROR\n" % (port, self.dir, self.dir))
            sshd = subprocess.Popen([SSHD, "-D", "-e", "-f", config], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE)

            def listening():
                if sshd.poll() is not None:
                    return True
                with socket.socket() as c:
                    return c.connect_ex(("127.0.0.1", port)) == 0
            wait_for(listening, what="sshd to listen")
            if sshd.poll() is None:
                self.addCleanup(self.end, sshd)
                return port
        raise AssertionError("sshd would not start: %s" % sshd.stderr.read())

    def mount_ssh(self, known=True):
        with open(os.path.join(self.home, ".ssh", "known_hosts"), "w") as f:
            if known:
                with open(os.path.join(self.dir, "hostkey.pub")) as key:
                    f.write("[127.0.0.1]:%d %s\n" % (self.port, " ".join(key.read().split()[:2])))
        self.url = "git+ssh://%s@127.0.0.1:%d%s#main:skills" % (
            getpass.getuser(), self.port, self.bare)
        env = dict(os.environ, HOME=self.home, SSH_AUTH_SOCK=self.agent_sock)
        # (under -Db_sanitize=address: libgit2's own leak, suppressed by
        # lsan-libgit2-ssh.supp, whose frames only a slow unwind finds:
        # libgit2 keeps no frame pointers)
        env["LSAN_OPTIONS"] = ":".join(filter(None, [
            os.environ.get("LSAN_OPTIONS", ""), "suppressions=" + os.path.join(
                os.path.dirname(os.path.abspath(__file__)), "lsan-libgit2-ssh.supp")]))
        env["ASAN_OPTIONS"] = ":".join(filter(None, [
            os.environ.get("ASAN_OPTIONS", ""), "fast_unwind_on_malloc=0"]))
        return self.mount([], ["--source", self.url, "-o", "cache_dir=" + self.make_dir()],
                          env=env)

    def test_ssh_remote_with_the_agent_is_git_archive(self):
        m = self.mount_ssh()
        self.assertEqual(root_status(m)["commit"], self.commit)
        archive = os.path.join(self.repos.archive(self.work, self.commit), "skills")
        for skill_id in ("csv-report", "pdf-forms"):
            self.assertEqual(tree_of(m.file("skills", skill_id)),
                             tree_of(os.path.join(archive, skill_id)))
        self.assertEqual(m.json("status.json")["diagnostics"], [])

    def test_unknown_host_key_is_refused(self):
        m = self.mount_ssh(known=False)
        self.assertFalse(root_status(m)["exists"])
        [d] = m.json("status.json")["diagnostics"]
        self.assertIn("hostkey", d["message"])


# UntrustedCertificate runs only its own test
for _name in [n for n in dir(RemoteSources) if n.startswith("test_")]:
    setattr(UntrustedCertificate, _name, None)
del _name


if __name__ == "__main__":
    unittest.main(verbosity=2)
