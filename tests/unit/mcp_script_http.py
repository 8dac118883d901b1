#!/usr/bin/env python3
"""An MCP server over Streamable HTTP on 127.0.0.1 whose every answer is
scripted, for test_mcp_session.c: it prints its port on stdout, serves
until its parent ends or a request asks "bye", and answers each request
by its method:

    initialize  an event stream with CRLF line ends: a priming event
                without data, then the answer; a new Mcp-Session-Id
    echo        its params, the session id it came with, and how many
                sessions were opened
    chatty      an event stream: a notification, the answer split over
                two data: lines
    expire      forgets every session: the next request with one is
                answered 404, as a server does when a session expired
    crash       HTTP 500 with an HTML page
    fail        HTTP 400 with a JSON-RPC error
    bye         answers, then the server ends
"""
import http.server
import json
import os
import sys
import threading
import time
import uuid

sessions = set()
opened = [0]


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, ctype, body, headers=()):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        m = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        method, sid = m.get("method"), self.headers.get("Mcp-Session-Id")
        if method != "initialize" and sid not in sessions:
            return self.reply(404, "application/json", json.dumps(
                {"jsonrpc": "2.0", "id": None,
                 "error": {"code": -32001, "message": "Session not found"}}))
        if "id" not in m:
            return self.reply(202, "text/plain", "")
        answer = lambda result: {"jsonrpc": "2.0", "id": m["id"], "result": result}
        if method == "initialize":
            sid = uuid.uuid4().hex
            sessions.add(sid)
            opened[0] += 1
            body = json.dumps(answer({"protocolVersion": "2025-06-18",
                                      "capabilities": {}}))
            return self.reply(200, "text/event-stream",
                              "id: 1\r\ndata:\r\n\r\nevent: message\r\n"
                              "data: %s\r\n\r\n" % body,
                              [("Mcp-Session-Id", sid)])
        if method in ("echo", "bye"):
            self.reply(200, "application/json", json.dumps(answer(
                {"params": m.get("params"), "session": sid,
                 "opened": opened[0]})))
            if method == "bye":
                threading.Thread(target=self.server.shutdown).start()
            return None
        if method == "chatty":
            note = {"jsonrpc": "2.0", "method": "notifications/message",
                    "params": {"level": "info", "data": "working"}}
            text = json.dumps(answer({"chatty": True}), indent=1)
            lines = text.split("\n", 1)
            return self.reply(200, "text/event-stream",
                              "data: %s\n\ndata: %s\ndata: %s\n\n"
                              % (json.dumps(note), lines[0], lines[1].replace("\n", " ")))
        if method == "expire":
            sessions.clear()
            return self.reply(200, "application/json", json.dumps(answer({})))
        if method == "crash":
            return self.reply(500, "text/html", "<h1>Internal error</h1>")
        return self.reply(400, "application/json", json.dumps(
            {"jsonrpc": "2.0", "id": m["id"],
             "error": {"code": -32602, "message": "no such skill"}}))


def end_with_parent(server, parent):
    """Ends the server when the process that started it is gone."""
    while os.getppid() == parent:
        time.sleep(0.2)
    server.shutdown()


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=end_with_parent, args=(server, os.getppid()),
                     daemon=True).start()
    sys.stdout.write("%d\n" % server.server_address[1])
    sys.stdout.flush()
    server.serve_forever()


if __name__ == "__main__":
    main()
