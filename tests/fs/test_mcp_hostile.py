#!/usr/bin/env python3
"""A hostile MCP server as a source (guide item 1): a skills/list whose
pages never end, each a page full of skills, must not grow the daemon
without bound, nor a listing whose every SKILL.md (fetched at the update,
no frontmatter being listed) is 30 MB fill the cache's disk, nor a skill
listing 200,000 files hold the mount's start for minutes (such a skill is
not served).  The update
stops at its bound, status.json names the server and the problem, and
the local skills stay served.

The server is tests/lib/stallserver.py's, on loopback, answering every
request; only its skills/list is replaced."""

import hashlib
import os
import sys
import unittest

from mountlib import Mount, MountTestCase, disk_use, resident_bytes, wait_for, write_skill

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from stallserver import StallServer  # noqa: E402

PAGE = 5000          # skills on each page: a page is far below an answer's bound
DEADLINE = 120.0     # the bounded update ends well within this
# the daemon's resident memory stays below this (the bounded listing is
# ~100,000 small entries; the unbounded one grows without end)
RSS_BOUND = 1 << 30


class EndlessListing(StallServer):
    """Every skills/list page is PAGE skills and a cursor to one more."""

    def __init__(self):
        super().__init__(stall="none")

    def result(self, method, msg):
        if method != "skills/list":
            return super().result(method, msg)
        page = int((msg.get("params") or {}).get("cursor") or "0")
        skills = [{"uri": "skill://s%d-%d/SKILL.md" % (page, i), "name": "s%d-%d" % (page, i)}
                  for i in range(PAGE)]
        return {"skills": skills, "nextCursor": str(page + 1)}


BIG = 60                    # skills of 30 MB each: past the bound by far
FILLER = "---\nname: big\ndescription: A large skill.\n---\n\n" + "x" * (30 << 20)
DISK_BOUND = 1280 << 20     # the cache folder stays below this (1 GiB
                            # fetched, and room for what is beside it)


class LargeSkills(StallServer):
    """BIG skills listed without frontmatter, each SKILL.md 30 MB."""

    def __init__(self):
        super().__init__(stall="none")
        head = hashlib.sha256(FILLER.encode())
        self.skills = []
        for i in range(BIG):
            h = head.copy()
            h.update(self.tail(i).encode())
            uri = "skill://big-%d/SKILL.md" % i
            self.skills.append({"uri": uri, "name": "big-%d" % i, "resources": [
                {"uri": uri, "size": len(FILLER) + len(self.tail(i)),
                 "digest": "sha256:" + h.hexdigest()}]})

    @staticmethod
    def tail(i):
        return "\n<!-- %d -->\n" % i

    def result(self, method, msg):
        if method == "skills/list":
            return {"skills": self.skills}
        if method == "resources/read":
            uri = msg["params"]["uri"]
            i = int(uri[len("skill://big-"):-len("/SKILL.md")])
            return {"contents": [{"uri": uri, "mimeType": "text/markdown",
                                  "text": FILLER + self.tail(i)}]}
        return super().result(method, msg)


# files one skill lists, past the bound: on int such a skill was served,
# its build quadratic in its files (200,000 held the start for minutes)
MANY = 30000


class ManyFiles(StallServer):
    """One skill listing MANY files besides its SKILL.md, and "slow"."""

    def __init__(self):
        super().__init__(stall="none")
        digest = "sha256:" + hashlib.sha256(b"x").hexdigest()
        self.many = {"uri": "skill://many/SKILL.md", "name": "many",
                     "frontmatter": {"name": "many", "description": "Many files."},
                     "resources": [{"uri": "skill://many/SKILL.md", "size": 1,
                                    "digest": digest}] +
                     [{"uri": "skill://many/f/%d.md" % i, "size": 1, "digest": digest}
                      for i in range(MANY)]}

    def result(self, method, msg):
        if method == "skills/list":
            return {"skills": [self.many] + super().result(method, msg)["skills"]}
        return super().result(method, msg)


class HostileMcpServer(MountTestCase):
    def setUp(self):
        self.local = os.path.join(self.make_dir(), "skills")
        write_skill(self.local, "local-one", description="A local skill.")
        self.cache = self.make_dir()

    def test_an_endless_listing_is_refused_with_bounded_memory(self):
        srv = EndlessListing()
        self.addCleanup(srv.stop)
        m = Mount([self.local], ["--source", "mcp+" + srv.url,
                                 "-o", "cache_dir=" + self.cache,
                                 "-o", "fetch_interval=0"], wait_fetched=False)
        self.addCleanup(m.cleanup)
        m.start()
        peak = [0]

        def refused():
            peak[0] = max(peak[0], resident_bytes(m.proc.pid))
            self.assertLess(peak[0], RSS_BOUND, "the daemon grows without bound")
            return [d["message"] for d in m.json("status.json")["diagnostics"]
                    if "skills/list lists more than" in d["message"]]

        [message] = wait_for(refused, timeout=DEADLINE, interval=0.2,
                             what="the refused listing in status.json")
        self.assertIn("127.0.0.1:%d" % srv.server.server_address[1], message)
        self.assertEqual(sorted(os.listdir(m.file("skills"))), ["local-one"])
        self.assertIn(b"A local skill.", m.read("skills", "local-one", "SKILL.md"))

    def test_an_update_fetches_a_bounded_amount(self):
        srv = LargeSkills()
        self.addCleanup(srv.stop)
        # the daemon drops the connection of a read it stopped waiting for
        srv.server.handle_error = lambda request, address: None
        m = Mount([self.local], ["--source", "mcp+" + srv.url,
                                 "-o", "cache_dir=" + self.cache,
                                 "-o", "fetch_interval=0"], wait_fetched=False)
        self.addCleanup(m.cleanup)
        m.start()

        def refused():
            self.assertLess(disk_use(self.cache), DISK_BOUND, "the cache grows without bound")
            return [d["message"] for d in m.json("status.json")["diagnostics"]
                    if "the update would fetch more than" in d["message"]]

        [message] = wait_for(refused, timeout=DEADLINE, interval=0.2,
                             what="the bounded update in status.json")
        self.assertIn("127.0.0.1:%d" % srv.server.server_address[1], message)
        self.assertIn("1024 MiB", message)
        self.assertLess(srv.seen.get("resources/read", 0), BIG)
        self.assertEqual(sorted(os.listdir(m.file("skills"))), ["local-one"])

    def test_a_skill_of_endless_files_is_refused_at_once(self):
        srv = ManyFiles()
        self.addCleanup(srv.stop)
        m = Mount([self.local], ["--source", "mcp+" + srv.url,
                                 "-o", "cache_dir=" + self.cache,
                                 "-o", "fetch_interval=0"], wait_fetched=False)
        self.addCleanup(m.cleanup)
        m.start()
        wait_for(lambda: "slow" in os.listdir(m.file("skills")), timeout=DEADLINE,
                 what="the server's skills served")
        self.assertEqual(sorted(os.listdir(m.file("skills"))), ["local-one", "slow"])
        messages = [d["message"] for d in m.json("status.json")["diagnostics"]]
        self.assertIn("skill://many/SKILL.md: not served: its resources list %d files, "
                      "more than the 10000 a skill may have" % (MANY + 1), messages)


if __name__ == "__main__":
    unittest.main()
