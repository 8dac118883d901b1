"""Helpers for tests that mount skillsfs: temporary sources, a daemon in the
foreground, readiness by polling with a deadline, and an unmount that always
happens (also when a test fails)."""

import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import unittest

SKILLSFS = os.environ.get("SKILLSFS", "skillsfs")
SOURCE_ROOT = os.environ.get(
    "SKILLSFS_SOURCE_ROOT",
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
EXAMPLE_SKILLS = os.path.join(SOURCE_ROOT, "tests", "skills")
READY_TIMEOUT = 20.0
# status.json's finding for a remote root whose first fetch is under way
FETCHING = "the first fetch is under way"
# how long a change may take to show: a deadline, not a speed figure; the
# sanitizer builds on a loaded 2-core machine took over 5 s (CI)
REFRESH_TIMEOUT = 20.0


def sha256_file(path):
    with open(path, "rb") as f:
        return "sha256:" + hashlib.sha256(f.read()).hexdigest()


def wait_for(predicate, timeout=REFRESH_TIMEOUT, interval=0.02, what="condition"):
    """Polls predicate() until it returns a true value; fails after timeout."""
    deadline = time.monotonic() + timeout
    last_error = None
    while True:
        try:
            value = predicate()
            if value:
                return value
        except OSError as e:
            last_error = e
        if time.monotonic() > deadline:
            raise AssertionError("timed out after %.1fs waiting for %s%s" % (
                timeout, what, " (last error: %s)" % last_error if last_error else ""))
        time.sleep(interval)


def resident_bytes(pid):
    """The resident memory of process pid (VmRSS), in bytes."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def disk_use(top):
    """The bytes the files below top take on disk (a file removed while
    it is walked counts for nothing)."""
    total = 0
    for dirpath, dirs, files in os.walk(top):
        for name in files:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_blocks * 512
            except FileNotFoundError:
                pass
    return total


def write_skill(root, skill_id, description="A skill made by a test.", body="Body.\n",
                extra_frontmatter="", files=None):
    """Writes a valid skill folder under root; returns its path."""
    d = os.path.join(root, skill_id)
    os.makedirs(d, exist_ok=True)
    fm = "---\nname: %s\ndescription: %s\n%s---\n" % (skill_id, description, extra_frontmatter)
    with open(os.path.join(d, "SKILL.md"), "w") as f:
        f.write(fm + body)
    for rel, content in (files or {}).items():
        p = os.path.join(d, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(content)
    return d


@contextlib.contextmanager
def half_written(path, half=b"new notes, half", rest=b" and done\n"):
    """path rewritten in place by a writer at work in the with block:
    emptied, half written and flushed; the rest written as it ends."""
    with open(path, "r+b") as f:
        f.truncate(0)
        f.write(half)
        f.flush()
        yield f
        f.write(rest)


def proc_files(name):
    """(pid, bytes) of /proc/PID/name for every process still there."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/%s" % (pid, name), "rb") as f:
                yield int(pid), f.read()
        except OSError:
            continue        # it ended meanwhile


def unmount(mountpoint):
    """Unmounts, lazily if it is busy; quiet when nothing is mounted."""
    if not os.path.ismount(mountpoint) and not is_stale(mountpoint):
        return
    r = subprocess.run(["fusermount3", "-u", mountpoint], capture_output=True)
    if r.returncode != 0:
        subprocess.run(["fusermount3", "-uz", mountpoint], capture_output=True)


def is_stale(mountpoint):
    # statfs always reaches the daemon; stat may be answered from caches
    try:
        os.statvfs(mountpoint)
        return False
    except OSError as e:
        return e.errno == 107   # ENOTCONN


class Mount:
    """A skillsfs daemon serving `roots` at a temporary mountpoint."""

    def __init__(self, roots, options=(), env=None, workdir=None, wait_fetched=True):
        self.wait_fetched = wait_fetched
        self.workdir = workdir or tempfile.mkdtemp(prefix="skillsfs-mnt-")
        self.path = os.path.join(self.workdir, "mnt")
        os.makedirs(self.path, exist_ok=True)
        self.roots = list(roots)
        self.options = list(options)
        self.env = env
        self.proc = None
        self.stderr_path = os.path.join(self.workdir, "daemon.stderr")

    def argv(self):
        args = [SKILLSFS, self.path]
        for r in self.roots:
            args += ["--skills-dir", r]
        return args + ["-f"] + self.options

    def start(self, timeout=READY_TIMEOUT):
        self._stderr = open(self.stderr_path, "wb")
        self.proc = subprocess.Popen(self.argv(), stdout=subprocess.DEVNULL,
                                     stderr=self._stderr, env=self.env)
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise AssertionError("skillsfs exited with %d before the mount was ready:\n%s"
                                     % (self.proc.returncode, self.stderr()))
            if os.path.ismount(self.path):
                try:
                    if self.ready():
                        return self
                except (OSError, ValueError):
                    pass
            if time.monotonic() > deadline:
                self.stop()
                raise AssertionError("skillsfs not ready after %.0fs:\n%s" % (timeout, self.stderr()))
            time.sleep(0.01)

    def ready(self):
        """index.json answers, and (unless wait_fetched is false) the
        first fetch of every remote root has ended: a start does not wait
        for them (status.json says they are being fetched)."""
        if not self.wait_fetched:
            with open(self.file("index.json"), "rb") as f:
                f.read()
            return True
        return not any(FETCHING in d.get("message", "")
                       for d in self.json("status.json")["diagnostics"])

    def stderr(self):
        try:
            with open(self.stderr_path, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def file(self, *parts):
        return os.path.join(self.path, *parts)

    def read(self, *parts):
        with open(self.file(*parts), "rb") as f:
            return f.read()

    def json(self, *parts):
        return json.loads(self.read(*parts))

    def generation(self):
        return self.json("status.json")["generation"]

    def sighup(self, timeout=REFRESH_TIMEOUT):
        """Sends SIGHUP and waits for the build it makes (a generation
        above the one served before); returns the new generation."""
        gen = self.generation()
        self.proc.send_signal(signal.SIGHUP)
        return wait_for(lambda: self.generation() > gen and self.generation(),
                        timeout=timeout, what="the build SIGHUP made")

    def terminate(self, sig=signal.SIGTERM, timeout=10):
        """Signals the daemon and returns its exit status."""
        self.proc.send_signal(sig)
        return self.proc.wait(timeout=timeout)

    def stop(self):
        """Always leaves no mount and no process behind."""
        try:
            unmount(self.path)
        finally:
            if self.proc is not None:
                try:
                    self.proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait(timeout=5)
                    unmount(self.path)
            if getattr(self, "_stderr", None):
                self._stderr.close()
                self._stderr = None
        self.check_sanitizers()

    def check_sanitizers(self):
        """Under -Db_sanitize, a report in the daemon's stderr fails the test."""
        err = self.stderr()
        for marker in ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
                       "WARNING: ThreadSanitizer"):
            if marker in err:
                raise AssertionError("the daemon reported a sanitizer finding:\n" + err)

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)


class LoopThreads:
    """Threads, each running one of the loops given until the with block
    ends; the loops look at self.stop."""

    join_timeout = 30

    def __init__(self, loops):
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=loop, daemon=True) for loop in loops]

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join(timeout=self.join_timeout)


class FileReaders(LoopThreads):
    """Threads that read one file whole in a loop: the contents they saw
    (a set) and the errors they met."""

    def __init__(self, path, threads=3):
        self.path = path
        self.seen, self.errors = set(), []
        super().__init__([self.read_loop] * threads)

    def read_loop(self):
        while not self.stop.is_set():
            try:
                with open(self.path, "rb") as f:
                    self.seen.add(f.read())
            except OSError as e:
                self.errors.append(e)


class MountTestCase(unittest.TestCase):
    """A test case with helpers to copy the example skills and mount them."""

    def make_dir(self):
        d = tempfile.mkdtemp(prefix="skillsfs-src-")
        self.addCleanup(shutil.rmtree, d, True)
        return d

    def copy_examples(self):
        root = os.path.join(self.make_dir(), "skills")
        shutil.copytree(EXAMPLE_SKILLS, root, symlinks=True)
        return root

    def mount(self, roots, options=(), **kw):
        m = Mount(roots, options, **kw)
        self.addCleanup(m.cleanup)
        m.start()
        return m

    def serve_mcp_http(self, argv, env=None, timeout=60):
        """Starts skillsfs-mcp --http (argv, the whole command line), ended
        after the test, and waits until it says where it serves: (its
        URL, ending in /mcp, and all it said on stderr by then)."""
        err = open(os.path.join(self.make_dir(), "mcp.err"), "w+")
        self.addCleanup(err.close)
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=err)

        def end():
            proc.terminate()
            proc.wait(timeout=30)
        self.addCleanup(end)

        def said():
            err.seek(0)
            return err.read()

        def url():      # a whole line: the port may still be half written
            m = re.search(r"serving (http://\S+)\n", said())
            return m.group(1) if m else None
        wait_for(lambda: url() or proc.poll() is not None,
                 timeout=timeout, what="skillsfs-mcp --http to say where it serves")
        if proc.poll() is not None:
            self.fail("skillsfs-mcp --http ended: " + said())
        return url(), said()
