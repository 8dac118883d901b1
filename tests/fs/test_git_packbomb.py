#!/usr/bin/env python3
"""A hostile git remote whose pack never ends (guide item 1): the fetch
stops at the pack's bound (1 GiB or 1,000,000 objects), so that neither
the cache's disk nor the daemon's memory grows without end; status.json
names the remote and the problem, and the local skills stay served.

The server (tests/lib/gitpackbomb.py, on loopback) advertises one branch
and sends blob after distinct blob as fast as the fetch takes them:
large ones (the bytes bound) or tiny ones (the objects bound: libgit2
keeps ~120 bytes of memory an object).  No timeout ends such a fetch:
it makes progress all along."""

import os
import sys
import unittest

from mountlib import MountTestCase, disk_use, resident_bytes, wait_for, write_skill

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from gitpackbomb import GitPackBomb  # noqa: E402

DEADLINE = 180.0            # the bounded fetch ends well within this
RSS_BOUND = 1 << 30         # the daemon's resident memory stays below (ASan
                            # builds included: ~550 MiB at the bound)
DISK_BOUND = 1280 << 20     # and the cache folder below this (1 GiB of
                            # pack, and room for what is beside it)


class EndlessPack(MountTestCase):
    def setUp(self):
        self.local = os.path.join(self.make_dir(), "skills")
        write_skill(self.local, "local-one", description="A local skill.")
        self.cache = self.make_dir()

    def bounded(self, blob):
        srv = GitPackBomb(blob=blob)
        self.addCleanup(srv.stop)
        url = srv.url("skills.git")
        m = self.mount([self.local], ["--source", "git+" + url + "#main:skills",
                                      "-o", "cache_dir=" + self.cache,
                                      "-o", "fetch_interval=0"], wait_fetched=False)

        def stopped():
            self.assertLess(resident_bytes(m.proc.pid), RSS_BOUND, "the daemon grows without bound")
            self.assertLess(disk_use(self.cache), DISK_BOUND, "the cache grows without bound")
            return [d["message"] for d in m.json("status.json")["diagnostics"]
                    if "stopped: its pack is larger than" in d["message"]]

        [message] = wait_for(stopped, timeout=DEADLINE, interval=0.2,
                             what="the stopped fetch in status.json")
        self.assertIn("the fetch of %s stopped" % url, message)
        self.assertIn("1024 MiB or 1000000 objects", message)
        self.assertGreater(srv.sent, 0)
        self.assertEqual(os.listdir(m.file("skills")), ["local-one"])
        self.assertIn(b"A local skill.", m.read("skills", "local-one", "SKILL.md"))

    def test_a_pack_of_endless_bytes_stops_at_its_bound(self):
        self.bounded(65536)

    def test_a_pack_of_endless_tiny_objects_stops_at_its_bound(self):
        self.bounded(0)


if __name__ == "__main__":
    unittest.main()
