#!/usr/bin/env python3
"""A git server that stalls never holds a mount's start or its stop
(issue 28, items 1 and 2, for git sources), an abandoned fetch leaves
the clone usable, and url.<base>.insteadOf of the user's git
configuration is applied as git applies it (issue 26).

A stalling git server on loopback (tests/lib/gitstallserver.py) accepts
the fetch's connection and never answers it, or answers a byte a
second.  While it holds the connection, the local root's skill is
served and status.json says the git root is being fetched; SIGTERM
then ends the daemon while the server still holds the connection.
A fetch without progress for -o fetch_timeout is given up (GitDeadlines):
the other roots' updates go on, the stalled root keeps its commit and
says why, and its later fetches skip a clone the given-up one holds.

The deadlines here are generous bounds for "answers at all", never
timings: scripts/bench-stalls measures them."""

import os
import signal
import sys
import unittest

from mountlib import FETCHING, Mount, MountTestCase, wait_for, write_skill
from test_git_sources import GitRepos, fill_work, root_status

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from gitserver import GitServer  # noqa: E402
from gitstallserver import GitStallServer  # noqa: E402

ANSWER = 10.0       # what answers at all does within this
TIMEOUT = 3         # -o fetch_timeout of GitDeadlines: well under ANSWER


def home_env(home):
    """The environment with home as HOME (its ~/.gitconfig is read)."""
    return dict(os.environ, HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"))


class GitStalls(MountTestCase):
    def setUp(self):
        self.local = os.path.join(self.make_dir(), "skills")
        write_skill(self.local, "local-one", description="A local skill.")
        self.cache = self.make_dir()
        self.home = self.make_dir()

    def mount(self, url, wait_fetched=False, options=()):
        return super().mount([self.local], ["--source", url, "-o", "cache_dir=" + self.cache,
                                            "-o", "fetch_interval=0"] + list(options),
                             env=home_env(self.home), wait_fetched=wait_fetched)

    def stalled(self, mode, sent=0):
        srv = GitStallServer(mode)
        self.addCleanup(srv.stop)
        m = self.mount("git+" + srv.url("skills.git") + "#main:skills")
        srv.wait_connected(ANSWER, sent=sent)
        # the fetch is blocked on the server: the local skill is served
        # meanwhile, and status.json says what is being fetched
        self.assertEqual(os.listdir(m.file("skills")), ["local-one"])
        self.assertIn(b"A local skill.", m.read("skills", "local-one", "SKILL.md"))
        status = m.json("status.json")
        self.assertTrue(any(FETCHING in d["message"] and "skills.git" in d["file"]
                            for d in status["diagnostics"]), status["diagnostics"])
        wait_for(lambda: "waiting for git+" + srv.url("skills.git") in m.stderr(),
                 timeout=ANSWER, what="the start to say what it waits for")
        self.assertGreater(srv.open_connections(), 0, "the server let the fetch go")
        # a stop ends the daemon while the server still holds the fetch
        self.assertEqual(m.terminate(timeout=ANSWER), 0, m.stderr())
        self.assertFalse(os.path.ismount(m.path))
        return srv

    def test_a_silent_git_server_holds_neither_start_nor_stop(self):
        self.stalled("silent")

    def test_a_trickling_git_server_holds_neither_start_nor_stop(self):
        self.stalled("trickle", sent=2)

    def test_a_server_that_stops_answering_holds_no_stop(self):
        """A mount up with its clone; then SIGHUP's fetch meets a server
        that no longer answers: every root is still served, and SIGTERM
        ends the daemon while the fetch waits."""
        repos = GitRepos(self.make_dir())
        work = repos.init("work")
        fill_work(work)
        repos.commit(work, "first")
        served = os.path.join(repos.top, "served")
        os.makedirs(served)
        repos.git(repos.top, "clone", "-q", "--bare", work, os.path.join(served, "skills.git"))
        srv = GitServer(served)
        self.addCleanup(srv.stop)
        m = self.mount("git+" + srv.url("skills.git") + "#main:skills", wait_fetched=True)
        self.assertEqual(sorted(os.listdir(m.file("skills"))),
                         ["csv-report", "local-one", "pdf-forms"])
        srv.stall = True
        m.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: srv.stalled > 0, timeout=ANSWER, what="SIGHUP's fetch")
        self.assertEqual(sorted(os.listdir(m.file("skills"))),
                         ["csv-report", "local-one", "pdf-forms"])
        self.assertIn(b"version one", m.read("skills", "pdf-forms", "reference.md"))
        self.assertEqual(m.terminate(timeout=ANSWER), 0, m.stderr())
        self.assertFalse(os.path.ismount(m.path))


def diagnostics_of(m, url):
    """The status.json messages about the root at url."""
    return [d["message"] for d in m.json("status.json")["diagnostics"]
            if url in d.get("file", "")]


class GitDeadlines(MountTestCase):
    """A fetch that makes no progress for fetch_timeout seconds is given
    up: a stalled remote root holds no other root's update (SIGHUP,
    fetch_interval), status.json says it gave up, and its next fetches
    skip the clone the abandoned one still holds instead of waiting."""

    def setUp(self):
        self.repos = GitRepos(self.make_dir())
        self.work = self.repos.init("work")
        fill_work(self.work)
        self.repos.commit(self.work, "first")
        served = os.path.join(self.repos.top, "served")
        os.makedirs(served)
        self.bare = os.path.join(served, "skills.git")
        self.repos.git(self.repos.top, "clone", "-q", "--bare", self.work, self.bare)
        self.good = GitServer(served)
        self.addCleanup(self.good.stop)
        self.local = os.path.join(self.make_dir(), "skills")
        write_skill(self.local, "local-one", description="A local skill.")
        self.cache = self.make_dir()
        self.home = self.make_dir()

    def mount(self, stalled, interval, wait_fetched=False):
        return super().mount(
            [self.local],
            ["--source", "git+" + stalled.url("skills.git") + "#main:skills",
             "--source", "git+" + self.good.url("skills.git") + "#main:skills",
             "-o", "cache_dir=" + self.cache, "-o", "fetch_interval=%d" % interval,
             "-o", "fetch_timeout=%d" % TIMEOUT],
            env=home_env(self.home), wait_fetched=wait_fetched)

    def push_more(self, text):
        with open(os.path.join(self.work, "skills", "csv-report", "more.md"), "w") as f:
            f.write(text)
        self.repos.commit(self.work, text)
        self.repos.git(self.work, "push", "-q", self.bare, "main")

    def more_is(self, m, text):
        try:
            return m.read("skills", "csv-report", "more.md") == text.encode()
        except OSError:
            return False

    def gave_up(self, m, stalled, words):
        url = stalled.url("skills.git")
        wait_for(lambda: any(words in s for s in diagnostics_of(m, url)),
                 timeout=ANSWER, what="status.json to say: " + words)

    def beside_the_answering_root(self, mode, interval, words):
        """A mount of a stalling server (GitStallServer mode) beside the
        answering one: the answering root is served although the other
        never answered its first fetch, which status.json says it gave
        up with words."""
        stalled = GitStallServer(mode)
        self.addCleanup(stalled.stop)
        m = self.mount(stalled, interval)
        wait_for(lambda: "csv-report" in os.listdir(m.file("skills")), timeout=ANSWER,
                 what="the answering root's skills")
        self.gave_up(m, stalled, words)
        return stalled, m

    def test_a_silent_git_server_holds_no_other_root_on_sighup(self):
        stalled, m = self.beside_the_answering_root(
            "silent", 0, "gave up after %d s without progress" % TIMEOUT)
        self.push_more("second\n")
        m.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: self.more_is(m, "second\n"), timeout=ANSWER,
                 what="the answering root's new commit after SIGHUP")
        # the abandoned fetch still holds the silent root's clone: the
        # next one skips it rather than waiting behind it
        self.gave_up(m, stalled, "still holds its clone")
        self.push_more("third\n")
        m.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: self.more_is(m, "third\n"), timeout=ANSWER,
                 what="the answering root's third commit after SIGHUP")
        self.assertGreater(stalled.open_connections(), 0, "the server let the fetch go")
        self.assertIn(b"A local skill.", m.read("skills", "local-one", "SKILL.md"))
        self.assertEqual(m.terminate(timeout=ANSWER), 0, m.stderr())
        self.assertFalse(os.path.ismount(m.path))

    def other_server(self):
        """A git server of another repository (skills/other-skill), and
        its commit."""
        other = self.repos.init("other")
        write_skill(os.path.join(other, "skills"), "other-skill",
                    description="A skill of the server that stops.")
        commit = self.repos.commit(other, "first")
        served = os.path.join(self.repos.top, "served-other")
        os.makedirs(served)
        self.repos.git(self.repos.top, "clone", "-q", "--bare", other,
                       os.path.join(served, "skills.git"))
        srv = GitServer(served)
        self.addCleanup(srv.stop)
        return srv, commit

    def test_a_fetch_given_up_is_ended_when_its_pack_comes(self):
        """A server that sends a fetch's pack header only after the fetch
        was given up, then a byte a second: the fetch is ended at that
        first byte (libgit2's progress callback; the server sees the
        connection closed), so the clone is free again and the next
        SIGHUP fetches it; the other root's new commit is served
        meanwhile."""
        stalled, _ = self.other_server()
        m = self.mount(stalled, 0, wait_fetched=True)
        stalled.trickle_pack = True
        stalled.trickle_hold = TIMEOUT + 2
        other = os.path.join(self.repos.top, "other")
        write_skill(os.path.join(other, "skills"), "other-skill",
                    description="A skill of the server that trickles.")
        self.repos.commit(other, "second")
        self.repos.git(other, "push", "-q",
                       os.path.join(stalled.root, "skills.git"), "main")
        self.push_more("second\n")
        m.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: self.more_is(m, "second\n"), timeout=ANSWER,
                 what="the answering root's new commit after SIGHUP")
        self.gave_up(m, stalled, "gave up after %d s without progress" % TIMEOUT)
        wait_for(lambda: stalled.dropped > 0, timeout=ANSWER,
                 what="the fetch given up to be ended as its pack came")
        begun = stalled.trickled
        m.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: stalled.trickled > begun, timeout=ANSWER,
                 what="SIGHUP's fetch of the clone, free again")
        self.assertIn(b"A skill of the server that stops.",
                      m.read("skills", "other-skill", "SKILL.md"))
        self.assertEqual(m.terminate(timeout=ANSWER), 0, m.stderr())
        self.assertFalse(os.path.ismount(m.path))

    def test_a_server_that_stops_answering_keeps_its_commit_and_holds_no_other(self):
        """Both remotes fetched at the start; then one server stops
        answering: SIGHUP serves the other root's new commit, and the
        stalled root keeps its commit, status.json saying it gave up."""
        stalled, kept = self.other_server()
        m = self.mount(stalled, 0, wait_fetched=True)
        self.assertEqual(sorted(os.listdir(m.file("skills"))),
                         ["csv-report", "local-one", "other-skill", "pdf-forms"])
        stalled.stall = True
        self.push_more("second\n")
        m.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: self.more_is(m, "second\n"), timeout=ANSWER,
                 what="the answering root's new commit after SIGHUP")
        self.assertGreater(stalled.stalled, 0)
        self.gave_up(m, stalled, "serving commit %s, fetched before: the fetch of %s gave "
                     "up after %d s without progress" % (kept, stalled.url("skills.git"),
                                                        TIMEOUT))
        self.assertIn(b"A skill of the server that stops.",
                      m.read("skills", "other-skill", "SKILL.md"))
        self.assertEqual(m.terminate(timeout=ANSWER), 0, m.stderr())
        self.assertFalse(os.path.ismount(m.path))

    def test_a_strict_start_gives_up_on_a_silent_git_server(self):
        """-o strict waits for every root before it mounts: a fetch that
        never gets an answer is given up, and the start refuses the root
        with why, instead of waiting for ever."""
        stalled = GitStallServer("silent")
        self.addCleanup(stalled.stop)
        m = Mount([self.local],
                  ["--source", "git+" + stalled.url("skills.git") + "#main:skills",
                   "-o", "cache_dir=" + self.cache, "-o", "fetch_interval=0",
                   "-o", "fetch_timeout=%d" % TIMEOUT, "-o", "strict"],
                  env=home_env(self.home))
        self.addCleanup(m.cleanup)
        with self.assertRaises(AssertionError) as refused:
            m.start(timeout=ANSWER)
        self.assertIn("skillsfs exited with 1", str(refused.exception))
        self.assertIn("the fetch of %s gave up after %d s without progress"
                      % (stalled.url("skills.git"), TIMEOUT), m.stderr())
        self.assertFalse(os.path.ismount(m.path))

    def test_a_trickling_git_server_holds_no_other_root_on_fetch_interval(self):
        stalled, m = self.beside_the_answering_root("trickle", 1, "without progress")
        self.push_more("second\n")
        wait_for(lambda: self.more_is(m, "second\n"), timeout=ANSWER,
                 what="the answering root's new commit after fetch_interval")
        self.assertGreater(stalled.sent, 0)
        self.assertEqual(m.terminate(timeout=ANSWER), 0, m.stderr())
        self.assertFalse(os.path.ismount(m.path))


class GitClones(MountTestCase):
    """The clone of a remote: fetched from what url.<base>.insteadOf of
    ~/.gitconfig makes of the URL (the clone is still the given URL's),
    and fetched into again after a fetch that never ended."""

    def setUp(self):
        self.repos = GitRepos(self.make_dir())
        self.work = self.repos.init("work")
        fill_work(self.work)
        self.commit = self.repos.commit(self.work, "first")
        self.served = os.path.join(self.repos.top, "served")
        os.makedirs(self.served)
        self.repos.git(self.repos.top, "clone", "-q", "--bare", self.work,
                       os.path.join(self.served, "skills.git"))
        self.cache = self.make_dir()
        self.home = self.make_dir()
        self.local = os.path.join(self.make_dir(), "skills")
        write_skill(self.local, "local-one", description="A local skill.")

    def gitconfig(self, text):
        with open(os.path.join(self.home, ".gitconfig"), "w") as f:
            f.write(text)

    def mount(self, url, wait_fetched=True):
        return super().mount([self.local], ["--source", url, "-o", "cache_dir=" + self.cache,
                                            "-o", "fetch_interval=0"],
                             env=home_env(self.home), wait_fetched=wait_fetched)

    def test_insteadof_rewrites_the_url_longest_match_wins(self):
        self.gitconfig('[url "file://%s/"]\n\tinsteadOf = https://example.invalid/team/\n'
                       '[url "file:///nonexistent/short/"]\n\tinsteadOf = https://example.invalid/\n'
                       '[url "file:///nonexistent/push/"]\n'
                       '\tpushInsteadOf = https://example.invalid/team/skills\n'
                       % self.served)
        m = self.mount("git+https://example.invalid/team/skills.git#main:skills")
        self.assertEqual(root_status(m, 1)["commit"], self.commit)
        self.assertEqual(sorted(os.listdir(m.file("skills"))),
                         ["csv-report", "local-one", "pdf-forms"])
        self.assertEqual(m.read("skills", "pdf-forms", "reference.md"),
                         b"# Reference\n\nversion one\n")

    def test_without_insteadof_the_url_is_taken_as_given(self):
        self.gitconfig("")
        m = self.mount("git+https://example.invalid/team/skills.git#main:skills")
        messages = [d["message"] for d in m.json("status.json")["diagnostics"]]
        self.assertTrue(any("example.invalid" in s for s in messages), messages)
        self.assertEqual(os.listdir(m.file("skills")), ["local-one"])

    def push_more(self):
        with open(os.path.join(self.work, "skills", "csv-report", "more.md"), "w") as f:
            f.write("more\n")
        commit = self.repos.commit(self.work, "second")
        self.repos.git(self.work, "push", "-q", os.path.join(self.served, "skills.git"), "main")
        return commit

    def the_clone(self):
        folder = os.path.join(self.cache, "git")
        clones = [n for n in os.listdir(folder) if n.endswith(".git")]
        self.assertEqual(len(clones), 1, os.listdir(folder))
        return os.path.join(folder, clones[0])

    def test_an_abandoned_fetch_leaves_the_clone_usable(self):
        """A start against a silent server is stopped mid-fetch; the next
        start (the same URL, now rewritten to a repository that answers)
        fetches into the same clone, and the one after fetches into it
        again."""
        url = "git+https://example.invalid/team/skills.git#main:skills"
        srv = GitStallServer("silent")
        self.addCleanup(srv.stop)
        self.gitconfig('[url "%s"]\n\tinsteadOf = https://example.invalid/team/\n'
                       % srv.url(""))
        m = self.mount(url, wait_fetched=False)
        srv.wait_connected(ANSWER)
        self.assertEqual(m.terminate(timeout=ANSWER), 0, m.stderr())
        m.stop()
        self.gitconfig('[url "file://%s/"]\n\tinsteadOf = https://example.invalid/team/\n'
                       % self.served)
        m = self.mount(url)
        self.assertEqual(root_status(m, 1)["commit"], self.commit)
        m.stop()
        self.the_clone()
        second = self.push_more()
        m = self.mount(url)
        self.assertEqual(root_status(m, 1)["commit"], second)

    def test_what_a_killed_fetch_left_in_the_clone_is_cleared(self):
        """A clone with what a fetch killed while it wrote leaves behind
        (libgit2's lock files and temporaries) is fetched into again."""
        srv = GitServer(self.served)
        self.addCleanup(srv.stop)
        url = "git+" + srv.url("skills.git") + "#main:skills"
        m = self.mount(url)
        self.assertEqual(root_status(m, 1)["commit"], self.commit)
        m.stop()
        clone = self.the_clone()
        for rel in ("refs/heads/main.lock", "packed-refs.lock", "HEAD.lock",
                    "objects/pack/pack_git2_Ab12Cd", "objects/tmp_object_git2_Xy34Zw"):
            with open(os.path.join(clone, rel), "w") as f:
                f.write("left by a fetch that never ended\n")
        second = self.push_more()
        m = self.mount(url)
        self.assertEqual(root_status(m, 1)["commit"], second, m.json("status.json"))
        self.assertEqual(m.read("skills", "csv-report", "more.md"), b"more\n")
        # and nothing of it is left
        left = [os.path.join(d, n) for d, _, names in os.walk(clone) for n in names
                if n.endswith(".lock") or "_git2_" in n]
        self.assertEqual(left, [])


if __name__ == "__main__":
    unittest.main()
