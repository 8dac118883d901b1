/*
 * test_trust.c - the ownership-and-mode rule and the cache primitives
 * (shared/trust.c): what passes, what is refused and with which words,
 * and that no link or second name is written through.  Runs as any user
 * (what needs another account is in tests/hostile/test_trust.py).
 * Prints TAP.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "trust.h"

static const char *file_at(const char *rel, const char *text, mode_t mode)
{
	const char *path = write_file(at("%s", rel), text);

	if (chmod(path, mode) < 0)
		die(path);
	return path;
}

/* sfs_trust_open's result, the descriptor closed; its why in why. */
static int try_open(const char *path, enum sfs_trust_kind kind, off_t max,
                    char *why, size_t wlen)
{
	why[0] = '\0';
	int fd = sfs_trust_open(path, kind, max, why, wlen);
	if (fd >= 0)
		close(fd);
	return fd < 0 ? fd : 0;
}

static void test_files(void)
{
	char why[1024];
	char conf[4096], token[4096];

	snprintf(conf, sizeof(conf), "%s", file_at("etc/a.yaml", "roots: []\n",
	                                           0644));

	ok(try_open(conf, SFS_TRUST_CONFIG, 0, why, sizeof(why)) == 0,
	   "a 0644 config file of ours passes (%s)", why);
	chmod(conf, 0664);
	ok(try_open(conf, SFS_TRUST_CONFIG, 0, why, sizeof(why)) == -EPERM &&
	   strstr(why, "mode 0664") && strstr(why, "others may write this file") &&
	   strstr(why, "chmod go-w"),
	   "a group-writable one is refused, naming owner, mode, fix (%s)", why);
	snprintf(token, sizeof(token), "%s", file_at("etc/token",
	         "t0123456789abcdef\n", 0644));
	ok(try_open(token, SFS_TRUST_SECRET, 0, why, sizeof(why)) == -EPERM &&
	   strstr(why, "others may read or write this token") &&
	   strstr(why, "chmod 600"), "a 0644 token is refused (%s)", why);
	chmod(token, 0600);
	ok(try_open(token, SFS_TRUST_SECRET, 0, why, sizeof(why)) == 0,
	   "a 0600 token passes (%s)", why);
	ok(try_open(token, SFS_TRUST_SECRET, 4, why, sizeof(why)) == -EFBIG,
	   "a file over the size given is refused (%s)", why);
	if (mkfifo(at("etc/fifo"), 0600) < 0)
		die("mkfifo");
	ok(try_open(at("etc/fifo"), SFS_TRUST_SECRET, 0, why, sizeof(why)) ==
	   -EPERM && strstr(why, "not a regular file"),
	   "a FIFO is refused without waiting for a writer (%s)", why);
	ok(try_open(at("etc/none"), SFS_TRUST_CONFIG, 0, why, sizeof(why)) ==
	   -ENOENT && strstr(why, "No such file"), "a missing file says so");
}

static void test_folders_and_links(void)
{
	char why[1024] = "";
	char *conf = strdup(file_at("open/sub/a.yaml", "roots: []\n", 0644));
	char *open_dir = strdup(at("open"));

	if (!conf || !open_dir)
		die("strdup");

	if (symlink("sub/a.yaml", at("open/link.yaml")) < 0 ||
	    symlink(at("open/sub"), at("open/dirlink")) < 0)
		die("symlink");
	ok(try_open(at("open/link.yaml"), SFS_TRUST_CONFIG, 0, why,
	            sizeof(why)) == 0,
	   "a link in a folder that passed is followed (%s)", why);
	ok(try_open(at("open/dirlink/a.yaml"), SFS_TRUST_CONFIG, 0, why,
	            sizeof(why)) == 0,
	   "so is a link to a folder on the way (%s)", why);
	chmod(open_dir, 0777);
	ok(try_open(conf, SFS_TRUST_CONFIG, 0, why, sizeof(why)) == -EPERM &&
	   strstr(why, open_dir) && strstr(why, "mode 0777") &&
	   strstr(why, "others may write this folder"),
	   "a folder above that others may write is refused (%s)", why);
	chmod(open_dir, 01777);
	ok(try_open(conf, SFS_TRUST_CONFIG, 0, why, sizeof(why)) == 0,
	   "unless it is sticky, as /tmp is (%s)", why);
	chmod(open_dir, 0755);
	char *cwd = getcwd(NULL, 0);
	if (!cwd || chdir(at("open/sub")) < 0)
		die("chdir");
	ok(try_open("a.yaml", SFS_TRUST_CONFIG, 0, why, sizeof(why)) == 0,
	   "a relative path is walked from / through the working folder (%s)",
	   why);
	if (chdir(cwd) < 0)
		die("chdir back");
	free(cwd);
	free(conf);
	free(open_dir);
}

static void test_cache(void)
{
	char why[1024] = "";
	char cache[4096], blob[4096];
	struct stat st;

	snprintf(cache, sizeof(cache), "%s", at("cache"));
	snprintf(blob, sizeof(blob), "%s", at("cache/git-blobs/0a"));

	ok(sfs_cache_check(cache, why, sizeof(why)) == 0 &&
	   stat(cache, &st) == 0 && (st.st_mode & 0777) == 0700,
	   "a missing cache folder is made 0700 (%s)", why);
	ok(sfs_cache_write(blob, "bytes", 5, 0400, false) == 0 &&
	   stat(at("cache/git-blobs"), &st) == 0 && (st.st_mode & 0777) == 0700,
	   "a write makes its folder 0700");
	int fd = sfs_cache_open_read(blob);
	char buf[8] = "";
	ok(fd >= 0 && read(fd, buf, sizeof(buf)) == 5 && !memcmp(buf, "bytes", 5),
	   "what was written reads back");
	if (fd >= 0)
		close(fd);
	char victim[4096];
	snprintf(victim, sizeof(victim), "%s", file_at("victim", "precious\n",
	                                               0600));
	if (symlink(victim, at("cache/git-blobs/link")) < 0 ||
	    symlink(victim, at("cache/git-digests")) < 0)
		die("symlink");
	ok(sfs_cache_open_read(at("cache/git-blobs/link")) == -ELOOP,
	   "a link is never followed for a read");
	fd = sfs_cache_open_append(at("cache/git-digests"), 0600);
	ok(fd >= 0 && write(fd, "x", 1) == 1 && lstat(at("cache/git-digests"),
	   &st) == 0 && S_ISREG(st.st_mode),
	   "a link where an appended file belongs is replaced by a file");
	if (fd >= 0)
		close(fd);
	if (link(victim, at("cache/hard")) < 0)
		die("link");
	fd = sfs_cache_open_append(at("cache/hard"), 0600);
	if (fd >= 0) {
		if (write(fd, "x", 1) != 1)
			die("write");
		close(fd);
	}
	int vfd = open(victim, O_RDONLY);
	memset(buf, 0, sizeof(buf));
	ok(vfd >= 0 && read(vfd, buf, sizeof(buf)) == 8 &&
	   !memcmp(buf, "precious", 8) && stat(victim, &st) == 0 &&
	   st.st_nlink == 1, "neither the link nor a second name wrote to the "
	   "file they lead to");
	if (vfd >= 0)
		close(vfd);
	chmod(cache, 0770);
	ok(sfs_cache_check(cache, why, sizeof(why)) == -EPERM &&
	   strstr(why, "mode 0770") &&
	   sfs_cache_open_append(at("cache/git-digests"), 0600) == -EPERM &&
	   sfs_cache_write(at("cache/note"), "other", 5, 0600, false) == -EPERM,
	   "a cache folder others may write is refused, for an update, an "
	   "append below it and a write into it (%s)", why);
	chmod(cache, 0700);
	chmod(at("cache/git-blobs"), 0777);
	ok(sfs_cache_open_read(blob) == -EPERM,
	   "a read from a folder others may write is refused");
	chmod(at("cache/git-blobs"), 0700);
}

int main(void)
{
	fixture_start("skillsfs-trust");
	test_files();
	test_folders_and_links();
	test_cache();
	return tap_end();
}
