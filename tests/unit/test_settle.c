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

static void expect(unsigned signs, bool forced, bool held, bool confirmed,
                   enum settle_verdict want, const char *what)
{
	struct settle_case c = { forced, held, confirmed };
	enum settle_verdict got = settle_judge(signs, c);

	ok(got == want, "%s: %s (got %s)", what, name(want), name(got));
}

int main(void)
{
	const unsigned W = SETTLE_WRITING, C = SETTLE_CHANGING,
	               S = SETTLE_SHRUNK, R = SETTLE_RECENT;

	expect(0, false, false, false, SETTLE_PUBLISH, "a settled change");
	expect(0, true, true, false, SETTLE_PUBLISH,
	       "a settled change of a held skill");
	/* a writer at work: waited for, then held, however long */
	expect(W, false, false, false, SETTLE_WAIT, "a file open for writing");
	expect(W, true, false, false, SETTLE_HOLD,
	       "a file open for writing past the longest wait");
	expect(W, false, true, false, SETTLE_HOLD,
	       "a file open for writing in a held skill");
	expect(W | S, true, false, true, SETTLE_HOLD,
	       "an emptied file open for writing, even confirmed");
	expect(C, false, false, false, SETTLE_WAIT,
	       "a file changed again since it was read");
	expect(C, true, false, false, SETTLE_HOLD,
	       "a file changed again past the longest wait");
	/* something gone: a second look after a quiet spell decides */
	expect(S, false, false, false, SETTLE_WAIT, "a skill gone, first look");
	expect(S | R, false, false, true, SETTLE_WAIT,
	       "a skill gone a moment ago, confirmed after a quiet spell "
	       "(a writer preempted between unlink and create)");
	expect(S, false, false, true, SETTLE_PUBLISH,
	       "a skill gone from a folder left alone, confirmed");
	expect(S | R, true, false, false, SETTLE_HOLD,
	       "a skill gone a moment ago, past the longest wait");
	expect(S | R, false, true, false, SETTLE_HOLD,
	       "a held skill gone a moment ago");
	expect(S, true, false, false, SETTLE_PUBLISH,
	       "a skill gone from a folder left alone, past the longest wait");
	expect(S, false, true, false, SETTLE_PUBLISH,
	       "a held skill gone from a folder left alone");
	return tap_end();
}
