#!/usr/bin/env python3
"""skillsfs export never writes outside OUTDIR, whatever another user
planted (cli/export.c, the rule of shared/trust.h):

- an OUTDIR another user owns is refused before anything is written: that
  user could swap a folder the export made in it for a link between two
  of its steps, and have the rest written where the link leads (shown
  here with the export held by strace at its first mkdir);
- an OUTDIR that is a link another user owns, in a sticky folder such as
  /tmp, is not followed (fs.protected_symlinks, which would refuse it, is
  off on some systems);
- an OUTDIR of root's that others may write is refused too.
Each case runs the export as root over a folder of skills a hostile author
wrote, and checks the folder the attack aims at stays empty."""

import os
import shutil
import signal
import subprocess
import unittest

from hostilelib import STEP_TIMEOUT, HostileCase, SKILLSFS, needs_root, wait_for, \
    write_skill
from test_confidential import test_user

SKILL = "payload"
# what the attacker wants written into the victim folder
PAYLOAD_NAME = "authorized_keys"


def untraced_leaks():
    """The environment for a program run under strace: LeakSanitizer
    cannot work under ptrace, and an ASan build would abort at exit."""
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"),
                                                 "detect_leaks=0"]))
    return env


def run(args, timeout=STEP_TIMEOUT):
    p = subprocess.run(args, capture_output=True, timeout=timeout)
    return p.returncode, (p.stdout + p.stderr).decode("utf-8", "replace")


def export_under(tracer):
    """The pid of the export strace runs (not strace's own fork before
    the exec), or None while there is none."""
    with open("/proc/%d/task/%d/children" % (tracer.pid, tracer.pid)) as f:
        pids = [int(p) for p in f.read().split()]
    for pid in pids:
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
        except FileNotFoundError:
            continue
        if argv[:2] == [os.fsencode(SKILLSFS), b"export"]:
            return pid
    return None


def proc_state(pid):
    """The state letter of /proc/PID/stat, or None when it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


@needs_root("folders and links owned by another user (skillsfs-test)")
class ExportOutdir(HostileCase):
    def setUp(self):
        super().setUp()
        self.uid = test_user()
        write_skill(self.root, SKILL, files={PAYLOAD_NAME: "ssh-ed25519 AAAA attacker\n"})
        top = self.make_dir()
        os.chmod(top, 0o755)
        # a sticky folder anyone may write, as /tmp
        self.sticky = os.path.join(top, "tmp")
        os.mkdir(self.sticky)
        os.chmod(self.sticky, 0o1777)
        # root's folder the attack aims at (as /root/.ssh)
        self.victim = os.path.join(top, "victim")
        os.mkdir(self.victim, 0o700)

    def export(self, outdir, prefix=()):
        return run(list(prefix) + [SKILLSFS, "export", "--anthropic", outdir,
                                   "--skills-dir", self.root])

    def assert_victim_untouched(self):
        found = [os.path.join(d, n) for d, _, names in os.walk(self.victim) for n in names]
        self.assertEqual(os.listdir(self.victim), [], found)

    def test_an_outdir_of_another_user_is_refused(self):
        out = os.path.join(self.sticky, "out")
        os.mkdir(out)
        os.chown(out, self.uid, -1)
        code, text = self.export(out)
        self.assertEqual(code, 1, text)
        self.assertIn("refusing %s, owned by skillsfs-test" % out, text)
        self.assertEqual(os.listdir(out), [])

    @unittest.skipUnless(shutil.which("strace"), "needs strace to hold the export")
    def test_a_folder_swapped_for_a_link_mid_export_writes_nothing_outside(self):
        out = os.path.join(self.sticky, "out")
        os.mkdir(out)
        os.chown(out, self.uid, -1)
        # the export stops itself (SIGSTOP) at its first mkdir, which makes
        # OUTDIR/<id>: the moment the other user swaps it for a link
        tracer = subprocess.Popen(
            ["strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=mkdir,mkdirat",
             "-e", "inject=mkdir,mkdirat:signal=SIGSTOP:when=1", "--",
             SKILLSFS, "export", "--anthropic", out, "--skills-dir", self.root],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=untraced_leaks())
        try:
            wait_for(lambda: export_under(tracer) or tracer.poll() is not None,
                     STEP_TIMEOUT, what="the export started under strace")
            pid = export_under(tracer) if tracer.poll() is None else None
            # the export cannot go past that mkdir until it is continued:
            # the signal comes as the call returns
            wait_for(lambda: os.listdir(out) or tracer.poll() is not None,
                     STEP_TIMEOUT, what="the export's first mkdir, or its end")
            if os.listdir(out) and tracer.poll() is None:
                # what skillsfs-test may do in a folder of its own: the
                # skill's folder just made, swapped for a link
                made = os.path.join(out, os.listdir(out)[0])
                os.rename(made, os.path.join(out, ".moved"))
                os.symlink(self.victim, made)
                os.lchown(made, self.uid, -1)
            # continued until it ends: a SIGCONT sent before the SIGSTOP
            # arrived would not undo it
            wait_for(lambda: tracer.poll() is not None or
                     (pid and proc_state(pid) is not None and os.kill(pid, signal.SIGCONT)),
                     STEP_TIMEOUT, interval=0.05, what="the export to end")
            text = tracer.communicate(timeout=STEP_TIMEOUT)[0].decode("utf-8", "replace")
        finally:
            if tracer.poll() is None:
                tracer.kill()
                tracer.wait()
        self.assert_victim_untouched()
        self.assertEqual(tracer.returncode, 1, text)
        self.assertIn("refusing %s, owned by skillsfs-test" % out, text)

    def test_a_link_of_another_user_as_outdir_is_not_followed(self):
        link = os.path.join(self.sticky, "out")
        os.symlink(self.victim, link)
        os.lchown(link, self.uid, -1)
        code, text = self.export(link)
        self.assertEqual(code, 1, text)
        self.assertIn("refusing %s, owned by skillsfs-test" % link, text)
        self.assertIn("a link another user owns", text)
        self.assert_victim_untouched()
        # a link of root's own to that folder is followed
        os.unlink(link)
        os.symlink(self.victim, link)
        code, text = self.export(link)
        self.assertEqual(code, 0, text)
        self.assertTrue(os.path.isfile(os.path.join(self.victim, SKILL, PAYLOAD_NAME)))

    def test_an_outdir_others_may_write_is_refused(self):
        out = os.path.join(self.make_dir(), "out")
        os.mkdir(out)
        os.chmod(out, 0o777)
        code, text = self.export(out)
        self.assertEqual(code, 1, text)
        self.assertIn("others may write this folder", text)
        self.assertEqual(os.listdir(out), [])

    def test_a_new_outdir_in_a_folder_of_another_user_is_not_made(self):
        theirs = os.path.join(self.sticky, "theirs")
        os.mkdir(theirs)
        os.chown(theirs, self.uid, -1)
        out = os.path.join(theirs, "out")
        code, text = self.export(out)
        self.assertEqual(code, 1, text)
        self.assertIn("refusing %s, owned by skillsfs-test" % theirs, text)
        self.assertFalse(os.path.exists(out))


class ExportModes(HostileCase):
    def test_no_set_id_bit_is_exported(self):
        # a skill author's program with set-user-ID and set-group-ID: an
        # export by root made it root's, setuid root, of the author's bytes
        d = os.path.join(self.root, SKILL)
        write_skill(self.root, SKILL, files={"scripts/tool": "#!/bin/sh\nid\n"})
        tool = os.path.join(d, "scripts", "tool")
        os.chmod(tool, 0o6755)
        os.chmod(os.path.join(d, "scripts"), 0o2755)
        out = os.path.join(self.make_dir(), "out")
        code, text = run([SKILLSFS, "export", "--anthropic", out, "--skills-dir", self.root])
        self.assertEqual(os.stat(tool).st_mode & 0o7777, 0o6755, "the source was changed")
        written = os.path.join(out, SKILL, "scripts", "tool")
        self.assertEqual(os.stat(written).st_mode & 0o7777, 0o755, text)
        self.assertEqual(os.stat(os.path.dirname(written)).st_mode & 0o7777, 0o755, text)
        with open(written) as f:
            self.assertEqual(f.read(), "#!/bin/sh\nid\n")
        self.assertIn(code, (0, 1), text)


if __name__ == "__main__":
    unittest.main()
