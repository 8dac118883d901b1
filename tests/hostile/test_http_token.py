#!/usr/bin/env python3
"""Who may use skillsfs-mcp --http on loopback (skillsfs-mcp(1), HTTP;
issue 27 item 1): every local account can reach a loopback port, so the
server always wants a bearer token; without --token-file it makes one,
in a 0600 file of its user's 0700 runtime folder.  A root-only skill (a
0600 SKILL.md in a 0700 folder) that the user skillsfs-test cannot read
natively never comes back to that user through resources/read or
get_skill, whichever loopback address the server listens on; root, with
the token, is served."""

import json
import os
import subprocess
import unittest

from hostilelib import ANY_PYTHON, CONTROL_ID, STEP_TIMEOUT, write_skill
from test_confidential import OtherUserCase, become_test_user

HIDDEN = "root-only"

# One POST of a 2026-07-28 request, as the user it runs as: with the token
# of the file named when that user can read it.  Prints what it read of
# the token file, then the HTTP status and body.
POST = """
import sys, urllib.error, urllib.request
url, body, token_file = sys.argv[1:4]
headers = {"content-type": "application/json",
           "accept": "application/json, text/event-stream"}
try:
    with open(token_file) as f:
        headers["authorization"] = "Bearer " + f.read().strip()
    print("token read")
except OSError as e:
    print("token " + type(e).__name__)
req = urllib.request.Request(url, data=body.encode(), headers=headers, method="POST")
try:
    with urllib.request.urlopen(req, timeout=20) as r:
        print(r.status)
        print(r.read().decode("utf-8", "replace"))
except urllib.error.HTTPError as e:
    print(e.code)
    print(e.read().decode("utf-8", "replace"))
"""


def modern(method, params, rid=1):
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "skillsfs-tests", "version": "0"}}
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method,
                       "params": dict(params, _meta=meta)})


class HttpToken(OtherUserCase):
    needs_root = "needs root: serves root's files and asks as another user"

    def setUp(self):
        super().setUp()
        d = write_skill(self.root, HIDDEN,
                        description="Root only %s." % self.canary.decode(),
                        body="Secret body %s\n" % self.canary.decode())
        os.chmod(d, 0o700)
        os.chmod(os.path.join(d, "SKILL.md"), 0o600)
        # the runtime folder of root's server, where its token goes
        self.run_dir = self.make_dir()
        os.chmod(self.run_dir, 0o700)

    def serve(self, listen):
        """skillsfs-mcp --http LISTEN as root: (url, token file)."""
        url, token_file = self.mcp_http(listen, self.run_dir)
        if not token_file:
            self.fail("skillsfs-mcp --http %s named no token file" % listen)
        return url, token_file

    def post(self, url, body, token_file, as_test_user):
        p = subprocess.run([ANY_PYTHON, "-c", POST, url, body, token_file],
                           capture_output=True, timeout=STEP_TIMEOUT,
                           preexec_fn=become_test_user(self.uid) if as_test_user else None)
        lines = p.stdout.decode("utf-8", "replace").split("\n", 2)
        if p.returncode != 0 or len(lines) < 3:
            self.fail("the request failed: %s" % p.stderr.decode("utf-8", "replace"))
        return lines[0], int(lines[1]), lines[2]

    def test_another_user_gets_nothing_on_any_loopback_address(self):
        reads = [modern("resources/read", {"uri": "skill://%s/SKILL.md" % HIDDEN}),
                 modern("tools/call", {"name": "get_skill", "arguments": {"id": HIDDEN}}),
                 modern("tools/call", {"name": "list_skills", "arguments": {}})]
        for listen in ("127.0.0.1:0", "127.0.0.2:0", "[::1]:0"):
            with self.subTest(listen=listen):
                url, token_file = self.serve(listen)
                st = os.stat(token_file)
                self.assertEqual(st.st_mode & 0o777, 0o600)
                self.assertEqual(os.stat(os.path.dirname(token_file)).st_mode & 0o777, 0o700)
                for body in reads:
                    seen, status, text = self.post(url, body, token_file, True)
                    self.assertEqual(seen, "token PermissionError")
                    self.assertEqual(status, 401, text)
                    self.assertNotIn(self.canary.decode(), text)
                # root, whose token it is, is served the skill
                seen, status, text = self.post(url, reads[0], token_file, False)
                self.assertEqual((seen, status), ("token read", 200), text)
                self.assertIn(self.canary.decode(), text)
                seen, status, text = self.post(url, reads[2], token_file, False)
                self.assertIn(CONTROL_ID, text)


if __name__ == "__main__":
    unittest.main(verbosity=2)
