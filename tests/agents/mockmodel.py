"""A scripted model on loopback, speaking the three APIs the agents call:
Anthropic Messages (Claude Code), OpenAI Responses (Codex, and Copilot CLI
as a custom provider) and Gemini generateContent (Gemini CLI), streamed as
each agent expects.

Every request is recorded (`requests`, and one JSON line each in a file) so a
test can read what the agent put in front of the model: its system prompt,
its tools, its skills listing.  The answer follows a script, a list of steps:

    ("read", PATH)       the agent's file-read tool on PATH
    ("shell", COMMAND)   the agent's shell tool running COMMAND
    ("mcp", TOOL, ARGS)  the MCP tool whose name ends with TOOL (agents
                         prefix it with the server's name), with ARGS
    ("text", WORDS)      a final answer, which ends the agent's turn

or a function of the tool results so far (a list of texts, oldest first)
that returns one of those: the next call can use what the last one
returned, as a model would (a path get_skill gave, a line search found).

The step to answer with is the number of tool results already in the
conversation the agent sends, so a request the agent repeats gets the same
answer, and the side requests an agent makes (a title, a summary, a check)
that carry no tools get a short text and do not advance the script.
"""

import json
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOOPBACK = "127.0.0.1"


def tool_names_anthropic(body):
    return [t.get("name") for t in body.get("tools") or []]


def tool_names_openai(body):
    """Names of the tools offered; a tool inside a namespace (Codex groups
    an MCP server's tools so) as "NAMESPACE/NAME"."""
    names = []
    for t in body.get("tools") or []:
        name = t.get("name") or (t.get("function") or {}).get("name") or t.get("type")
        if t.get("type") == "namespace":
            names += ["%s/%s" % (name, sub.get("name")) for sub in t.get("tools") or []]
        else:
            names.append(name)
    return names


def tool_names_gemini(body):
    names = []
    for t in body.get("tools") or []:
        for f in t.get("functionDeclarations") or []:
            names.append(f.get("name"))
    return names


class Script:
    """Steps, and which step a conversation has reached."""

    def __init__(self, steps):
        self.steps = list(steps)
        self.latest = []        # the tool results of the furthest request
        self.errors = []        # what a step function raised
        self.lock = threading.Lock()

    def step(self, results):
        with self.lock:
            if len(results) >= len(self.latest):
                self.latest = list(results)
        index = len(results)
        if index >= len(self.steps):
            return ("text", "Done.")
        step = self.steps[index]
        if not callable(step):
            return step
        try:
            return step(results)
        except Exception as e:     # the test reports it; the agent just stops
            with self.lock:
                self.errors.append(e)
            return ("text", "The script failed: %s" % e)


def result_text(content):
    """A tool result as text, whatever shape the API gave it."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(result_text(c) for c in content)
    if isinstance(content, dict):
        for key in ("text", "output", "content", "llmContent"):
            if isinstance(content.get(key), (str, list)):
                return result_text(content[key])
        return json.dumps(content)
    return "" if content is None else str(content)


def mcp_tool(tools, suffix):
    for name in tools:
        if name and name.endswith(suffix):
            return name
    return suffix


# ---------------------------------------------------------------------------
# Anthropic Messages (Claude Code)

def anthropic_results(body):
    out = []
    for m in body.get("messages") or []:
        content = m.get("content")
        if m.get("role") == "user" and isinstance(content, list):
            out += [result_text(c.get("content")) for c in content
                    if c.get("type") == "tool_result"]
    return out


def anthropic_blocks(step, call_id, tools):
    kind, arg = step[0], step[1]
    if kind == "text":
        return [{"type": "text", "text": arg}], "end_turn"
    if kind == "read":
        name, args = "Read", {"file_path": arg}
    elif kind == "mcp":
        name, args = mcp_tool(tools, arg), step[2]
    else:
        name, args = "Bash", {"command": arg, "description": "Run a command"}
    return [{"type": "tool_use", "id": call_id, "name": name, "input": args}], "tool_use"


def anthropic_sse(blocks, stop_reason, model):
    events = [("message_start", {
        "type": "message_start",
        "message": {"id": "msg_mock", "type": "message", "role": "assistant",
                    "model": model, "content": [], "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 10, "output_tokens": 1}}})]
    for i, b in enumerate(blocks):
        if b["type"] == "text":
            events.append(("content_block_start", {
                "type": "content_block_start", "index": i,
                "content_block": {"type": "text", "text": ""}}))
            events.append(("content_block_delta", {
                "type": "content_block_delta", "index": i,
                "delta": {"type": "text_delta", "text": b["text"]}}))
        else:
            events.append(("content_block_start", {
                "type": "content_block_start", "index": i,
                "content_block": {"type": "tool_use", "id": b["id"],
                                  "name": b["name"], "input": {}}}))
            events.append(("content_block_delta", {
                "type": "content_block_delta", "index": i,
                "delta": {"type": "input_json_delta",
                          "partial_json": json.dumps(b["input"])}}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
    events.append(("message_delta", {
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason, "stop_sequence": None},
        "usage": {"output_tokens": 5}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return "".join("event: %s\ndata: %s\n\n" % (e, json.dumps(d)) for e, d in events)


# ---------------------------------------------------------------------------
# OpenAI Responses (Codex; Copilot CLI with COPILOT_PROVIDER_WIRE_API=responses)

def openai_results(body):
    items = body.get("input")
    if not isinstance(items, list):
        return []
    return [result_text(i.get("output")) for i in items if isinstance(i, dict) and
            i.get("type") in ("function_call_output", "custom_tool_call_output",
                              "mcp_tool_call_output")]


def openai_items(step, call_id, tools):
    kind, arg = step[0], step[1]
    if kind == "mcp":
        item = {"type": "function_call", "id": "fc_" + call_id, "call_id": call_id,
                "name": mcp_tool(tools, arg), "arguments": json.dumps(step[2]),
                "status": "completed"}
        if "/" in item["name"]:
            item["namespace"], item["name"] = item["name"].split("/", 1)
        return [item]
    if kind == "text":
        return [{"type": "message", "id": "msg_mock", "role": "assistant",
                 "status": "completed",
                 "content": [{"type": "output_text", "text": arg, "annotations": []}]}]
    if kind == "read" and "view" in tools:        # Copilot CLI's file tool
        return [openai_call(call_id, "view", {"path": arg})]
    if kind == "read":
        arg = "cat '%s'" % arg.replace("'", "'\\''")
    if "bash" in tools:                             # Copilot CLI's shell tool
        return [openai_call(call_id, "bash", {"command": arg, "description": "Run a command"})]
    if "exec_command" in tools:
        name, args = "exec_command", {"cmd": arg}
    else:
        name, args = "shell", {"command": ["bash", "-lc", arg]}
    return [openai_call(call_id, name, args)]


def openai_call(call_id, name, args):
    return {"type": "function_call", "id": "fc_" + call_id, "call_id": call_id,
            "name": name, "arguments": json.dumps(args), "status": "completed"}


def openai_sse(items, model):
    resp = {"id": "resp_mock", "object": "response", "model": model,
            "status": "in_progress", "output": []}
    events = [{"type": "response.created", "response": resp}]
    for i, item in enumerate(items):
        events.append({"type": "response.output_item.added", "output_index": i, "item": item})
        if item["type"] == "message":
            events.append({"type": "response.output_text.delta", "output_index": i,
                           "item_id": item["id"], "content_index": 0,
                           "delta": item["content"][0]["text"]})
        events.append({"type": "response.output_item.done", "output_index": i, "item": item})
    done = dict(resp, status="completed", output=items,
                usage={"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                       "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                       "total_tokens": 15})
    events.append({"type": "response.completed", "response": done})
    return "".join("event: %s\ndata: %s\n\n" % (e["type"], json.dumps(e)) for e in events)


# ---------------------------------------------------------------------------
# Gemini generateContent (Gemini CLI)

def gemini_results(body):
    out = []
    for c in body.get("contents") or []:
        for p in c.get("parts") or []:
            if "functionResponse" in p:
                out.append(result_text(p["functionResponse"].get("response")))
    return out


def gemini_parts(step, tools):
    kind, arg = step[0], step[1]
    if kind == "text":
        return [{"text": arg}]
    if kind == "mcp":
        return [{"functionCall": {"name": mcp_tool(tools, arg), "args": step[2]}}]
    if kind == "read":
        return [{"functionCall": {"name": "read_file", "args": {"file_path": arg}}}]
    return [{"functionCall": {"name": "run_shell_command",
                              "args": {"command": arg, "description": "Run a command"}}}]


def gemini_response(parts):
    return {"candidates": [{"content": {"role": "model", "parts": parts},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
                              "totalTokenCount": 15},
            "modelVersion": "gemini-mock"}


# ---------------------------------------------------------------------------

class MockModel:
    """The server; `start()` it, read `url`, `requests`, then `stop()` it."""

    def __init__(self, steps, record_path=None):
        self.script = Script(steps)
        self.requests = []
        self.record_path = record_path
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer((LOOPBACK, 0), self._handler_class())
        self.server.daemon_threads = True
        self.thread = None

    @property
    def url(self):
        return "http://%s:%d" % (LOOPBACK, self.server.server_address[1])

    def start(self):
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def record(self, method, path, body):
        entry = {"method": method, "path": path, "time": time.time(), "body": body}
        with self.lock:
            self.requests.append(entry)
            if self.record_path:
                with open(self.record_path, "a") as f:
                    f.write(json.dumps(entry) + "\n")

    def results_seen(self):
        """The tool results, oldest first, of the furthest request of the
        agent's main loop."""
        return list(self.script.latest)

    def conversation(self, tool_name):
        """The recorded requests that offered the tool `tool_name`: the
        agent's main loop, not its side requests."""
        out = []
        for r in list(self.requests):
            body = r["body"] if isinstance(r["body"], dict) else {}
            names = (tool_names_anthropic(body) + tool_names_openai(body) +
                     tool_names_gemini(body))
            if tool_name in names:
                out.append(r)
        return out

    def _handler_class(self):
        mock = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _body(self):
                n = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n) if n else b""
                try:
                    return json.loads(raw) if raw else {}
                except ValueError:
                    return raw.decode("utf-8", "replace")

            def _send(self, status, ctype, data):
                data = data.encode() if isinstance(data, str) else data
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                mock.record("GET", self.path, None)
                path = urllib.parse.urlsplit(self.path).path
                if path.endswith("/models"):
                    self._send(200, "application/json", json.dumps({"data": [], "models": []}))
                else:
                    self._send(404, "application/json", json.dumps({"error": "not found"}))

            def do_HEAD(self):
                self._send(200, "text/plain", "")

            def do_POST(self):
                body = self._body()
                mock.record("POST", self.path, body)
                if not isinstance(body, dict):
                    body = {}
                path = urllib.parse.urlsplit(self.path).path
                if path.endswith("/messages/count_tokens"):
                    self._send(200, "application/json", json.dumps({"input_tokens": 100}))
                elif path.endswith("/messages"):
                    self._anthropic(body)
                elif path.endswith("/responses"):
                    self._openai(body)
                elif ":countTokens" in path:
                    self._send(200, "application/json", json.dumps({"totalTokens": 100}))
                elif ":streamGenerateContent" in path or ":generateContent" in path:
                    self._gemini(body, path)
                else:
                    self._send(404, "application/json", json.dumps({"error": "not mocked"}))

            def _anthropic(self, body):
                tools = tool_names_anthropic(body)
                if "Read" in tools:
                    results = anthropic_results(body)
                    step = mock.script.step(results)
                else:
                    step, results = ("text", "ok"), []
                blocks, stop = anthropic_blocks(step, "toolu_mock_%d" % len(results), tools)
                model = body.get("model", "claude-mock")
                if body.get("stream"):
                    self._send(200, "text/event-stream", anthropic_sse(blocks, stop, model))
                else:
                    self._send(200, "application/json", json.dumps({
                        "id": "msg_mock", "type": "message", "role": "assistant",
                        "model": model, "content": blocks, "stop_reason": stop,
                        "stop_sequence": None,
                        "usage": {"input_tokens": 10, "output_tokens": 5}}))

            def _openai(self, body):
                tools = tool_names_openai(body)
                if tools:
                    results = openai_results(body)
                    step = mock.script.step(results)
                else:
                    step, results = ("text", "ok"), []
                items = openai_items(step, "call_mock_%d" % len(results), tools)
                self._send(200, "text/event-stream", openai_sse(items, body.get("model", "mock")))

            def _gemini(self, body, path):
                tools = tool_names_gemini(body)
                if "read_file" in tools:
                    parts = gemini_parts(mock.script.step(gemini_results(body)), tools)
                else:
                    parts = [{"text": gemini_side_answer(body)}]
                resp = gemini_response(parts)
                if ":streamGenerateContent" in path:
                    self._send(200, "text/event-stream", "data: %s\r\n\r\n" % json.dumps(resp))
                else:
                    self._send(200, "application/json", json.dumps(resp))

        return Handler


def gemini_side_answer(body):
    """Gemini CLI asks some questions of its own that want JSON back (how
    complex the task is, who speaks next): answer with an object that fits
    the schema it sent, the user speaking next."""
    config = body.get("generationConfig") or {}
    if config.get("responseMimeType") != "application/json":
        return "ok"
    schema = config.get("responseJsonSchema") or config.get("responseSchema") or {}
    return json.dumps(value_for(schema))


def value_for(schema):
    kind = str(schema.get("type", "object")).lower()
    if schema.get("enum"):
        return "user" if "user" in schema["enum"] else schema["enum"][0]
    if kind == "object":
        return {k: value_for(v) for k, v in (schema.get("properties") or {}).items()}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return 1
    if kind == "boolean":
        return False
    return "ok"


if __name__ == "__main__":
    # For exploring an agent by hand: serve a script until interrupted,
    # recording requests into a file.
    import argparse
    import time
    ap = argparse.ArgumentParser()
    ap.add_argument("--record", required=True)
    ap.add_argument("--script", default="[]", help="JSON list of [kind, arg]")
    ap.add_argument("--port-file")
    a = ap.parse_args()
    m = MockModel([tuple(s) for s in json.loads(a.script)], a.record).start()
    if a.port_file:
        with open(a.port_file, "w") as f:
            f.write(m.url)
    print(m.url, flush=True)
    while True:
        time.sleep(3600)
