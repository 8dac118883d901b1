#!/usr/bin/env python3
"""Service integration: an /etc/fstab line mounted by mount(8) through
mount.fuse3, `mount -t fuse.skillsfs`, the systemd unit skillsfs@.service
(systemd-analyze verify, and its commands run by hand), and what
`meson install` puts where.

mount(8) runs helpers without PATH, so mount.fuse3's `/bin/sh -c skillsfs
...` finds skillsfs only in the shell's default path (/usr/local/sbin,
/usr/local/bin, /usr/sbin, ...).  To leave the machine as it was, each
mount(8) test runs in a private mount namespace (unshare -m) in which a
folder holding a link to the built skillsfs is bound over /usr/local/sbin;
the namespace, and with it the mount, ends with the test's shell."""

import os
import re
import shlex
import shutil
import subprocess
import tempfile
import unittest

from intlib import (BUILD_ROOT, EXAMPLE_SKILLS, SKILLSFS, CustomMount, clean_env, run,
                    write)

UNIT_NAME = "skillsfs@.service"


def have(program):
    return shutil.which(program) is not None


def in_namespace(script, bindir, timeout=60):
    """Runs the shell script in a private mount namespace with bindir bound
    over /usr/local/sbin; returns the CompletedProcess."""
    prologue = "set -e\nmount --bind %s /usr/local/sbin\n" % shlex.quote(bindir)
    return subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                           prologue + script], capture_output=True, text=True,
                          timeout=timeout, env=clean_env())


def namespaces_work():
    if not (have("unshare") and have("mount") and os.path.exists("/sbin/mount.fuse3")):
        return False
    r = subprocess.run(["unshare", "-m", "--propagation", "private", "true"],
                       capture_output=True)
    return r.returncode == 0 and os.path.isdir("/usr/local/sbin")


# Inside the namespace: mount, show what is served, unmount; the shell
# fails (set -e) on the first step that does.
CHECK_MOUNT = """
for i in $(seq 1 200); do
    [ -f {mnt}/index.json ] && break
    sleep 0.05
done
grep -q " {mnt} .* - fuse.skillsfs skillsfs " /proc/self/mountinfo
ls {mnt}
ls {mnt}/skills
cat {mnt}/status.json
umount {mnt}
! grep -q " {mnt} " /proc/self/mountinfo
"""


def unit_keys(text):
    """A unit's KEY=value lines: each key's values in order."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^([A-Za-z]+)=(.*)$", line)
        if m:
            out.setdefault(m.group(1), []).append(m.group(2))
    return out


@unittest.skipUnless(namespaces_work(), "needs unshare -m, mount(8) and mount.fuse3")
class Fstab(unittest.TestCase):
    def setUp(self):
        self.top = tempfile.mkdtemp(prefix="skillsfs-fstab-")
        self.addCleanup(shutil.rmtree, self.top, True)
        self.bindir = os.path.join(self.top, "bin")
        os.mkdir(self.bindir)
        os.symlink(SKILLSFS, os.path.join(self.bindir, "skillsfs"))
        self.mnt = os.path.join(self.top, "mnt")
        os.mkdir(self.mnt)
        self.docs = os.path.join(self.top, "docs")
        write(os.path.join(self.docs, "index.md"), "# Docs\n")

    def mount_script(self, command):
        return command + "\n" + CHECK_MOUNT.format(mnt=shlex.quote(self.mnt))

    def assert_served(self, r, skills=("csv-report", "pdf-forms", "commit-messages")):
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        for sid in skills:
            self.assertIn(sid, r.stdout)
        self.assertFalse(os.path.ismount(self.mnt))

    def test_fstab_line(self):
        fstab = write(os.path.join(self.top, "fstab"),
                      "# the line of skillsfs(1)\n"
                      "skillsfs  %s  fuse.skillsfs  skills_dir=%s,docs_dir=%s,allow_other  0  0\n"
                      % (self.mnt, EXAMPLE_SKILLS, self.docs))
        r = in_namespace(self.mount_script("mount -T %s %s\nls %s/docs\n" % (
            shlex.quote(fstab), shlex.quote(self.mnt), shlex.quote(self.mnt))), self.bindir)
        self.assert_served(r)
        self.assertIn("index.md", r.stdout)
        self.assertRegex(r.stdout, r'"source":\s*"skills_dir="')

    def test_fstab_line_with_a_config_file(self):
        cfg = write(os.path.join(self.top, "skills.yaml"),
                    "roots: [%s]\nexclude: [csv-report]\n" % EXAMPLE_SKILLS)
        fstab = write(os.path.join(self.top, "fstab"),
                      "none %s fuse.skillsfs config=%s 0 0\n" % (self.mnt, cfg))
        r = in_namespace(self.mount_script("mount -T %s %s" % (
            shlex.quote(fstab), shlex.quote(self.mnt))), self.bindir)
        self.assert_served(r, ("pdf-forms", "commit-messages"))
        self.assertNotIn("csv-report", r.stdout)
        self.assertRegex(r.stdout, r'"source":\s*"config"')

    def test_mount_type(self):
        other = os.path.join(self.top, "other")
        shutil.copytree(os.path.join(EXAMPLE_SKILLS, "csv-report"),
                        os.path.join(other, "csv-report"))
        r = in_namespace(self.mount_script("mount -t fuse.skillsfs %s:%s %s" % (
            EXAMPLE_SKILLS, other, shlex.quote(self.mnt))), self.bindir)
        self.assert_served(r)
        self.assertRegex(r.stdout, r'"source":\s*"mount source"')
        self.assertRegex(r.stdout, r'"shadowed":\s*1')

    def test_bad_option_fails_the_mount(self):
        fstab = write(os.path.join(self.top, "fstab"),
                      "skillsfs %s fuse.skillsfs skills_dir=%s,poll_interval=soon 0 0\n"
                      % (self.mnt, EXAMPLE_SKILLS))
        r = in_namespace("mount -T %s %s" % (shlex.quote(fstab), shlex.quote(self.mnt)),
                         self.bindir)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("poll_interval", r.stderr)
        self.assertFalse(os.path.ismount(self.mnt))


class SystemdUnit(unittest.TestCase):
    """The template unit built for installation."""

    def setUp(self):
        self.unit = os.path.join(BUILD_ROOT, "fs", "systemd", UNIT_NAME)
        with open(self.unit) as f:
            self.text = f.read()
        self.top = tempfile.mkdtemp(prefix="skillsfs-unit-")
        self.addCleanup(shutil.rmtree, self.top, True)

    def keys(self, text=None):
        return unit_keys(text or self.text)

    def instance_copy(self, mountpoint):
        """The unit as an instance for mountpoint, running the built
        skillsfs, in a folder of its own."""
        escaped = run(["systemd-escape", "--path", mountpoint]).stdout.strip() \
            if have("systemd-escape") else mountpoint.strip("/").replace("/", "-")
        bindir = re.search(r"^ExecStart=(\S+)/skillsfs ", self.text, re.M).group(1)
        text = self.text.replace(bindir + "/skillsfs", SKILLSFS)
        path = os.path.join(self.top, "skillsfs@%s.service" % escaped)
        write(path, text)
        return path, escaped, text

    def test_sections_and_commands(self):
        k = self.keys()
        self.assertTrue(self.text.startswith("# skillsfs@.service"))
        for section in ("[Unit]", "[Service]", "[Install]"):
            self.assertIn("\n" + section + "\n", self.text)
        self.assertEqual(k["Type"], ["forking"])
        self.assertRegex(k["ExecStart"][0],
                         r"^/\S+/skillsfs %f --config /\S+/skillsfs/%i\.yaml$")
        self.assertRegex(k["ConditionPathExists"][0], r"^/\S+/skillsfs/%i\.yaml$")
        self.assertEqual(k["WantedBy"], ["multi-user.target"])
        # namespacing would hide the mount from the rest of the system
        for key in ("PrivateTmp", "ProtectSystem", "ProtectHome", "PrivateMounts"):
            self.assertNotIn(key, k)
        self.assertNotIn("@", self.text.replace("skillsfs@", "").replace("%i", ""),
                         "an @VARIABLE@ was not substituted")

    @unittest.skipUnless(have("systemd-analyze"), "needs systemd-analyze")
    def test_systemd_analyze_verify(self):
        path, _, _ = self.instance_copy("/mnt/agent skills")
        r = run(["systemd-analyze", "verify", "--man=no", path], cwd=self.top)
        self.assertEqual((r.returncode, r.stderr.strip()), (0, ""), r.stdout)
        # and it does find mistakes
        bad = path.replace("skillsfs@", "broken@")
        write(bad, self.text.replace("Type=forking", "Type=forking\nExecStartt=/bin/true")
              .replace("ExecStart=/", "ExecStart=/nonexistent/"))
        r = run(["systemd-analyze", "verify", "--man=no", bad], cwd=self.top)
        self.assertTrue(r.returncode != 0 or r.stderr, "verify found nothing wrong")

    def test_commands_by_hand(self):
        """What systemd would run for an instance, without systemd: mkdir,
        the forking start (active once the mount answers), the stop by
        SIGTERM's equivalent (an unmount), and ExecStopPost."""
        mnt = os.path.join(self.top, "mnt", "skills")
        path, escaped, text = self.instance_copy(mnt)
        confdir = os.path.join(self.top, "etc")
        write(os.path.join(confdir, "skillsfs", escaped + ".yaml"),
              "roots: [%s]\nexclude: [pdf-forms]\n" % EXAMPLE_SKILLS)
        sysconf = re.search(r"--config (\S+)/skillsfs/%i\.yaml", self.text).group(1)

        def expand(cmd):
            # systemd splits the line first, then resolves specifiers in
            # each word, so an escaped instance ("a\\x2db") stays one word,
            # backslashes and all
            return [w.replace(sysconf, confdir).replace("%f", mnt).replace("%i", escaped)
                    for w in shlex.split(cmd)]
        k = self.keys(text)
        self.assertEqual(run(expand(k["ExecStartPre"][0])).returncode, 0)
        self.assertTrue(os.path.isdir(mnt))
        argv = expand(k["ExecStart"][0])
        m = CustomMount(mnt, argv + ["-f"], env=clean_env())   # -f: our child
        self.addCleanup(m.cleanup)
        m.start()
        ids = sorted(s["uri"].split("/")[2] for s in m.json("index.json")["skills"])
        self.assertEqual(ids, ["commit-messages", "csv-report"])
        self.assertEqual(m.terminate(), 0)   # KillMode's SIGTERM: a clean unmount
        self.assertFalse(os.path.ismount(mnt))
        stop_post = k["ExecStopPost"][0]
        self.assertTrue(stop_post.startswith("-"))   # failure ignored
        run(expand(stop_post[1:]))


class UserUnit(unittest.TestCase):
    """The user's template unit (systemctl --user), built for installation
    as PREFIX/lib/systemd/user/skillsfs@.service; tests/package/smoke runs
    its commands as an unprivileged user."""

    def test_sections_and_commands(self):
        with open(os.path.join(BUILD_ROOT, "fs", "systemd", "skillsfs-user@.service")) as f:
            text = f.read()
        k = unit_keys(text)
        self.assertTrue(text.startswith("# skillsfs@.service (user)"))
        for section in ("[Unit]", "[Service]", "[Install]"):
            self.assertIn("\n" + section + "\n", text)
        self.assertEqual(k["Type"], ["forking"])
        # %E: the user's configuration folder ($XDG_CONFIG_HOME, ~/.config)
        self.assertRegex(k["ExecStart"][0],
                         r"^/\S+/skillsfs %f --config %E/skillsfs/%i\.yaml$")
        self.assertEqual(k["ConditionPathExists"], ["%E/skillsfs/%i.yaml"])
        self.assertEqual(k["WantedBy"], ["default.target"])
        for key in ("PrivateTmp", "ProtectSystem", "ProtectHome", "PrivateMounts"):
            self.assertNotIn(key, k)
        self.assertNotIn("@", text.replace("skillsfs@", "").replace("%i", ""),
                         "an @VARIABLE@ was not substituted")


class Install(unittest.TestCase):
    """meson install --destdir: the programs, the module of the kinds of
    source skillsfs loads (shared/kinds.c), the three man pages, the
    units of the system and of a user."""

    def test_destdir(self):
        meson = os.environ.get("MESON") or shutil.which("meson")
        if not meson:
            self.skipTest("meson not found")
        dest = tempfile.mkdtemp(prefix="skillsfs-destdir-")
        self.addCleanup(shutil.rmtree, dest, True)
        r = run([meson, "install", "--no-rebuild", "--quiet", "-C", BUILD_ROOT,
                 "--destdir", dest], timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        files = sorted(os.path.relpath(os.path.join(d, f), dest)
                       for d, _, fs in os.walk(dest) for f in fs)
        suffixes = ["bin/skillsfs", "bin/skillsfs-mcp",
                    "skillsfs/skillsfs-kinds.so", "man1/skillsfs.1",
                    "man1/skillsfs-mcp.1", "man5/skillsfs.5",
                    "systemd/system/" + UNIT_NAME, "systemd/user/" + UNIT_NAME]
        for suffix in suffixes:
            self.assertEqual(len([f for f in files if f.endswith("/" + suffix)]), 1,
                             "%s in %s" % (suffix, files))
        self.assertEqual(len(files), len(suffixes), files)
        for f in files:
            if "/bin/" in f:
                self.assertTrue(os.access(os.path.join(dest, f), os.X_OK))


if __name__ == "__main__":
    unittest.main(verbosity=2)
