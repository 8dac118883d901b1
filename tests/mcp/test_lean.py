#!/usr/bin/env python3
"""skillsfs-mcp links no kind of source, nor libgit2, libcurl, libarchive;
skillsfs links the folder's kind alone, and loads the others from the
module of the kinds, which holds them and those libraries.

skillsfs-mcp reads configurations but builds no catalog; source_form.c
names the kinds' operations weakly so that it links none of them
(BENCHMARKS.md: peak RSS 17.3 -> 10.2 MiB).  skillsfs loads the kinds
other than the folder's when a root of one is opened (shared/kinds.c), so
that a mount of folders loads none of those libraries either (8.4 MiB of
its resident memory at 10,000 skills).  A strong reference to a kind, or
a library given to either link, brings them back; this test says so.  The
same checks on the module must find every other kind and the libraries:
they are not blind.

usage: test_lean.py SKILLSFS_MCP SKILLSFS KINDS_MODULE OPS...
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


def heavy_in(binary):
    return [lib for lib in needed(binary)
            if any(lib.startswith(h) for h in HEAVY)]


def main():
    mcp, fs, module = sys.argv[1], sys.argv[2], sys.argv[3]
    kinds = set(sys.argv[4:])
    folder = {"sfs_source_dir"} & kinds
    checks = []
    heavy = heavy_in(mcp)
    checks.append((not heavy, "skillsfs-mcp loads none of libgit2, "
                   "libcurl, libarchive (found: %s)" % ", ".join(heavy)))
    in_mcp = kinds_defined(mcp, kinds)
    checks.append((kinds and not in_mcp, "skillsfs-mcp links no kind of "
                   "source (found: %s)" % ", ".join(sorted(in_mcp))))
    heavy = heavy_in(fs)
    checks.append((not heavy, "skillsfs loads none of libgit2, libcurl, "
                   "libarchive (found: %s)" % ", ".join(heavy)))
    fs_kinds = kinds_defined(fs, kinds)
    checks.append((folder and fs_kinds == folder,
                   "skillsfs links the folder's kind alone (found: %s)"
                   % ", ".join(sorted(fs_kinds))))
    module_libs = needed(module)
    checks.append((all(any(lib.startswith(h) for lib in module_libs)
                       for h in HEAVY),
                   "the module of the kinds loads libgit2, libcurl and "
                   "libarchive (the check sees them)"))
    in_module = kinds_defined(module, kinds)
    checks.append((in_module == kinds - folder,
                   "the module of the kinds holds every other kind "
                   "(found: %s)" % ", ".join(sorted(in_module))))
    print("1..%d" % len(checks))
    for i, (good, what) in enumerate(checks, 1):
        print("%s %d - %s" % ("ok" if good else "not ok", i, what))
    return 0 if all(g for g, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
