/*
 * test_settle.c - the settle policy of live refresh (fs/settle.c): for
 * each thing a build may see of a skill under edit, and each way the
 * build is judged, whether the skill's new state is published, waited
 * for, or held as it was.  Prints TAP.
 */
#include <stdio.h>

#include "fixture.h"
#include "settle.h"

static const char *name(enum settle_verdict v)
{
	return v == SETTLE_PUBLISH ? "publish" : v == SETTLE_WAIT ? "wait"
	                                                          : "hold";
}

/* How a build is judged, as bits of a case's "how". */
enum { FORCED = 1, HELD = 2, CONFIRMED = 4 };

static void expect(unsigned signs, unsigned how, enum settle_verdict want,
                   const char *what)
{
	struct settle_case c = { how & FORCED, how & HELD, how & CONFIRMED };
	enum settle_verdict got = settle_judge(signs, c);

	ok(got == want, "%s: %s (got %s)", what, name(want), name(got));
}

int main(void)
{
	const unsigned W = SETTLE_WRITING, C = SETTLE_CHANGING,
	               S = SETTLE_SHRUNK, R = SETTLE_RECENT;
	/* what the build saw, how it is judged, the verdict */
	const struct {
		unsigned signs, how;
		enum settle_verdict want;
		const char *what;
	} cases[] = {
		{ 0, 0, SETTLE_PUBLISH, "a settled change" },
		{ 0, FORCED | HELD, SETTLE_PUBLISH,
		  "a settled change of a held skill" },
		/* a writer at work: waited for, then held, however long */
		{ W, 0, SETTLE_WAIT, "a file open for writing" },
		{ W, FORCED, SETTLE_HOLD,
		  "a file open for writing past the longest wait" },
		{ W, HELD, SETTLE_HOLD,
		  "a file open for writing in a held skill" },
		{ W | S, FORCED | CONFIRMED, SETTLE_HOLD,
		  "an emptied file open for writing, even confirmed" },
		{ C, 0, SETTLE_WAIT, "a file changed again since it was read" },
		{ C, FORCED, SETTLE_HOLD,
		  "a file changed again past the longest wait" },
		/* something gone: a second look after a quiet spell decides */
		{ S, 0, SETTLE_WAIT, "a skill gone, first look" },
		{ S | R, CONFIRMED, SETTLE_WAIT,
		  "a skill gone a moment ago, confirmed after a quiet spell "
		  "(a writer preempted between unlink and create)" },
		{ S, CONFIRMED, SETTLE_PUBLISH,
		  "a skill gone from a folder left alone, confirmed" },
		{ S | R, FORCED, SETTLE_HOLD,
		  "a skill gone a moment ago, past the longest wait" },
		{ S | R, HELD, SETTLE_HOLD, "a held skill gone a moment ago" },
		{ S, FORCED, SETTLE_PUBLISH,
		  "a skill gone from a folder left alone, past the longest wait" },
		{ S, HELD, SETTLE_PUBLISH,
		  "a held skill gone from a folder left alone" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect(cases[i].signs, cases[i].how, cases[i].want,
		       cases[i].what);
	return tap_end();
}
