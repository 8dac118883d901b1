/*
 * settle.h - whether what a build read of one skill may be published
 * while its author may still be at work.  A pure function of what the
 * build saw (refresh.c looks, this judges), so that the policy can be
 * tested without a mount (tests/unit/test_settle.c).
 */
#ifndef SKILLSFS_SETTLE_H
#define SKILLSFS_SETTLE_H

#include <stdbool.h>

/* How long a folder or a file must have been left alone (its ctime)
 * before a skill or a file that went from it, or a file emptied, counts
 * as gone on purpose rather than caught between two of a writer's steps
 * (a checkout's unlink and create, a truncation and its write).  2 s
 * covers filesystems with 2 s timestamps. */
#define SETTLE_QUIET_MS 2000LL

/* What a build saw of one skill the current generation serves. */
enum settle_sign {
	/* a file it found changed, or the SKILL.md of a skill it lost, is
	 * open for writing */
	SETTLE_WRITING = 1u << 0,
	/* a file it found changed has changed again since it was read (or
	 * could not be held): what was read may be half a write */
	SETTLE_CHANGING = 1u << 1,
	/* the skill, or a file of it, is gone, or a file was emptied */
	SETTLE_SHRUNK = 1u << 2,
	/* with SETTLE_SHRUNK: the folder the skill or file went from (still
	 * there: a folder taken away whole is gone), or the emptied file,
	 * changed less than SETTLE_QUIET_MS ago */
	SETTLE_RECENT = 1u << 3,
};

/* How the build that saw them is being judged. */
struct settle_case {
	/* the change has waited for its writers as long as a change may
	 * (SETTLE_MAX_MS in refresh.c): the build is published now, with
	 * each skill in doubt served as it was */
	bool forced;
	/* the skill is served as it was already (an earlier build held
	 * it): a doubt about it need not hold back the rest */
	bool held;
	/* no change happened since an earlier build saw the same: a second
	 * look after a quiet spell agrees that something went (which goes
	 * only once it went more than SETTLE_QUIET_MS ago, too) */
	bool confirmed;
};

enum settle_verdict {
	SETTLE_PUBLISH,   /* its new state may be published */
	SETTLE_WAIT,      /* the build waits: nothing is published */
	SETTLE_HOLD,      /* the build is published with this skill as the
	                   * current generation serves it */
};

/* The verdict on one skill that the build changes or loses, from the
 * signs (enum settle_sign) the build saw of it. */
enum settle_verdict settle_judge(unsigned signs, struct settle_case c);

#endif
