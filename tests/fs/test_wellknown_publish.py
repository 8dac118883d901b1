#!/usr/bin/env python3
"""skillsfs-mcp --http publishes the mount's skills as a website's
well-known index (the Agent Skills Discovery RFC v0.2.0): every file's
digest is the sha256 of the bytes served at
/.well-known/agent-skills/<name>/<path>, each skill's digest is the RFC's
over its files, only listed files are served, under the same bearer token
as the MCP endpoint, and an edit of a source shows in the next index."""

import hashlib
import json
import os
import re
import unittest
import urllib.error
import urllib.request

from mountlib import MountTestCase, wait_for, write_skill

SKILLSFS_MCP = os.environ.get("SKILLSFS_MCP", "skillsfs-mcp")

TOKEN = "wellknown-token-0123456789abcdef"


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def rfc_skill_digest(files):
    """The RFC's skill digest: sha256 of "path\\0hex\\n", sorted by path."""
    lines = b"".join(f["path"].encode() + b"\0" + f["digest"][7:].encode() + b"\n"
                     for f in sorted(files, key=lambda f: f["path"].encode()))
    return "sha256:" + sha256(lines)


class WellKnownPublish(MountTestCase):
    def setUp(self):
        self.root = os.path.join(self.make_dir(), "skills")
        write_skill(self.root, "pdf-forms", description="Fill in PDF forms.")
        refs = os.path.join(self.root, "pdf-forms", "references")
        os.makedirs(refs)
        with open(os.path.join(refs, "fields.md"), "w") as f:
            f.write("# Fields\n")
        write_skill(self.root, "csv-report", description="Summarize a CSV file.")
        keys = self.make_dir()
        token = os.path.join(keys, "token")
        with open(os.open(token, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write(TOKEN + "\n")
        url, _ = self.serve_mcp_http([SKILLSFS_MCP, "--http", "127.0.0.1:0",
                                      "--token-file", token, "--skills-dir", self.root,
                                      "--linger", "0"])
        self.base = re.sub(r"/mcp$", "", url) + "/.well-known/agent-skills/"

    def get(self, rel, token=TOKEN, method="GET"):
        req = urllib.request.Request(self.base + rel, method=method)
        if token:
            req.add_header("authorization", "Bearer " + token)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def index(self):
        status, body = self.get("index.json")
        self.assertEqual(status, 200, body)
        return json.loads(body)

    def test_index_files_and_digests(self):
        idx = self.index()
        self.assertEqual(idx["version"], "0.2.0")
        self.assertEqual([s["name"] for s in idx["skills"]], ["csv-report", "pdf-forms"])
        for skill in idx["skills"]:
            source = os.path.join(self.root, skill["name"])
            want = sorted(os.path.relpath(os.path.join(d, f), source)
                          for d, _, fs in os.walk(source) for f in fs)
            self.assertEqual(sorted(f["path"] for f in skill["files"]), want)
            for f in skill["files"]:
                status, body = self.get("%s/%s" % (skill["name"], f["path"]))
                self.assertEqual(status, 200)
                with open(os.path.join(source, f["path"]), "rb") as src:
                    self.assertEqual(body, src.read())
                self.assertEqual(f["digest"], "sha256:" + sha256(body))
                self.assertEqual(f["size"], len(body))
            self.assertEqual(skill["digest"], rfc_skill_digest(skill["files"]))
        self.assertIn("Fill in PDF forms.", [s["description"] for s in idx["skills"]])

    def test_only_listed_files_and_only_with_the_token(self):
        self.assertEqual(self.get("index.json", token=None)[0], 401)
        self.assertEqual(self.get("index.json", token="wrong")[0], 401)
        self.assertEqual(self.get("pdf-forms/SKILL.md", token=None)[0], 401)
        for rel in ("pdf-forms/missing.md", "pdf-forms/../csv-report/SKILL.md",
                    "pdf-forms/references", "no-such-skill/SKILL.md", "pdf-forms",
                    "index.json/x"):
            self.assertEqual(self.get(rel)[0], 404, rel)
        self.assertEqual(self.get("index.json", method="POST")[0], 405)

    def test_an_edit_shows_in_the_next_index(self):
        before = {s["name"]: s["digest"] for s in self.index()["skills"]}
        with open(os.path.join(self.root, "csv-report", "template.md"), "w") as f:
            f.write("| a | b |\n")
        wait_for(lambda: {s["name"]: s["digest"] for s in self.index()["skills"]}
                 ["csv-report"] != before["csv-report"], what="the edit in the index")
        after = {s["name"]: s for s in self.index()["skills"]}
        self.assertEqual(after["pdf-forms"]["digest"], before["pdf-forms"])
        self.assertIn("template.md", [f["path"] for f in after["csv-report"]["files"]])
        self.assertEqual(self.get("csv-report/template.md")[1], b"| a | b |\n")


if __name__ == "__main__":
    unittest.main()
