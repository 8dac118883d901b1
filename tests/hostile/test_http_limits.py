#!/usr/bin/env python3
"""Idle and trickling connections cannot lock clients out of
skillsfs-mcp --http (skillsfs-mcp(1), HTTP; issue 28 item 5): one address
holds at most 32 connections, a connection that has not sent a request's
headers within 10 s is cut however slowly it trickles, and a real client
(with the token) is answered meanwhile.  Before, 256 idle, half-sent
connections took every slot, before any token was asked for."""

import json
import os
import re
import socket
import time
import unittest
import urllib.request

from hostilelib import STEP_TIMEOUT, HostileCase, wait_for

IDLE = 300            # more than the 256 slots the server had
HALF_SENT = 50
CUT_DEADLINE = 40.0   # the bound is 10 s; this only asks "cut at all"


def modern_tools_list():
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "skillsfs-tests", "version": "0"}}
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                       "params": {"_meta": meta}}).encode()


class HttpLimits(HostileCase):
    def setUp(self):
        super().setUp()
        self.run_dir = self.make_dir()
        os.chmod(self.run_dir, 0o700)
        self.url, token_file = self.mcp_http("127.0.0.1:0", self.run_dir)
        self.port = int(re.search(r":(\d+)/mcp$", self.url).group(1))
        # (a server that names no token file wants none: 401 says so)
        self.token = None
        if token_file:
            with open(token_file) as f:
                self.token = f.read().strip()
        self.socks = []
        self.addCleanup(self.close_all)

    def close_all(self):
        for s in self.socks:
            s.close()

    def connect_from(self, source, first_bytes=b""):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socks.append(s)
        s.bind((source, 0))
        s.settimeout(STEP_TIMEOUT)
        s.connect(("127.0.0.1", self.port))
        if first_bytes:
            s.sendall(first_bytes)
        return s

    def answered(self):
        """A real client's request, with the token: its status."""
        headers = {"content-type": "application/json", "accept": "application/json"}
        if self.token:
            headers["authorization"] = "Bearer " + self.token
        req = urllib.request.Request(self.url, data=modern_tools_list(), method="POST",
                                     headers=headers)
        with urllib.request.urlopen(req, timeout=STEP_TIMEOUT) as r:
            return r.status, json.loads(r.read())

    def test_idle_and_half_sent_connections_leave_room_for_a_client(self):
        for _ in range(IDLE):
            self.connect_from("127.0.0.2")
        for _ in range(HALF_SENT):
            self.connect_from("127.0.0.3", b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        status, reply = self.answered()
        self.assertEqual(status, 200)
        self.assertIn("list_skills", [t["name"] for t in reply["result"]["tools"]])

    def test_a_trickling_connection_is_cut(self):
        s = self.connect_from("127.0.0.4")
        s.settimeout(0.5)
        request = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 1000
        deadline = time.monotonic() + CUT_DEADLINE
        cut = False
        for byte in request:
            if time.monotonic() > deadline:
                break
            try:
                s.send(bytes([byte]))
                if s.recv(1) == b"":
                    cut = True
                    break
            except socket.timeout:
                continue   # nothing to read yet: the next byte
            except OSError:
                cut = True
                break
        self.assertTrue(cut, "a connection trickling its headers was never cut")
        # and its address may connect again
        self.assertEqual(self.answered()[0], 200)

    def test_one_address_cannot_take_every_slot(self):
        # the client's own address, flooded: what it holds frees itself
        for _ in range(64):
            self.connect_from("127.0.0.1")

        def served():
            try:
                return self.answered()[0] == 200
            except OSError:
                return False
        wait_for(served, timeout=CUT_DEADLINE,
                 what="a client to be answered once idle connections are cut")


if __name__ == "__main__":
    unittest.main(verbosity=2)
