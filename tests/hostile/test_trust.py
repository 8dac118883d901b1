#!/usr/bin/env python3
"""No file another user controls steers a skillsfs program (skillsfs(5),
SECURITY; issue 27 items 3, 4 and 7): one ownership-and-mode rule, as
ssh's StrictModes, for config files, token files and cache folders.

- A config file another user owns, or others may write, is refused by the
  mount, check and skillsfs-mcp, and its command: never runs (a marker
  file the command would make stays absent); nor does a root-owned
  config's command: when the program, or a folder above it, is another
  user's or others may write it.
- A link planted at the cache's git-digests is never written through; a
  cache folder another user owns is refused with a message that names it,
  and what it holds is never served.
- A token file others may read is refused by the mount's MCP client as by
  skillsfs-mcp --token-file; a FIFO where a token belongs fails at once."""

import json
import os
import pwd
import shutil
import subprocess
import unittest

from hostilelib import STEP_TIMEOUT, HostileCase, SKILLSFS, SKILLSFS_MCP, needs_root, \
    unmount, wait_for
from test_confidential import test_user

# No server listens on the discard port: a client that got that far would
# say it cannot connect, not why it refused the token.
NO_SERVER = "mcp+http://127.0.0.1:9/mcp"


def run(args, env=None, timeout=STEP_TIMEOUT):
    """Runs a command: (exit status, stdout and stderr together)."""
    p = subprocess.run(args, capture_output=True, timeout=timeout, env=env)
    return p.returncode, (p.stdout + p.stderr).decode("utf-8", "replace")


def git(*args, cwd=None):
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", HOME=cwd or "/",
               GIT_AUTHOR_NAME="T", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="T", GIT_COMMITTER_EMAIL="t@example.com")
    return subprocess.run(["git"] + list(args), cwd=cwd, env=env, check=True,
                          capture_output=True, text=True, timeout=60).stdout.strip()


@needs_root("files owned by another user (skillsfs-test)")
class Trust(HostileCase):
    def setUp(self):
        super().setUp()
        self.uid = test_user()
        self.user = pwd.getpwuid(self.uid).pw_name
        self.top = self.make_dir()
        os.chmod(self.top, 0o755)

    def write(self, name, text, mode=0o644, owner=0):
        path = os.path.join(self.top, name)
        with open(path, "w") as f:
            f.write(text)
        os.chown(path, owner, -1)
        os.chmod(path, mode)
        return path

    # ---- config files ---------------------------------------------------

    def probe_config(self, mode, owner):
        """A config file whose stdio source's command makes a marker."""
        marker = os.path.join(self.top, "command-ran")
        text = ("roots: [%s]\nsources:\n  - command: sh\n"
                "    args: [-c, 'touch %s; exit 1']\n    name: probe\n"
                "options:\n  cache_dir: %s\n" % (json.dumps(self.root), marker,
                                                   os.path.join(self.top, "cache")))
        return self.write("skillsfs.yaml", text, mode, owner), marker

    def assert_config_refused(self, config, marker, owner_name, mode):
        code, out = run([SKILLSFS, "check", "--config", config])
        self.assertEqual(code, 2, out)
        self.assertIn("refusing %s, owned by %s" % (config, owner_name), out)
        self.assertIn("mode %04o" % mode, out)
        code, out = run([SKILLSFS_MCP, "--config", config, "--http", "127.0.0.1:0"])
        self.assertEqual(code, 2, out)
        self.assertIn("refusing %s" % config, out)
        # the mount, as fstab or the systemd unit would start it
        mnt = self.make_dir()
        proc = subprocess.Popen([SKILLSFS, mnt, "--config", config, "-f"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            wait_for(lambda: proc.poll() is not None or os.path.exists(marker),
                     timeout=STEP_TIMEOUT, what="the mount to refuse the config file")
        finally:
            if proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=30)
                unmount(mnt)
            err = proc.stderr.read().decode("utf-8", "replace")
            proc.stderr.close()
        self.assertFalse(os.path.exists(marker), "the command of a refused config ran")
        self.assertEqual(proc.returncode, 2, err)
        self.assertIn("refusing %s" % config, err)

    def test_a_config_file_of_another_user_never_runs_its_command(self):
        config, marker = self.probe_config(0o644, self.uid)
        self.assert_config_refused(config, marker, "%s (uid %d)" % (self.user, self.uid),
                                   0o644)

    def test_a_config_file_others_may_write_is_refused(self):
        config, marker = self.probe_config(0o666, 0)
        self.assert_config_refused(config, marker, "root (uid 0)", 0o666)

    def test_a_config_file_in_a_folder_of_another_user_is_refused(self):
        config, marker = self.probe_config(0o644, 0)
        os.chown(self.top, self.uid, -1)
        code, out = run([SKILLSFS, "check", "--config", config])
        self.assertEqual(code, 2, out)
        self.assertIn("refusing %s, owned by %s" % (self.top, self.user), out)
        self.assertFalse(os.path.exists(marker))

    # ---- the program a config file's command: runs -------------------------

    def probe_program(self, program_owner, program_mode, folder_owner):
        """A root-owned config file whose command: is a program in a
        folder of its own; the program, when it runs, makes a marker."""
        folder = os.path.join(self.top, "bin")
        os.mkdir(folder)
        marker = os.path.join(self.top, "program-ran")
        program = self.write(os.path.join("bin", "server"),
                             "#!/bin/sh\ntouch %s\nexit 1\n" % marker,
                             program_mode, program_owner)
        os.chown(folder, folder_owner, -1)
        os.chmod(folder, 0o755)
        text = ("sources:\n  - command: %s\n    name: probe\n"
                "options:\n  cache_dir: %s\n" % (program, os.path.join(self.top, "cache")))
        return self.write("skillsfs.yaml", text), program, folder, marker

    def assert_program_refused(self, config, refused, owner_name, marker):
        code, out = run([SKILLSFS, "check", "--config", config])
        self.assertFalse(os.path.exists(marker), "a program another user controls ran as root")
        self.assertNotEqual(code, 0, out)
        self.assertIn("refusing %s, owned by %s" % (refused, owner_name), out)

    def test_a_program_of_another_user_never_runs_as_root(self):
        config, program, _, marker = self.probe_program(self.uid, 0o755, 0)
        self.assert_program_refused(config, program, "%s (uid %d)" % (self.user, self.uid),
                                    marker)

    def test_a_program_in_a_folder_of_another_user_never_runs_as_root(self):
        config, _, folder, marker = self.probe_program(0, 0o755, self.uid)
        self.assert_program_refused(config, folder, self.user, marker)

    def test_a_program_others_may_write_never_runs(self):
        config, program, _, marker = self.probe_program(0, 0o757, 0)
        self.assert_program_refused(config, program, "root (uid 0)", marker)

    def test_a_program_of_roots_runs(self):
        config, _, _, marker = self.probe_program(0, 0o755, 0)
        run([SKILLSFS, "check", "--config", config])
        self.assertTrue(os.path.exists(marker), "root's own program did not run")

    # ---- the module of the kinds (fs/kinds_path.c) -----------------------

    def test_a_module_of_the_kinds_another_user_may_replace_never_loads_as_root(self):
        # root's own copy of skillsfs, in a folder of root's, beside a
        # shared/ of skillsfs-test's holding a module whose constructor
        # leaves a marker: where fs/kinds_path.c looks from a build tree
        prog_dir = os.path.join(self.top, "tree", "fs")
        theirs = os.path.join(self.top, "tree", "shared")
        os.makedirs(prog_dir)
        os.makedirs(theirs)
        prog = os.path.join(prog_dir, "skillsfs")
        shutil.copy2(SKILLSFS, prog)
        marker = os.path.join(self.top, "module-ran")
        src = self.write("planted.c", "#include <stdio.h>\n"
                         "__attribute__((constructor)) static void planted(void)\n"
                         "{ FILE *f = fopen(\"%s\", \"w\"); if (f) fclose(f); }\n" % marker)
        module = os.path.join(theirs, "skillsfs-kinds.so")
        subprocess.run([os.environ.get("CC", "cc"), "-shared", "-fPIC", "-o", module, src],
                       check=True, capture_output=True, timeout=60)
        os.chown(theirs, self.uid, -1)
        os.chown(module, self.uid, -1)
        url, _ = self.git_root()
        code, out = run([prog, "check", "--source", url])
        self.assertFalse(os.path.exists(marker), "another user's module ran as root:\n" + out)
        self.assertEqual(code, 1, out)
        self.assertIn("refusing %s, owned by %s" % (theirs, self.user), out)
        # root's own module there is loaded: the git root is read
        os.chown(theirs, 0, -1)
        os.unlink(module)
        shutil.copy2(os.path.join(os.path.dirname(os.path.dirname(SKILLSFS)), "shared",
                                  "skillsfs-kinds.so"), module)
        code, out = run([prog, "check", "--source", url])
        self.assertEqual(code, 0, out)
        self.assertIn("1 skills", out)

    # ---- the cache folder -----------------------------------------------

    def git_root(self):
        """A git repository with one skill; its URL and the skill's blob id."""
        work = os.path.join(self.top, "repo")
        os.makedirs(os.path.join(work, "skills", "kept"))
        with open(os.path.join(work, "skills", "kept", "SKILL.md"), "w") as f:
            f.write("---\nname: kept\ndescription: The real description.\n---\nBody.\n")
        git("init", "-q", "-b", "main", cwd=work)
        git("add", "-A", cwd=work)
        git("commit", "-q", "-m", "one", cwd=work)
        blob = git("rev-parse", "main:skills/kept/SKILL.md", cwd=work)
        return "git+file://%s#main:skills" % work, blob

    def test_a_link_at_git_digests_is_never_written_through(self):
        url, _ = self.git_root()
        victim = self.write("victim", "precious root-only bytes\n", 0o600)
        cache_home = os.path.join(self.top, "xdg-cache")
        os.makedirs(os.path.join(cache_home, "skillsfs"), mode=0o700)
        os.symlink(victim, os.path.join(cache_home, "skillsfs", "git-digests"))
        code, out = run([SKILLSFS, "check", "--source", url],
                        env=dict(os.environ, XDG_CACHE_HOME=cache_home))
        self.assertIn(code, (0, 1), out)
        with open(victim) as f:
            self.assertEqual(f.read(), "precious root-only bytes\n")

    def test_a_cache_folder_of_another_user_is_refused(self):
        url, blob = self.git_root()
        cache_home = os.path.join(self.top, "xdg-cache")
        cache = os.path.join(cache_home, "skillsfs")
        os.makedirs(os.path.join(cache, "git-blobs"))
        # what that user plants: a SKILL.md of the same size, another text
        forged = "---\nname: kept\ndescription: A forged description.\n---\nBody.\n"
        with open(os.path.join(cache, "git-blobs", blob), "w") as f:
            f.write(forged)
        for dirpath, _, files in os.walk(cache):
            os.chown(dirpath, self.uid, -1)
            for name in files:
                os.chown(os.path.join(dirpath, name), self.uid, -1)
        # an MCP root needs the cache: its fetch says why it cannot use it
        code, out = run([SKILLSFS, "check", "--source", NO_SERVER],
                        env=dict(os.environ, XDG_CACHE_HOME=cache_home))
        self.assertIn("refusing %s, owned by %s" % (cache, self.user), out)
        # a git root is read from its repository, not from that folder
        m = self.mount([], ["--source", url, "-o", "cache_dir=" + cache])
        entries = m.json("index.json")["skills"]
        self.assertEqual([e["frontmatter"]["description"] for e in entries], ["The real description."])
        self.assertNotIn(b"forged", m.read("skills", "kept", "SKILL.md"))

    # ---- token files ----------------------------------------------------

    def token_config(self, token_file):
        text = ("sources:\n  - url: %s\n    token_file: %s\noptions:\n  cache_dir: %s\n"
                % (NO_SERVER, token_file, os.path.join(self.top, "cache")))
        return self.write("tokens.yaml", text)

    def test_a_token_file_others_may_read_is_refused_by_both_clients(self):
        token = self.write("token", "a-token-of-sixteen-or-more\n", 0o666)
        code, out = run([SKILLSFS, "check", "--config", self.token_config(token)])
        self.assertIn("refusing %s, owned by root (uid 0) with mode 0666: others may "
                      "read or write this token" % token, out)
        code, out = run([SKILLSFS_MCP, "--http", "127.0.0.1:0", "--token-file", token,
                         "--skills-dir", self.root])
        self.assertEqual(code, 2, out)
        self.assertIn("refusing %s, owned by root (uid 0) with mode 0666" % token, out)

    def test_a_fifo_token_file_fails_at_once(self):
        fifo = os.path.join(self.top, "token.fifo")
        os.mkfifo(fifo, 0o600)
        code, out = run([SKILLSFS, "check", "--config", self.token_config(fifo)])
        self.assertIn("refusing %s" % fifo, out)
        self.assertIn("not a regular file", out)
        code, out = run([SKILLSFS_MCP, "--http", "127.0.0.1:0", "--token-file", fifo,
                         "--skills-dir", self.root])
        self.assertEqual(code, 2, out)
        self.assertIn("not a regular file", out)
        # the mount serves its folder root, and says why the server is not
        with open(self.token_config(fifo)) as f:
            config = self.write("mount.yaml", "roots: [%s]\n" % json.dumps(self.root) +
                                f.read())
        m = self.mount([], ["--config", config])
        self.assertIn("control", [e["uri"].split("/")[2] for e in m.json("index.json")["skills"]])
        wait_for(lambda: "not a regular file" in json.dumps(m.json("status.json")),
                 timeout=STEP_TIMEOUT, what="status.json to say why the token was refused")


if __name__ == "__main__":
    unittest.main(verbosity=2)
