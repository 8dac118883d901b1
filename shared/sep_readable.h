/*
 * sep_readable.h - whether the official SEP-2640 client can read a
 * SKILL.md frontmatter to the JSON skillsfs lists (sep_readable.c).
 * Fed by frontmatter.c with libyaml's events as it parses them.
 */
#ifndef SKILLSFS_SEP_READABLE_H
#define SKILLSFS_SEP_READABLE_H

#include <yaml.h>

#include "internal.h"

struct sep_line;

struct sfs_sep_judge {
	const char *yaml;          /* the text between the fences */
	size_t len;
	unsigned first_line;       /* SKILL.md line of yaml's first line */
	struct sep_line *lines;    /* owned (malloc) */
	size_t nlines;
	unsigned flow;             /* flow collections open around a node */
	unsigned depth;            /* collections open around a node */
	/* the column each of them starts at: a block scalar's content is
	 * indented more than its parent's */
	size_t column[SFS_FM_MAX_DEPTH + 1];
	struct sfs_fm_unreadable *out;  /* the first problem found */
};

/* Starts judging the frontmatter text yaml; 0 or -ENOMEM. */
int sfs_sep_begin(struct sfs_sep_judge *j, const char *yaml, size_t len,
                  unsigned first_line, struct sfs_fm_unreadable *out);
/* A key of a mapping (a scalar event). */
void sfs_sep_key(struct sfs_sep_judge *j, const yaml_event_t *ev);
/* A value, item or the top node: a scalar or a collection start. */
void sfs_sep_node(struct sfs_sep_judge *j, const yaml_event_t *ev, bool top);
/* The end of the collection that start began, at end. */
void sfs_sep_end(struct sfs_sep_judge *j, const yaml_event_t *start,
                 yaml_mark_t end);
/* The checks of whole lines, once the document is read; frees j. */
void sfs_sep_finish(struct sfs_sep_judge *j);
/* Frees j without judging further (the parse failed). */
void sfs_sep_free(struct sfs_sep_judge *j);

/* The fences: the opening line [open, open + open_len) (without its
 * newline) and whether the closing one was "...". */
void sfs_sep_fences(struct sfs_fm_unreadable *out, const char *open,
                    size_t open_len, bool dots, unsigned dots_line);

#endif
