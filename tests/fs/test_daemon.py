#!/usr/bin/env python3
"""Daemon conventions: clean exit on SIGTERM, SIGINT and fusermount3 -u;
daemonizing; the command line and its errors with advice; mounting the way
mount(8) and /etc/fstab do."""

import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from mountlib import (REFRESH_TIMEOUT, SKILLSFS, Mount, MountTestCase, is_stale, proc_files,
                      unmount, wait_for, write_skill)


def run(args, **kw):
    return subprocess.run([SKILLSFS] + args, capture_output=True, text=True, timeout=30, **kw)


def daemons_serving(mountpoint):
    """PIDs of skillsfs processes whose command line names mountpoint."""
    pids = []
    for pid, cmdline in proc_files("cmdline"):
        argv = cmdline.split(b"\0")
        if os.path.basename(argv[0]) == b"skillsfs" and mountpoint.encode() in argv:
            pids.append(pid)
    return pids


class Signals(MountTestCase):
    def test_sigterm_exits_cleanly(self):
        m = self.mount([self.copy_examples()])
        self.assertEqual(m.terminate(signal.SIGTERM), 0, m.stderr())
        self.assertFalse(os.path.ismount(m.path))

    def test_sigint_exits_cleanly(self):
        m = self.mount([self.copy_examples()])
        self.assertEqual(m.terminate(signal.SIGINT), 0, m.stderr())
        self.assertFalse(os.path.ismount(m.path))

    def test_fusermount_u_exits_cleanly(self):
        m = self.mount([self.copy_examples()])
        r = subprocess.run(["fusermount3", "-u", m.path], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(m.proc.wait(timeout=10), 0, m.stderr())

    def test_sigterm_while_busy(self):
        root = self.copy_examples()
        m = self.mount([root])
        reader = subprocess.Popen(["sh", "-c", "while :; do cat %s/index.json >/dev/null "
                                   "2>&1; find %s >/dev/null 2>&1; done" % (m.path, m.path)])
        self.addCleanup(reader.wait)
        self.addCleanup(reader.kill)
        write_skill(root, "busy-one")
        wait_for(lambda: os.path.exists(m.file("skills/busy-one")), what="a refresh")
        self.assertEqual(m.terminate(signal.SIGTERM), 0, m.stderr())
        self.assertFalse(os.path.ismount(m.path))


class LoopThread:
    """The thread of the FUSE loop as /proc shows it.  fs/mount.c serve()
    runs the loop on the daemon's main thread, whose TID is the PID (the
    daemon names no threads).  What is read here does not depend on the
    machine's load: a sleeping thread gains no CPU time and no context
    switches however busy the other CPUs are, and a thread that polls stays
    runnable (R) however little CPU it is given."""

    def __init__(self, pid):
        self.task = "/proc/%d/task/%d/" % (pid, pid)

    def _read(self, name):
        with open(self.task + name) as f:
            return f.read()

    def state(self):
        return self._read("stat").rsplit(")", 1)[1].split()[0]

    def runtime_ns(self):
        """CPU time so far, in nanoseconds (schedstat: exact, not ticks)."""
        return int(self._read("schedstat").split()[0])

    def runs(self):
        """How many times it has been given a CPU so far (schedstat)."""
        return int(self._read("schedstat").split()[2])

    def switches(self):
        """(voluntary, involuntary) context switches so far: a voluntary
        one is the thread going to sleep."""
        fields = dict(line.split(":", 1) for line in self._read("status").splitlines())
        return (int(fields["voluntary_ctxt_switches"]),
                int(fields["nonvoluntary_ctxt_switches"]))

    def sample(self):
        return self.runtime_ns(), self.switches()


# What shows a loop polling after an answer, however loaded the machine
# (measured on 2 CPUs over busy_poll=1000000): with a CPU to itself it
# spends CPU time (0.45-1 s); when busy processes share the CPUs each
# sched_yield hands the CPU on, so it gets little time (under 1 ms with 14
# or 30 `sha256sum /dev/zero` running) but is runnable throughout and given
# a CPU again and again (48-87 times).  A loop that blocks at once spends
# tens of microseconds and is given a CPU 1-3 times (to answer, and again
# when the woken reader preempts it), with or without that load.
POLL_NS = 5_000_000
POLL_RUNS = 6
# the window in which a sleeping thread must not move; it measures nothing
# about speed (a sleeping thread gains nothing in any window) but how often
# a loop that wakes on its own must wake to be caught
QUIET_WINDOW = 0.5


def stays_asleep(thread):
    """Whether thread sleeps through a QUIET_WINDOW without running once."""
    if thread.state() != "S":
        return False
    before = thread.sample()
    time.sleep(QUIET_WINDOW)
    return thread.state() == "S" and thread.sample() == before


def wait_asleep(thread, what):
    """Waits, with a deadline, until thread sleeps through a quiet window.
    A stray request (the kernel's FORGET when it drops inodes) may wake it
    once; a loop that polls or wakes on its own never has a quiet window."""
    wait_for(lambda: stays_asleep(thread), interval=0.01, what=what)


def after_request(thread, request):
    """Makes request to the sleeping loop and returns what the loop spends
    on it until it sleeps again: (CPU time in ns, times given a CPU),
    counting no further than POLL_NS or POLL_RUNS.  Polling keeps it
    runnable meanwhile, so this waits with a deadline, not for a window:
    load only makes it slower."""
    ns, runs = thread.runtime_ns(), thread.runs()
    request()
    deadline = time.monotonic() + REFRESH_TIMEOUT
    while True:
        asleep = thread.state() == "S"      # read first: then the figures are final
        spent = thread.runtime_ns() - ns, thread.runs() - runs
        if asleep or polled(spent):
            return spent
        if time.monotonic() > deadline:
            raise AssertionError("the loop neither slept nor polled for %.0f s after a "
                                 "request: %d ns, %d runs" % ((REFRESH_TIMEOUT,) + spent))
        time.sleep(0.001)


def polled(spent):
    ns, runs = spent
    return ns >= POLL_NS or runs >= POLL_RUNS


class BusyPoll(MountTestCase):
    """The single-threaded loop looks for the next request for busy_poll
    microseconds after each answer, then sleeps: an idle mount costs no CPU."""

    def setUp(self):
        if len(os.sched_getaffinity(0)) < 2:
            self.skipTest("one CPU: the loop never polls")

    def test_polls_after_an_answer_then_sleeps(self):
        m = self.mount([self.copy_examples()], ["-o", "busy_poll=1000000"])
        loop = LoopThread(m.proc.pid)
        wait_asleep(loop, "the loop to sleep after the readiness check")
        _, (slept, _) = loop.sample()
        # statfs is never cached: one request
        spent = after_request(loop, lambda: os.statvfs(m.path))
        self.assertTrue(polled(spent), "the loop slept after answering without polling: "
                        "%d ns, %d runs" % spent)
        wait_asleep(loop, "the loop to sleep once busy_poll has passed")
        self.assertGreater(loop.switches()[0], slept, "the thread watched is not the loop")
        self.assertEqual(m.terminate(signal.SIGTERM), 0, m.stderr())

    def test_default_goes_idle_after_a_walk(self):
        m = self.mount([self.copy_examples()])
        loop = LoopThread(m.proc.pid)
        _, (slept, _) = loop.sample()
        for _ in range(20):
            subprocess.run(["find", m.path], check=True, stdout=subprocess.DEVNULL)
            os.statvfs(m.path)
        wait_asleep(loop, "the loop to sleep after a walk")
        self.assertGreater(loop.switches()[0], slept, "the thread watched is not the loop")
        self.assertIn(b"Fill in PDF forms", m.read("skills", "pdf-forms", "SKILL.md"))

    def test_zero_blocks_at_once(self):
        m = self.mount([self.copy_examples()], ["-o", "busy_poll=0"])
        self.assertIn(b"Fill in PDF forms", m.read("skills", "pdf-forms", "SKILL.md"))
        loop = LoopThread(m.proc.pid)
        wait_asleep(loop, "the loop to sleep after the first reads")
        spent = after_request(loop, lambda: os.statvfs(m.path))
        self.assertGreater(spent[0], 0, "the thread watched is not the loop")
        self.assertFalse(polled(spent), "the loop polled after answering: %d ns, %d runs"
                         % spent)
        wait_asleep(loop, "the loop to sleep after answering")
        r = subprocess.run(["fusermount3", "-u", m.path], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(m.proc.wait(timeout=10), 0, m.stderr())

    def test_one_cpu_never_polls(self):
        cpus = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {min(cpus)})   # the daemon inherits it
        try:
            m = self.mount([self.copy_examples()], ["-o", "busy_poll=1000000"])
        finally:
            os.sched_setaffinity(0, cpus)
        loop = LoopThread(m.proc.pid)
        wait_asleep(loop, "the loop to sleep after the readiness check")
        spent = after_request(loop, lambda: os.statvfs(m.path))
        self.assertGreater(spent[0], 0, "the thread watched is not the loop")
        self.assertFalse(polled(spent), "the loop polled on one CPU: %d ns, %d runs" % spent)


class Daemonize(MountTestCase):
    def test_background_then_unmount(self):
        root = self.copy_examples()
        work = self.make_dir()
        mnt = os.path.join(work, "mnt")
        os.mkdir(mnt)
        self.addCleanup(unmount, mnt)
        # relative paths are resolved before the daemon changes to /
        r = subprocess.run([SKILLSFS, "mnt", "--skills-dir", os.path.relpath(root, work)],
                           cwd=work, capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.ismount(mnt))
        self.assertEqual(sorted(os.listdir(os.path.join(mnt, "skills"))),
                         ["commit-messages", "csv-report", "pdf-forms"])
        pids = daemons_serving("mnt")
        self.assertTrue(pids)
        write_skill(root, "while-daemonized")
        wait_for(lambda: os.path.exists(os.path.join(mnt, "skills", "while-daemonized")),
                 what="a refresh in the background daemon")
        subprocess.run(["fusermount3", "-u", mnt], check=True)
        wait_for(lambda: not any(os.path.exists("/proc/%d" % p) for p in pids),
                 what="the daemon to exit")


class CommandLine(MountTestCase):
    def test_help_and_version(self):
        r = run(["--help"])
        self.assertEqual(r.returncode, 0)
        for word in ("--skills-dir", "nocasefallback", "poll_interval", "debounce", "busy_poll",
                     "skills_dir=", "allow_other", "-f", "-d"):
            self.assertIn(word, r.stdout + r.stderr)
        r = run(["--version"])
        self.assertEqual(r.returncode, 0)
        self.assertRegex(r.stdout, r"^skillsfs \d+\.\d+")

    def test_usage_errors(self):
        mnt = self.make_dir()
        env = dict(os.environ)
        env.pop("SKILLSFS_SKILLS_DIRS", None)
        cases = {
            "no roots": ([mnt], "no skills directory"),
            "no mountpoint": (["--skills-dir", mnt], "missing MOUNTPOINT"),
            "unknown option": ([mnt, "--skills-dir", mnt, "--bogus"], "unknown option"),
            "bad poll interval": ([mnt, "--skills-dir", mnt, "-o", "poll_interval=soon"],
                                  "poll_interval"),
            "bad busy poll": ([mnt, "--skills-dir", mnt, "-o", "busy_poll=-5"],
                              "busy_poll=-5: expected microseconds"),
            "missing value": ([mnt, "--skills-dir"], "needs a value"),
            "three paths": (["a", "b", "c", "--skills-dir", mnt], "unexpected argument"),
        }
        for what, (args, message) in cases.items():
            with self.subTest(what):
                r = run(args, env=env)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn(message, r.stderr)
        # libfuse rejects -o options it does not know
        r = run([mnt, "--skills-dir", mnt, "-f", "-o", "no_such_option"], env=env)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("no_such_option", r.stderr)
        self.assertFalse(os.path.ismount(mnt))

    def test_mountpoint_errors(self):
        root = self.copy_examples()
        work = self.make_dir()
        missing = os.path.join(work, "missing")
        r = run([missing, "--skills-dir", root, "-f"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("does not exist", r.stderr)
        self.assertIn("mkdir -p", r.stderr)
        afile = os.path.join(work, "file")
        open(afile, "w").close()
        r = run([afile, "--skills-dir", root, "-f"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("not a directory", r.stderr)
        full = os.path.join(work, "full")
        os.mkdir(full)
        open(os.path.join(full, "x"), "w").close()
        r = run([full, "--skills-dir", root, "-f"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("not empty", r.stderr)

    def test_busy_mountpoint(self):
        m = self.mount([self.copy_examples()])
        r = run([m.path, "--skills-dir", self.make_dir(), "-f"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("busy", r.stderr)
        self.assertIn("fusermount3 -u", r.stderr)

    def test_stale_mount(self):
        root = self.copy_examples()
        m = self.mount([root])
        m.proc.kill()
        m.proc.wait()
        wait_for(lambda: is_stale(m.path), what="the mount to go stale")
        r = run([m.path, "--skills-dir", root, "-f"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("Transport endpoint is not connected", r.stderr)
        self.assertIn("fusermount3 -u " + m.path, r.stderr)
        unmount(m.path)
        self.assertFalse(is_stale(m.path))

    def test_missing_root_is_a_warning(self):
        ghost = os.path.join(self.make_dir(), "ghost")
        m = self.mount([ghost])
        self.assertIn("does not exist", m.stderr())
        self.assertEqual(m.json("index.json"), {"skills": []})
        self.assertEqual(os.listdir(m.file("skills")), [])
        self.assertFalse(m.json("status.json")["roots"][0]["exists"])

    def test_missing_dev_fuse(self):
        if os.geteuid() != 0 or not shutil.which("unshare"):
            self.skipTest("needs root and unshare")
        mnt = self.make_dir()
        script = 'mount -t tmpfs none /dev && exec "$0" "$@"'
        r = subprocess.run(["unshare", "-m", "sh", "-c", script, SKILLSFS, mnt,
                            "--skills-dir", mnt, "-f"], capture_output=True, text=True,
                           timeout=30)
        if "unshare" in r.stderr and r.returncode != 1:
            self.skipTest("cannot make a mount namespace here: " + r.stderr)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("/dev/fuse", r.stderr)
        self.assertIn("--device /dev/fuse", r.stderr)

    def test_roots_from_environment(self):
        root = self.copy_examples()
        env = dict(os.environ, SKILLSFS_SKILLS_DIRS=root + ":" + self.make_dir())
        m = Mount([], env=env)
        self.addCleanup(m.cleanup)
        m.start()
        self.assertEqual(len(m.json("index.json")["skills"]), 3)
        roots = m.json("status.json")["roots"]
        self.assertEqual([r["source"] for r in roots], ["SKILLSFS_SKILLS_DIRS"] * 2)


class FstabStyle(MountTestCase):
    """skillsfs SOURCE MOUNTPOINT -o OPTS, as mount.fuse3 runs it."""

    def start(self, args):
        m = Mount([])
        self.addCleanup(m.cleanup)
        m.argv = lambda: [SKILLSFS] + args(m.path) + ["-f"]
        return m.start()

    def test_skills_dir_option(self):
        root = self.copy_examples()
        m = self.start(lambda mnt: ["none", mnt, "-o", "rw,skills_dir=%s:%s" % (root, "/nonexistent")])
        self.assertEqual(len(m.json("index.json")["skills"]), 3)
        self.assertEqual([r["source"] for r in m.json("status.json")["roots"]],
                         ["skills_dir=", "skills_dir="])
        # rw from mount(8) does not make it writable
        with self.assertRaises(OSError):
            open(m.file("index.json"), "w")

    def test_source_list(self):
        root = self.copy_examples()
        m = self.start(lambda mnt: [root, mnt, "-o", "nocasefallback"])
        self.assertEqual(len(m.json("index.json")["skills"]), 3)
        self.assertFalse(os.path.exists(m.file("skills/pdf-forms/skill.MD")))

    def test_mount_fuse3_helper(self):
        """What mount -t fuse.skillsfs runs: mount.fuse3 SOURCE MNT -t skillsfs -o OPTS
        (mount(8) itself runs helpers with a fixed PATH, so skillsfs must be
        installed there; this test puts it on PATH for mount.fuse3)."""
        helper = shutil.which("mount.fuse3") or "/sbin/mount.fuse3"
        if os.geteuid() != 0 or not os.path.exists(helper):
            self.skipTest("needs root and mount.fuse3")
        root = self.copy_examples()
        bindir = self.make_dir()
        os.symlink(os.path.abspath(SKILLSFS), os.path.join(bindir, "skillsfs"))
        mnt = os.path.join(self.make_dir(), "mnt")
        os.mkdir(mnt)
        self.addCleanup(unmount, mnt)
        env = dict(os.environ, PATH=bindir + ":" + os.environ.get("PATH", ""))
        r = subprocess.run([helper, "none", mnt, "-t", "skillsfs", "-o",
                            "rw,nofail,_netdev,skills_dir=" + root],
                           env=env, capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.check_mounted(mnt)

    def test_mount_t_fuse_with_program_path(self):
        """mount -t fuse '/path/to/skillsfs#SOURCE' MNT: no PATH needed."""
        if os.geteuid() != 0 or not shutil.which("mount"):
            self.skipTest("needs root and mount(8)")
        root = self.copy_examples()
        mnt = os.path.join(self.make_dir(), "mnt")
        os.mkdir(mnt)
        self.addCleanup(unmount, mnt)
        r = subprocess.run(["mount", "-t", "fuse", os.path.abspath(SKILLSFS) + "#" + root, mnt,
                            "-o", "allow_other,default_permissions"],
                           capture_output=True, text=True, timeout=30)
        if r.returncode != 0 and "unknown filesystem type" in r.stderr:
            self.skipTest(r.stderr)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.check_mounted(mnt)

    def check_mounted(self, mnt):
        self.assertTrue(os.path.ismount(mnt))
        self.assertEqual(len(os.listdir(os.path.join(mnt, "skills"))), 3)
        with open("/proc/self/mountinfo") as f:
            line = next(l for l in f if (" %s " % mnt) in l)
        self.assertIn(" - fuse.skillsfs skillsfs ", line)
        self.assertIn("ro", line.split()[5].split(","))
        r = subprocess.run(["umount", mnt], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.ismount(mnt))

if __name__ == "__main__":
    unittest.main(verbosity=2)
