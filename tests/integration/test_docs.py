#!/usr/bin/env python3
"""resource://docs/{path*}: --docs-dir DIR serves the markdown files under
DIR, and only those, at MOUNT/docs/ and through skillsfs-mcp, with the URI
contract's path rules (relative POSIX paths, no '..', .md only)."""

import os
import shutil
import tempfile
import unittest

from intlib import (EXAMPLE_SKILLS, McpClient, MountTestCase, clean_env, wait_for,
                    write)


def make_docs(top):
    """A docs folder with markdown, other files, dot entries and links."""
    docs = os.path.join(top, "docs")
    write(os.path.join(docs, "index.md"), "# Index\n\nSee [usage](usage.md).\n")
    write(os.path.join(docs, "usage.md"), "# Usage\n")
    write(os.path.join(docs, "skills", "pdf-forms", "SKILL.md"), "# pdf-forms notes\n")
    write(os.path.join(docs, "skills", "pdf-forms", "references", "fields.md"), "# Fields\n")
    write(os.path.join(docs, "notes.txt"), "not markdown\n")
    write(os.path.join(docs, "images", "logo.svg"), "<svg/>\n")      # no .md below
    write(os.path.join(docs, ".drafts", "secret.md"), "# draft\n")
    write(os.path.join(docs, ".hidden.md"), "# hidden\n")
    write(os.path.join(top, "outside.md"), "# outside the docs folder\n")
    os.symlink("index.md", os.path.join(docs, "start.md"))              # inside: kept
    os.symlink("../outside.md", os.path.join(docs, "escape.md"))        # out: hidden
    os.symlink("/etc/passwd", os.path.join(docs, "passwd.md"))          # absolute: hidden
    os.symlink("notes.txt", os.path.join(docs, "notes.md"))             # not markdown
    os.symlink("skills", os.path.join(docs, "linked"))                  # folder: not followed
    os.mkfifo(os.path.join(docs, "fifo.md"))
    return docs


def listing(top):
    out = []
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            out.append(os.path.relpath(os.path.join(dirpath, name), top))
    return sorted(out)


class DocsMount(MountTestCase):
    def setUp(self):
        self.top = self.make_dir()
        self.docs = make_docs(self.top)

    def test_only_markdown_is_served(self):
        m = self.mount([EXAMPLE_SKILLS], ["--docs-dir", self.docs])
        self.assertEqual(listing(m.file("docs")), [
            "index.md", "skills", "skills/pdf-forms", "skills/pdf-forms/SKILL.md",
            "skills/pdf-forms/references", "skills/pdf-forms/references/fields.md",
            "start.md", "usage.md"])
        with open(os.path.join(self.docs, "index.md"), "rb") as f:
            self.assertEqual(m.read("docs", "index.md"), f.read())
        self.assertEqual(os.readlink(m.file("docs", "start.md")), "index.md")
        self.assertEqual(m.read("docs", "start.md"), m.read("docs", "index.md"))
        st = os.stat(m.file("docs"))
        self.assertEqual(st.st_mode & 0o7777, 0o555)
        # the links that lead out are reported, not served
        messages = {os.path.basename(d["file"]): d["message"]
                    for d in m.json("status.json")["diagnostics"]}
        self.assertIn("leads out of the docs folder", messages["escape.md"])
        self.assertIn("leads out of the docs folder", messages["passwd.md"])
        self.assertIn("does not lead to a markdown file", messages["notes.md"])
        # the docs are not skills
        self.assertNotIn("docs", os.listdir(m.file("skills")))
        self.assertEqual(len(m.json("index.json")["skills"]), 3)
        with self.assertRaises(OSError):
            open(m.file("docs", "new.md"), "w")

    def test_without_docs_dir_there_is_no_docs_folder(self):
        m = self.mount([EXAMPLE_SKILLS])
        self.assertNotIn("docs", os.listdir(m.path))

    def test_docs_follow_the_source(self):
        self.follow([])

    def test_docs_follow_the_source_polling(self):
        self.follow(["-o", "polling,poll_interval=50"])

    def follow(self, options):
        m = self.mount([EXAMPLE_SKILLS], ["--docs-dir", self.docs] + options)
        write(os.path.join(self.docs, "guide", "deep", "new.md"), "# New\n")
        wait_for(lambda: os.path.exists(m.file("docs", "guide", "deep", "new.md")),
                 what="a new document in a new folder")
        self.assertEqual(m.read("docs", "guide", "deep", "new.md"), b"# New\n")
        write(os.path.join(self.docs, "usage.md"), "# Usage, edited\n")
        wait_for(lambda: m.read("docs", "usage.md") == b"# Usage, edited\n",
                 what="an edited document")
        os.unlink(os.path.join(self.docs, "index.md"))
        wait_for(lambda: not os.path.exists(m.file("docs", "index.md")),
                 what="a removed document")

    def test_docs_folder_that_appears_later(self):
        later = os.path.join(self.make_dir(), "later", "docs")
        m = self.mount([EXAMPLE_SKILLS], ["--docs-dir", later])
        self.assertEqual(os.listdir(m.file("docs")), [])
        self.assertTrue(any(d["file"] == later and "does not exist" in d["message"]
                            for d in m.json("status.json")["diagnostics"]))
        write(os.path.join(later, "a.md"), "# A\n")
        wait_for(lambda: os.path.exists(m.file("docs", "a.md")),
                 what="the docs folder once it exists")

    def test_docs_dir_from_fstab_option(self):
        m = self.mount([EXAMPLE_SKILLS], ["-o", "docs_dir=" + self.docs])
        self.assertIn("usage.md", os.listdir(m.file("docs")))


class DocsMcp(MountTestCase):
    """skillsfs-mcp serves MOUNT/docs as resource://docs/{path*}."""

    def setUp(self):
        self.top = self.make_dir()
        self.docs = make_docs(self.top)
        self.m = self.mount([EXAMPLE_SKILLS], ["--docs-dir", self.docs])
        self.client = McpClient(["--mount", self.m.path])
        self.addCleanup(self.client.close)
        self.client.handshake()

    def read(self, uri):
        return self.client.request("resources/read", {"uri": uri})

    def test_read_documents(self):
        r = self.read("resource://docs/index.md")
        self.assertEqual(r["result"]["contents"][0]["text"],
                         "# Index\n\nSee [usage](usage.md).\n")
        self.assertEqual(r["result"]["contents"][0]["mimeType"], "text/markdown")
        r = self.read("resource://docs/skills/pdf-forms/references/fields.md")
        self.assertEqual(r["result"]["contents"][0]["text"], "# Fields\n")

    def test_uri_rules(self):
        for uri, why in [
                ("resource://docs/../outside.md", "'..'"),
                ("resource://docs/skills/../../outside.md", "'..'"),
                ("resource://docs/%2e%2e/outside.md", "'..'"),
                ("resource://docs//etc/passwd.md", "relative"),
                ("resource://docs/notes.txt", ".md"),
                ("resource://docs/images/logo.svg", ".md")]:
            with self.subTest(uri):
                r = self.read(uri)
                self.assertIn("error", r)
                self.assertIn(why, r["error"]["message"])
        for uri in ["resource://docs/escape.md", "resource://docs/passwd.md",
                    "resource://docs/.hidden.md", "resource://docs/.drafts/secret.md",
                    "resource://docs/fifo.md", "resource://docs/missing.md"]:
            with self.subTest(uri):
                r = self.read(uri)
                self.assertIn("error", r)
                self.assertIn("not found", r["error"]["message"])

    def test_listed(self):
        uris, cursor = [], None
        while True:
            r = self.client.request("resources/list", {"cursor": cursor} if cursor else {})
            uris += [x["uri"] for x in r["result"]["resources"]]
            cursor = r["result"].get("nextCursor")
            if not cursor:
                break
        docs = sorted(u for u in uris if u.startswith("resource://docs/"))
        self.assertEqual(docs, [
            "resource://docs/index.md",
            "resource://docs/skills/pdf-forms/SKILL.md",
            "resource://docs/skills/pdf-forms/references/fields.md",
            "resource://docs/start.md",
            "resource://docs/usage.md"])
        templates = self.client.request("resources/templates/list")["result"]
        self.assertIn("resource://docs/{path*}",
                      [t["uriTemplate"] for t in templates["resourceTemplates"]])


class DocsAutomount(unittest.TestCase):
    """skillsfs-mcp --docs-dir passes the folder to the skillsfs it runs."""

    def test_automount_with_docs(self):
        top = tempfile.mkdtemp(prefix="skillsfs-int-")
        self.addCleanup(shutil.rmtree, top, True)
        docs = make_docs(top)
        mnt = os.path.join(top, "mnt")
        client = McpClient(["--mount", mnt, "--skills-dir", EXAMPLE_SKILLS,
                            "--docs-dir", docs, "--linger", "0"], env=clean_env())
        try:
            client.handshake()
            r = client.request("resources/read", {"uri": "resource://docs/usage.md"})
            self.assertEqual(r["result"]["contents"][0]["text"], "# Usage\n")
        finally:
            self.assertEqual(client.close(), 0)
        # the keeper unmounts once no session holds the mount
        wait_for(lambda: not os.path.ismount(mnt), what="the mount to go after the last session")


if __name__ == "__main__":
    unittest.main(verbosity=2)
