/*
 * git_names.c - the names of a git tree's entries, held to what git fsck
 * accepts (fsck.c's fsck_tree, path.c's is_ntfs_dotgit, utf8.c's
 * is_hfs_dotgit).
 *
 * Why: libgit2 reads any tree, and git_tree_entry_byname finds one of two
 * entries of the same name where a listing sees both, so a tree git fsck
 * refuses could publish one blob's digest while reads serve another's.
 * An entry named "a/b" would be listed under one path and served under
 * another; ".", ".." and ".git" have a meaning of their own on every
 * filesystem a copy of the skill may land on.  Such entries are not
 * served at all.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "git_names.h"
#include "snapshot.h"

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Whether p starts with the lowercase ASCII word w, ignoring case. */
static bool starts_nocase(const char *p, const char *w)
{
	for (; *w; p++, w++)
		if (lower(*p) != *w)
			return false;
	return true;
}

/* NTFS: ".git" or its short name "git~1", in any case, followed only by
 * spaces and periods up to the end, a ':' (a stream) or a '\' (a folder
 * separator there), in any '\'-separated part of the name. */
static bool ntfs_dotgit(const char *name)
{
	for (const char *part = name; part; ) {
		const char *p = NULL;
		if (starts_nocase(part, ".git"))
			p = part + 4;
		else if (starts_nocase(part, "git~1"))
			p = part + 5;
		while (p && (*p == ' ' || *p == '.'))
			p++;
		if (p && (*p == '\0' || *p == ':' || *p == '\\'))
			return true;
		part = strchr(part, '\\');
		if (part)
			part++;
	}
	return false;
}

/* HFS+ ignores these code points in names (git's utf8.c). */
static bool hfs_ignored(uint32_t c)
{
	return (c >= 0x200c && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x206a && c <= 0x206f) || c == 0xfeff;
}

/* The next code point of s (n bytes left) that HFS+ does not ignore, or
 * 0 at the end; *used its bytes.  Invalid UTF-8 counts as a byte. */
static uint32_t hfs_next(const unsigned char *s, size_t n, size_t *used)
{
	size_t i = 0;

	while (i < n) {
		size_t len = sfs_utf8_seq(s + i, n - i);
		uint32_t c;
		if (len <= 1) {
			c = s[i];
			len = 1;
		} else {
			c = s[i] & (0xff >> (len + 1));
			for (size_t k = 1; k < len; k++)
				c = c << 6 | (s[i + k] & 0x3f);
		}
		i += len;
		if (!hfs_ignored(c)) {
			*used = i;
			return c;
		}
	}
	*used = i;
	return 0;
}

/* HFS+: ".git" in any case with ignored code points anywhere in it. */
static bool hfs_dotgit(const char *name)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t n = strlen(name), used;

	for (const char *w = ".git"; ; w++) {
		uint32_t c = hfs_next(s, n, &used);
		if (!*w)
			return c == 0;
		if (c > 0x7f || lower((char)c) != *w)
			return false;
		s += used;
		n -= used;
	}
}

const char *sfs_git_bad_entry_name(const char *name)
{
	if (!*name)
		return "an entry with an empty name (git fsck refuses it)";
	if (strchr(name, '/'))
		return "an entry whose name holds '/' (git fsck refuses it)";
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return "an entry named . or .. (git fsck refuses it)";
	if (ntfs_dotgit(name) || hfs_dotgit(name))
		return "an entry that a filesystem would read as .git (git "
		       "fsck refuses it)";
	return NULL;
}

static const char *const DUPLICATE =
	"a name the tree gives twice (git fsck refuses it)";

struct named {
	const char *name;
	size_t index;
};

static int cmp_named(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* Marks every entry whose name another entry gives too.  Sorting the
 * names finds them wherever they are: git's order puts a folder "a"
 * after "a.txt", not beside a file "a". */
static int mark_duplicates(const git_tree *t, size_t n, const char **why)
{
	struct named *v = malloc(n * sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		v[i] = (struct named){
			git_tree_entry_name(git_tree_entry_byindex(t, i)), i };
	sfs_sort(v, n, sizeof(*v), cmp_named);
	for (size_t i = 1; i < n; i++)
		if (strcmp(v[i - 1].name, v[i].name) == 0)
			why[v[i - 1].index] = why[v[i].index] = DUPLICATE;
	free(v);
	return 0;
}

/* git's order of a tree's entries: by name, a folder's read as if it
 * ended in '/' (fsck.c's verify_ordered). */
static int git_order(const git_tree_entry *a, const git_tree_entry *b)
{
	const char *x = git_tree_entry_name(a), *y = git_tree_entry_name(b);
	size_t i = 0;

	while (x[i] && x[i] == y[i])
		i++;
	unsigned char cx = x[i] ? (unsigned char)x[i] :
	                   git_tree_entry_type(a) == GIT_OBJECT_TREE ? '/' : 0;
	unsigned char cy = y[i] ? (unsigned char)y[i] :
	                   git_tree_entry_type(b) == GIT_OBJECT_TREE ? '/' : 0;
	return (int)cx - (int)cy;
}

/* Whether the entries are in git's order.  libgit2 finds entries by
 * name with a binary search, which misses some in a tree out of order:
 * what a listing of it shows could not be found again. */
static bool in_order(const git_tree *t, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (git_order(git_tree_entry_byindex(t, i - 1),
		              git_tree_entry_byindex(t, i)) > 0)
			return false;
	return true;
}

static const char *const NOT_IN_ORDER =
	"in a tree whose entries are not in git's order (git fsck refuses "
	"it)";

int sfs_git_tree_check(const git_tree *t, const char ***out)
{
	size_t n = git_tree_entrycount(t);
	const char **why = calloc(n ? n : 1, sizeof(*why));
	bool any = false;

	*out = NULL;
	if (!why)
		return -ENOMEM;
	if (!in_order(t, n)) {
		for (size_t i = 0; i < n; i++)
			why[i] = NOT_IN_ORDER;
		*out = why;
		return 0;
	}
	int rc = n > 1 ? mark_duplicates(t, n, why) : 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (!why[i])
			why[i] = sfs_git_bad_entry_name(git_tree_entry_name(
			                git_tree_entry_byindex(t, i)));
		any |= why[i] != NULL;
	}
	if (rc == 0 && any)
		*out = why;
	else
		free(why);
	return rc;
}
