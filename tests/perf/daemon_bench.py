#!/usr/bin/env python3
"""daemon_bench.py - times a skillsfs mount on a corpus, for profiling (not
a pass/fail test): exec to the first read of index.json, the time from
editing one SKILL.md (and from creating a skill) to its index.json entry,
and the daemon's VmRSS and VmHWM after each step.

    tests/perf/daemon_bench.py SKILLSFS CORPUS [--edits N] [--indexes]
                               [--read-all] [--no-create]

CORPUS is changed and restored (one skill created, then removed, unless
--no-create; one SKILL.md edited, then rewritten as it was, N times).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time


def cpu_ms(pid):
    """CPU time of every thread of pid so far (schedstat), in ms."""
    total = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total / 1e6


def status(pid):
    with open("/proc/%d/status" % pid) as f:
        text = f.read()
    get = lambda k: int(re.search(k + r":\s+(\d+) kB", text).group(1))
    return "rss %.1f MiB, peak %.1f MiB, cpu %.0f ms" % (
        get("VmRSS") / 1024, get("VmHWM") / 1024, cpu_ms(pid))


def wait_for(pred, limit=20.0):
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        try:
            if pred():
                return time.monotonic() - t0
        except OSError:
            pass
        time.sleep(0.001)
    raise RuntimeError("timed out")


def read(path):
    with open(path, "rb") as f:
        return f.read()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("skillsfs")
    ap.add_argument("corpus")
    ap.add_argument("--edits", type=int, default=3)
    ap.add_argument("--indexes", action="store_true",
                    help="after ready, cat index.json and "
                    "catalog/skills_index.json and find the whole mount")
    ap.add_argument("--no-create", action="store_true",
                    help="leave out the skill created and removed: only "
                    "edits, each undone")
    ap.add_argument("--read-all", action="store_true",
                    help="after ready, find and grep -r over skills/ (the "
                    "kernel then knows every inode there)")
    ap.add_argument("--debug", action="store_true",
                    help="run the daemon with -d and print its timings")
    a = ap.parse_args()

    mnt = tempfile.mkdtemp(prefix="sfs-bench-")
    log = tempfile.TemporaryFile()
    t0 = time.monotonic()
    proc = subprocess.Popen([a.skillsfs, mnt, "--skills-dir", a.corpus, "-f"]
                            + (["-d"] if a.debug else []),
                            stdout=subprocess.DEVNULL,
                            stderr=log if a.debug else subprocess.DEVNULL)
    try:
        idx = os.path.join(mnt, "index.json")
        wait_for(lambda: read(idx).startswith(b'{"skills":['))
        print("ready          %7.1f ms  %s" % ((time.monotonic() - t0) * 1e3,
                                               status(proc.pid)))
        if a.indexes:
            t = time.monotonic()
            read(idx)
            read(os.path.join(mnt, "catalog", "skills_index.json"))
            subprocess.run(["find", mnt], stdout=subprocess.DEVNULL)
            print("indexes, find  %7.1f ms  %s" % (
                (time.monotonic() - t) * 1e3, status(proc.pid)))
        if a.read_all:
            t = time.monotonic()
            skills = os.path.join(mnt, "skills")
            subprocess.run(["find", skills], stdout=subprocess.DEVNULL)
            subprocess.run(["grep", "-rq", "zzz-not-there", skills])
            print("read all       %7.1f ms  %s" % (
                (time.monotonic() - t) * 1e3, status(proc.pid)))
        skills = sorted(d for d in os.listdir(a.corpus)
                        if os.path.exists(os.path.join(a.corpus, d,
                                                       "SKILL.md")))
        for k in range(a.edits):
            sid = skills[(k * 7919) % len(skills)]
            md = os.path.join(a.corpus, sid, "SKILL.md")
            old = read(md)
            marker = b"Edited by daemon_bench %d %f" % (k, time.time())
            t = time.monotonic()
            with open(md, "wb") as f:
                f.write(old.replace(b"\n---\n", b"\n---\n" + marker + b"\n",
                                    1))
            digest_line = lambda: [l for l in read(idx).split(b"\n")
                                   if b'"skill://%s/SKILL.md"' % sid.encode()
                                   in l][0]
            before = None
            wait_for(lambda: read(os.path.join(mnt, "skills", sid,
                                               "SKILL.md")) != old)
            el = time.monotonic() - t
            print("edit %-30s %7.1f ms  %s" % (sid[:30], el * 1e3,
                                               status(proc.pid)))
            with open(md, "wb") as f:
                f.write(old)
            wait_for(lambda: read(os.path.join(mnt, "skills", sid,
                                               "SKILL.md")) == old)
        if a.edits:
            print("edits undone   %7s     %s" % ("", status(proc.pid)))
        if a.no_create:
            return
        new = os.path.join(a.corpus, "zz-daemon-bench")
        os.makedirs(new, exist_ok=True)
        t = time.monotonic()
        with open(os.path.join(new, "SKILL.md"), "w") as f:
            f.write("---\nname: zz-daemon-bench\ndescription: A skill made "
                    "by daemon_bench.\n---\n# New\n")
        wait_for(lambda: b'"skill://zz-daemon-bench/SKILL.md"' in read(idx))
        print("create         %7.1f ms  %s" % ((time.monotonic() - t) * 1e3,
                                               status(proc.pid)))
        os.remove(os.path.join(new, "SKILL.md"))
        os.rmdir(new)
        wait_for(lambda: b'"skill://zz-daemon-bench/SKILL.md"'
                 not in read(idx))
        print("remove done    %7s     %s" % ("", status(proc.pid)))
    finally:
        proc.terminate()
        proc.wait()
        subprocess.run(["fusermount3", "-u", mnt], stderr=subprocess.DEVNULL)
        os.rmdir(mnt)
        if a.debug:
            log.seek(0)
            for line in log.read().decode(errors="replace").splitlines():
                if line.startswith("skillsfs:") and "invalidate" not in line:
                    print("  " + line)


if __name__ == "__main__":
    sys.exit(main())
