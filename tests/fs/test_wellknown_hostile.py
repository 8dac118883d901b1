#!/usr/bin/env python3
"""A hostile website as a well-known source (guide item 1): an index
whose skills each have a SKILL.md of 30 MB (every byte matching its
digest, so each is kept) must not fill the cache's disk at an update:
what one update fetches is bounded (1 GiB), status.json names the site
and the problem, and the local skills stay served.

The site is generated on the fly on 127.0.0.1: SKILL.md of skill i is
the same 30 MB and a line naming i, so its digest is cheap to know."""

import hashlib
import http.server
import json
import os
import threading
import unittest

from mountlib import MountTestCase, disk_use, wait_for, write_skill

WK = "/.well-known/agent-skills/"
SKILLS = 60                 # 60 x 30 MB: past the bound by far
FILLER = b"---\nname: big\ndescription: A large skill.\n---\n\n" + b"x" * (30 << 20)
DEADLINE = 180.0            # the bounded update ends well within this
DISK_BOUND = 1280 << 20     # the cache folder stays below this (1 GiB
                            # fetched, and room for what is beside it)


def skill_md(i):
    return b"\n<!-- %d -->\n" % i


class BigSite:
    def __init__(self):
        head = hashlib.sha256(FILLER)
        skills = []
        for i in range(SKILLS):
            h = head.copy()
            h.update(skill_md(i))
            digest = h.hexdigest()
            lines = b"SKILL.md\0" + digest.encode() + b"\n"
            skills.append({"name": "big-%d" % i, "description": "A large skill.",
                           "digest": "sha256:" + hashlib.sha256(lines).hexdigest(),
                           "files": [{"path": "SKILL.md", "digest": "sha256:" + digest}]})
        index = json.dumps({"version": "0.2.0", "skills": skills}).encode()
        self.served = 0

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_GET(self):
                if self.path == WK + "index.json":
                    parts = [index]
                elif self.path.startswith(WK + "big-") and self.path.endswith("/SKILL.md"):
                    parts = [FILLER, skill_md(int(self.path[len(WK) + 4:-9]))]
                else:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(sum(map(len, parts))))
                self.end_headers()
                try:
                    for p in parts:
                        self.wfile.write(p)
                except OSError:
                    return
                self.server.outer.served += 1

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.outer = self
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class HostileWebsite(MountTestCase):
    def test_an_update_fetches_a_bounded_amount(self):
        local = os.path.join(self.make_dir(), "skills")
        write_skill(local, "local-one", description="A local skill.")
        cache = self.make_dir()
        site = BigSite()
        self.addCleanup(site.stop)
        m = self.mount([local], ["--source", site.url, "-o", "cache_dir=" + cache,
                                 "-o", "fetch_interval=0"], wait_fetched=False)

        def refused():
            self.assertLess(disk_use(cache), DISK_BOUND, "the cache grows without bound")
            return [d["message"] for d in m.json("status.json")["diagnostics"]
                    if "fetched more than" in d["message"]]

        [message] = wait_for(refused, timeout=DEADLINE, interval=0.2,
                             what="the bounded update in status.json")
        self.assertIn(site.url, message)
        self.assertIn("1024 MiB", message)
        self.assertLess(site.served, SKILLS)
        self.assertEqual(os.listdir(m.file("skills")), ["local-one"])
        self.assertIn(b"A local skill.", m.read("skills", "local-one", "SKILL.md"))


if __name__ == "__main__":
    unittest.main()
