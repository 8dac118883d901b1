"""bench_build - the build of another commit for the before/after runs of
scripts/bench, scripts/bench-git and scripts/bench-mcp-source (--before
REV): `git archive REV` unpacked into BENCH-TMP/base-REV (git-ignored; the
folder scripts/bench-security uses for its baseline with its default work
folder), whatever work folder the script was given, and built there once."""

import os
import shutil
import subprocess

PROGRAMS = ("fs/skillsfs", "mcp/skillsfs-mcp")
# Where skillsfs loads the kinds of source other than folders from, in a
# tree that has it (shared/kinds.c): a git or MCP root needs it built too.
KINDS_MODULE = "shared/skillsfs-kinds.so"


def targets(src):
    """What to build in src's build/ for a run: the programs, and the
    module of the kinds when that tree has one."""
    has_module = os.path.exists(os.path.join(src, "shared", "kinds.c"))
    return list(PROGRAMS) + ([KINDS_MODULE] if has_module else [])


def short_rev(root, rev):
    return subprocess.run(["git", "-C", root, "rev-parse", "--short", rev],
                          stdout=subprocess.PIPE, text=True,
                          check=True).stdout.strip()


def build_of(root, rev, log):
    """(short REV, the folder whose build/ holds REV's skillsfs and
    skillsfs-mcp); unpacks and configures only when the folder has no
    build/ yet, and lets ninja bring the two programs up to date."""
    short = short_rev(root, rev)
    src = os.path.join(root, "BENCH-TMP", "base-" + short)
    if not os.path.isdir(os.path.join(src, "build")):
        log("building %s in %s" % (short, src))
        shutil.rmtree(src, ignore_errors=True)
        os.makedirs(src)
        archive = subprocess.run(["git", "-C", root, "archive", short],
                                 stdout=subprocess.PIPE, check=True).stdout
        subprocess.run(["tar", "-x", "-C", src], input=archive, check=True)
        subprocess.run(["meson", "setup", "build"], cwd=src, check=True,
                       stdout=subprocess.DEVNULL)
    subprocess.run(["ninja", "-C", os.path.join(src, "build")] +
                   targets(src), check=True, stdout=subprocess.DEVNULL)
    return short, src
