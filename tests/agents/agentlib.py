"""The real agent programs (Claude Code, Codex, Gemini CLI, Copilot CLI,
pinned in package-lock.json) run against a skillsfs mount and a scripted model on
loopback: each in a temporary HOME with no account, its own skills folder a
symlink to the folder the test names, a timeout on every run.

An Agent knows, for its program: how to lay out its HOME (the folder it
scans for skills, its config), how to run one non-interactive turn, where
in the request to the model it puts the skills listing and how to read that
listing back, and what it logs when the listing is over its budget.
"""

import fcntl
import glob
import html
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fs"))

from mockmodel import MockModel  # noqa: E402
from mountlib import Mount, SOURCE_ROOT  # noqa: E402,F401  (the tests take them from here)

BIN = os.path.join(HERE, "node_modules", ".bin")
SKILLSFS_MCP = os.environ.get("SKILLSFS_MCP", "skillsfs-mcp")
RUN_TIMEOUT = 180           # seconds for one agent turn, start to exit

# The view each agent is given by name in the mount (issue 23's built-in
# profiles), and the folder the tests point its skills folder at.
VIEW = {"claude-code": "claude-code", "codex": "codex", "gemini": "gemini",
        "copilot": "copilot"}


def skills_folder(mount, agent):
    """The folder an agent's own skills folder points at: the one line to
    change when views land is the return below (to views/<VIEW[agent]>)."""
    return mount.file("skills")


def view_folder(mount, agent):
    return mount.file("views", VIEW[agent])


# ---------------------------------------------------------------------------
# No network but loopback

ENV_NETNS = "SKILLSFS_AGENTS_NETNS"


def isolate_network():
    """Re-executes this test in a network namespace of its own (loopback
    only) when it can, so no agent reaches the internet whatever it tries;
    returns whether it is isolated.  Without one (not root, no unshare),
    the agents get a proxy on a closed loopback port instead."""
    if os.environ.get(ENV_NETNS) == "1":
        loopback_up()
        print("agents: in a network namespace of their own, loopback only", file=sys.stderr)
        return True
    unshare = shutil.which("unshare")
    if os.geteuid() != 0 or not unshare or os.environ.get(ENV_NETNS) == "0" or \
            subprocess.run([unshare, "--net", "true"], capture_output=True).returncode != 0:
        print("agents: no network namespace here; the agents get a proxy on a "
              "closed loopback port", file=sys.stderr)
        return False
    os.environ[ENV_NETNS] = "1"
    sys.stdout.flush()
    sys.stderr.flush()
    os.execvp(unshare, [unshare, "--net", "--", sys.executable] + sys.argv)
    return False


def loopback_up():
    """ip link set lo up, without needing iproute2."""
    SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        ifr = struct.pack("16sH14s", b"lo", 0, b"")
        flags = struct.unpack("16sH", fcntl.ioctl(s, SIOCGIFFLAGS, ifr)[:18])[1]
        if not flags & IFF_UP:
            fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH14s", b"lo", flags | IFF_UP, b""))


def network_env():
    if os.environ.get(ENV_NETNS) == "1":
        return {}
    dead = "http://127.0.0.1:9"
    return {"HTTPS_PROXY": dead, "HTTP_PROXY": dead, "https_proxy": dead,
            "http_proxy": dead, "ALL_PROXY": dead,
            "NO_PROXY": "127.0.0.1,localhost,::1", "no_proxy": "127.0.0.1,localhost,::1"}


# ---------------------------------------------------------------------------
# Reading a skills folder as the agent should list it

def frontmatter_field(skill_md, field):
    """A one-line scalar field of a SKILL.md's frontmatter (the generated
    skills write name and description that way)."""
    with open(skill_md, encoding="utf-8") as f:
        text = f.read()
    head = text.split("\n---", 1)[0]
    for line in head.splitlines():
        if line.startswith(field + ":"):
            value = line[len(field) + 1:].strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            return value
    return None


def folder_skills(folder):
    """{id: description} of every skill folder in folder."""
    out = {}
    for name in sorted(os.listdir(folder)):
        md = os.path.join(folder, name, "SKILL.md")
        if os.path.isfile(md):
            out[name] = frontmatter_field(md, "description")
    return out


# ---------------------------------------------------------------------------
# A run of an agent

class Run:
    """What one turn left: exit status, output, and the agent's logs."""

    def __init__(self, agent, proc_result, log_text):
        self.agent = agent
        self.returncode = proc_result.returncode
        self.stdout = proc_result.stdout
        self.stderr = proc_result.stderr
        self.log = log_text

    def describe(self):
        return "%s exited %s\n--- stdout\n%s\n--- stderr\n%s" % (
            self.agent.name, self.returncode, self.stdout[-4000:], self.stderr[-4000:])


def mentions_skills(line):
    """The word skill or skills (not the skillsfs of a temporary path)."""
    return re.search(r"\bskills?\b", line, re.I) is not None


class Agent:
    name = None
    read_tool = None        # the tool offered in its main loop's requests
    log_glob = None         # its log files, below its home
    warnings_in = "log"     # the part of a Run where it warns: log, stderr
    budget_marker = None    # in a line that says it cut its listing
    error_pattern = None    # a line that is an error (about skills, if it
                            # mentions them)

    def __init__(self, workdir):
        self.workdir = workdir
        self.home = os.path.join(workdir, "home")
        self.project = os.path.join(self.home, "project")
        os.makedirs(self.project)
        os.makedirs(os.path.join(self.home, "tmp"))

    def program(self):
        return os.path.join(BIN, self.program_name)

    def base_env(self):
        # node from package.json first: Gemini CLI needs node 20 or later
        path = BIN + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin")
        env = {"HOME": self.home, "PATH": path,
               "TMPDIR": os.path.join(self.home, "tmp"), "LANG": "C.UTF-8",
               "TERM": "dumb", "NO_COLOR": "1", "CI": "1"}
        env.update(network_env())
        return env

    def configure(self, skills_dir, mount, mcp=False):
        """Its skills folder (skills_home, below its home) links to
        skills_dir; with mcp, its MCP configuration names skillsfs-mcp on
        mount."""
        self.link_skills(self.skills_home, skills_dir)
        self.mcp_mount = mount if mcp else None

    def link_skills(self, rel, target):
        """The agent's own skills folder, a symlink to target (none when
        target is None: the agent reads another agent's link)."""
        if target is None:
            return
        path = os.path.join(self.home, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.symlink(target, path)

    def command(self, mock, prompt):
        """Its argv and environment: the common one with its own on top."""
        env = self.base_env()
        env.update(self.own_env(mock))
        return self.argv(mock, prompt), env

    def run(self, mock, prompt):
        argv, env = self.command(mock, prompt)
        proc = subprocess.Popen(argv, cwd=self.project, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
        try:
            out, err = proc.communicate(timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            raise AssertionError("%s did not finish within %ds:\n%s" % (
                self.name, RUN_TIMEOUT, err.decode("utf-8", "replace")[-4000:]))
        finally:
            # whatever it left behind in its session (an MCP server, a shell)
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        result = subprocess.CompletedProcess(argv, proc.returncode,
                                             out.decode("utf-8", "replace"),
                                             err.decode("utf-8", "replace"))
        return Run(self, result, self.read_logs())

    def read_logs(self):
        """Its log files (log_glob, below its home), in name order."""
        text = ""
        if self.log_glob:
            for path in sorted(glob.glob(os.path.join(self.home, self.log_glob))):
                with open(path, encoding="utf-8", errors="replace") as f:
                    text += f.read()
        return text

    def main_requests(self, mock):
        return mock.conversation(self.read_tool)

    def warnings(self, run):
        return getattr(run, self.warnings_in).splitlines()

    def over_budget(self, run):
        if not self.budget_marker:
            return []
        return [l for l in self.warnings(run) if self.budget_marker in l]

    def skill_complaints(self, run):
        return [l for l in self.warnings(run)
                if re.search(self.error_pattern, l) and mentions_skills(l)]


class ClaudeCode(Agent):
    """Claude Code: scans ~/.claude/skills; the listing is a system-reminder
    message ("The following skills are available for use with the Skill
    tool:"); its debug log says "Skill listing over budget" past the budget.
    The model is one with a 200k context, whose budget the claude-code
    profile is sized for."""
    name = "claude-code"
    program_name = "claude"
    read_tool = "Read"
    model = "claude-sonnet-4-5"
    skills_home = ".claude/skills"
    log_glob = ".claude/debug/*.txt"
    budget_marker = "over budget"
    error_pattern = r"\[ERROR\]"

    def own_env(self, mock):
        return {"ANTHROPIC_BASE_URL": mock.url, "ANTHROPIC_API_KEY": "dummy",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1"}

    def argv(self, mock, prompt):
        tools = ["Read", "Bash"]
        argv = [self.program(), "-p", prompt, "--model", self.model,
                "--output-format", "json", "--debug"]
        if self.mcp_mount:
            config = {"mcpServers": {"skills": {
                "command": SKILLSFS_MCP, "args": ["--mount", self.mcp_mount]}}}
            argv += ["--mcp-config", json.dumps(config), "--strict-mcp-config"]
            tools.append("mcp__skills__get_skill")
        return argv + ["--allowedTools", ",".join(tools)]

    @staticmethod
    def listing(request):
        """{name: description or None} from the skills reminder."""
        marker = "The following skills are available for use with the Skill tool:"
        text = None
        for m in request["body"].get("messages") or []:
            content = m.get("content")
            parts = [content] if isinstance(content, str) else [
                c.get("text", "") for c in content or [] if isinstance(c, dict)]
            for p in parts:
                if marker in p:
                    text = p.split(marker, 1)[1]
        if text is None:
            return None
        return parse_dash_list(text.split("</system-reminder>", 1)[0])


def parse_dash_list(text):
    """Lines "- name: description" (continued on the next lines until the
    next "- "), or "- name" alone when listed by name only."""
    out, current = {}, None
    for line in text.strip("\n").splitlines():
        m = re.match(r"^- ([A-Za-z0-9_.:-]+)(?:: (.*))?$", line)
        if m:
            current = m.group(1)
            if current in out:
                out.setdefault("__twice__", []).append(current)
            out[current] = m.group(2)
        elif current is not None and line.strip():
            out[current] = (out[current] or "") + "\n" + line
        elif not line.strip():
            current = None
    return out


class Codex(Agent):
    """Codex: scans ~/.agents/skills (and $CODEX_HOME/skills, where it keeps
    its own system skills); the listing is in the developer message's
    <skills_instructions>, one "- name: description (file: rN/...)" per
    skill; past its budget it warns "Exceeded skills context budget".  The
    model is a custom provider on the mock, whose unknown context window
    gives the 8,000-character budget the codex profile is sized for."""
    name = "codex"
    program_name = "codex"
    read_tool = "exec_command"
    skills_home = ".agents/skills"
    warnings_in = "stderr"
    budget_marker = "skills context budget"
    # e.g. "failed to install system skills: ... Read-only file system"
    # when $CODEX_HOME/skills is a link into the mount
    error_pattern = "ERROR"

    def configure(self, skills_dir, mount, mcp=False):
        super().configure(skills_dir, mount, mcp)
        self.codex_home = os.path.join(self.home, ".codex")
        os.makedirs(self.codex_home, exist_ok=True)

    def own_env(self, mock):
        return {"CODEX_HOME": self.codex_home, "RUST_LOG": "warn"}

    def argv(self, mock, prompt):
        config = ('model = "mock-model"\nmodel_provider = "mock"\n'
                  'check_for_update_on_startup = false\n'
                  '[analytics]\nenabled = false\n'
                  '[model_providers.mock]\nname = "mock"\nbase_url = %s\n'
                  'wire_api = "responses"\nrequest_max_retries = 0\n'
                  'stream_max_retries = 0\n' % json.dumps(mock.url + "/v1"))
        if self.mcp_mount:
            config += '[mcp_servers.skills]\ncommand = %s\nargs = %s\n' % (
                json.dumps(SKILLSFS_MCP), json.dumps(["--mount", self.mcp_mount]))
        with open(os.path.join(self.codex_home, "config.toml"), "w") as f:
            f.write(config)
        return [self.program(), "exec", "--skip-git-repo-check",
                "--dangerously-bypass-approvals-and-sandbox", prompt]

    @staticmethod
    def listing(request):
        """{name: description or None} from <skills_instructions>, and the
        root aliases it uses for paths under "roots"."""
        for item in request["body"].get("input") or []:
            for c in item.get("content") or [] if isinstance(item, dict) else []:
                text = c.get("text", "") if isinstance(c, dict) else ""
                if "<skills_instructions>" not in text:
                    continue
                body = text.split("<skills_instructions>", 1)[1].split("</skills_instructions>", 1)[0]
                out = {}
                section = body.split("### Available skills", 1)[1].split("\n###", 1)[0]
                for line in section.strip("\n").splitlines():
                    m = re.match(r"^- ([^:\s]+):(?: (.*?))? ?\(file: ([^)]*)\)$", line)
                    if m:
                        if m.group(1) in out:
                            out.setdefault("__twice__", []).append(m.group(1))
                        out[m.group(1)] = m.group(2) or None
                return out
        return None


class Gemini(Agent):
    """Gemini CLI: scans ~/.gemini/skills; the listing is <available_skills>
    in the system instruction, every skill with its description (it has
    no budget).  Its file tools read the mount because settings.json names
    it in context.includeDirectories, as the README says."""
    name = "gemini"
    program_name = "gemini"
    read_tool = "read_file"
    skills_home = ".gemini/skills"   # and no listing budget

    def configure(self, skills_dir, mount, mcp=False, include_mount=True):
        self.link_skills(self.skills_home, skills_dir)
        settings = {
            "security": {"auth": {"selectedType": "gemini-api-key"},
                         "folderTrust": {"enabled": False}},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "context": {"includeDirectories": [mount] if include_mount else []},
        }
        if mcp:
            settings["mcpServers"] = {"skills": {
                "command": SKILLSFS_MCP, "args": ["--mount", mount], "trust": True}}
        os.makedirs(os.path.join(self.home, ".gemini"), exist_ok=True)
        with open(os.path.join(self.home, ".gemini", "settings.json"), "w") as f:
            json.dump(settings, f)

    def own_env(self, mock):
        return {"GOOGLE_GEMINI_BASE_URL": mock.url, "GEMINI_API_KEY": "dummy"}

    def argv(self, mock, prompt):
        return [self.program(), "-p", prompt, "--yolo"]

    def skill_complaints(self, run):
        # "Skill conflict detected": a skill in two of its folders
        return [l for l in (run.stdout + run.stderr).splitlines() if "Skill conflict" in l]

    @staticmethod
    def listing(request):
        si = request["body"].get("systemInstruction") or {}
        text = "".join(p.get("text", "") for p in si.get("parts") or [])
        if "<available_skills>" not in text:
            return None
        out = {}
        for m in re.finditer(r"<skill>\s*<name>(.*?)</name>\s*(?:<description>(.*?)</description>)?",
                             text, re.S):
            name = html.unescape(m.group(1).strip())
            if name in out:
                out.setdefault("__twice__", []).append(name)
            out[name] = html.unescape(m.group(2).strip()) if m.group(2) else None
        return out


class Copilot(Agent):
    """Copilot CLI: scans ~/.copilot/skills and ~/.agents/skills (1.0.102
    lists nothing from ~/.claude/skills); the listing is <available_skills> in the Responses
    request's instructions, one <skill> with name, description and location
    each, its own built-in skills last.  Past its budget (about 15,000
    characters of those entries, cut in name order) the rest follow by name
    only after "Additional skills available (invoke by name):".  No GitHub
    account: COPILOT_OFFLINE with a custom provider (BYOK) on the mock,
    which it calls with the OpenAI Responses API."""
    name = "copilot"
    program_name = "copilot"
    read_tool = "view"
    model = "gpt-5.4"
    budget_marker = "Additional skills available (invoke by name):"
    error_pattern = r"\[ERROR\]|\bERROR\b"
    skills_home = ".copilot/skills"
    log_glob = ".copilot/logs/*.log"

    def own_env(self, mock):
        return {"COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false",
                "COPILOT_PROVIDER_BASE_URL": mock.url + "/v1",
                "COPILOT_PROVIDER_TYPE": "openai",
                "COPILOT_PROVIDER_WIRE_API": "responses",
                "COPILOT_PROVIDER_API_KEY": "dummy", "COPILOT_MODEL": self.model}

    def argv(self, mock, prompt):
        argv = [self.program(), "-p", prompt, "--allow-all", "--no-auto-update",
                "--disable-builtin-mcps"]
        if self.mcp_mount:
            config = {"mcpServers": {"skills": {
                "type": "local", "command": SKILLSFS_MCP,
                "args": ["--mount", self.mcp_mount], "tools": ["*"]}}}
            argv += ["--additional-mcp-config", json.dumps(config)]
        return argv

    def run(self, mock, prompt):
        # what it cut is in its request, not in its logs
        run = super().run(mock, prompt)
        for r in self.main_requests(mock):
            text = r["body"].get("instructions") or ""
            run.log += "".join(l + "\n" for l in text.splitlines() if self.budget_marker in l)
        return run

    @classmethod
    def listing(cls, request):
        """{name: description or None}: <skill> entries, and the names it
        lists without a description past its budget."""
        text = request["body"].get("instructions") or ""
        if "<available_skills>" not in text:
            return None
        body = text.split("<available_skills>", 1)[1].split("</available_skills>", 1)[0]
        out = {}

        def add(name, description):
            if name in out:
                out.setdefault("__twice__", []).append(name)
            out[name] = description

        for m in re.finditer(r"<skill>\s*<name>(.*?)</name>\s*"
                             r"(?:<description>(.*?)</description>)?", body, re.S):
            add(html.unescape(m.group(1).strip()),
                html.unescape(m.group(2).strip()) if m.group(2) else None)
        if cls.budget_marker in body:
            rest = body.split(cls.budget_marker, 1)[1].strip()
            for name in rest.split(","):
                if name.strip():
                    add(html.unescape(name.strip()), None)
        return out


AGENTS = {"claude-code": ClaudeCode, "codex": Codex, "gemini": Gemini, "copilot": Copilot}

# The folders each agent reads skills from in HOME (the ones README.md's
# "Connecting each agent" may link).
HOME_FOLDERS = {"claude-code": [".claude/skills"],
                "codex": [".agents/skills", ".codex/skills"],     # CODEX_HOME is ~/.codex
                "gemini": [".gemini/skills", ".agents/skills"],
                # 1.0.102 lists nothing from ~/.claude/skills, linked or not
                "copilot": [".copilot/skills", ".agents/skills"]}


def readme_links():
    """[(folder in HOME, view name)]: every `ln -s MOUNT/views/VIEW ~/FOLDER`
    README.md gives, as written (in a block or inline), so that two pieces
    of advice that disagree show up as an agent reading two views."""
    with open(os.path.join(SOURCE_ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    links = re.findall(r"ln -s \S+/views/([a-z0-9-]+)/? ~/([^\s`]+)", text)
    return sorted({(folder.rstrip("/"), view) for view, folder in links})


def link_readme_home(agent, mount):
    """Makes README's links in agent's HOME (views until they exist: the
    folder skills_folder() gives); returns the views the agent then reads."""
    links = readme_links()
    for folder, view in links:
        agent.link_skills(folder, skills_folder(mount, view))
    return [view for folder, view in links if folder in HOME_FOLDERS[agent.name]]


def installed():
    """Why the agents cannot run here, or None."""
    missing = [n for n in ("claude", "codex", "gemini", "copilot", "node")
               if not os.path.exists(os.path.join(BIN, n))]
    if missing:
        return "tests/agents/node_modules lacks %s: run `npm ci` in tests/agents" % ", ".join(missing)
    return None


def new_workdir(prefix):
    return tempfile.mkdtemp(prefix="skillsfs-agent-%s-" % prefix)
