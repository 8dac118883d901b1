/*
 * settle.c - the settle policy (see settle.h).
 *
 * A skill's new state is in doubt while a writer may be between two of
 * its steps: a file open for writing, a file that changed again after
 * the build read it, or a skill or file that shrank (gone, emptied)
 * where something changed a moment ago, or that only one look saw.  A
 * build in doubt waits, as long as a change may wait; past that, or for
 * a skill already held, it is published with each skill in doubt served
 * as it was, so that an author who never stops editing neither empties
 * nor withdraws a skill, nor holds back the changes of every other
 * skill.
 */
#include "settle.h"

enum settle_verdict settle_judge(unsigned signs, struct settle_case c)
{
	bool doubt = (signs & (SETTLE_WRITING | SETTLE_CHANGING)) != 0;

	if (signs & SETTLE_SHRUNK) {
		/* Something gone goes once the folder or file it went from
		 * has been left alone a while: a writer preempted between a
		 * checkout's unlink and create leaves a quiet spell of any
		 * length with no event.  Before the longest wait, a second
		 * look after a quiet spell must agree as well. */
		if (signs & SETTLE_RECENT)
			doubt = true;
		else if (!c.confirmed && !c.forced && !c.held)
			doubt = true;
	}
	if (!doubt)
		return SETTLE_PUBLISH;
	return c.forced || c.held ? SETTLE_HOLD : SETTLE_WAIT;
}
