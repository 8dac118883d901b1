#!/usr/bin/env python3
"""first_wave.py - times the first wave of readers on a fresh mount (not a
pass/fail test): READERS processes start together on a mount that has read
nothing yet, each reads every file of skills/ once, and the wave ends when
the last one is done.  Repeated RUNS times, each on a fresh mount; with
--native, the same wave over CORPUS itself first (the floor).

    tests/perf/first_wave.py [--readers 16] [--runs 3] [--native] SKILLSFS CORPUS
                             [MOUNT OPTIONS...]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

READER = r"""
import os, sys
for dirpath, dirs, files in os.walk(sys.argv[1]):
    for name in files:
        with open(os.path.join(dirpath, name), "rb") as f:
            f.read()
"""


def wait_ready(mnt, proc, deadline=60):
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if proc.poll() is not None:
            sys.exit("skillsfs exited with %d" % proc.returncode)
        if os.path.ismount(mnt):
            try:
                with open(os.path.join(mnt, "index.json"), "rb") as f:
                    f.read(1)
                return
            except OSError:
                pass
        time.sleep(0.01)
    sys.exit("skillsfs not ready")


def wave(readers, folder):
    start = time.monotonic()
    procs = [subprocess.Popen([sys.executable, "-c", READER, folder])
             for _ in range(readers)]
    for p in procs:
        p.wait()
    if any(p.returncode for p in procs):
        sys.exit("a reader failed")
    return time.monotonic() - start


def one_wave(a, work):
    mnt = os.path.join(work, "mnt")
    os.makedirs(mnt, exist_ok=True)
    proc = subprocess.Popen([a.skillsfs, mnt, "--skills-dir", a.corpus, "-f"]
                            + a.options, stderr=subprocess.DEVNULL)
    try:
        wait_ready(mnt, proc)
        return wave(a.readers, os.path.join(mnt, "skills"))
    finally:
        subprocess.run(["fusermount3", "-u", mnt], capture_output=True)
        proc.wait(timeout=30)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("skillsfs")
    ap.add_argument("corpus")
    ap.add_argument("--readers", type=int, default=16)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--native", action="store_true")
    ap.add_argument("options", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    if a.native:
        print("%d readers, native: %s s" % (a.readers, ", ".join(
            "%.2f" % wave(a.readers, a.corpus) for _ in range(a.runs))))
    work = tempfile.mkdtemp(prefix="skillsfs-wave-")
    try:
        times = [one_wave(a, work) for _ in range(a.runs)]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d readers, options %s: %s s" % (
        a.readers, " ".join(a.options) or "(default)",
        ", ".join("%.2f" % t for t in times)))


if __name__ == "__main__":
    main()
