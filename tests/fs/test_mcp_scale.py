#!/usr/bin/env python3
"""An MCP source at scale: 1,000 skills written by scripts/gen-corpus
(deterministic) and served by the official TypeScript SDK's loadSkills and
createMcpHandler, whose skills/list pages by 100: every page is followed,
every skill listed and its SKILL.md verified, a sample of files
byte-identical, in both protocol eras."""

import os
import subprocess
import sys
import unittest

from mountlib import MountTestCase, SOURCE_ROOT

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from mcpskillserver import SkillServer  # noqa: E402

SKILLS = 1000
PAGE = 100   # the SDK's default page size (resolvePageSize)


def skill_folders(root):
    """skill id -> its folder, for every SKILL.md below root."""
    out = {}
    for dirpath, dirs, files in os.walk(root):
        if "SKILL.md" in files:
            out[os.path.basename(dirpath)] = dirpath
    return out


def read(path):
    with open(path, "rb") as f:
        return f.read()


@unittest.skipUnless(SkillServer.available(),
                     "needs node and the MCP SDK (npm ci in tests/mcp)")
class McpSourceAtScale(MountTestCase):
    @classmethod
    def setUpClass(cls):
        cls.top = __import__("tempfile").mkdtemp(prefix="skillsfs-mcp-scale-")
        cls.served = os.path.join(cls.top, "skills")
        subprocess.run([sys.executable, os.path.join(SOURCE_ROOT, "scripts", "gen-corpus"),
                        str(SKILLS), cls.served], check=True, stdout=subprocess.DEVNULL)
        cls.folders = skill_folders(cls.served)

    @classmethod
    def tearDownClass(cls):
        __import__("shutil").rmtree(cls.top, True)

    def check(self, era):
        self.assertEqual(len(self.folders), SKILLS)
        srv = SkillServer(self.served, era=era, count_pages=True)
        self.addCleanup(srv.stop)
        cache = self.make_dir()
        m = self.mount([], ["--source", "mcp+" + srv.url, "-o", "cache_dir=" + cache,
                            "-o", "fetch_interval=0"])
        # every page of skills/list was asked for, one after another
        for n in range(1, SKILLS // PAGE + 1):
            srv.expect("page %d" % n, ignore=("listening",))
        root = m.json("status.json")["roots"][0]
        self.assertEqual((root["kind"], root["skills"]), ("mcp", SKILLS))
        self.assertEqual(m.json("status.json")["diagnostics"], [])
        self.assertEqual(sorted(os.listdir(m.file("skills"))), sorted(self.folders))
        # nothing was fetched ahead of need (SEP-2640): the mount was
        # built from the listing; each SKILL.md is fetched and verified on
        # its first read, then kept in the cache by its digest
        blobs = os.path.join(cache, "mcp", "blobs")
        self.assertFalse(os.path.exists(blobs))
        for skill, folder in sorted(self.folders.items()):
            self.assertEqual(m.read("skills", skill, "SKILL.md"),
                             read(os.path.join(folder, "SKILL.md")), skill)
        self.assertEqual(len(os.listdir(blobs)), SKILLS)
        # a sample of supporting files, fetched on their first read
        for skill in sorted(self.folders)[::97]:
            folder = self.folders[skill]
            for sub in ("references", "scripts"):
                for name in os.listdir(os.path.join(folder, sub)):
                    self.assertEqual(m.read("skills", skill, sub, name),
                                     read(os.path.join(folder, sub, name)),
                                     "%s/%s/%s" % (skill, sub, name))

    def test_handshake_era(self):
        self.check(era=None)

    def test_stateless_era(self):
        self.check(era="modern")


if __name__ == "__main__":
    unittest.main(verbosity=2)
