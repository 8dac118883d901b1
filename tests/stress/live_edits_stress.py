#!/usr/bin/env python3
"""Sustained live edits (issue 28): one skill of a small mount is edited back
to back for a long time while readers read it, and no read may be wrong,
few may fail, and the skill may never be missing from skills/.

Cases, each on a mount of its own, once with inotify and once with polling:
  rewrite   every file truncated and written again in place (`>`, editors)
  checkout  `git checkout` between two commits that differ in the skill
  cp        `cp -r` of one of two copies over the skill

Every version the writer leaves is recognisable as complete: each file has
one fixed size and ends with a line holding the SHA-256 of the bytes before
it.  A read is complete when that line matches; else it is empty, truncated
(shorter than the fixed size) or mixed.  Readers: threads that open and
read each file, a `cat` loop and a `grep -r` loop (whose exit status and
stderr count), and a lister that looks for the skill in skills/ (missing).

Passes when every case has 0 wrong reads, errors under 0.5% of its reads
and the skill never missing; when another skill, edited once a third into
the run, is served changed by the end of the edits (no skill's change is
held back by one that never settles); and when the mount then shows what
the source holds.

Environment: SKILLSFS (the daemon), LIVE_STRESS_SECONDS (per case, default
60), LIVE_STRESS_CASES and LIVE_STRESS_MODES (comma-separated subsets),
LIVE_STRESS_OPTIONS (more daemon options, e.g. "-o settle_max=500" for a
short run that still reaches the longest deferral), LIVE_STRESS_BIG_KIB (a
third file of that many KiB).  Prints one line per
case: mode, case, edits, reads, wrong, errors, missing (listings of skills/
without the skill, of all listings), and versions (the complete file
versions the readers got: more than the first shows that the edits were
published while they went on).
"""

import errno
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "fs"))
from mountlib import LoopThreads, Mount, wait_for, write_skill  # noqa: E402

SECONDS = float(os.environ.get("LIVE_STRESS_SECONDS", "60"))
CASES = os.environ.get("LIVE_STRESS_CASES", "rewrite,checkout,cp").split(",")
MODES = os.environ.get("LIVE_STRESS_MODES", "inotify,polling").split(",")
EXTRA = os.environ.get("LIVE_STRESS_OPTIONS", "").split()
MODE_OPTIONS = {"inotify": [], "polling": ["-o", "polling"]}
ERROR_SHARE = 0.005
SKILL = "live"
# each file one size in every version; notes.md spans several pages, so
# that a write can be seen half done
SIZES = {"SKILL.md": 3000, os.path.join("references", "notes.md"): 20000}
# LIVE_STRESS_BIG_KIB: one more file of that size (past the 1 MiB that
# read-ahead copies take, say), which must be kept whole too while held
BIG_KIB = int(os.environ.get("LIVE_STRESS_BIG_KIB", "0"))
if BIG_KIB:
    SIZES[os.path.join("references", "big.md")] = BIG_KIB * 1024
GIT = ["git", "-c", "user.name=skillsfs stress", "-c",
       "user.email=stress@skillsfs.invalid", "-c", "advice.detachedHead=false"]


def checksum_line(data):
    return b"sha256 " + hashlib.sha256(data).hexdigest().encode() + b"\n"


CHECK_LEN = len(checksum_line(b""))


def version(rel, v):
    """Version v of file rel: its fixed size, ending in its checksum."""
    size = SIZES[rel]
    if rel == "SKILL.md":
        head = ("---\nname: %s\ndescription: Version %d of a skill under "
                "sustained edits.\n---\n# Live v%d\n" % (SKILL, v, v)).encode()
    else:
        head = ("# Notes v%d\n" % v).encode()
    line = ("v%d filler line of a file under edit\n" % v).encode()
    body = head
    while len(body) + len(line) + CHECK_LEN <= size:
        body += line
    body += b"." * (size - CHECK_LEN - len(body) - 1) + b"\n"
    return body + checksum_line(body)


def classify(rel, data):
    if not data:
        return "empty"
    body, tail = data[:-CHECK_LEN], data[-CHECK_LEN:]
    if len(data) == SIZES[rel] and tail == checksum_line(body):
        return "complete"
    return "truncated" if len(data) < SIZES[rel] else "mixed"


def put_version(folder, v):
    for rel in SIZES:
        path = os.path.join(folder, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(version(rel, v))


class Tally:
    KINDS = ("complete", "error", "empty", "truncated", "mixed", "missing",
             "listings")

    def __init__(self):
        self.lock = threading.Lock()
        self.counts = dict.fromkeys(self.KINDS, 0)
        self.errors = {}
        self.examples = []
        self.versions = set()    # the complete versions readers got

    def add_read(self, rel, data):
        kind = classify(rel, data)
        if kind == "complete":
            with self.lock:
                self.versions.add(data[-CHECK_LEN:])
        self.add(kind, (rel, len(data)))

    def add(self, kind, detail=None):
        with self.lock:
            self.counts[kind] += 1
            if kind == "error":
                self.errors[detail] = self.errors.get(detail, 0) + 1
            elif kind in ("empty", "truncated", "mixed") and len(self.examples) < 3:
                self.examples.append((kind, detail))

    def reads(self):
        c = self.counts
        return sum(c[k] for k in ("complete", "error", "empty", "truncated", "mixed"))

    def wrong(self):
        return self.counts["empty"] + self.counts["truncated"] + self.counts["mixed"]


class Readers(LoopThreads):
    """Reader threads and processes over skills/live of mount m."""

    join_timeout = 60

    def __init__(self, m):
        self.m = m
        self.tally = Tally()
        super().__init__([self.read_loop] * 3 + [self.cat_loop, self.grep_loop, self.list_loop])

    def path(self, rel):
        return self.m.file("skills", SKILL, rel)

    def read_loop(self):
        while not self.stop.is_set():
            for rel in SIZES:
                try:
                    with open(self.path(rel), "rb") as f:
                        data = f.read()
                except OSError as e:
                    self.tally.add("error", errno.errorcode.get(e.errno, e.errno))
                    continue
                self.tally.add_read(rel, data)

    def cat_loop(self):
        while not self.stop.is_set():
            for rel in SIZES:
                r = subprocess.run(["cat", self.path(rel)], capture_output=True)
                if r.returncode != 0:
                    self.tally.add("error", "cat: " + r.stderr.decode()[-60:].strip())
                else:
                    self.tally.add_read(rel, r.stdout)

    def grep_loop(self):
        """grep -r over the skill: each file must read whole (counted as
        one read per file, complete when its checksum line is there)."""
        while not self.stop.is_set():
            r = subprocess.run(["grep", "-r", "-c", "^sha256 ", self.path(".")],
                               capture_output=True, text=True)
            if r.returncode != 0 or r.stderr:
                self.tally.add("error", "grep: " + r.stderr[-60:].strip())
                continue
            for line in r.stdout.splitlines():
                name, _, n = line.rpartition(":")
                self.tally.add("complete" if n == "1" else "mixed", (name, n))

    def list_loop(self):
        while not self.stop.is_set():
            try:
                names = os.listdir(self.m.file("skills"))
            except OSError as e:
                self.tally.add("error", "ls: %s" % errno.errorcode.get(e.errno, e.errno))
                continue
            self.tally.add("listings")
            if SKILL not in names:
                self.tally.add("missing")
            time.sleep(0.005)


def git(root, *args):
    subprocess.run(GIT + ["-C", root] + list(args), check=True, capture_output=True)


def prepare(case, root, work):
    """The source of a case; returns its edit(i)."""
    skill = os.path.join(root, SKILL)
    if case == "rewrite":
        return lambda i: put_version(skill, i % 8)
    if case == "checkout":
        git(root, "init", "-q", "-b", "a")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "a")
        git(root, "checkout", "-q", "-b", "b")
        put_version(skill, 1)
        git(root, "commit", "-q", "-am", "b")
        return lambda i: git(root, "checkout", "-q", "a" if i % 2 == 0 else "b")
    if case == "cp":
        copies = []
        for v in range(2):
            d = os.path.join(work, "copy%d" % v)
            put_version(d, v + 1)
            copies.append(d)
        return lambda i: subprocess.run(["cp", "-r", copies[i % 2] + "/.", skill + "/"],
                                        check=True)
    raise ValueError(case)


def shows_source(m, root):
    for rel in SIZES:
        with open(os.path.join(root, SKILL, rel), "rb") as f:
            want = f.read()
        wait_for(lambda: m.read("skills", SKILL, rel) == want, timeout=30,
                 what="skills/%s/%s to show the source" % (SKILL, rel))


def run_case(mode, case):
    work = tempfile.mkdtemp(prefix="skillsfs-live-stress-")
    root = os.path.join(work, "root")
    m = None
    try:
        for k in range(3):
            write_skill(root, "other%d" % k, files={"notes.md": "not edited\n"})
        put_version(os.path.join(root, SKILL), 0)
        edit = prepare(case, root, work)
        m = Mount([root], MODE_OPTIONS[mode] + EXTRA,
                  workdir=os.path.join(work, "mount"))
        m.start()
        for rel in SIZES:
            if classify(rel, m.read("skills", SKILL, rel)) != "complete":
                raise AssertionError("the first version does not read whole")
        edits = 0
        other = os.path.join(root, "other0", "notes.md")
        with Readers(m) as readers:
            start = time.monotonic()
            other_at, end = start + SECONDS / 3, start + SECONDS
            while time.monotonic() < end:
                edit(edits)
                edits += 1
                if other_at and time.monotonic() >= other_at:
                    # another skill's edit, amid this skill's
                    with open(other, "w") as f:
                        f.write("edited while the live skill was\n")
                    other_at = None
            # still amid the edits: two thirds of the run later, the
            # other skill's change must be served
            if m.read("skills", "other0", "notes.md") != b"edited while the live skill was\n":
                raise AssertionError("another skill's edit was held back "
                                     "while the live skill was edited")
        shows_source(m, root)
        if sorted(os.listdir(m.file("skills"))) != ["live", "other0", "other1", "other2"]:
            raise AssertionError("skills/ lists %s" % os.listdir(m.file("skills")))
        return readers.tally, edits, None
    except (AssertionError, OSError, subprocess.CalledProcessError) as e:
        return None, 0, "%s\n%s" % (e, m.stderr()[-2000:] if m else "")
    finally:
        if m:
            m.cleanup()
        shutil.rmtree(work, ignore_errors=True)


def main():
    failed = 0
    print("%-8s %-9s %6s %9s %7s %7s %8s %8s %8s" % (
        "mode", "case", "edits", "reads", "wrong", "errors", "missing", "listings",
        "versions"))
    for mode in MODES:
        for case in CASES:
            tally, edits, why = run_case(mode, case)
            if why:
                print("%-8s %-9s FAILED: %s" % (mode, case, why))
                failed += 1
                continue
            c = tally.counts
            print("%-8s %-9s %6d %9d %7d %7d %8d %8d %8d" % (
                mode, case, edits, tally.reads(), tally.wrong(), c["error"],
                c["missing"], c["listings"], len(tally.versions)), flush=True)
            bad = (tally.wrong() > 0 or c["error"] > ERROR_SHARE * tally.reads()
                   or c["missing"] > 0 or tally.reads() == 0)
            if bad:
                print("    counts %s errors %s examples %s" % (
                    c, tally.errors, tally.examples))
                failed += 1
    print("%d of %d cases failed" % (failed, len(MODES) * len(CASES)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
