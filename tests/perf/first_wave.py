#!/usr/bin/env python3
"""first_wave.py - times the first wave of readers on a fresh mount (not a
pass/fail test): READERS processes start together on a mount that has read
nothing yet, each reads every file of skills/ once, and the wave ends when
the last one is done.  Repeated RUNS times, each on a fresh mount; with
--native, the same wave over CORPUS itself first (the floor).

    tests/perf/first_wave.py [--readers 16] [--runs 3] [--native]
                             [--reader open|os|grep] SKILLSFS CORPUS
                             [MOUNT OPTIONS...]

A reader walks the folder (os.walk) and reads each file with Python's
open() (--reader open, the default), or with os.open and os.read (os: open
and read in a loop, as a C program does), or is `grep -r` (grep).  The
difference matters on FUSE: Python's open() asks the file whether it is a
terminal (an ioctl the kernel forwards to the daemon at every open), the
others do not.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

READERS = {
    "open": [sys.executable, "-c", r"""
import os, sys
for dirpath, dirs, files in os.walk(sys.argv[1]):
    for name in files:
        with open(os.path.join(dirpath, name), "rb") as f:
            f.read()
"""],
    "os": [sys.executable, "-c", r"""
import os, sys
for dirpath, dirs, files in os.walk(sys.argv[1]):
    for name in files:
        fd = os.open(os.path.join(dirpath, name), os.O_RDONLY)
        while os.read(fd, 65536):
            pass
        os.close(fd)
"""],
    "grep": ["grep", "-r", "-c", "-e", "no-such-words-here"],
}


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


def wave(readers, folder, reader="open"):
    start = time.monotonic()
    procs = [subprocess.Popen(READERS[reader] + [folder], stdout=subprocess.DEVNULL)
             for _ in range(readers)]
    for p in procs:
        p.wait()
    # grep -c exits 1 when no line matched: what it does read is the wave
    if any(p.returncode not in ((0, 1) if reader == "grep" else (0,)) for p in procs):
        sys.exit("a reader failed")
    return time.monotonic() - start


def one_wave(a, work):
    mnt = os.path.join(work, "mnt")
    os.makedirs(mnt, exist_ok=True)
    proc = subprocess.Popen([a.skillsfs, mnt, "--skills-dir", a.corpus, "-f"]
                            + a.options, stderr=subprocess.DEVNULL)
    try:
        wait_ready(mnt, proc)
        return wave(a.readers, os.path.join(mnt, "skills"), a.reader)
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
    ap.add_argument("--reader", choices=sorted(READERS), default="open")
    ap.add_argument("options", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    if a.native:
        print("%d readers (%s), native: %s s" % (a.readers, a.reader, ", ".join(
            "%.2f" % wave(a.readers, a.corpus, a.reader) for _ in range(a.runs))))
    work = tempfile.mkdtemp(prefix="skillsfs-wave-")
    try:
        times = [one_wave(a, work) for _ in range(a.runs)]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d readers (%s), options %s: %s s" % (
        a.readers, a.reader, " ".join(a.options) or "(default)",
        ", ".join("%.2f" % t for t in times)))


if __name__ == "__main__":
    main()
