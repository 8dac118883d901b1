#!/usr/bin/env python3
"""Several processes run find and cat in a loop over the mount while skills
are added, edited and removed in the sources: every read of a file is one
whole version of it, generated files never fail, and the only errors are
the two races skillsfs(1) documents: a skill file replaced in its source
and read before the refresh (ESTALE), and a skill that is being removed
while find walks it (ENOENT)."""

import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

from mountlib import MountTestCase, wait_for, write_skill

DURATION = 4.0
SHELL_READERS = 3

# find over the skills that are only edited, never removed, and over the
# top of the tree; cat every SKILL.md of those and the generated files.
# The generated files are read on their own: they must never fail.
SHELL_LOOP = r"""
set -u
m=$1; stop=$2; n=0
while [ ! -e "$stop" ]; do
    find "$m/skills/pdf-forms" "$m/skills/csv-report" "$m/refs" -print > /dev/null
    find "$m" -maxdepth 2 > /dev/null
    cat "$m/skills/pdf-forms/SKILL.md" "$m/skills/csv-report/SKILL.md" \
        "$m/skills/pdf-forms/scripts/fill.sh" "$m/refs/pdf-forms/field-types.md" > /dev/null
    cat "$m/index.json" "$m/status.json" "$m/catalog/skills_index.json" > /dev/null || exit 12
    ls -lR "$m/skills/pdf-forms" > /dev/null
    grep -rq "PDF" "$m/skills/pdf-forms" || exit 14
    n=$((n+1))
done
echo "$n"
"""

# The races skillsfs(1) documents ("Reading while the sources change"), as
# find, cat, ls and grep report them; any other message fails the test.
DOCUMENTED_RACE = re.compile(
    r"^(find|cat|ls|grep): .*/(skills|refs)/[^:]*: Stale file handle$"
    r"|^(find|ls): .*/skills/churn-\d+[^:]*: No such file or directory$")


def undocumented(stderr):
    return [line for line in stderr.decode(errors="replace").splitlines()
            if not DOCUMENTED_RACE.match(line)]

# Checks that every read is exactly one of the versions the writer wrote.
PY_READER = textwrap.dedent(r"""
    import errno, json, os, sys
    m, stop, versions_dir = sys.argv[1:4]
    n = 0
    while not os.path.exists(stop):
        try:
            with open(os.path.join(m, "skills/csv-report/SKILL.md"), "rb") as f:
                data = f.read()
        except OSError as e:
            if e.errno != errno.ESTALE:   # the documented race, see above
                raise
            continue
        known = set()
        for name in os.listdir(versions_dir):
            with open(os.path.join(versions_dir, name), "rb") as f:
                known.add(f.read())
        if data not in known:
            sys.exit("read a mixed or unknown version: %r" % data[-80:])
        json.loads(open(os.path.join(m, "index.json"), "rb").read())
        json.loads(open(os.path.join(m, "status.json"), "rb").read())
        n += 1
    print(n)
""")


class ConcurrentReaders(MountTestCase):
    options = ()

    def test_readers_while_skills_change(self):
        root = self.copy_examples()
        m = self.mount([root], self.options)
        work = self.make_dir()
        stop = os.path.join(work, "stop")
        versions = os.path.join(work, "versions")
        os.makedirs(versions)
        csv_md = os.path.join(root, "csv-report", "SKILL.md")
        with open(csv_md, "rb") as f:
            base = f.read()
        with open(os.path.join(versions, "0"), "wb") as f:
            f.write(base)

        # Warm the page cache as a first pass would.  A skill file the
        # kernel never read, whose source changes before the refresh that
        # follows, cannot be served as the inode it was (ESTALE, and the
        # refresh runs at once); files that changed in a refresh are held
        # open by the daemon, so every later version reads whole.
        subprocess.run(["grep", "-rc", "", m.path], stdout=subprocess.DEVNULL, check=False)
        readers = []
        for _ in range(SHELL_READERS):
            readers.append(subprocess.Popen(["sh", "-c", SHELL_LOOP, "sh", m.path, stop],
                                            stdout=subprocess.PIPE, stderr=subprocess.PIPE))
        readers.append(subprocess.Popen([sys.executable, "-c", PY_READER, m.path, stop, versions],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE))
        try:
            self.churn(root, m, csv_md, base, versions)
        finally:
            open(stop, "w").close()
        failures = []
        for r in readers:
            out, err = r.communicate(timeout=60)
            bad = undocumented(err)
            if r.returncode != 0 or bad:
                failures.append("reader %s exited %d: %s" % (r.args[:2], r.returncode,
                                                              "\n".join(bad)))
            else:
                self.assertGreater(int(out.split()[-1]), 0)
        self.assertEqual(failures, [])
        # the daemon is still fine and serves the final state
        wait_for(lambda: m.read("skills/csv-report/SKILL.md") == open(csv_md, "rb").read(),
                 what="the final version")

    def churn(self, root, m, csv_md, base, versions):
        deadline = time.monotonic() + DURATION
        i = 0
        while time.monotonic() < deadline:
            i += 1
            # add and remove whole skills
            write_skill(root, "churn-%d" % i, files={"notes/a.md": "a" * (i % 7 + 1)})
            if i > 2:
                d = os.path.join(root, "churn-%d" % (i - 2))
                for top, dirs, files in os.walk(d, topdown=False):
                    for f in files:
                        os.unlink(os.path.join(top, f))
                    for dd in dirs:
                        os.rmdir(os.path.join(top, dd))
                os.rmdir(d)
            # a new version of a stable skill, saved the way editors do
            version = base + (b"\nEdit %d.\n" % i) * (i % 5)
            with open(os.path.join(versions, str(i)), "wb") as f:
                f.write(version)
            tmp = csv_md + ".tmp"
            with open(tmp, "wb") as f:
                f.write(version)
            os.rename(tmp, csv_md)
            # and touch another one's files in place
            with open(os.path.join(root, "pdf-forms", "assets", "mapping.json"), "a") as f:
                f.write(" ")
            time.sleep(0.05)


class ConcurrentReadersMultithreaded(ConcurrentReaders):
    """The same with the multi-threaded FUSE loop (handlers run in parallel)."""
    options = ("-o", "multithreaded,max_threads=4")


if __name__ == "__main__":
    unittest.main(verbosity=2)
