#!/usr/bin/env python3
"""skillsfs-mcp links no kind of source, nor libgit2, libcurl, libarchive.

It reads configurations but builds no catalog; source_form.c names the
kinds' operations weakly so that it links none of them (BENCHMARKS.md:
peak RSS 17.3 -> 10.2 MiB).  A strong reference to a kind, or a library
given to skillsfs-mcp's link, brings them back; this test says so.  The
same checks on skillsfs, which builds catalogs, must find every kind:
they are not blind.

usage: test_lean.py SKILLSFS_MCP SKILLSFS OPS...
(OPS: each kind's operations, shared/meson.build's source_kinds)
"""
import re
import subprocess
import sys

HEAVY = ("libgit2", "libcurl", "libarchive")


def run(*argv):
    return subprocess.run(argv, check=True, capture_output=True,
                          text=True).stdout


def needed(binary):
    """Every shared library the binary loads, through ldd (transitively)."""
    return [line.split()[0] for line in run("ldd", binary).splitlines()
            if line.strip()]


def kinds_defined(binary, kinds):
    """The kinds' ops the binary defines (a symbol with a section)."""
    out = run("readelf", "--wide", "--symbols", binary)
    found = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 8 and f[7] in kinds and f[6] != "UND" and \
           int(f[1], 16) != 0:
            found.add(f[7])
    return found


def main():
    mcp, fs, kinds = sys.argv[1], sys.argv[2], set(sys.argv[3:])
    checks = []
    heavy = [lib for lib in needed(mcp)
             if any(lib.startswith(h) for h in HEAVY)]
    checks.append((not heavy, "skillsfs-mcp loads none of libgit2, "
                   "libcurl, libarchive (found: %s)" % ", ".join(heavy)))
    in_mcp = kinds_defined(mcp, kinds)
    checks.append((kinds and not in_mcp, "skillsfs-mcp links no kind of "
                   "source (found: %s)" % ", ".join(sorted(in_mcp))))
    # which of them depends on the kinds skillsfs links (libarchive on the
    # well-known kind alone: scripts/kind-footprint removes it), so the
    # check is not blind when it sees any
    fs_heavy = [lib for lib in needed(fs)
                if any(lib.startswith(h) for h in HEAVY)]
    checks.append((bool(fs_heavy), "skillsfs loads what its kinds use "
                   "(found: %s): the check sees them" % ", ".join(fs_heavy)))
    fs_kinds = kinds_defined(fs, kinds)
    checks.append((fs_kinds == kinds,
                   "skillsfs links every kind of source (found: %s)"
                   % ", ".join(sorted(fs_kinds))))
    print("1..%d" % len(checks))
    for i, (good, what) in enumerate(checks, 1):
        print("%s %d - %s" % ("ok" if good else "not ok", i, what))
    return 0 if all(g for g, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
