#!/usr/bin/env python3
"""MCP servers as sources (--source mcp+http://...): a remote server with
the Skills extension, the official TypeScript SDK's (loadSkills and
createMcpHandler, tests/lib/mcpskillserver.py) on loopback, served as a
root: the files byte-identical to the server's folder; a file the server
sends with other bytes than its listing's digest never served and reported;
a server that dies, changes, or cannot be reached at start; a bearer token
from a file (token_file), the stateless 2026-07-28 era, a session that
expires, and https with a certificate that is trusted or not.  And the
same server over stdio, run by the mount from a config file's command:
(tests/mcp/lib/skills-stdio-server.mjs)."""

import errno
import hashlib
import json
import mmap
import os
import shutil
import signal
import subprocess
import sys
import time
import unittest

from mountlib import (FETCHING, SKILLSFS, Mount, MountTestCase, proc_files, wait_for,
                      write_skill)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from mcpskillserver import STDIO_SCRIPT, SkillServer  # noqa: E402


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def fill(folder):
    write_skill(folder, "pdf-forms", description="Fill in PDF forms.")
    write(os.path.join(folder, "pdf-forms", "references", "fields.md"),
          "# Fields\n\nname, date, signature\n")
    write(os.path.join(folder, "pdf-forms", "scripts", "fill.py"), "print('filled')\n")
    write_skill(folder, "csv-report", description="Summarize a CSV file.")
    write(os.path.join(folder, "csv-report", "template.md"), "| a | b |\n")


def files_of(folder):
    """relative path -> bytes for files, None for folders."""
    out = {}
    for dirpath, dirs, files in os.walk(folder):
        for name in dirs:
            out[os.path.relpath(os.path.join(dirpath, name), folder)] = None
        for name in files:
            p = os.path.join(dirpath, name)
            with open(p, "rb") as f:
                out[os.path.relpath(p, folder)] = f.read()
    return out


def slurp(path):
    with open(path, "rb") as f:
        return f.read()


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def root_status(m, i=0):
    return m.json("status.json")["roots"][i]


def diagnostics(m):
    return m.json("status.json")["diagnostics"]


def assert_lie_reported(t, m, lied, root, server):
    """The server's skill pdf-forms sends other bytes than it lists for
    lied: its other files are still served, and the next build reports
    lied once, as an error of the root naming the server and both
    digests; the bytes sent are never kept."""
    t.assertEqual(m.read("skills", "pdf-forms", "scripts", "fill.py"), b"print('filled')\n")
    m.sighup()
    listed = os.path.join(t.served, *lied[len("skill://"):].split("/"))
    with open(listed, "rb") as f:
        sent = hashlib.sha256(f.read() + b"tampered\n").hexdigest()
    found = [d for d in diagnostics(m) if lied in d["message"]]
    t.assertEqual(len(found), 1, diagnostics(m))
    t.assertEqual((found[0]["severity"], found[0]["file"]), ("error", root))
    for part in (server, "sha256:" + digest(listed), "sha256:" + sent):
        t.assertIn(part, found[0]["message"])
    t.assertNotIn(sent, os.listdir(os.path.join(t.cache, "mcp", "blobs")))


@unittest.skipUnless(SkillServer.available(),
                     "needs node and the MCP SDK (npm ci in tests/mcp)")
class McpSources(MountTestCase):
    def setUp(self):
        self.served = os.path.join(self.make_dir(), "skills")
        fill(self.served)
        self.cache = self.make_dir()

    def serve(self, lie=()):
        srv = SkillServer(self.served, lie=lie)
        self.addCleanup(srv.stop)
        return srv

    def mount_server(self, srv, roots=(), options=(), env=None):
        return self.mount(list(roots), ["--source", "mcp+" + srv.url,
                                        "-o", "cache_dir=" + self.cache,
                                        "-o", "fetch_interval=0"] + list(options), env=env)

    def test_files_are_the_servers(self):
        srv = self.serve()
        m = self.mount_server(srv)
        self.assertEqual(sorted(os.listdir(m.file("skills"))), ["csv-report", "pdf-forms"])
        for skill in ("csv-report", "pdf-forms"):
            self.assertEqual(files_of(m.file("skills", skill)),
                             files_of(os.path.join(self.served, skill)))
        root = root_status(m)
        self.assertEqual((root["kind"], root["exists"], root["skills"]), ("mcp", True, 2))
        self.assertRegex(root["listing"], "^[0-9a-f]{64}$")
        self.assertEqual(diagnostics(m), [])
        # the same listing fetched again is the same version
        m.sighup()
        self.assertEqual(root_status(m)["listing"], root["listing"])
        # verified bytes kept by digest: a read again needs no server
        blobs = os.listdir(os.path.join(self.cache, "mcp", "blobs"))
        self.assertIn(digest(os.path.join(self.served, "pdf-forms", "scripts", "fill.py")),
                      blobs)

    def test_bytes_that_do_not_match_the_listing_are_never_served(self):
        lied = "skill://pdf-forms/references/fields.md"
        srv = self.serve(lie=[lied, "skill://csv-report/SKILL.md"])
        m = self.mount_server(srv)
        # listed, and built from the listing: nothing was fetched yet
        self.assertEqual(sorted(os.listdir(m.file("skills"))), ["csv-report", "pdf-forms"])
        # a SKILL.md that does not match is never served (EIO, then, once
        # the build that read had made withdrew the skill, ENOENT)
        for _ in range(2):
            with self.assertRaises(OSError) as e:
                m.read("skills", "csv-report", "SKILL.md")
            self.assertIn(e.exception.errno, (errno.EIO, errno.ENOENT) if _ else (errno.EIO,))
        with self.assertRaises(OSError) as e:
            m.read("skills", "pdf-forms", "references", "fields.md")
        self.assertEqual(e.exception.errno, errno.EIO)
        with self.assertRaises(OSError) as e:   # again: still never served
            m.read("skills", "pdf-forms", "references", "fields.md")
        self.assertEqual(e.exception.errno, errno.EIO)
        assert_lie_reported(self, m, lied, "mcp+" + srv.url, srv.url)
        self.assertTrue(any("skill://csv-report/SKILL.md" in d["message"]
                            for d in diagnostics(m)), diagnostics(m))
        # and from that build on, the skill whose SKILL.md did not match
        # is not served at all
        self.assertEqual(os.listdir(m.file("skills")), ["pdf-forms"])

    def test_a_file_sent_with_other_bytes_is_in_status_json_at_once(self):
        # no timer (fetch_interval=0) and no SIGHUP: the read that found it
        # has a build made, which says it
        lied = "skill://pdf-forms/references/fields.md"
        srv = self.serve(lie=[lied])
        m = self.mount_server(srv)
        with self.assertRaises(OSError) as e:
            m.read("skills", "pdf-forms", "references", "fields.md")
        self.assertEqual(e.exception.errno, errno.EIO)
        wait_for(lambda: any(lied in d["message"] for d in diagnostics(m)), timeout=30,
                 what="the finding of the read in status.json")
        for _ in range(3):
            with self.assertRaises(OSError):
                m.read("skills", "pdf-forms", "references", "fields.md")
        self.assertEqual(len([d for d in diagnostics(m) if lied in d["message"]]), 1)

    def test_what_is_in_the_way_of_a_cached_file_is_removed(self):
        srv = self.serve()
        m = self.mount_server(srv)
        blobs = os.path.join(self.cache, "mcp", "blobs")
        os.makedirs(blobs, exist_ok=True)
        files = {name: os.path.join(self.served, *name.split("/")) for name in
                 ("pdf-forms/scripts/fill.py", "pdf-forms/references/fields.md",
                  "csv-report/template.md")}
        elsewhere = os.path.join(self.make_dir(), "other")
        write(elsewhere, "other bytes\n")
        # a symlink (to other bytes), an empty folder: removed, and the
        # file fetched again
        os.symlink(elsewhere, os.path.join(blobs, digest(files["pdf-forms/scripts/fill.py"])))
        os.mkdir(os.path.join(blobs, digest(files["pdf-forms/references/fields.md"])))
        for name in ("pdf-forms/scripts/fill.py", "pdf-forms/references/fields.md"):
            self.assertEqual(m.read("skills", *name.split("/")), slurp(files[name]))
            entry = os.path.join(blobs, digest(files[name]))
            self.assertFalse(os.path.islink(entry))
            self.assertEqual(slurp(entry), slurp(files[name]))
        self.assertEqual(slurp(elsewhere), b"other bytes\n")
        # a folder that holds something is no cache's: left, and said
        folder = os.path.join(blobs, digest(files["csv-report/template.md"]))
        write(os.path.join(folder, "kept"), "someone's\n")
        with self.assertRaises(OSError) as e:
            m.read("skills", "csv-report", "template.md")
        self.assertEqual(e.exception.errno, errno.EIO)
        wait_for(lambda: any(folder in d["message"] for d in diagnostics(m)), timeout=30,
                 what="the entry in the way, in status.json")
        [d] = [d for d in diagnostics(m) if folder in d["message"]]
        self.assertEqual(d["severity"], "error")
        self.assertIn("skill://csv-report/template.md: the cache entry %s is in the way"
                      % folder, d["message"])
        self.assertEqual(slurp(os.path.join(folder, "kept")), b"someone's\n")
        # once it is gone, the next build serves the file again
        shutil.rmtree(folder)
        m.sighup()
        self.assertEqual(m.read("skills", "csv-report", "template.md"),
                         slurp(files["csv-report/template.md"]))
        m.sighup()
        self.assertEqual([d for d in diagnostics(m) if folder in d["message"]], [])

    def test_a_cached_file_altered_since_is_fetched_again(self):
        # the cache folder is the user's: anything the user runs may write
        # there, so a kept file is hashed again each time it is opened
        srv = self.serve()
        m = self.mount_server(srv)
        path = ("skills", "pdf-forms", "references", "fields.md")
        want = slurp(os.path.join(self.served, "pdf-forms", "references", "fields.md"))
        self.assertEqual(m.read(*path), want)
        blob = os.path.join(self.cache, "mcp", "blobs", hashlib.sha256(want).hexdigest())
        with open(blob, "r+b") as f:   # the same size, other bytes
            f.write(b"X" * len(want))
        m.cleanup()
        m = self.mount_server(srv)   # the next mount opens the file again
        self.assertEqual(m.read(*path), want)
        self.assertEqual(slurp(blob), want)

    def test_a_cache_file_changed_through_a_shared_mapping_is_never_served(self):
        # a store through a writable shared mapping changes the bytes
        # without write(2), and without a new ctime once its page is
        # writable: no stat can tell; what was verified is what is served
        srv = self.serve()
        m = self.mount_server(srv, options=["-o", "retain=0"])
        path = ("skills", "pdf-forms", "references", "fields.md")
        want = slurp(os.path.join(self.served, "pdf-forms", "references", "fields.md"))
        self.assertEqual(m.read(*path), want)
        blob = os.path.join(self.cache, "mcp", "blobs", hashlib.sha256(want).hexdigest())

        def read_again():
            """A read that reaches the daemon: the mount's page cache of
            the file dropped first."""
            with open(m.file(*path), "rb") as f:
                os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
                return f.read()

        with open(blob, "r+b") as f:
            mm = mmap.mmap(f.fileno(), 0, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        try:
            mm[0:1] = mm[0:1]   # its page writable (and its ctime new) now
            self.assertEqual(read_again(), want)
            mm[0:3] = b"XXX"    # other bytes, the same ctime
            for _ in range(2):
                self.assertEqual(read_again(), want)
        finally:
            mm.close()

    def test_nothing_is_fetched_ahead_of_need(self):
        # SEP-2640: a SKILL.md is fetched when the skill is loaded, a
        # supporting file when it is read; the mount is built from the
        # listing's frontmatter.  The build after a SKILL.md was fetched
        # validates the file itself (here: a link to a missing file).
        write(os.path.join(self.served, "pdf-forms", "SKILL.md"),
              "---\nname: pdf-forms\ndescription: Fill in PDF forms.\n---\n"
              "# PDF forms\n\nSee [the fields](references/missing.md).\n")
        srv = self.serve()
        m = self.mount_server(srv)
        self.assertFalse(os.path.exists(os.path.join(self.cache, "mcp", "blobs")))
        for skill, text in (("pdf-forms", "Fill in PDF forms."),
                            ("csv-report", "Summarize a CSV file.")):
            self.assertEqual(m.json("catalog", skill + ".json")["description"], text)
        self.assertEqual(diagnostics(m), [])
        self.assertEqual(m.read("skills", "pdf-forms", "SKILL.md"),
                         slurp(os.path.join(self.served, "pdf-forms", "SKILL.md")))
        self.assertEqual(os.listdir(os.path.join(self.cache, "mcp", "blobs")),
                         [digest(os.path.join(self.served, "pdf-forms", "SKILL.md"))])
        def findings():
            return [d for s in m.json("status.json")["skills"] if s["id"] == "pdf-forms"
                    for d in s["diagnostics"]]
        self.assertEqual(findings(), [])
        m.sighup()
        [d] = findings()
        self.assertEqual(d["severity"], "warning")
        self.assertIn("references/missing.md", d["message"])

    def kept_units(self):
        """The one file of mcp-units (the skills a start kept for the next
        one)."""
        folder = os.path.join(self.cache, "mcp-units")
        names = os.listdir(folder) if os.path.isdir(folder) else []
        self.assertEqual(len(names), 1, "mcp-units holds %r" % names)
        return os.path.join(folder, names[0])

    def test_a_start_takes_the_kept_skills_unless_the_cache_changed(self):
        # A start that read a SKILL.md from the cache keeps the skills it
        # built (CACHE/mcp-units), and the next start takes each whole,
        # SKILL.md neither read nor validated again, while its listing
        # entry and what the cache holds of its files are the same; a
        # SKILL.md fetched since is validated from the file at the next
        # start (here: a link to a missing file), not taken as validated
        # from the listed frontmatter.  A start that read nothing from the
        # cache (a first mount) keeps nothing.
        for skill, text in (("pdf-forms", "Fill in PDF forms."),
                            ("csv-report", "Summarize a CSV file.")):
            write(os.path.join(self.served, skill, "SKILL.md"),
                  "---\nname: %s\ndescription: %s\n---\n# Body\n\n"
                  "See [the notes](references/missing.md).\n" % (skill, text))
        srv = self.serve()
        def findings(m, skill):
            return [d["message"] for s in m.json("status.json")["skills"]
                    if s["id"] == skill for d in s["diagnostics"]]
        units = os.path.join(self.cache, "mcp-units")
        self.mount_server(srv).cleanup()   # the listing in the cache
        m = self.mount_server(srv)
        self.assertEqual(findings(m, "pdf-forms"), [])
        m.read("skills", "pdf-forms", "SKILL.md")   # fetched, kept
        m.cleanup()
        self.assertFalse(os.path.exists(units) and os.listdir(units), "kept at a first mount")
        m = self.mount_server(srv)
        [d] = findings(m, "pdf-forms")
        self.assertIn("references/missing.md", d)
        self.assertEqual(findings(m, "csv-report"), [])
        index = m.read("index.json")
        m.cleanup()
        kept = self.kept_units()
        with open(kept, "rb") as f:
            self.assertIn(b"references/missing.md", f.read())
        m = self.mount_server(srv)
        self.assertEqual(m.read("index.json"), index)
        self.assertEqual(len(findings(m, "pdf-forms")), 1)
        self.assertEqual(findings(m, "csv-report"), [])
        self.assertFalse(any("mcp-units" in d["message"] for d in diagnostics(m)),
                         diagnostics(m))
        m.read("skills", "csv-report", "SKILL.md")   # fetched since it was kept
        m.cleanup()
        m = self.mount_server(srv)
        [d] = findings(m, "csv-report")
        self.assertIn("references/missing.md", d)
        m.cleanup()

    def test_forged_kept_skills_are_not_served_and_said(self):
        srv = self.serve()
        self.mount_server(srv).cleanup()   # the listing in the cache
        m = self.mount_server(srv)
        m.read("skills", "pdf-forms", "SKILL.md")
        m.cleanup()
        self.mount_server(srv).cleanup()   # the skills kept
        kept = self.kept_units()
        with open(kept, "rb") as f:
            real = f.read()
        forged = real.replace(b"Fill in PDF forms.", b"Fill in PDF FORMS.")
        self.assertNotEqual(forged, real)
        for data in (forged, real[:len(real) // 2]):
            with open(kept, "wb") as f:
                f.write(data)
            m = self.mount_server(srv)
            self.assertEqual(m.json("catalog", "pdf-forms.json")["description"],
                             "Fill in PDF forms.")
            self.assertTrue(any("mcp-units) are not used" in d["message"]
                                for d in diagnostics(m)), diagnostics(m))
            m.cleanup()

    def test_check_of_a_server_validates_every_skill_md(self):
        # skillsfs check --source fetches every SKILL.md with the listing:
        # validating is what it is for (a mount fetches none ahead of need)
        env = dict(os.environ, XDG_CACHE_HOME=self.make_dir())
        srv = self.serve()
        r = subprocess.run([SKILLSFS, "check", "--source", "mcp+" + srv.url], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("2 skills, 0 errors", r.stdout)
        blobs = os.listdir(os.path.join(env["XDG_CACHE_HOME"], "skillsfs", "mcp", "blobs"))
        self.assertEqual(sorted(blobs), sorted(
            digest(os.path.join(self.served, s, "SKILL.md")) for s in ("csv-report", "pdf-forms")))
        srv.stop()
        liar = self.serve(lie=["skill://pdf-forms/SKILL.md"])
        env["XDG_CACHE_HOME"] = self.make_dir()
        r = subprocess.run([SKILLSFS, "check", "--source", "mcp+" + liar.url], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("skill://pdf-forms/SKILL.md: %s sent" % liar.url, r.stdout)
        self.assertIn("2 skills, 2 errors", r.stdout)

    def test_frontmatter_that_differs_from_the_listing_is_never_served(self):
        # the bytes have the listed digest, but not the listed frontmatter
        lied = "skill://pdf-forms/SKILL.md"
        srv = SkillServer(self.served, lie_frontmatter=[lied])
        self.addCleanup(srv.stop)
        m = self.mount_server(srv)
        self.assertEqual(m.json("catalog", "pdf-forms.json")["description"],
                         "Fill in PDF forms. (altered)")
        # EIO, then ENOENT once the build the read had made withdrew it
        for _ in range(2):
            with self.assertRaises(OSError) as e:
                m.read("skills", "pdf-forms", "SKILL.md")
            self.assertIn(e.exception.errno, (errno.EIO, errno.ENOENT) if _ else (errno.EIO,))
        self.assertIn("skills/pdf-forms/SKILL.md: not served", m.stderr())
        m.sighup()
        found = [d for d in diagnostics(m) if lied in d["message"]]
        self.assertEqual(len(found), 1, diagnostics(m))
        self.assertEqual(found[0]["severity"], "error")
        self.assertIn("differs from the one its listing gives, in description",
                      found[0]["message"])
        self.assertEqual(os.listdir(m.file("skills")), ["csv-report"])
        self.assertFalse(os.path.exists(os.path.join(self.cache, "mcp", "blobs")))

    def test_server_that_dies_keeps_the_last_listing_served(self):
        srv = self.serve()
        m = self.mount_server(srv)
        listing = root_status(m)["listing"]
        self.assertEqual(m.read("skills", "csv-report", "template.md"), b"| a | b |\n")
        # a file is fetched when it is read, never ahead of need: also not
        # by a new generation (which copies the files that changed)
        m.sighup()
        self.assertEqual(os.listdir(os.path.join(self.cache, "mcp", "blobs")),
                         [digest(os.path.join(self.served, "csv-report", "template.md"))])
        self.assertEqual(m.read("skills", "csv-report", "SKILL.md"),
                         slurp(os.path.join(self.served, "csv-report", "SKILL.md")))
        srv.stop()
        m.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: any("serving the listing" in d["message"] for d in diagnostics(m)),
                 what="the failed update in status.json")
        [d] = diagnostics(m)
        self.assertEqual(d["severity"], "warning")
        self.assertIn("serving the listing %s, fetched before: cannot reach %s"
                      % (listing[:12], srv.url), d["message"])
        self.assertEqual(root_status(m)["listing"], listing)
        self.assertEqual(sorted(os.listdir(m.file("skills"))), ["csv-report", "pdf-forms"])
        # what was verified before is served; what never was cannot be
        self.assertEqual(m.read("skills", "csv-report", "template.md"), b"| a | b |\n")
        with open(os.path.join(self.served, "csv-report", "SKILL.md"), "rb") as f:
            self.assertEqual(m.read("skills", "csv-report", "SKILL.md"), f.read())
        for path in (("pdf-forms", "SKILL.md"), ("pdf-forms", "references", "fields.md")):
            with self.assertRaises(OSError) as e:
                m.read("skills", *path)
            self.assertEqual(e.exception.errno, errno.EIO)
            self.assertIn("skills/%s: not served" % "/".join(path), m.stderr())

    def test_skill_added_on_the_server_is_seen_after_sighup(self):
        srv = self.serve()
        m = self.mount_server(srv)
        listing = root_status(m)["listing"]
        write_skill(self.served, "writing", description="Write clearly.")
        srv.reload()
        # without SIGHUP nothing changes (fetch_interval=0)
        self.assertEqual(sorted(os.listdir(m.file("skills"))), ["csv-report", "pdf-forms"])
        m.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: "writing" in os.listdir(m.file("skills")),
                 what="the added skill after SIGHUP")
        self.assertNotEqual(root_status(m)["listing"], listing)
        self.assertEqual(files_of(m.file("skills", "writing")),
                         files_of(os.path.join(self.served, "writing")))
        self.assertEqual(diagnostics(m), [])

    def test_a_change_the_server_notifies_is_followed_at_once(self):
        # the stateless era's subscriptions/listen: the server says its
        # listing changed, and the mount lists it again without SIGHUP and
        # with no timer (fetch_interval=0)
        srv = SkillServer(self.served, era="modern")
        self.addCleanup(srv.stop)
        m = self.mount_server(srv)
        srv.expect("listening")
        listing = root_status(m)["listing"]
        write_skill(self.served, "writing", description="Write clearly.")
        self.assertTrue(srv.reload())
        wait_for(lambda: "writing" in os.listdir(m.file("skills")),
                 what="the skill the server said it added")
        self.assertNotEqual(root_status(m)["listing"], listing)
        self.assertEqual(files_of(m.file("skills", "writing")),
                         files_of(os.path.join(self.served, "writing")))
        # the listener keeps its stream: the next notification comes on it
        shutil.rmtree(os.path.join(self.served, "writing"))
        self.assertTrue(srv.reload())
        wait_for(lambda: "writing" not in os.listdir(m.file("skills")),
                 what="the skill the server said it removed")
        self.assertEqual(diagnostics(m), [])

    def test_a_server_that_never_stops_notifying_is_fetched_at_a_bounded_pace(self):
        # 400 notifications 10 ms apart, each with a listing that differs
        # from the one before; another server beside it, which says
        # nothing
        counts = os.path.join(self.make_dir(), "counts.json")
        quiet_counts = os.path.join(self.make_dir(), "quiet.json")
        srv = SkillServer(self.served, era="modern", storm=400, counts=counts)
        self.addCleanup(srv.stop)
        quiet_folder = os.path.join(self.make_dir(), "quiet")
        write_skill(quiet_folder, "quiet-skill")
        quiet = SkillServer(quiet_folder, era="modern", counts=quiet_counts)
        self.addCleanup(quiet.stop)

        def asked(path, method):
            with open(path) as f:
                return json.load(f).get(method, 0)

        start = time.monotonic()
        m = self.mount_server(srv, options=["--source", "mcp+" + quiet.url])
        gen = m.generation()
        line = srv._line()
        while line == "listening":
            line = srv._line()
        self.assertEqual(line, "storm over")
        # the last notifications are fetched once the gap is over
        lists = asked(counts, "skills/list")
        wait_for(lambda: asked(counts, "skills/list") > lists, timeout=30,
                 what="a fetch after the last notification")
        wait_for(lambda: m.generation() > gen and
                 sorted(os.listdir(m.file("skills"))) ==
                 ["csv-report", "pdf-forms", "quiet-skill"], timeout=30,
                 what="the last build")
        seconds = time.monotonic() - start
        # one stream, and a fetch (and a build) per 2 s at most, not one
        # per notification
        bound = 2 + int(seconds / 2)
        self.assertEqual(asked(counts, "subscriptions/listen"), 1)
        self.assertLessEqual(asked(counts, "skills/list"), bound)
        self.assertLessEqual(asked(counts, "initialize"), bound + 1)   # the stream's too
        self.assertLessEqual(m.generation() - gen, bound)
        # the root that said nothing was not fetched again: once, or
        # twice when the start gave up waiting for its first answer (a
        # loaded machine) and the fetcher's first turn asked again; once
        # too when that answer came while the first turn still waited
        deferred = "waiting for mcp+" + quiet.url in m.stderr()
        self.assertIn(asked(quiet_counts, "skills/list"),
                      (1, 2) if deferred else (1,))
        # the cache keeps the current listing and the one before it: a
        # fetch still under way holds a third until it prunes
        port = srv.url.split(":")[2].split("/")[0]
        [state] = [d for d in os.listdir(os.path.join(self.cache, "mcp"))
                   if d.startswith("127.0.0.1_%s-" % port)]
        wait_for(lambda: self.lists_of(state) <= 2, timeout=30,
                 what="at most two listings kept (%d now)" % self.lists_of(state))
        self.assertEqual(sorted(os.listdir(m.file("skills", "pdf-forms", "scripts"))),
                         ["fill.py"])

    def test_what_no_listing_names_is_pruned_from_the_cache(self):
        lied = "skill://pdf-forms/references/fields.md"
        srv = self.serve(lie=[lied])
        m = self.mount_server(srv)
        fill_py = os.path.join(self.served, "pdf-forms", "scripts", "fill.py")
        template = os.path.join(self.served, "csv-report", "template.md")
        blobs = os.path.join(self.cache, "mcp", "blobs")
        for parts in (("pdf-forms", "scripts", "fill.py"), ("csv-report", "template.md")):
            m.read("skills", *parts)
        # a record of a file not served as listed, and one of a digest
        # that no listing names
        with self.assertRaises(OSError):
            m.read("skills", "pdf-forms", "references", "fields.md")
        [state] = [d for d in os.listdir(os.path.join(self.cache, "mcp")) if d != "blobs"]
        stale = os.path.join(self.cache, "mcp", state, "mismatch-%s.json" % ("0" * 64))
        write(stale, "{}")
        # both verified files are older than the grace (ten minutes)
        for name in (digest(fill_py), digest(template)):
            os.utime(os.path.join(blobs, name), (time.time() - 3600,) * 2)
        write(fill_py, "print('changed')\n")
        srv.reload()
        for _ in range(3):   # three listings fetched: two are kept
            m.sighup()
            if _ == 0:
                write(fill_py, "print('changed again')\n")
                srv.reload()
        self.assertEqual(m.read("skills", "pdf-forms", "scripts", "fill.py"),
                         b"print('changed again')\n")
        # the bytes no listing names any more are gone; the rest stays
        kept = set(os.listdir(blobs))
        self.assertNotIn(hashlib.sha256(b"print('filled')\n").hexdigest(), kept)
        self.assertIn(digest(template), kept)
        self.assertIn(digest(fill_py), kept)
        self.assertLessEqual(self.lists_of(state), 2)
        self.assertFalse(os.path.exists(stale))
        self.assertEqual(len([d for d in diagnostics(m) if lied in d["message"]]), 1)

    def lists_of(self, state):
        """How many listings the server folder `state` of the cache keeps."""
        return len([n for n in os.listdir(os.path.join(self.cache, "mcp", state))
                    if n.startswith("listing-") and n.endswith(".json")])

    def test_the_listings_ttl_is_followed(self):
        # an hour's fetch_interval, but a listing the server holds fresh
        # for a second (ttlMs, in the 2026-07-28 era), and a change it
        # does not notify (a file's bytes: no skill added, removed or
        # renamed, so no list_changed)
        srv = SkillServer(self.served, era="modern", ttl_ms=1000)
        self.addCleanup(srv.stop)
        m = self.mount([], ["--source", "mcp+" + srv.url, "-o", "cache_dir=" + self.cache,
                            "-o", "fetch_interval=3600"])
        srv.expect("listening")
        self.assertEqual(m.read("skills", "pdf-forms", "scripts", "fill.py"),
                         b"print('filled')\n")
        write(os.path.join(self.served, "pdf-forms", "scripts", "fill.py"), "print('done')\n")
        srv.reload()
        wait_for(lambda: m.read("skills", "pdf-forms", "scripts", "fill.py") ==
                 b"print('done')\n", what="the new bytes once the listing's ttlMs ran out")

    def test_the_ttl_of_a_server_the_start_did_not_wait_for(self):
        # the server is stopped while the mount starts, so the start goes
        # on without it and its first listing (with its ttlMs) comes on
        # the fetcher's first turn; that turn must set the next fetch by
        # the ttl, not leave it at fetch_interval's hour
        srv = SkillServer(self.served, era="modern", ttl_ms=1000)
        self.addCleanup(srv.stop)
        os.kill(srv.proc.pid, signal.SIGSTOP)
        self.addCleanup(lambda: srv.proc.poll() is None and
                        os.kill(srv.proc.pid, signal.SIGCONT))
        m = self.mount([], ["--source", "mcp+" + srv.url, "-o", "cache_dir=" + self.cache,
                            "-o", "fetch_interval=3600"], wait_fetched=False)
        self.assertIn(FETCHING, " ".join(d["message"] for d in diagnostics(m)))
        os.kill(srv.proc.pid, signal.SIGCONT)
        srv.expect("listening")
        wait_for(lambda: m.read("skills", "pdf-forms", "scripts", "fill.py") ==
                 b"print('filled')\n", what="the server's skill once it answers")
        write(os.path.join(self.served, "pdf-forms", "scripts", "fill.py"), "print('done')\n")
        srv.reload()
        wait_for(lambda: m.read("skills", "pdf-forms", "scripts", "fill.py") ==
                 b"print('done')\n", what="the new bytes once the listing's ttlMs ran out")

    def mount_config(self, srv, token_file=None, env=None):
        """A mount whose config file names the server, with token_file."""
        path = os.path.join(self.make_dir(), "skillsfs.yaml")
        entry = "  - url: mcp+%s\n" % srv.url
        if token_file:
            entry += "    token_file: %s\n" % token_file
        write(path, "sources:\n" + entry + "options:\n  cache_dir: %s\n"
              "  fetch_interval: 0\n" % self.cache)
        return self.mount([], ["--config", path], env=env)

    def token_server(self):
        """A server that wants the token alpha-1 from its token file, and
        our own token file holding it: (their folder, the server's, ours,
        the server)."""
        keys = self.make_dir()
        server_token = os.path.join(keys, "server.token")
        ours = os.path.join(keys, "ours.token")
        write(server_token, "alpha-1\n")
        write(ours, "alpha-1\n")
        os.chmod(ours, 0o600)   # a token file others may read is refused
        srv = SkillServer(self.served, token_file=server_token)
        self.addCleanup(srv.stop)
        return keys, server_token, ours, srv

    def test_bearer_token_from_a_file(self):
        _, server_token, ours, srv = self.token_server()
        m = self.mount_config(srv, token_file=ours)
        self.assertEqual(files_of(m.file("skills", "csv-report")),
                         files_of(os.path.join(self.served, "csv-report")))
        # a rotated token is read again: for the listing and for a read
        write(server_token, "beta-2\n")
        write(ours, "beta-2\n")
        m.sighup()
        self.assertEqual(diagnostics(m), [])
        self.assertEqual(m.read("skills", "pdf-forms", "scripts", "fill.py"),
                         b"print('filled')\n")
        # a token the server refuses: said with the file, never the token
        write(ours, "gamma-3\n")
        m.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: any("refused the token" in d["message"] for d in diagnostics(m)),
                 what="the refused token in status.json")
        [d] = diagnostics(m)
        self.assertIn("the server refused the token in %s (401)" % ours, d["message"])
        with open(m.file("status.json")) as f:
            status = f.read()
        for token in ("alpha-1", "beta-2", "gamma-3"):
            self.assertNotIn(token, status)
            self.assertNotIn(token, m.stderr())
        # what was verified before is still served
        self.assertEqual(m.read("skills", "csv-report", "template.md"), b"| a | b |\n")

    def test_export_of_a_server_that_needs_a_token(self):
        # skillsfs export --config reads the sources as check does: the
        # server's token from token_file, every file verified against the
        # listing's digest; the upload projection changes SKILL.md only
        keys, _, ours, srv = self.token_server()
        config = os.path.join(keys, "skillsfs.yaml")
        write(config, "sources:\n  - url: mcp+%s\n    token_file: %s\n"
              "options:\n  cache_dir: %s\n" % (srv.url, ours, self.cache))
        out = os.path.join(self.make_dir(), "upload")
        r = subprocess.run([SKILLSFS, "export", "--anthropic", out, "--config", config],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("2 skills exported", r.stdout)
        for skill in ("pdf-forms", "csv-report"):
            want = files_of(os.path.join(self.served, skill))
            got = files_of(os.path.join(out, skill))
            self.assertEqual(sorted(got), sorted(want))
            for rel, data in want.items():
                if rel != "SKILL.md":
                    self.assertEqual(got[rel], data, rel)
            self.assertIn(b"name: " + skill.encode(), got["SKILL.md"])
        # without the token the server refuses, and export says so
        write(ours, "wrong\n")
        out2 = os.path.join(self.make_dir(), "upload")
        r = subprocess.run([SKILLSFS, "export", "--anthropic", out2, "--config", config],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertIn("refused the token in %s" % ours, r.stdout)

    def test_a_server_that_needs_a_token_says_so(self):
        keys = self.make_dir()
        server_token = os.path.join(keys, "server.token")
        write(server_token, "alpha-1\n")
        srv = SkillServer(self.served, token_file=server_token)
        self.addCleanup(srv.stop)
        m = self.mount_server(srv)
        self.assertEqual(os.listdir(m.file("skills")), [])
        [d] = diagnostics(m)
        self.assertEqual(d["severity"], "error")
        self.assertIn("needs a token (401): give token_file", d["message"])

    def test_stateless_era(self):
        # the SDK's createMcpHandler with legacy: 'reject' refuses
        # initialize: only 2026-07-28 requests, each with its _meta
        srv = SkillServer(self.served, era="modern")
        self.addCleanup(srv.stop)
        m = self.mount_server(srv)
        for skill in ("csv-report", "pdf-forms"):
            self.assertEqual(files_of(m.file("skills", skill)),
                             files_of(os.path.join(self.served, skill)))
        self.assertEqual(diagnostics(m), [])
        self.assertEqual(root_status(m)["skills"], 2)

    def test_an_expired_session_is_begun_again(self):
        # the 2nd request of the session (skills/list, after the
        # initialized notification) is answered 404: the session expired;
        # the client makes a new handshake and asks again
        srv = SkillServer(self.served, sessions=2)
        self.addCleanup(srv.stop)
        m = self.mount_server(srv)
        srv.expect("expired")
        self.assertEqual(diagnostics(m), [])
        for skill in ("csv-report", "pdf-forms"):
            self.assertEqual(files_of(m.file("skills", skill)),
                             files_of(os.path.join(self.served, skill)))

    def certificate(self, folder, name):
        """A self-signed certificate for 127.0.0.1: (cert, key)."""
        cert, key = (os.path.join(folder, name + ext) for ext in (".pem", ".key"))
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                        "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1",
                        "-addext", "subjectAltName=IP:127.0.0.1"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return cert, key

    def test_https(self):
        keys = self.make_dir()
        cert, key = self.certificate(keys, "server")
        other, _ = self.certificate(keys, "other")
        srv = SkillServer(self.served, tls=(cert, key))
        self.addCleanup(srv.stop)
        self.assertTrue(srv.url.startswith("https://127.0.0.1:"))
        m = self.mount_server(srv, env=dict(os.environ, SSL_CERT_FILE=cert))
        self.assertEqual(files_of(m.file("skills", "pdf-forms")),
                         files_of(os.path.join(self.served, "pdf-forms")))
        self.assertEqual(diagnostics(m), [])
        m.cleanup()
        # a certificate no trusted authority signed: not fetched, and said
        self.cache = self.make_dir()
        untrusted = self.mount_server(srv, env=dict(os.environ, SSL_CERT_FILE=other))
        self.assertEqual(os.listdir(untrusted.file("skills")), [])
        [d] = diagnostics(untrusted)
        self.assertIn("not fetched yet: cannot reach %s" % srv.url, d["message"])
        self.assertIn("certificate", d["message"])

    def unreachable_url(self):
        srv = SkillServer(self.served)
        srv.stop()
        return srv.url

    def test_unreachable_at_start_is_reported_and_the_rest_served(self):
        url = self.unreachable_url()
        folder = self.make_dir()
        write_skill(folder, "local-skill")
        m = self.mount([folder], ["--source", "mcp+" + url, "-o", "cache_dir=" + self.cache])
        self.assertEqual(os.listdir(m.file("skills")), ["local-skill"])
        root = root_status(m, 1)
        self.assertEqual((root["kind"], root["exists"], root["listing"]), ("mcp", False, None))
        [d] = diagnostics(m)
        self.assertEqual((d["severity"], d["file"]), ("error", "mcp+" + url))
        self.assertIn("not fetched yet: cannot reach %s" % url, d["message"])

    def test_unreachable_at_start_ends_a_strict_mount(self):
        url = self.unreachable_url()
        m = Mount([], ["--source", "mcp+" + url, "-o", "cache_dir=" + self.cache,
                       "-o", "strict"])
        self.addCleanup(m.cleanup)
        m._stderr = open(m.stderr_path, "wb")
        m.proc = subprocess.Popen(m.argv(), stdout=subprocess.DEVNULL, stderr=m._stderr)
        self.assertEqual(m.proc.wait(timeout=60), 1)
        self.assertIn("-o strict: the source mcp+%s cannot be read" % url, m.stderr())


def children(pid):
    """(pid, state) of each process whose parent is pid, from /proc."""
    out = []
    for child, stat in proc_files("stat"):
        fields = stat[stat.rindex(b")") + 2:].decode().split()
        if int(fields[1]) == pid:
            out.append((child, fields[0]))
    return out


def alive(pid):
    """Whether pid is a process that has not ended (a zombie has)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


@unittest.skipUnless(SkillServer.available(),
                     "needs node and the MCP SDK (npm ci in tests/mcp)")
class McpStdioSources(MountTestCase):
    """An MCP server that the mount runs from a config file's command:
    (mcp+stdio:NAME), spoken to on its stdin and stdout."""

    SECRET = "s3cret-env-v4lue"

    def setUp(self):
        self.served = os.path.join(self.make_dir(), "skills")
        fill(self.served)
        self.cache = self.make_dir()

    def config(self, roots=(), lie=(), unless=None, name="team", command="node"):
        """A config file with the stdio server's entry (JSON is YAML)."""
        args = [STDIO_SCRIPT, self.served]
        for uri in lie:
            args += ["--lie", uri]
        if unless:
            args += ["--unless", unless]
        text = "roots: %s\n" % json.dumps(list(roots)) if roots else ""
        text += "sources:\n  - command: %s\n    args: %s\n" % (json.dumps(command),
                                                              json.dumps(args))
        text += "    env: {SKILLSFS_TEST_SECRET: %s}\n" % json.dumps(self.SECRET)
        if name:
            text += "    name: %s\n" % name
        text += "options:\n  cache_dir: %s\n  fetch_interval: 0\n" % json.dumps(self.cache)
        path = os.path.join(self.make_dir(), "skillsfs.yaml")
        write(path, text)
        return path

    def mount_config(self, path, options=()):
        return self.mount([], ["--config", path] + list(options))

    def servers(self, m):
        """The daemon's children that still run."""
        return [pid for pid, state in children(m.proc.pid) if state != "Z"]

    def test_files_are_the_servers(self):
        m = self.mount_config(self.config())
        root = root_status(m)
        self.assertEqual((root["kind"], root["path"], root["exists"], root["skills"]),
                         ("mcp", "mcp+stdio:team", True, 2))
        self.assertRegex(root["listing"], "^[0-9a-f]{64}$")
        self.assertEqual(diagnostics(m), [])
        # listed, nothing fetched: each file is fetched at its first read
        blobs = os.path.join(self.cache, "mcp", "blobs")
        self.assertFalse(os.path.exists(blobs))
        self.assertEqual(m.read("skills", "csv-report", "template.md"), b"| a | b |\n")
        self.assertEqual(os.listdir(blobs),
                         [digest(os.path.join(self.served, "csv-report", "template.md"))])
        self.assertEqual(sorted(os.listdir(m.file("skills"))), ["csv-report", "pdf-forms"])
        for skill in ("csv-report", "pdf-forms"):
            self.assertEqual(files_of(m.file("skills", skill)),
                             files_of(os.path.join(self.served, skill)))
        # the reads' server is kept, with env: over the daemon's environment
        [server] = self.servers(m)
        with open("/proc/%d/environ" % server, "rb") as f:
            environ = f.read().split(b"\0")
        self.assertIn(b"SKILLSFS_TEST_SECRET=" + self.SECRET.encode(), environ)
        self.assertIn(b"PATH=" + os.environ["PATH"].encode(), environ)
        # the same listing fetched again (a server run for it) is the same
        m.sighup()
        self.assertEqual(root_status(m)["listing"], root["listing"])
        self.assertEqual(diagnostics(m), [])
        self.assertNotIn(self.SECRET, m.read("status.json").decode())
        pids = [pid for pid, _ in children(m.proc.pid)]
        m.cleanup()
        self.assertNotIn(self.SECRET, m.stderr())
        # no server is left once the mount ended
        for pid in pids:
            self.assertFalse(alive(pid), "the server %d outlived the mount" % pid)

    def test_bytes_that_do_not_match_the_listing_are_never_served(self):
        lied = "skill://pdf-forms/references/fields.md"
        m = self.mount_config(self.config(lie=[lied], name=None))
        self.assertEqual(root_status(m)["path"], "mcp+stdio:node")
        for _ in range(2):
            with self.assertRaises(OSError) as e:
                m.read("skills", "pdf-forms", "references", "fields.md")
            self.assertEqual(e.exception.errno, errno.EIO)
        self.assertIn("skills/pdf-forms/references/fields.md: not served", m.stderr())
        assert_lie_reported(self, m, lied, "mcp+stdio:node", shutil.which("node"))

    def test_a_command_that_does_not_exist(self):
        folder = self.make_dir()
        write_skill(folder, "local-skill")
        missing = os.path.join(self.make_dir(), "no-such-server")
        path = self.config(roots=[folder], command=missing, name="gone")
        m = self.mount_config(path)
        self.assertEqual(os.listdir(m.file("skills")), ["local-skill"])
        root = root_status(m, 1)
        self.assertEqual((root["kind"], root["path"], root["exists"]),
                         ("mcp", "mcp+stdio:gone", False))
        [d] = diagnostics(m)
        self.assertEqual((d["severity"], d["file"]), ("error", "mcp+stdio:gone"))
        self.assertIn("not fetched yet: cannot run the MCP server %s" % missing,
                      d["message"])
        m.cleanup()
        # with -o strict the mount ends
        strict = Mount([], ["--config", path, "-o", "strict"])
        self.addCleanup(strict.cleanup)
        strict._stderr = open(strict.stderr_path, "wb")
        strict.proc = subprocess.Popen(strict.argv(), stdout=subprocess.DEVNULL,
                                       stderr=strict._stderr)
        self.assertEqual(strict.proc.wait(timeout=60), 1)
        self.assertIn("-o strict: the source mcp+stdio:gone cannot be read", strict.stderr())

    def test_a_server_that_dies_mid_session(self):
        flag = os.path.join(self.make_dir(), "down")
        m = self.mount_config(self.config(unless=flag))
        listing = root_status(m)["listing"]
        self.assertEqual(m.read("skills", "csv-report", "template.md"), b"| a | b |\n")
        [server] = self.servers(m)
        # from now on the command exits at once (status 3); the running
        # server dies
        write(flag, "")
        os.kill(server, signal.SIGKILL)
        # what was fetched before is served; a new read fails, and is said
        self.assertEqual(m.read("skills", "csv-report", "template.md"), b"| a | b |\n")
        with self.assertRaises(OSError) as e:
            m.read("skills", "pdf-forms", "SKILL.md")
        self.assertEqual(e.exception.errno, errno.EIO)
        self.assertIn("skills/pdf-forms/SKILL.md: not served", m.stderr())
        # the dead server and the one that exited at once were reaped
        self.assertEqual(children(m.proc.pid), [])
        # the next SIGHUP reports it, and the last listing is served
        m.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: any("serving the listing" in d["message"] for d in diagnostics(m)),
                 what="the failed update in status.json")
        [d] = diagnostics(m)
        self.assertEqual((d["severity"], d["file"]), ("warning", "mcp+stdio:team"))
        self.assertIn("serving the listing %s, fetched before: the MCP server %s exited "
                      "with status 3 before answering initialize"
                      % (listing[:12], shutil.which("node")), d["message"])
        self.assertEqual(root_status(m)["listing"], listing)
        self.assertEqual(m.read("skills", "csv-report", "template.md"), b"| a | b |\n")
        self.assertEqual(children(m.proc.pid), [])

    def test_what_a_wrapper_started_ends_with_its_fetch_and_the_mount(self):
        # the command starts a helper of its own that stays when the
        # server exits: the fetch ends its whole process group, and so
        # does the mount its reads' server
        mark = "%d.%d" % (300 + os.getpid() % 600, os.getpid())
        script = "sleep %s & exec %s %s %s" % (mark, shutil.which("node"), STDIO_SCRIPT,
                                              self.served)
        path = self.config(command="sh")
        with open(path) as f:
            text = f.read()
        write(path, text.replace(json.dumps([STDIO_SCRIPT, self.served]),
                                 json.dumps(["-c", script])))

        def helpers():
            """The helpers still running, found by their marked command line."""
            found = []
            for name in os.listdir("/proc"):
                try:
                    with open("/proc/%s/cmdline" % name, "rb") as f:
                        argv = f.read().split(b"\0")
                except OSError:
                    continue
                if argv[:2] == [b"sleep", mark.encode()] and alive(int(name)):
                    found.append(int(name))
            return found

        self.addCleanup(lambda: [os.kill(pid, signal.SIGKILL) for pid in helpers()])
        m = self.mount_config(path)
        self.assertEqual(root_status(m)["skills"], 2)
        self.assertEqual(helpers(), [], "the first fetch's helper outlived it")
        # a read keeps a server (and its helper) for the next reads
        self.assertEqual(m.read("skills", "csv-report", "template.md"), b"| a | b |\n")
        self.assertEqual(len(helpers()), 1)
        for _ in range(3):
            m.sighup()
        # (the reads' server of a generation ends with it)
        self.assertLessEqual(len(helpers()), 1, "a fetch's helper outlived it")
        self.assertEqual(m.read("skills", "pdf-forms", "scripts", "fill.py"),
                         b"print('filled')\n")
        m.stop()
        self.assertEqual(m.proc.returncode, 0)
        self.assertEqual(helpers(), [], "a helper outlived the mount")
        # and a daemon ended by SIGTERM ends them too
        m = self.mount_config(path)
        self.assertEqual(m.read("skills", "pdf-forms", "references", "fields.md"),
                         b"# Fields\n\nname, date, signature\n")   # not in the cache yet
        self.assertEqual(len(helpers()), 1)
        self.assertEqual(m.terminate(), 0)
        self.assertEqual(helpers(), [], "a helper outlived the daemon's SIGTERM")

    def test_commands_that_exit_or_write_garbage(self):
        folder = self.make_dir()
        write_skill(folder, "local-skill")
        sh = shutil.which("sh")
        path = os.path.join(self.make_dir(), "skillsfs.yaml")
        write(path, "roots: [%s]\nsources:\n"
              "  - {command: sh, args: [-c, 'exit 7'], name: quits}\n"
              "  - {command: sh, args: [-c, 'echo not json; read line'], name: garbage}\n"
              "options:\n  cache_dir: %s\n  fetch_interval: 0\n"
              % (json.dumps(folder), json.dumps(self.cache)))
        m = self.mount_config(path)
        self.assertEqual(os.listdir(m.file("skills")), ["local-skill"])
        found = {d["file"]: d["message"] for d in diagnostics(m)}
        self.assertEqual(sorted(found), ["mcp+stdio:garbage", "mcp+stdio:quits"])
        self.assertIn("the MCP server %s exited with status 7 before answering "
                      "initialize" % sh, found["mcp+stdio:quits"])
        self.assertIn("the MCP server %s wrote a line that is not a JSON-RPC message"
                      % sh, found["mcp+stdio:garbage"])
        self.assertEqual(children(m.proc.pid), [])

    def test_the_command_line_cannot_name_one(self):
        # --source mcp+stdio:NAME has no command to run
        mnt = self.make_dir()
        for argv in ([SKILLSFS, mnt, "--source", "mcp+stdio:team"],
                     [SKILLSFS, "check", "--source", "mcp+stdio:team"]):
            r = subprocess.run(argv, capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("bad --source 'mcp+stdio:team'", r.stderr)
            self.assertIn("config file's sources: with command:", r.stderr)

    def test_check_validates_every_skill_md(self):
        r = subprocess.run([SKILLSFS, "check", "--config", self.config()],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        blobs = os.listdir(os.path.join(self.cache, "mcp", "blobs"))
        for skill in ("csv-report", "pdf-forms"):
            self.assertIn(digest(os.path.join(self.served, skill, "SKILL.md")), blobs)

    def test_a_lock_of_a_stdio_server(self):
        # locked by its name and its skills' digests; a mount of the lock
        # takes the command from --config, and cannot run one without it
        conf = self.config()
        m = self.mount_config(conf)
        index = m.read("index.json")
        lock = os.path.join(self.make_dir(), "skills.lock")
        r = subprocess.run([SKILLSFS, "lock", "-o", lock, m.path], capture_output=True,
                           text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        m.cleanup()
        with open(lock) as f:
            [source] = json.load(f)["sources"]
        self.assertEqual(source["url"], "mcp+stdio:team")
        self.assertEqual(sorted(source["skills"]), ["csv-report", "pdf-forms"])
        shutil.rmtree(self.cache)
        m = self.mount([], ["--lock", lock, "--config", conf])
        self.assertEqual(m.read("index.json"), index)
        m.cleanup()
        mnt = self.make_dir()
        r = subprocess.run([SKILLSFS, mnt, "--lock", lock, "-f", "-o",
                            "cache_dir=" + self.make_dir()],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("mcp+stdio:team has no command to run", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
