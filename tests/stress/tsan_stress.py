#!/usr/bin/env python3
"""Concurrency stress of the skillsfs daemon, meant for a ThreadSanitizer
build (-Db_sanitize=thread): parallel reader processes run find, cat and
stat in loops over the mount while a writer adds, edits, removes and renames
skills in the source.  It runs five phases, one mount each: the default
loop with inotify, the multi-threaded loop with inotify, the
multi-threaded loop with polling, a git root whose branch the writer
commits to after every change (served by the fetcher thread every second
and on the SIGHUPs the writer sends, with a repository handle per build
thread), and an MCP root: the official SDK's server of the source folder,
reloaded after every change, whose notifications the listener thread
hears while reads fetch files through the kept connection or their own
(skipped without node and the SDK).

Fails on any sanitizer report (TSAN_OPTIONS halt_on_error=1 exitcode=66:
the daemon stops at the first one; its stderr is checked as well), on a
daemon that dies or will not unmount, and on any reader error but the two
races readers must expect: ENOENT while skills come and go, and ESTALE
from a skill file (under skills/, or through refs/) read after its source
changed but before the refresh (skillsfs(1): such a read fails rather
than mixing versions).  Generated
files must always read whole: never ESTALE, always complete JSON.  After
the writer stops, the mount must settle on exactly the skills of the source, each
under the name its SKILL.md gives, byte for byte.

Environment: SKILLSFS (the daemon), STRESS_SECONDS (total writer time,
default 24), STRESS_SEED (the writer's random seed; printed).
"""

import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "fs"))
from mountlib import EXAMPLE_SKILLS, Mount, unmount, wait_for, write_skill  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
from mcpskillserver import SkillServer  # noqa: E402

SECONDS = float(os.environ.get("STRESS_SECONDS", "24"))
SEED = int(os.environ.get("STRESS_SEED", str(int(time.time()) % 100000)))
TSAN_EXITCODE = 66
SANITIZER_MARKERS = ("WARNING: ThreadSanitizer", "ERROR: ThreadSanitizer",
                     "ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                     "runtime error:")

PHASES = [
    ("single-threaded, inotify", []),
    ("multi-threaded, inotify", ["-o", "multithreaded,max_threads=6"]),
    ("multi-threaded, polling", ["-o", "multithreaded,polling,poll_interval=50"]),
    ("git root followed, multi-threaded", ["git", "-o", "multithreaded,max_threads=6"]),
    ("MCP root listened to, multi-threaded", ["mcp", "-o", "multithreaded,max_threads=6"]),
]
GIT_ENV = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="stress",
               GIT_AUTHOR_EMAIL="stress@example.com", GIT_COMMITTER_NAME="stress",
               GIT_COMMITTER_EMAIL="stress@example.com")


def git(repo, *args):
    subprocess.run(["git", "-C", repo] + list(args), env=GIT_ENV, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


class GitWriter:
    """A Writer whose every change is committed to the branch the mount
    follows, with a SIGHUP now and then besides the fetcher's interval."""

    def __init__(self, writer, mount, rng):
        self.w, self.m, self.rng = writer, mount, rng
        self.root, self.ops = writer.root, writer.ops

    def step(self):
        self.w.step()
        git(self.root, "add", "-A")
        git(self.root, "commit", "-q", "--allow-empty", "-m", "step")
        if self.rng.random() < 0.2 and self.m.proc.poll() is None:
            self.m.proc.send_signal(signal.SIGHUP)
            self.ops["SIGHUP"] = self.ops.get("SIGHUP", 0) + 1

    def served(self):
        return self.w.served()

    def folders(self):
        return self.w.folders()

class McpWriter:
    """A Writer whose every change the MCP server reads again at once (and
    then notifies, when its listing changed), with a SIGHUP to the mount
    now and then besides."""

    def __init__(self, writer, server, mount, rng):
        self.w, self.srv, self.m, self.rng = writer, server, mount, rng
        self.root, self.ops = writer.root, writer.ops

    def step(self):
        self.w.step()
        if self.srv.reload():
            self.ops["notified"] = self.ops.get("notified", 0) + 1
        if self.rng.random() < 0.1 and self.m.proc.poll() is None:
            self.m.proc.send_signal(signal.SIGHUP)
            self.ops["SIGHUP"] = self.ops.get("SIGHUP", 0) + 1

    def folders(self):
        return self.w.folders()


# Walks, reads and stats everything, the skills that come and go
# included.  Errors go to stderr, one line each, for the driver to judge.
SHELL_READER = r"""
m=$1; stop=$2; n=0
while [ ! -e "$stop" ]; do
    find "$m" -print > /dev/null
    find "$m/skills" -type f -exec cat {} + > /dev/null
    cat "$m/index.json" "$m/status.json" "$m/catalog/skills_index.json" > /dev/null
    cat "$m"/catalog/*.json "$m"/refs/*/* > /dev/null
    stat "$m"/skills/* "$m"/skills/*/SKILL.md "$m"/refs/* > /dev/null
    ls -lR "$m/skills" > /dev/null
    n=$((n+1))
done
echo "$n"
"""

# Every generated document parses whole, in every generation.
PY_READER = textwrap.dedent(r"""
    import errno, json, os, sys
    m, stop = sys.argv[1:3]
    n = 0
    while not os.path.exists(stop):
        for rel in ("index.json", "status.json", "catalog/skills_index.json"):
            with open(os.path.join(m, rel), "rb") as f:
                json.loads(f.read())
        try:
            ids = os.listdir(os.path.join(m, "skills"))
        except OSError as e:
            sys.exit("listdir skills: %s" % e)
        for i in ids:
            try:
                with open(os.path.join(m, "catalog", i + ".json"), "rb") as f:
                    json.loads(f.read())
                os.stat(os.path.join(m, "skills", i, "SKILL.md"))
            except OSError as e:
                if e.errno != errno.ENOENT:
                    raise
        n += 1
    print(n)
""")
SHELL_READERS = 3
EXAMPLE_IDS = {"pdf-forms", "csv-report", "commit-messages"}


class Writer:
    """Changes the source the ways people and tools do, at random."""

    def __init__(self, root, rng):
        self.root = root
        self.rng = rng
        self.live = []       # folders of the dynamic skills that exist now
        self.name = {}       # folder -> the name its SKILL.md gives: its id
        self.next_id = 0
        self.ops = {}

    def new_id(self):
        self.next_id += 1
        return "stress-%d" % self.next_id

    def add(self):
        sid = self.new_id()
        files = {"references/notes.md": "Notes %d.\n" % self.next_id,
                 "scripts/run.sh": "#!/bin/sh\necho %d\n" % self.next_id}
        extra = ("x-personal-mcp:\n  id: %s\n  version: 1.0.0\n"
                 "  capabilities: [resource://skills/%s/document]\n"
                 "  references:\n    notes:\n      path: references/notes.md\n"
                 % (sid, sid))
        write_skill(self.root, sid, description="Stress skill %s. Use when testing." % sid,
                    body="# %s\n\nSee [notes](references/notes.md).\n" % sid,
                    extra_frontmatter=extra, files=files)
        self.live.append(sid)
        self.name[sid] = sid

    def edit(self):
        sid = self.rng.choice(self.live)
        self.name[sid] = sid
        md = os.path.join(self.root, sid, "SKILL.md")
        body = "# %s\n\nEdit %d.\n" % (sid, self.rng.randrange(10**6)) * self.rng.randrange(1, 40)
        text = "---\nname: %s\ndescription: Edited skill. Use when testing.\n---\n%s" % (sid, body)
        if self.rng.random() < 0.5:             # in place
            with open(md, "w") as f:
                f.write(text)
        else:                                   # the way editors save
            with open(md + ".tmp", "w") as f:
                f.write(text)
            os.rename(md + ".tmp", md)

    def edit_file(self):
        sid = self.rng.choice(self.live)
        path = os.path.join(self.root, sid, "references", "notes.md")
        with open(path, "a") as f:
            f.write("more %d\n" % self.rng.randrange(1000))

    def remove(self):
        sid = self.live.pop(self.rng.randrange(len(self.live)))
        del self.name[sid]
        shutil.rmtree(os.path.join(self.root, sid))

    def rename(self):
        # A renamed folder keeps serving the skill under the name its
        # SKILL.md gives (a valid name that differs from the folder is a
        # warning, not an error) until its SKILL.md follows, which the
        # next op may or may not do.
        old = self.live.pop(self.rng.randrange(len(self.live)))
        new = self.new_id()
        os.rename(os.path.join(self.root, old), os.path.join(self.root, new))
        self.live.append(new)
        self.name[new] = self.name.pop(old)
        if self.rng.random() < 0.7:
            self.edit_one(new)

    def break_and_fix(self):
        sid = self.rng.choice(self.live)
        md = os.path.join(self.root, sid, "SKILL.md")
        with open(md, "w") as f:
            f.write("---\nname: [not, a, string\n---\n")
        self.edit_one(sid)

    def edit_one(self, sid):
        md = os.path.join(self.root, sid, "SKILL.md")
        with open(md, "w") as f:
            f.write("---\nname: %s\ndescription: Fixed. Use when testing.\n---\nBody.\n" % sid)
        self.name[sid] = sid

    def served(self):
        """The ids the mount must serve once it has caught up."""
        return sorted(EXAMPLE_IDS | set(self.name.values()))

    def folders(self):
        """(id, folder) of each dynamic skill."""
        return sorted((sid, folder) for folder, sid in self.name.items())

    def example(self):
        # An example skill the readers also read, touched in place.
        with open(os.path.join(self.root, "pdf-forms", "assets", "mapping.json"), "a") as f:
            f.write(" ")

    def step(self):
        if len(self.live) < 4:
            op = self.add
        else:
            op = self.rng.choice([self.add, self.edit, self.edit, self.edit_file,
                                  self.remove, self.rename, self.break_and_fix,
                                  self.example])
            if op == self.add and len(self.live) > 30:
                op = self.remove
        op()
        self.ops[op.__name__] = self.ops.get(op.__name__, 0) + 1


def judge_reader_errors(text, mount, remote=False):
    """Lines of reader stderr that are not an expected race.  With remote
    (an MCP root), EIO of a skill file is one too: a file first read after
    the server changed it, before the mount listed it again, comes with
    other bytes than the listing it was read under names, and is refused."""
    bad = []
    # Skill files, also reached through the refs/ symlinks into them.
    skill_files = (os.path.join(mount, "skills") + "/", os.path.join(mount, "refs") + "/")
    for line in text.splitlines():
        if not line.strip():
            continue
        if "No such file or directory" in line:
            continue
        if "Stale file handle" in line and any(p in line for p in skill_files):
            continue
        if remote and "Input/output error" in line and any(p in line for p in skill_files):
            continue
        bad.append(line)
    return bad


def check_settled(m, writer):
    """The mount serves exactly the valid skills, each file as in the source."""
    want = writer.served()
    try:
        wait_for(lambda: sorted(os.listdir(m.file("skills"))) == want, timeout=20,
                 what="the mount to serve the valid skills")
    except AssertionError as e:
        have = sorted(os.listdir(m.file("skills")))
        status = m.json("status.json")
        raise AssertionError("%s: missing %s, unexpected %s; status.json: generation %s, "
                             "counts %s, skills %s" % (
                                 e, sorted(set(want) - set(have)), sorted(set(have) - set(want)),
                                 status.get("generation"), status.get("counts"),
                                 [(x["dir"], x["state"], [d["message"] for d in x["diagnostics"]])
                                  for x in status.get("skills", [])]))
    for sid, folder in writer.folders():
        src = os.path.join(writer.root, folder)
        for rel in ("SKILL.md", "references/notes.md"):
            with open(os.path.join(src, rel), "rb") as f:
                data = f.read()
            wait_for(lambda: m.read("skills", sid, rel) == data, timeout=20,
                     what="skills/%s/%s to match its source" % (sid, rel))


def sanitizer_report(text):
    return any(m in text for m in SANITIZER_MARKERS)


class StressMount(Mount):
    """The daemon without address space randomization where setarch can
    turn it off: ThreadSanitizer's fixed shadow layout clashes with the
    large mmap randomization of some kernels."""

    def argv(self):
        args = super().argv()
        if SETARCH:
            return [SETARCH, os.uname().machine, "-R"] + args
        return args


SETARCH = shutil.which("setarch")


def run_phase(name, options, seconds, rng, work):
    src = os.path.join(work, "src")
    shutil.copytree(EXAMPLE_SKILLS, src, symlinks=True)
    env = dict(os.environ)
    env["TSAN_OPTIONS"] = ("halt_on_error=1 exitcode=%d second_deadlock_stack=1 %s"
                           % (TSAN_EXITCODE, os.environ.get("TSAN_OPTIONS", ""))).strip()
    is_git = options[:1] == ["git"]
    is_mcp = options[:1] == ["mcp"]
    srv = None
    if is_mcp:
        if not SkillServer.available():
            print("# phase: %s skipped: needs node and the MCP SDK (npm ci in tests/mcp)"
                  % name)
            return [], ""
        srv = SkillServer(src, era="modern")
        options = ["--source", "mcp+" + srv.url, "-o",
                   "fetch_interval=1,cache_dir=%s" % os.path.join(work, "cache")] + options[1:]
    if is_git:
        # the source is a branch of a repository, not the folder itself
        git(src, "init", "-q", "-b", "main")
        git(src, "add", "-A")
        git(src, "commit", "-q", "-m", "examples")
        options = ["--source", "git+file://%s#main" % src, "-o",
                   "fetch_interval=1,cache_dir=%s" % os.path.join(work, "cache")] + options[1:]
    m = StressMount([] if is_git or is_mcp else [src], options, env=env,
                    workdir=os.path.join(work, "m"))
    failures = []
    readers = []
    stop = os.path.join(work, "stop")
    writer = Writer(src, rng)
    if is_git:
        writer = GitWriter(writer, m, rng)
    if is_mcp:
        writer = McpWriter(writer, srv, m, rng)
    print("# phase: %s (%s), %.0fs" % (name, " ".join(options) or "defaults", seconds))
    try:
        m.start()
        argvs = [["sh", "-c", SHELL_READER, "sh", m.path, stop]] * SHELL_READERS
        argvs.append([sys.executable, "-c", PY_READER, m.path, stop])
        for i, argv in enumerate(argvs):
            err = open(os.path.join(work, "reader%d.err" % i), "w+b")
            readers.append((subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err), err))

        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            writer.step()
            time.sleep(rng.uniform(0.005, 0.06))
            if m.proc.poll() is not None:
                failures.append("the daemon exited with %d during the run" % m.proc.returncode)
                break
        # The mount still answers and catches up with the final source
        # (an MCP server's own rules decide what it lists: not judged).
        if m.proc.poll() is None and not is_mcp:
            try:
                check_settled(m, writer)
            except (OSError, AssertionError) as e:
                failures.append("after the run: %s" % e)
    finally:
        open(stop, "w").close()
        for r, errf in readers:
            try:
                out, _ = r.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                r.kill()
                out, _ = r.communicate()
                failures.append("reader %s hung" % r.args[:2])
            errf.seek(0)
            err = errf.read().decode(errors="replace")
            errf.close()
            bad = judge_reader_errors(err, m.path, remote=is_mcp)
            if r.returncode != 0 and not bad:
                bad = ["exit status %d" % r.returncode]
            if bad:
                failures.append("reader %s: %s" % (
                    " ".join(r.args[:2]), "\n    ".join(bad[:20])))
            else:
                loops = out.decode().split()
                print("# reader %s: %s loops, %d ENOENT and %d ESTALE races" % (
                    " ".join(r.args[:2]), loops[-1] if loops else "?",
                    err.count("No such file or directory"), err.count("Stale file handle")))
        try:
            unmount(m.path)
        finally:
            if m.proc is not None:
                try:
                    rc = m.proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    m.proc.kill()
                    rc = m.proc.wait(timeout=10)
                    failures.append("the daemon did not exit after the unmount")
                    unmount(m.path)
                if rc == TSAN_EXITCODE:
                    failures.append("the daemon exited with %d: a ThreadSanitizer report"
                                    % TSAN_EXITCODE)
                elif rc != 0 and not failures:
                    failures.append("the daemon exited with %d" % rc)
            if getattr(m, "_stderr", None):
                m._stderr.close()
                m._stderr = None
            if srv is not None:
                srv.stop()
    err = m.stderr()
    if sanitizer_report(err):
        failures.append("sanitizer report in the daemon's stderr")
    print("# writer: %s" % ", ".join("%s %d" % kv for kv in sorted(writer.ops.items())))
    return failures, err


def main():
    work = tempfile.mkdtemp(prefix="skillsfs-stress-")
    mounts = []

    def on_signal(sig, frame):
        raise SystemExit("stopped by signal %d" % sig)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    print("# seed %d (STRESS_SEED=%d reproduces the writer's choices)" % (SEED, SEED))
    rng = random.Random(SEED)
    status = 0
    try:
        for i, (name, options) in enumerate(PHASES):
            phase_dir = os.path.join(work, "phase%d" % i)
            os.makedirs(phase_dir)
            mounts.append(os.path.join(phase_dir, "m", "mnt"))
            failures, err = run_phase(name, options, SECONDS / len(PHASES), rng, phase_dir)
            if failures:
                status = 1
                print("FAIL %s:" % name)
                for f in failures:
                    print("  " + f)
                print("--- daemon stderr (%s) ---\n%s--- end ---" % (name, err[-20000:]))
            else:
                print("ok %s" % name)
    finally:
        for path in mounts:
            unmount(path)
        shutil.rmtree(work, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
