#!/usr/bin/env python3
"""An MCP server over stdio whose every move is scripted, for
test_mcp_session.c: one JSON-RPC message a line on stdin and stdout.

    mcp_script_server.py handshake VERSION   answers initialize with VERSION
    mcp_script_server.py stateless           refuses initialize; server/discover
                                             names 2026-07-28
    mcp_script_server.py refuse              refuses initialize and discover
    mcp_script_server.py quit                exits with status 3 at once

Then, by the method of each request:
    echo     its params, and whether notifications/initialized came first
    chatty   before its answer: a notification, a stray answer, a ping and
             a request the client cannot serve, each of the client's
             answers checked; then whether both were answered right
    fail     a JSON-RPC error -32602 "no such skill"
    garbage  a line that is not JSON
    silent   no answer
    exit     exits with status 5
"""
import json
import sys

STATELESS = "2026-07-28"


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def receive():
    """The next message from the client; exits at the end of input."""
    while True:
        line = sys.stdin.readline()
        if not line:
            sys.exit(0)
        if line.strip():
            return json.loads(line)


def answer(request, result):
    send({"jsonrpc": "2.0", "id": request["id"], "result": result})


def error(request, code, text):
    send({"jsonrpc": "2.0", "id": request["id"],
          "error": {"code": code, "message": text}})


def ask(method, id_):
    """Sends a request of the server's and returns the client's answer."""
    send({"jsonrpc": "2.0", "id": id_, "method": method, "params": {}})
    return receive()


def chatty(request):
    send({"jsonrpc": "2.0", "method": "notifications/message",
          "params": {"level": "info", "data": "working"}})
    send({"jsonrpc": "2.0", "id": 999, "result": {"stray": True}})
    pong = ask("ping", "s-1")
    refusal = ask("sampling/createMessage", 41)
    sys.stdout.write("\n")   # an empty line carries nothing
    answer(request, {
        "pinged": pong == {"jsonrpc": "2.0", "id": "s-1", "result": {}},
        "refused": refusal.get("id") == 41 and
        refusal.get("error", {}).get("code") == -32601,
    })


def serve(mode, version):
    initialized = False
    while True:
        m = receive()
        method = m.get("method")
        if "id" not in m:
            initialized |= method == "notifications/initialized"
            continue
        if method == "initialize" and mode == "handshake":
            answer(m, {"protocolVersion": version, "capabilities": {},
                       "serverInfo": {"name": "script", "version": "1"}})
        elif method == "initialize":
            error(m, -32600, "initialize is not served here")
        elif method == "server/discover" and mode == "stateless":
            answer(m, {"supportedVersions": [STATELESS]})
        elif method == "echo":
            answer(m, {"params": m.get("params"), "initialized": initialized})
        elif method == "chatty":
            chatty(m)
        elif method == "fail":
            error(m, -32602, "no such skill")
        elif method == "garbage":
            sys.stdout.write("this is a log line\n")
            sys.stdout.flush()
        elif method == "exit":
            sys.exit(5)
        elif method != "silent":
            error(m, -32601, "Method not found")


def main():
    mode = sys.argv[1]
    if mode == "quit":
        sys.exit(3)
    serve(mode, sys.argv[2] if len(sys.argv) > 2 else None)


if __name__ == "__main__":
    main()
