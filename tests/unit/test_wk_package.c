/*
 * test_wk_package.c - a skill's package unpacked and checked
 * (shared/wellknown/package.c), with archives made by the real tar and
 * Python's zipfile and tarfile: a .tar.gz and a .zip give every listed
 * file; a package whose digest is not the index's is refused before it
 * is read; a file whose bytes differ is dropped and named; a file the
 * index does not list is not given; "..", an absolute path, a symbolic
 * link and a hard link are refused, and so is a package that unpacks past
 * its bound, counting the files the index does not list.  Prints TAP.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "package.h"
#include "skillsfs.h"

/* The sink: what it kept, as "path=bytes;" in order. */
struct kept {
	char text[4096];
	char cur[1024];
	const char *path;
};

static int k_open(void *arg, const struct sfs_wk_file *f)
{
	struct kept *k = arg;
	k->path = f->path;
	k->cur[0] = '\0';
	return 0;
}

static int k_write(void *arg, const void *p, size_t n)
{
	struct kept *k = arg;
	strncat(k->cur, p, n);
	return 0;
}

static int k_close(void *arg, bool keep)
{
	struct kept *k = arg;
	if (keep)
		snprintf(k->text + strlen(k->text), sizeof(k->text) -
		         strlen(k->text), "%s=%s;", k->path, k->cur);
	return 0;
}

static struct sfs_wk_file files[2];
static struct sfs_wk_skill skill = { .name = "hello", .files = files,
                                     .nfiles = 2 };

static void list(void)
{
	files[0] = (struct sfs_wk_file){ .path = "SKILL.md", .has_digest = true };
	files[1] = (struct sfs_wk_file){ .path = "scripts/run.sh",
	                                 .has_digest = true };
	sfs_sha256("# Hello\n", 8, files[0].sha256);
	sfs_sha256("#!/bin/sh\n", 10, files[1].sha256);
}

/* Unpacks the archive at path as the package the index names (its own
 * digest unless `digest_of` names another file). */
static int unpack(const char *path, struct kept *k, char *why)
{
	size_t len;
	char *data = slurp(path, &len);
	struct sfs_wk_sink sink = { k_open, k_write, k_close, k };

	memset(k, 0, sizeof(*k));
	sfs_sha256(data, len, skill.package_sha256);
	int rc = sfs_wk_package_unpack(data, len, &skill, &sink, why, 512);
	if (rc < 0)
		printf("# %s\n", why);
	free(data);
	return rc;
}

static void good(const char *kind, const char *path)
{
	struct kept k;
	char why[512] = "";
	int rc = unpack(path, &k, why);
	ok(rc == 2 && strcmp(k.text, "SKILL.md=# Hello\n;scripts/run.sh="
	                     "#!/bin/sh\n;") == 0,
	   "a %s gives every listed file (%d given)", kind, rc);
}

static void bad(const char *path, int want, const char *has, const char *what)
{
	struct kept k;
	char why[512] = "";
	int rc = unpack(path, &k, why);
	ok(rc == want && strstr(why, has), "%s (%d: %s)", what, rc, why);
}

#define PY "python3 -c 'import sys,tarfile,zipfile,io\n"

/* Packages that would write outside the skill or without bound: the
 * Python (after PY) that makes file, and what the refusal says. */
static const struct hostile_package {
	const char *file, *python, *words, *what;
} hostile[] = {
	{ "dotdot.tar.gz",
	  "t=tarfile.open(sys.argv[1],\"w:gz\")\n"
	  "i=tarfile.TarInfo(\"../escape\"); d=b\"x\"; i.size=1\n"
	  "t.addfile(i, io.BytesIO(d)); t.close()",
	  "../escape", "an entry with .." },
	{ "abs.tar.gz",
	  "t=tarfile.open(sys.argv[1],\"w:gz\")\n"
	  "i=tarfile.TarInfo(\"/etc/cron.d/x\"); i.size=1\n"
	  "t.addfile(i, io.BytesIO(b\"x\")); t.close()",
	  "/etc/cron.d/x", "an absolute path" },
	{ "link.tar.gz",
	  "t=tarfile.open(sys.argv[1],\"w:gz\")\n"
	  "i=tarfile.TarInfo(\"SKILL.md\"); i.type=tarfile.SYMTYPE\n"
	  "i.linkname=\"/etc/passwd\"; t.addfile(i); t.close()",
	  "a link", "a symbolic link" },
	{ "hard.tar.gz",
	  "t=tarfile.open(sys.argv[1],\"w:gz\")\n"
	  "i=tarfile.TarInfo(\"SKILL.md\"); i.type=tarfile.LNKTYPE\n"
	  "i.linkname=\"../../etc/passwd\"; t.addfile(i); t.close()",
	  "", "a hard link" },
	{ "dotdot.zip",
	  "z=zipfile.ZipFile(sys.argv[1],\"w\")\n"
	  "z.writestr(\"a/../../x\", \"x\"); z.close()",
	  "..", "a zip entry with .." },
	{ "bomb.tar.gz",
	  "t=tarfile.open(sys.argv[1],\"w:gz\")\n"
	  "i=tarfile.TarInfo(\"SKILL.md\"); i.size=65<<20\n"
	  "t.addfile(i, io.BytesIO(bytes(i.size))); t.close()",
	  "64 MiB", "65 MiB of zeros in a 65 KiB package" },
	{ "unlisted.tar.gz",
	  "t=tarfile.open(sys.argv[1],\"w:gz\")\n"
	  "for n in range(5):\n"
	  " i=tarfile.TarInfo(\"pad%d\" % n); i.size=60<<20\n"
	  " t.addfile(i, io.BytesIO(bytes(i.size)))\n"
	  "t.close()",
	  "256 MiB", "300 MiB of zeros the index does not list, in files "
	  "of 60 MiB" },
};

int main(void)
{
	fixture_start("test_wk_package");
	list();
	write_file(at("skill/SKILL.md"), "# Hello\n");
	write_file(at("skill/scripts/run.sh"), "#!/bin/sh\n");
	write_file(at("skill/notes.txt"), "not listed\n");
	sh("tar -C %s -czf %s .", at("skill"), at("good.tar.gz"));
	sh("cd %s && python3 -m zipfile -c %s SKILL.md scripts notes.txt",
	    at("skill"), at("good.zip"));
	good("tar.gz made by tar (entries ./SKILL.md, a file not listed)",
	     at("good.tar.gz"));
	good("zip made by zipfile", at("good.zip"));

	/* the package the index names is another */
	struct kept k;
	char why[512] = "";
	size_t len;
	char *data = slurp(at("good.tar.gz"), &len);
	struct sfs_wk_sink sink = { k_open, k_write, k_close, &k };
	memset(&k, 0, sizeof(k));
	memset(skill.package_sha256, 0, 32);
	int rc = sfs_wk_package_unpack(data, len, &skill, &sink, why, 512);
	ok(rc == -EBADMSG && k.text[0] == '\0' && strstr(why, "digest"),
	   "a package that is not the index's is not read (%s)", why);
	free(data);

	write_file(at("other/SKILL.md"), "# Hello\n");
	write_file(at("other/scripts/run.sh"), "#!/bin/sh\necho owned\n");
	sh("tar -C %s -czf %s .", at("other"), at("changed.tar.gz"));
	memset(&k, 0, sizeof(k));
	rc = unpack(at("changed.tar.gz"), &k, why);
	ok(rc == -EBADMSG && strcmp(k.text, "SKILL.md=# Hello\n;") == 0 &&
	   strstr(why, "scripts/run.sh") && !strchr(why, '\n'),
	   "a file with other bytes is dropped and named (%s)", why);

	for (size_t i = 0; i < sizeof(hostile) / sizeof(*hostile); i++) {
		const struct hostile_package *h = &hostile[i];

		sh(PY "%s' %s", h->python, at("%s", h->file));
		bad(at("%s", h->file), -EINVAL, h->words, h->what);
	}
	write_file(at("junk"), "not an archive at all\n");
	bad(at("junk"), -EINVAL, "package", "a file that is no archive");
	return tap_end();
}
