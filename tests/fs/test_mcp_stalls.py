#!/usr/bin/env python3
"""An MCP server that stalls never stalls the mount (issue 28, items 1
and 2).  A hostile server on loopback (tests/lib/stallserver.py) lists one
skill and then never answers a read of its files, sends the answer a byte
a second, or never answers anything at all.  Meanwhile the mount's other
requests answer (`ls`, index.json, a local skill's files), the stalled
reader alone gets an error when its deadline passes, a start serves the
local skills and says what it waits for, and SIGTERM ends the daemon.

The deadlines here are generous bounds for "answers at all", never
timings: scripts/bench-stalls measures the latencies."""

import errno
import json
import os
import signal
import subprocess
import sys
import threading
import unittest
import uuid

from mountlib import Mount, MountTestCase, wait_for, write_skill

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import stallserver  # noqa: E402
from stallserver import MORE, NOTES, StallServer  # noqa: E402

ANSWER = 10.0          # a request that answers at all does within this
READ_TIMEOUT = 3       # -o read_timeout: the stalled reader's deadline
FETCHING = "the first fetch is under way"


class Call:
    """fn() on a thread of its own, so that a request that never answers
    fails the test instead of hanging it."""

    def __init__(self, fn):
        self.value = self.error = None
        self.thread = threading.Thread(target=self._run, args=(fn,), daemon=True)
        self.thread.start()

    def _run(self, fn):
        try:
            self.value = fn()
        except OSError as e:
            self.error = e

    def result(self, timeout, what):
        self.thread.join(timeout)
        if self.thread.is_alive():
            raise AssertionError("%s did not answer within %.0fs" % (what, timeout))
        return self.value


def answers(fn, what, timeout=ANSWER):
    c = Call(fn)
    value = c.result(timeout, what)
    if c.error:
        raise c.error
    return value


def slurp(path):
    with open(path, "rb") as f:
        return f.read()


class McpStalls(MountTestCase):
    def setUp(self):
        self.local = os.path.join(self.make_dir(), "skills")
        write_skill(self.local, "local-one", description="A local skill.")
        self.cache = self.make_dir()

    def server(self, stall):
        srv = StallServer(stall)
        self.addCleanup(srv.stop)
        return srv

    def mount_with(self, srv, wait_fetched=True, options=()):
        m = Mount([self.local], ["--source", "mcp+" + srv.url,
                                 "-o", "cache_dir=" + self.cache,
                                 "-o", "fetch_interval=0",
                                 "-o", "read_timeout=%d" % READ_TIMEOUT] + list(options),
                  wait_fetched=wait_fetched)
        self.addCleanup(m.cleanup)
        m.start()
        return m

    def assert_mount_answers(self, m):
        self.assertEqual(answers(lambda: sorted(os.listdir(m.file("skills"))), "ls skills/"),
                         ["local-one", "slow"])
        index = answers(lambda: m.json("index.json"), "index.json")
        self.assertEqual(sorted(s["uri"].split("/")[2] for s in index["skills"]),
                         ["local-one", "slow"])
        self.assertIn(b"A local skill.",
                      answers(lambda: slurp(m.file("skills", "local-one", "SKILL.md")),
                              "a local skill's SKILL.md"))
        answers(lambda: m.json("status.json"), "status.json")

    def stalled_read(self, stall, unmount=False, options=()):
        srv = self.server(stall)
        m = self.mount_with(srv, options=options)
        reader = Call(lambda: slurp(m.file("skills", "slow", "notes.md")))
        srv.wait_for("resources/read")
        # the read waits on the server; everything else answers
        self.assert_mount_answers(m)
        # a second reader of the same file waits too, and is not the
        # first's: its own deadline answers it
        second = Call(lambda: slurp(m.file("skills", "slow", "notes.md")))
        for c, what in ((reader, "the stalled read"), (second, "the second stalled read")):
            c.result(READ_TIMEOUT + ANSWER, what)
            self.assertIsNotNone(c.error, "%s was answered with bytes" % what)
            self.assertEqual(c.error.errno, errno.ETIMEDOUT, c.error)
        self.assert_mount_answers(m)
        # and the mount ends at once, with the server still stalled: a
        # plain unmount (no -z: nothing holds it), or SIGTERM
        if unmount:
            r = subprocess.run(["fusermount3", "-u", m.path], capture_output=True,
                               text=True, timeout=ANSWER)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(m.proc.wait(timeout=ANSWER), 0, m.stderr())
        else:
            self.assertEqual(m.terminate(timeout=ANSWER), 0, m.stderr())
        self.assertFalse(os.path.ismount(m.path))

    def test_a_read_the_server_never_answers_stalls_nothing_else(self):
        self.stalled_read("read", unmount=True)

    def test_a_read_the_server_trickles_stalls_nothing_else(self):
        self.stalled_read("trickle")

    def test_the_multithreaded_loop_too(self):
        self.stalled_read("read", options=["-o", "multithreaded,max_threads=2"])

    def test_reads_past_their_deadline_hold_no_worker(self):
        srv = self.server("read")
        m = self.mount_with(srv)
        # more stalled readers at once than the daemon has workers
        readers = [Call(lambda i=i: slurp(m.file("skills", "slow", "more", "%d.md" % i)))
                   for i in range(MORE)]
        srv.wait_for("resources/read")
        for c in readers:
            c.result(READ_TIMEOUT + ANSWER, "a stalled read")
            self.assertEqual(getattr(c.error, "errno", None), errno.ETIMEDOUT, c.error)
        # the stalled answers never come; a read after them is served,
        # so no worker still waits for one nobody reads
        srv.stall = "none"
        self.assertEqual(answers(lambda: slurp(m.file("skills", "slow", "notes.md")),
                                 "a read after the stalled ones"), NOTES)

    def test_a_read_the_server_answers_is_served(self):
        srv = self.server("none")
        m = self.mount_with(srv)
        self.assertEqual(answers(lambda: slurp(m.file("skills", "slow", "notes.md")),
                                 "a read of a server that answers"), NOTES)

    def test_a_silent_server_does_not_hold_the_start(self):
        srv = self.server("all")
        m = self.mount_with(srv, wait_fetched=False)
        # local skills are served while the server is waited for
        self.assertEqual(answers(lambda: os.listdir(m.file("skills")), "ls skills/"),
                         ["local-one"])
        self.assertIn(b"A local skill.",
                      answers(lambda: slurp(m.file("skills", "local-one", "SKILL.md")),
                              "a local skill's SKILL.md"))
        # status.json says the root is being fetched, stderr what waits
        status = answers(lambda: m.json("status.json"), "status.json")
        self.assertTrue(any(FETCHING in d["message"] for d in status["diagnostics"]),
                        status["diagnostics"])
        self.assertIsNone(status["roots"][1]["listing"])
        wait_for(lambda: "waiting for mcp+" + srv.url in m.stderr(), timeout=ANSWER,
                 what="the start to say what it waits for")
        srv.wait_for("initialize")
        self.assertEqual(m.terminate(timeout=ANSWER), 0, m.stderr())
        self.assertFalse(os.path.ismount(m.path))

    def test_a_server_that_answers_late_is_served_when_it_does(self):
        srv = self.server("all")
        m = self.mount_with(srv, wait_fetched=False)
        srv.wait_for("initialize")
        self.assertEqual(os.listdir(m.file("skills")), ["local-one"])
        # the server comes back: the fetcher's next try (SIGHUP) brings it
        srv.stall = "none"
        srv.ended.set()     # the stalled answer ends: the fetch fails
        m.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: sorted(os.listdir(m.file("skills"))) == ["local-one", "slow"],
                 timeout=ANSWER, what="the server's skill once it answered")
        self.assertEqual(slurp(m.file("skills", "slow", "notes.md")), NOTES)


class McpStdioStalls(MountTestCase):
    """The same over stdio: a server the mount runs (a config file's
    command:) that never answers."""

    def setUp(self):
        self.local = os.path.join(self.make_dir(), "skills")
        write_skill(self.local, "local-one", description="A local skill.")
        self.cache = self.make_dir()
        self.marker = "stall-" + uuid.uuid4().hex   # finds its processes

    def mount_stdio(self, stall, wait_fetched=True):
        path = os.path.join(self.make_dir(), "skillsfs.yaml")
        with open(path, "w") as f:
            f.write("roots: %s\nsources:\n  - command: %s\n    args: %s\n"
                    "    name: stalls\noptions:\n  cache_dir: %s\n  fetch_interval: 0\n"
                    % (json.dumps([self.local]), json.dumps(sys.executable),
                       json.dumps([stallserver.__file__, stall, self.marker]),
                       json.dumps(self.cache)))
        m = Mount([], ["--config", path, "-o", "read_timeout=%d" % READ_TIMEOUT],
                  wait_fetched=wait_fetched)
        self.addCleanup(m.cleanup)
        m.start()
        return m

    def servers(self):
        """The pids of the servers of this test that still run."""
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    if self.marker.encode() in f.read():
                        found.append(int(pid))
            except OSError:
                pass
        return found

    def stop_and_check(self, m):
        self.assertEqual(m.terminate(timeout=ANSWER), 0, m.stderr())
        self.assertFalse(os.path.ismount(m.path))
        self.assertEqual(self.servers(), [])

    def test_a_read_the_server_never_answers_stalls_nothing_else(self):
        m = self.mount_stdio("read")
        self.assertEqual(self.servers(), [])     # the listing's has ended
        reader = Call(lambda: slurp(m.file("skills", "slow", "notes.md")))
        wait_for(self.servers, timeout=ANSWER, what="the read's server")
        self.assertEqual(answers(lambda: sorted(os.listdir(m.file("skills"))), "ls skills/"),
                         ["local-one", "slow"])
        answers(lambda: m.json("index.json"), "index.json")
        reader.result(READ_TIMEOUT + ANSWER, "the stalled read")
        self.assertEqual(getattr(reader.error, "errno", None), errno.ETIMEDOUT, reader.error)
        self.stop_and_check(m)

    def test_a_silent_server_does_not_hold_the_start(self):
        m = self.mount_stdio("all", wait_fetched=False)
        self.assertEqual(answers(lambda: os.listdir(m.file("skills")), "ls skills/"),
                         ["local-one"])
        wait_for(self.servers, timeout=ANSWER, what="the listing's server")
        self.stop_and_check(m)


if __name__ == "__main__":
    unittest.main()
