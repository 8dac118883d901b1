#!/usr/bin/env python3
"""A website's well-known skills index as a source (--source http://...):
a hand-written index (the Agent Skills Discovery RFC v0.2.0) served by
Python's http.server on 127.0.0.1: every file byte-identical and verified
against its digest, nothing but the index and SKILL.md fetched ahead of
need, a package unpacked, a SKILL.md or a file whose bytes disagree with
its digest not served and named in status.json while the rest is served,
a v0.1 index served with a warning, a change followed on SIGHUP, a
lockfile's pin, the index's HTTP caching (max-age, no-store, a 304 to
If-None-Match); and one skillsfs reading what another's skillsfs-mcp
--http publishes."""

import email.utils
import errno
import gzip
import hashlib
import http.server
import io
import json
import os
import re
import signal
import subprocess
import tarfile
import threading
import time
import unittest

from mountlib import SKILLSFS, Mount, MountTestCase, wait_for, write_skill

SKILLSFS_MCP = os.environ.get("SKILLSFS_MCP", "skillsfs-mcp")
WK = os.path.join(".well-known", "agent-skills")


def sha(data):
    return hashlib.sha256(data).hexdigest()


def skill_md(name, description):
    return ("---\nname: %s\ndescription: %s\n---\n\n# %s\n\nBody.\n"
            % (name, description, name)).encode()


def entry(name, description, files, digests=None):
    """A v0.2.0 index entry for files (path -> bytes); digests overrides
    a file's listed digest (a lie)."""
    listed = [{"path": p, "digest": "sha256:" + (digests or {}).get(p, sha(b))}
              for p, b in sorted(files.items())]
    lines = b"".join(f["path"].encode() + b"\0" + f["digest"][7:].encode() + b"\n"
                     for f in listed)
    return {"name": name, "description": description,
            "digest": "sha256:" + sha(lines), "files": listed}


class Site:
    """A static website on 127.0.0.1 serving a folder, which keeps the
    paths and methods of the requests it answered, and the headers of
    each GET of the index.  index_headers go with every answer for the
    index; with etag, the index has an ETag (of its bytes) and a GET
    whose If-None-Match names it is answered 304."""

    def __init__(self, folder):
        self.folder = folder
        self.requests = []
        self.authorizations = []  # (path, its Authorization header or None)
        self.index_gets = []      # (headers, status)
        self.index_headers = {}
        self.etag = False
        self.stalled = set()      # (method, path) never answered
        self.released = threading.Event()
        site = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *a, **kw):
                super().__init__(*a, directory=folder, **kw)

            def send_head(self):
                site.requests.append((self.command, self.path))
                site.authorizations.append((self.path, self.headers.get("Authorization")))
                if (self.command, self.path) in site.stalled:
                    site.released.wait()
                    return None
                if self.path == "/" + WK + "/index.json" and self.command == "GET":
                    return self.index_head()
                return super().send_head()

            def index_head(self):
                if not site.etag:
                    f = super().send_head()
                    site.index_gets.append((dict(self.headers), 200 if f else 304))
                    return f
                with open(os.path.join(folder, WK, "index.json"), "rb") as f:
                    data = f.read()
                tag = '"%s"' % sha(data)[:16]
                status = 304 if self.headers.get("If-None-Match") == tag else 200
                site.index_gets.append((dict(self.headers), status))
                self.send_response(status)
                self.send_header("ETag", tag)
                if status == 304:
                    self.end_headers()
                    return None
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                return io.BytesIO(data)

            def end_headers(self):
                if self.path == "/" + WK + "/index.json":
                    for k, v in site.index_headers.items():
                        self.send_header(k, v)
                super().end_headers()

            def log_message(self, *a):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]

    def stop(self):
        self.released.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=10)

    def put(self, rel, data):
        path = os.path.join(self.folder, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)

    def put_skill(self, name, files):
        for p, b in files.items():
            self.put(os.path.join(WK, name, p), b)

    def put_index(self, skills, version="0.2.0"):
        doc = {"skills": skills}
        if version:
            doc["version"] = version
        self.put(os.path.join(WK, "index.json"), json.dumps(doc).encode())

    def gets(self, name, path):
        return ("GET", "/.well-known/agent-skills/%s/%s" % (name, path)) in self.requests


PDF = {"SKILL.md": skill_md("pdf-forms", "Fill in PDF forms."),
       "references/fields.md": b"# Fields\n\nname, date, signature\n"}
CSV = {"SKILL.md": skill_md("csv-report", "Summarize a CSV file."),
       "template.md": b"| a | b |\n"}
PACKED = {"SKILL.md": skill_md("packed", "Comes as a package."),
          "scripts/run.sh": b"echo packed\n"}


def targz(files):
    """A package: the skill folder is the archive's root."""
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as z:
        with tarfile.open(fileobj=z, mode="w") as t:
            for p, b in sorted(files.items()):
                info = tarfile.TarInfo(p)
                info.size = len(b)
                t.addfile(info, io.BytesIO(b))
    return out.getvalue()


def diagnostics(m):
    return m.json("status.json")["diagnostics"]


def skill_states(m):
    return {s["id"]: (s["state"], [d["message"] for d in s["diagnostics"]])
            for s in m.json("status.json")["skills"]}


class WellKnownSource(MountTestCase):
    def setUp(self):
        self.site = Site(self.make_dir())
        self.addCleanup(self.site.stop)
        self.cache = self.make_dir()
        self.site.put_skill("pdf-forms", PDF)
        self.site.put_skill("csv-report", CSV)

    def mount_site(self, options=(), env=None, interval=0):
        return self.mount([], ["--source", self.site.url, "-o", "cache_dir=" + self.cache,
                               "-o", "fetch_interval=%d" % interval] + list(options),
                          env=env)

    def sighup(self, m):
        """SIGHUP after the site changed its index: waits for the build of
        the index it then fetched.  A generation number alone could be
        a build already under way when the signal came (the one that
        records a lie found by a read, say), made from the index before."""
        index = lambda: m.json("status.json")["roots"][0].get("index")
        gen, before = m.generation(), index()
        m.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: m.generation() > gen and index() != before,
                 what="the build of the index SIGHUP fetched")

    def test_files_are_the_sites_and_fetched_at_need(self):
        self.site.put_index([entry("csv-report", "Summarize a CSV file.", CSV),
                             entry("pdf-forms", "Fill in PDF forms.", PDF)])
        m = self.mount_site()
        root = m.json("status.json")["roots"][0]
        self.assertEqual((root["kind"], root["path"], root["exists"], root["skills"]),
                         ("wellknown", self.site.url, True, 2))
        self.assertRegex(root["index"], "^[0-9a-f]{64}$")
        self.assertEqual(diagnostics(m), [])
        # the index and each SKILL.md, nothing else yet (a HEAD for a size)
        self.assertTrue(self.site.gets("pdf-forms", "SKILL.md"))
        self.assertFalse(self.site.gets("pdf-forms", "references/fields.md"))
        self.assertIn(("HEAD", "/.well-known/agent-skills/pdf-forms/references/fields.md"),
                      self.site.requests)
        for name, files in (("pdf-forms", PDF), ("csv-report", CSV)):
            for p, b in files.items():
                self.assertEqual(m.read("skills", name, *p.split("/")), b)
                self.assertEqual(os.stat(m.file("skills", name, *p.split("/"))).st_size, len(b))
        self.assertTrue(self.site.gets("pdf-forms", "references/fields.md"))
        self.assertEqual(sorted(os.listdir(m.file("skills"))), ["csv-report", "pdf-forms"])

    def test_a_cached_file_altered_since_is_fetched_again(self):
        # the cache folder is the user's: a kept file is hashed at a
        # generation's first open of it
        self.site.put_index([entry("pdf-forms", "Fill in PDF forms.", PDF)])
        m = self.mount_site()
        path = ("skills", "pdf-forms", "references", "fields.md")
        want = PDF["references/fields.md"]
        self.assertEqual(m.read(*path), want)
        blob = os.path.join(self.cache, "wellknown", "blobs", sha(want))
        with open(blob, "r+b") as f:   # the same size, other bytes
            f.write(b"X" * len(want))
        m.cleanup()
        m = self.mount_site()   # the next mount opens the file again
        self.assertEqual(m.read(*path), want)
        with open(blob, "rb") as f:
            self.assertEqual(f.read(), want)

    def test_a_size_in_the_index_saves_the_head(self):
        pdf = entry("pdf-forms", "Fill in PDF forms.", PDF)
        for f in pdf["files"]:
            f["size"] = len(PDF[f["path"]])
        self.site.put_index([pdf])
        m = self.mount_site()
        self.assertFalse(any(method == "HEAD" for method, _ in self.site.requests))
        self.assertFalse(self.site.gets("pdf-forms", "references/fields.md"))
        self.assertEqual(os.stat(m.file("skills", "pdf-forms", "references", "fields.md")).st_size,
                         len(PDF["references/fields.md"]))
        self.assertEqual(m.read("skills", "pdf-forms", "references", "fields.md"),
                         PDF["references/fields.md"])

    def test_bytes_that_disagree_with_their_digest_are_never_served(self):
        liar_md = skill_md("liar-md", "Its SKILL.md is not the listed one.")
        liar = {"SKILL.md": skill_md("liar-file", "One of its files lies."),
                "notes.md": b"the real notes\n"}
        self.site.put_skill("liar-md", {"SKILL.md": liar_md})
        self.site.put_skill("liar-file", liar)
        self.site.put_index([
            entry("csv-report", "Summarize a CSV file.", CSV),
            entry("liar-md", "Its SKILL.md is not the listed one.", {"SKILL.md": liar_md},
                  digests={"SKILL.md": sha(b"other bytes")}),
            entry("liar-file", "One of its files lies.", liar,
                  digests={"notes.md": sha(b"other notes\n")}),
            entry("pdf-forms", "Fill in PDF forms.", PDF)])
        m = self.mount_site()
        # the SKILL.md is checked at the fetch: the skill is left out
        [d] = diagnostics(m)
        self.assertEqual(d["severity"], "error")
        self.assertIn("liar-md: not served:", d["message"])
        self.assertIn("SKILL.md: its bytes are not those of its digest in the index",
                      d["message"])
        self.assertEqual(sorted(os.listdir(m.file("skills"))),
                         ["csv-report", "liar-file", "pdf-forms"])
        # another file at its first read: EIO, and the skill invalid at once
        with self.assertRaises(OSError) as e:
            m.read("skills", "liar-file", "notes.md")
        self.assertEqual(e.exception.errno, errno.EIO)
        wait_for(lambda: skill_states(m).get("liar-file", ("",))[0] == "invalid",
                 what="the lying file in status.json")
        [msg] = skill_states(m)["liar-file"][1]
        self.assertIn("notes.md: %s/.well-known/agent-skills/liar-file/notes.md sent 15 bytes "
                      "with sha256:%s" % (self.site.url, sha(b"the real notes\n")), msg)
        self.assertNotIn("liar-file", os.listdir(m.file("skills")))
        # the rest is served
        self.assertEqual(m.read("skills", "csv-report", "template.md"), CSV["template.md"])
        self.assertEqual(m.read("skills", "pdf-forms", "SKILL.md"), PDF["SKILL.md"])

    def test_the_record_of_a_lie_goes_once_no_kept_index_names_it(self):
        liar = {"SKILL.md": skill_md("liar-file", "One of its files lies."),
                "notes.md": b"the real notes\n"}
        self.site.put_skill("liar-file", liar)
        lying = entry("liar-file", "One of its files lies.", liar,
                      digests={"notes.md": sha(b"other notes\n")})
        self.site.put_index([entry("csv-report", "Summarize a CSV file.", CSV), lying])
        m = self.mount_site()
        with self.assertRaises(OSError):
            m.read("skills", "liar-file", "notes.md")
        [state] = [d for d in os.listdir(os.path.join(self.cache, "wellknown"))
                   if d != "blobs"]

        def records():
            return [n for n in os.listdir(os.path.join(self.cache, "wellknown", state))
                    if n.startswith("mismatch-")]
        wait_for(lambda: skill_states(m).get("liar-file", ("",))[0] == "invalid",
                 what="the lying file in status.json")
        self.assertEqual(len(records()), 1)
        # the site tells the truth now: the index before it, which a
        # generation built earlier may still serve, keeps the record
        truthful = [entry("csv-report", "Summarize a CSV file.", CSV),
                    entry("liar-file", "One of its files lies.", liar)]
        self.site.put_index(truthful)
        self.sighup(m)
        self.assertEqual(m.read("skills", "liar-file", "notes.md"), liar["notes.md"])
        self.assertEqual(len(records()), 1)
        # one index later no kept index names the lie's digest
        self.site.put_index(truthful + [entry("pdf-forms", "Fill in PDF forms.", PDF)])
        self.sighup(m)
        self.assertEqual(records(), [])
        self.assertNotIn("liar-file", skill_states(m))
        self.assertIn("liar-file", os.listdir(m.file("skills")))

    def test_a_package_is_unpacked_and_checked(self):
        package = targz(PACKED)
        self.site.put("packages/packed.tar.gz", package)
        packed = entry("packed", "Comes as a package.", PACKED)
        packed["package"] = {"url": "/packages/packed.tar.gz", "digest": "sha256:" + sha(package)}
        # a package whose bytes are not those of its digest
        bad = entry("badpack", "A package that lies.", PACKED)
        self.site.put("packages/badpack.tar.gz", package + b"\0")
        bad["package"] = {"url": "/packages/badpack.tar.gz", "digest": "sha256:" + sha(package)}
        self.site.put_index([bad, entry("csv-report", "Summarize a CSV file.", CSV), packed])
        m = self.mount_site()
        for p, b in PACKED.items():
            self.assertEqual(m.read("skills", "packed", *p.split("/")), b)
        # no file of the package was fetched on its own
        self.assertFalse(any("/agent-skills/packed/" in path for _, path in self.site.requests))
        [d] = diagnostics(m)
        self.assertIn("badpack: not served:", d["message"])
        self.assertEqual(sorted(os.listdir(m.file("skills"))), ["csv-report", "packed"])

    def test_the_token_goes_to_the_sites_own_origin_only(self):
        """A package the index names on another origin (another port, a
        CDN, plain http) is fetched without the site's bearer token: only
        its digest vouches for it, and the token is the site's secret."""
        other = Site(self.make_dir())
        self.addCleanup(other.stop)
        package = targz(PACKED)
        other.put("packages/packed.tar.gz", package)
        self.site.put("packages/own.tar.gz", package)
        packed = entry("packed", "Comes as a package.", PACKED)
        packed["package"] = {"url": other.url + "/packages/packed.tar.gz",
                             "digest": "sha256:" + sha(package)}
        own = entry("own", "Comes as a package.", PACKED)
        own["package"] = {"url": self.site.url + "/packages/own.tar.gz",
                          "digest": "sha256:" + sha(package)}
        self.site.put_index([own, packed])
        keys = self.make_dir()
        token = os.path.join(keys, "token")
        with open(os.open(token, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write("site-token-0123456789abcdef\n")
        config = os.path.join(self.make_dir(), "skillsfs.yaml")
        with open(config, "w") as f:
            f.write("sources:\n  - url: %s\n    token_file: %s\n"
                    "options:\n  cache_dir: %s\n  fetch_interval: 0\n"
                    % (self.site.url, token, self.cache))
        m = self.mount([], ["--config", config])
        self.assertEqual(diagnostics(m), [])
        for p, b in PACKED.items():
            self.assertEqual(m.read("skills", "packed", *p.split("/")), b)
        self.assertIn(("/packages/packed.tar.gz", None), other.authorizations)
        self.assertEqual([a for _, a in other.authorizations], [None])
        bearer = "Bearer site-token-0123456789abcdef"
        self.assertIn(("/" + WK + "/index.json", bearer), self.site.authorizations)
        self.assertIn(("/packages/own.tar.gz", bearer), self.site.authorizations)

    def test_a_v01_index_is_served_with_a_warning(self):
        self.site.put_skill("csv-report", CSV)
        self.site.put(os.path.join(WK, "index.json"), json.dumps({"skills": [
            {"name": "csv-report", "description": "Summarize a CSV file.",
             "files": sorted(CSV)}]}).encode())
        m = self.mount_site()
        self.assertEqual(m.read("skills", "csv-report", "template.md"), CSV["template.md"])
        msgs = [d["message"] for d in diagnostics(m)]
        self.assertTrue(any("nothing it serves can be verified" in x for x in msgs), msgs)
        self.assertTrue(all(d["severity"] == "warning" for d in diagnostics(m)))

    def test_a_change_is_followed_on_sighup(self):
        self.site.put_index([entry("csv-report", "Summarize a CSV file.", CSV)])
        m = self.mount_site()
        self.assertEqual(os.listdir(m.file("skills")), ["csv-report"])
        self.site.put_index([entry("csv-report", "Summarize a CSV file.", CSV),
                             entry("pdf-forms", "Fill in PDF forms.", PDF)])
        self.assertEqual(os.listdir(m.file("skills")), ["csv-report"])
        self.sighup(m)
        self.assertEqual(sorted(os.listdir(m.file("skills"))), ["csv-report", "pdf-forms"])
        self.assertEqual(m.read("skills", "pdf-forms", "references", "fields.md"),
                         PDF["references/fields.md"])

    def cache_files(self):
        """The site's folder in the cache: each file's (inode, mtime)."""
        [state] = [d for d in os.listdir(os.path.join(self.cache, "wellknown"))
                   if d != "blobs"]
        folder = os.path.join(self.cache, "wellknown", state)
        return {n: (os.stat(os.path.join(folder, n)).st_ino,
                    os.stat(os.path.join(folder, n)).st_mtime_ns)
                for n in os.listdir(folder)}

    def index_gets(self, at_least):
        return wait_for(lambda: len(self.site.index_gets) >= at_least and
                        list(self.site.index_gets), what="%d GETs of the index" % at_least)

    def test_max_age_sets_the_next_fetch(self):
        # fetch_interval is an hour: the index's max-age brings the change
        self.site.index_headers = {"Cache-Control": "public, s-maxage=3600, max-age=1"}
        self.site.put_index([entry("csv-report", "Summarize a CSV file.", CSV)])
        m = self.mount_site(interval=3600)
        self.assertEqual(os.listdir(m.file("skills")), ["csv-report"])
        # at least a second apart, as an MCP server's ttlMs
        self.assertEqual(m.json("status.json")["roots"][0]["fetch_every_ms"], 1000)
        self.site.put_index([entry("csv-report", "Summarize a CSV file.", CSV),
                             entry("pdf-forms", "Fill in PDF forms.", PDF)])
        wait_for(lambda: sorted(os.listdir(m.file("skills"))) == ["csv-report", "pdf-forms"],
                 what="the changed index, after its max-age")
        self.assertEqual(m.read("skills", "pdf-forms", "SKILL.md"), PDF["SKILL.md"])

    def test_a_max_age_past_fetch_interval_is_bounded_by_it(self):
        self.site.index_headers = {"Cache-Control": "max-age=86400"}
        self.site.put_index([entry("csv-report", "Summarize a CSV file.", CSV)])
        m = self.mount_site(interval=60)
        self.assertEqual(m.json("status.json")["roots"][0]["fetch_every_ms"], 60000)
        m.cleanup()
        # fetch_interval=0: only SIGHUP, whatever the site says
        m = self.mount_site()
        self.assertIsNone(m.json("status.json")["roots"][0]["fetch_every_ms"])

    def test_what_each_answer_says_of_its_lifetime(self):
        self.site.put_index([entry("csv-report", "Summarize a CSV file.", CSV)])
        for headers, lo, hi in (
                ({"Cache-Control": 'max-age="5"'}, 5000, 5000),
                ({"Cache-Control": "max-age=abc"}, 1000, 1000),   # invalid: stale
                ({"Cache-Control": 'no-cache="Set-Cookie", max-age=7'}, 7000, 7000),
                ({"Cache-Control": "max-age=9, max-age=3"}, 9000, 9000),   # the first
                ({"Cache-Control": "private, max-age=4, must-revalidate"}, 4000, 4000),
                ({"Cache-Control": "max-age=30", "Age": "25"}, 5000, 5000),
                ({"Cache-Control": "max-age=30, no-cache"}, 1000, 1000),
                ({"Cache-Control": "s-maxage=5"}, 60000, 60000),   # a shared cache's
                ({"Expires": "in 8 s"}, 7000, 8000),   # less the answer's Date
                ({"Expires": "0"}, 1000, 1000),   # invalid: past
                ({"Cache-Control": "max-age=6", "Expires": "0"}, 6000, 6000)):
            if headers.get("Expires") == "in 8 s":
                headers = {"Expires": email.utils.formatdate(time.time() + 8, usegmt=True)}
            self.site.index_headers = headers
            m = self.mount_site(interval=60)
            every = m.json("status.json")["roots"][0]["fetch_every_ms"]
            self.assertTrue(lo <= every <= hi, (headers, every))
            m.cleanup()

    def test_expires_sets_the_next_fetch(self):
        # Expires counts from the answer's Date, both the site's clock
        self.site.index_headers = {"Expires": "Thu, 01 Jan 1970 00:00:00 GMT"}
        self.site.put_index([entry("csv-report", "Summarize a CSV file.", CSV)])
        m = self.mount_site(interval=3600)
        self.assertEqual(os.listdir(m.file("skills")), ["csv-report"])
        self.site.put_index([entry("csv-report", "Summarize a CSV file.", CSV),
                             entry("pdf-forms", "Fill in PDF forms.", PDF)])
        wait_for(lambda: sorted(os.listdir(m.file("skills"))) == ["csv-report", "pdf-forms"],
                 what="the changed index, once it expired")

    def test_a_304_keeps_the_listing_and_the_generation(self):
        self.site.etag = True
        self.site.index_headers = {"Cache-Control": "max-age=1, must-revalidate"}
        self.site.put_index([entry("csv-report", "Summarize a CSV file.", CSV)])
        m = self.mount_site(interval=3600)
        self.assertEqual(os.listdir(m.file("skills")), ["csv-report"])
        gen, files = m.generation(), self.cache_files()
        gets = self.index_gets(3)
        # every fetch after the first asks with the ETag, and is told 304
        [(first, status)] = gets[:1]
        self.assertEqual((first.get("If-None-Match"), status), (None, 200))
        with open(os.path.join(self.site.folder, WK, "index.json"), "rb") as f:
            tag = '"%s"' % sha(f.read())[:16]
        self.assertEqual([(h.get("If-None-Match"), st) for h, st in gets[1:]],
                         [(tag, 304)] * (len(gets) - 1))
        # nothing written, nothing built
        self.assertEqual(self.cache_files(), files)
        self.assertEqual(m.generation(), gen)
        # a new index has another ETag: fetched whole
        self.site.put_index([entry("csv-report", "Summarize a CSV file.", CSV),
                             entry("pdf-forms", "Fill in PDF forms.", PDF)])
        wait_for(lambda: sorted(os.listdir(m.file("skills"))) == ["csv-report", "pdf-forms"],
                 what="the changed index")
        self.assertGreater(m.generation(), gen)

    def test_no_store_is_fetched_each_time_and_never_asked_conditionally(self):
        self.site.etag = True
        self.site.index_headers = {"Cache-Control": "no-store"}
        self.site.put_index([entry("csv-report", "Summarize a CSV file.", CSV)])
        m = self.mount_site(interval=3600)
        gets = self.index_gets(3)
        self.assertEqual([(h.get("If-None-Match"), st) for h, st in gets],
                         [(None, 200)] * len(gets))
        self.assertNotIn("validators.json", self.cache_files())
        self.assertEqual(os.listdir(m.file("skills")), ["csv-report"])

    def test_a_lockfile_pins_each_skill(self):
        self.site.put_index([entry("csv-report", "Summarize a CSV file.", CSV),
                             entry("pdf-forms", "Fill in PDF forms.", PDF)])
        m = self.mount_site()
        index = m.read("index.json")
        lockfile = os.path.join(self.make_dir(), "skills.lock")
        r = subprocess.run([SKILLSFS, "lock", "-o", lockfile, m.path],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(lockfile) as f:
            lock = json.load(f)
        self.assertEqual([s.get("url") for s in lock["sources"]], [self.site.url])
        self.assertEqual(sorted(lock["sources"][0]["skills"]), ["csv-report", "pdf-forms"])
        m.cleanup()
        opts = ["--lock", lockfile, "-o", "fetch_interval=0"]
        locked = self.mount([], opts + ["-o", "cache_dir=" + self.make_dir()])
        self.assertEqual(locked.read("index.json"), index)
        locked.cleanup()
        # a skill changed on the site: not as locked, the start refused
        changed = dict(PDF, **{"references/fields.md": b"# Fields\n\nname\n"})
        self.site.put_skill("pdf-forms", changed)
        self.site.put_index([entry("csv-report", "Summarize a CSV file.", CSV),
                             entry("pdf-forms", "Fill in PDF forms.", changed)])
        bad = Mount([], opts + ["-o", "cache_dir=" + self.make_dir()])
        self.addCleanup(bad.cleanup)
        bad._stderr = open(bad.stderr_path, "wb")
        bad.proc = subprocess.Popen(bad.argv(), stdout=subprocess.DEVNULL, stderr=bad._stderr)
        try:
            rc = bad.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            bad.stop()
            self.fail("the mount started:\n" + bad.stderr())
        self.assertEqual(rc, 1, bad.stderr())
        self.assertIn('skill "pdf-forms" differs from the lock', bad.stderr())


class NotASourceUrl(MountTestCase):
    def test_the_message_names_the_well_known_form(self):
        # the mount and check say alike which URLs a source may have
        for argv in ([SKILLSFS, self.make_dir(), "--source", "ftp://127.0.0.1/x"],
                     [SKILLSFS, "check", "--source", "ftp://127.0.0.1/x"]):
            r = subprocess.run(argv, capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("bad --source 'ftp://127.0.0.1/x': not a source URL", r.stderr)
            self.assertIn("mcp+https://HOST/PATH, or a website's well-known skills index, "
                          "https://HOST[/BASE] or http://HOST[/BASE])", r.stderr)
        # --help says it from the kind's line of the table (source_form.c)
        r = subprocess.run([SKILLSFS, "--help"], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("https://HOST[/BASE] (or http://): the skills a website",
                      " ".join(r.stdout.split()))


class WellKnownStalls(MountTestCase):
    """A website that never answers stalls nothing but what waits on it:
    a read of a file it does not send fails at its deadline while the
    mount answers everything else, a stop ends the daemon at once, and
    its update holds another root's at most -o fetch_timeout, as a git
    server's (test_git_stalls.py, test_mcp_stalls.py)."""

    ANSWER = 10.0   # a request that answers at all does within this

    def setUp(self):
        self.site = Site(self.make_dir())
        self.addCleanup(self.site.stop)
        self.local = os.path.join(self.make_dir(), "skills")
        write_skill(self.local, "local-one", description="A local skill.")
        self.site.put_skill("pdf-forms", PDF)
        pdf = entry("pdf-forms", "Fill in PDF forms.", PDF)
        for f in pdf["files"]:   # sizes given: no HEAD at the update
            f["size"] = len(PDF[f["path"]])
        self.site.put_index([pdf])

    def mount_site(self, sources, wait_fetched=True):
        argv = []
        for url in sources:
            argv += ["--source", url]
        return self.mount([self.local], argv + [
            "-o", "cache_dir=" + self.make_dir(), "-o", "fetch_interval=0",
            "-o", "read_timeout=3", "-o", "fetch_timeout=2"], wait_fetched=wait_fetched)

    def call(self, fn, timeout=None):
        """fn() on a thread of its own: {"value": ...} or {"error": ...};
        one that never answers fails the test instead of hanging it."""
        out = {}

        def run():
            try:
                out["value"] = fn()
            except OSError as e:
                out["error"] = e
        t = threading.Thread(target=run, daemon=True)
        t.start()
        t.join(timeout or self.ANSWER)
        self.assertFalse(t.is_alive(), "%s did not answer" % fn)
        return out

    def test_a_file_the_site_never_sends_stalls_nothing_else(self):
        path = "/" + WK + "/pdf-forms/references/fields.md"
        self.site.stalled.add(("GET", path))
        m = self.mount_site([self.site.url])
        got = {}

        def read():
            try:
                got["value"] = m.read("skills", "pdf-forms", "references", "fields.md")
            except OSError as e:
                got["error"] = e
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        wait_for(lambda: ("GET", path) in self.site.requests, timeout=self.ANSWER,
                 what="the read to ask the site")
        self.assertEqual(self.call(lambda: sorted(os.listdir(m.file("skills"))))["value"],
                         ["local-one", "pdf-forms"])
        self.assertEqual(self.call(lambda: m.read("skills", "pdf-forms", "SKILL.md"))["value"],
                         PDF["SKILL.md"])
        reader.join(3 + self.ANSWER)
        self.assertFalse(reader.is_alive(), "the stalled read never ended")
        self.assertEqual(getattr(got.get("error"), "errno", None), errno.ETIMEDOUT, got)
        self.assertEqual(m.terminate(timeout=self.ANSWER), 0, m.stderr())
        self.assertFalse(os.path.ismount(m.path))

    def test_a_silent_index_holds_neither_start_nor_stop(self):
        self.site.stalled.add(("GET", "/" + WK + "/index.json"))
        m = self.mount_site([self.site.url], wait_fetched=False)
        self.assertEqual(self.call(lambda: os.listdir(m.file("skills")))["value"],
                         ["local-one"])
        wait_for(lambda: ("GET", "/" + WK + "/index.json") in self.site.requests,
                 timeout=self.ANSWER, what="the index to be asked for")
        self.assertEqual(m.terminate(timeout=self.ANSWER), 0, m.stderr())
        self.assertFalse(os.path.ismount(m.path))

    def test_a_silent_site_holds_another_root_at_most_fetch_timeout(self):
        """Sizes asked of a site (HEAD) that never answers, one per
        file: the update gives up at the first, after fetch_timeout, not
        after a client's deadline for each, and the next root is
        fetched."""
        silent = Site(self.make_dir())
        self.addCleanup(silent.stop)
        skills = []
        for i in range(3):
            files = {"SKILL.md": skill_md("slow-%d" % i, "Sizes never come."),
                     "notes.md": b"notes %d\n" % i}
            silent.put_skill("slow-%d" % i, files)
            skills.append(entry("slow-%d" % i, "Sizes never come.", files))
            silent.stalled.add(("HEAD", "/%s/slow-%d/notes.md" % (WK, i)))
        silent.put_index(skills)
        m = self.mount_site([silent.url, self.site.url], wait_fetched=False)
        wait_for(lambda: "pdf-forms" in os.listdir(m.file("skills")), timeout=4 * self.ANSWER,
                 what="the second site's skill, fetched once the first gave up")
        self.assertEqual(m.read("skills", "pdf-forms", "SKILL.md"), PDF["SKILL.md"])
        # (asked by the start, and by the fetcher's turn after it)
        heads = {p for c, p in silent.requests if c == "HEAD"}
        self.assertEqual(heads, {"/%s/slow-0/notes.md" % WK})
        status = m.json("status.json")
        [note] = [d["message"] for d in status["diagnostics"] if silent.url in d["message"]]
        self.assertIn("2 s", note)
        self.assertEqual(m.terminate(timeout=self.ANSWER), 0, m.stderr())


class ReadsAnotherSkillsfs(MountTestCase):
    """skillsfs-mcp --http publishes a folder's skills; a mount reads
    them through the well-known index, with the bearer token."""

    def test_one_skillsfs_reads_anothers_index(self):
        root = os.path.join(self.make_dir(), "skills")
        write_skill(root, "pdf-forms", description="Fill in PDF forms.")
        os.makedirs(os.path.join(root, "pdf-forms", "references"))
        with open(os.path.join(root, "pdf-forms", "references", "fields.md"), "w") as f:
            f.write("# Fields\n")
        write_skill(root, "csv-report", description="Summarize a CSV file.")
        keys = self.make_dir()
        token = os.path.join(keys, "token")
        with open(os.open(token, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write("wk-token-0123456789abcdef\n")
        err = open(os.path.join(keys, "mcp.err"), "w+")
        self.addCleanup(err.close)
        proc = subprocess.Popen([SKILLSFS_MCP, "--http", "127.0.0.1:0", "--token-file", token,
                                 "--skills-dir", root, "--linger", "0"],
                                stdout=subprocess.DEVNULL, stderr=err)

        def end():
            proc.terminate()
            proc.wait(timeout=30)
        self.addCleanup(end)

        def served():
            err.seek(0)
            found = re.search(r"serving (http://\S+)/mcp", err.read())
            return found.group(1) if found else None
        wait_for(lambda: served() or proc.poll() is not None, timeout=60,
                 what="skillsfs-mcp --http to say where it serves")
        self.assertIsNone(proc.poll())
        config = os.path.join(self.make_dir(), "skillsfs.yaml")
        cache = self.make_dir()
        with open(config, "w") as f:
            f.write("sources:\n  - url: %s\n    token_file: %s\n"
                    "options:\n  cache_dir: %s\n  fetch_interval: 0\n"
                    % (served(), token, cache))
        m = self.mount([], ["--config", config])
        self.assertEqual(diagnostics(m), [])
        # the publisher gives each file's size: nothing but SKILL.md
        # fetched before its first read
        fields = os.path.join(cache, "wellknown", "blobs", sha(b"# Fields\n"))
        self.assertFalse(os.path.exists(fields))
        self.assertEqual(sorted(os.listdir(m.file("skills"))), ["csv-report", "pdf-forms"])
        for name in ("csv-report", "pdf-forms"):
            with open(os.path.join(root, name, "SKILL.md"), "rb") as f:
                self.assertEqual(m.read("skills", name, "SKILL.md"), f.read())
        self.assertEqual(m.read("skills", "pdf-forms", "references", "fields.md"), b"# Fields\n")
        self.assertTrue(os.path.exists(fields))


if __name__ == "__main__":
    unittest.main()
