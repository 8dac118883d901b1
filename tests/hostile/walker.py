#!/usr/bin/env python3
"""Walks a skillsfs mount in a child process (the test kills it when it
hangs): lists every folder, reads every file and follows every symlink,
and reports which files contain one of the marker byte strings and which
symlinks resolve outside their skill.

    walker.py MOUNT HEXMARKER...     (WALK_MAX_READS=N reads at most N files)

Prints one JSON object: counts, "found" [[path, marker index]], "escapes"
[[path, target]], "errors" [[path, errno name]]."""

import errno
import json
import os
import stat
import sys


def show(path):
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def contains(path, markers):
    """Indexes of the markers in the file, read in chunks."""
    keep = max(len(m) for m in markers) - 1
    hits = set()
    tail = b""
    with open(path, "rb") as f:
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                break
            data = tail + chunk
            for i, m in enumerate(markers):
                if m in data:
                    hits.add(i)
            tail = data[-keep:] if keep else b""
    return sorted(hits)


def main():
    mount = os.path.realpath(sys.argv[1])
    markers = [bytes.fromhex(h) for h in sys.argv[2:]]
    max_reads = int(os.environ.get("WALK_MAX_READS", "-1"))
    skills = os.path.join(mount, "skills")
    out = {"dirs": 0, "files": 0, "links": 0, "reads": 0,
           "found": [], "escapes": [], "errors": []}

    def err(path, e):
        out["errors"].append([show(path), errno.errorcode.get(e.errno, str(e.errno))])

    def read(path):
        if max_reads >= 0 and out["reads"] >= max_reads:
            return
        out["reads"] += 1
        try:
            for i in contains(path, markers):
                out["found"].append([show(path), i])
        except OSError as e:
            err(path, e)

    for dirpath, dirnames, filenames in os.walk(mount, onerror=lambda e: err(e.filename, e)):
        out["dirs"] += 1
        for name in filenames + dirnames:
            p = os.path.join(dirpath, name)
            try:
                st = os.lstat(p)
            except OSError as e:
                err(p, e)
                continue
            if stat.S_ISLNK(st.st_mode):
                out["links"] += 1
                real = os.path.realpath(p)
                # a link under skills/<id>/ stays in skills/<id>/; one under
                # refs/<id>/ leads into skills/<id>/; one in docs/ in docs/;
                # one under views/<view>/<id>/ in views/<view>/<id>/
                rel = os.path.relpath(p, mount).split(os.sep)
                if rel[0] == "docs":
                    home = os.path.join(mount, "docs")
                elif rel[0] == "views" and len(rel) > 3:
                    home = os.path.join(mount, *rel[:3])
                else:
                    home = os.path.join(skills, rel[1]) if len(rel) > 2 else mount
                if not (real == home or real.startswith(home + os.sep)):
                    out["escapes"].append([show(p), show(real)])
                    continue
                if os.path.isfile(real):
                    read(p)
            elif stat.S_ISREG(st.st_mode):
                out["files"] += 1
                read(p)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
