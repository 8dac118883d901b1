// A skill's prompt takes Claude Code's arguments: it declares "arguments"
// from argument-hint and one argument per name of the frontmatter's
// `arguments`; prompts/get replaces $ARGUMENTS, $ARGUMENTS[N], $N, $name
// and ${CLAUDE_SKILL_DIR} as Claude Code does, appends "ARGUMENTS: ..."
// to a body without placeholders, and leaves other '$' text as written.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { mountedSource, writeSkill, skillMd } from '../lib/mount.mjs';
import { FLAVOURS, rejectsWith } from '../lib/clients.mjs';

const FIX_BODY = 'Fix issue $ARGUMENTS[0] at priority $1.\nAll: $ARGUMENTS\nThird: [$2]\n' +
	'Dir: ${CLAUDE_SKILL_DIR}/scripts\nKeep: $HOME ${CLAUDE_SESSION_ID} $1x $ARGUMENTSX $\n';
const MIGRATE_BODY = 'Move $component from $from to $to ($0/$1/$2).\n' +
	'Stay: $component[0] $componentX $ARGUMENTS[x]\n';
const PLAIN_BODY = '# Plain\n\nJust do it, in ${CLAUDE_SKILL_DIR}.\n';

const SKILLS = {
	'fix-issue': { 'SKILL.md': skillMd(`
name: fix-issue
description: Fix a numbered issue at a priority. Use when asked to fix an issue.
argument-hint: "[issue-number] [priority]"
`, FIX_BODY) },
	migrate: { 'SKILL.md': skillMd(`
name: migrate
description: Move a component from one framework to another. Use for migrations.
argument-hint: <component> <from> <to>
arguments: [component, from, to]
`, MIGRATE_BODY) },
	plain: { 'SKILL.md': skillMd(`
name: plain
description: A skill without placeholders. Use in tests.
`, PLAIN_BODY) },
	'hinted-list': { 'SKILL.md': skillMd(`
name: hinted-list
description: A hint that YAML reads as a list. Use in tests.
argument-hint: [file]
arguments: file
`, 'Open $file.\n') },
};

const fixture = mountedSource('args-src', (src) => {
	for (const [id, files] of Object.entries(SKILLS))
		writeSkill(src, id, files);
});

const dirOf = (id) => path.join(fixture.mnt, 'skills', id);
const expected = (id, body) => `Base directory for this skill: ${dirOf(id)}\n\n${body}`;

function textOf(res) {
	assert.equal(res.messages?.length, 1, 'one message');
	assert.equal(res.messages[0].content?.type, 'text', 'text content');
	return res.messages[0].content.text;
}

for (const flavour of FLAVOURS) {
	describe(flavour.name, () => {
		let c;
		before(async () => { c = await flavour.connect(['--mount', fixture.fx.mnt]); });
		after(async () => { await c?.close(); });

		const get = async (name, args) => textOf(await c.request('prompts/get',
			args === undefined ? { name } : { name, arguments: args }));

		it('prompts/list declares arguments from argument-hint and `arguments`', async () => {
			const { prompts } = await c.request('prompts/list', {});
			const byName = Object.fromEntries(prompts.map((p) => [p.name, p]));
			const fix = byName['fix-issue'].arguments;
			assert.deepEqual(fix.map((a) => [a.name, a.required]), [['arguments', false]]);
			assert.match(fix[0].description, /\[issue-number\] \[priority\]/);
			assert.deepEqual(byName.migrate.arguments.map((a) => a.name),
				['component', 'from', 'to', 'arguments']);
			assert.match(byName.migrate.arguments[1].description, /\$from and \$1/);
			assert.equal(byName.plain.arguments, undefined, 'no hint, no names: no arguments');
			assert.deepEqual(byName['hinted-list'].arguments.map((a) => a.name), ['file', 'arguments']);
			assert.match(byName['hinted-list'].arguments[1].description, /\[file\]/,
				'a hint YAML reads as a list is shown as written');
		});

		it('$ARGUMENTS is the text as typed, $N and $ARGUMENTS[N] its shell words', async () => {
			const got = await get('fix-issue', { arguments: '42 "very high" extra' });
			assert.equal(got, expected('fix-issue', 'Fix issue 42 at priority very high.\n' +
				'All: 42 "very high" extra\nThird: [extra]\n' +
				`Dir: ${dirOf('fix-issue')}/scripts\n` +
				'Keep: $HOME ${CLAUDE_SESSION_ID} $1x 42 "very high" extraX $\n'));
		});

		it('a word past the last is empty; empty arguments empty every placeholder', async () => {
			assert.equal(await get('fix-issue', { arguments: '7' }), expected('fix-issue',
				'Fix issue 7 at priority .\nAll: 7\nThird: []\n' +
				`Dir: ${dirOf('fix-issue')}/scripts\nKeep: $HOME \${CLAUDE_SESSION_ID} $1x 7X $\n`));
			assert.equal(await get('fix-issue', { arguments: '' }), expected('fix-issue',
				'Fix issue  at priority .\nAll: \nThird: []\n' +
				`Dir: ${dirOf('fix-issue')}/scripts\nKeep: $HOME \${CLAUDE_SESSION_ID} $1x X $\n`));
		});

		it('without arguments only ${CLAUDE_SKILL_DIR} is replaced', async () => {
			const want = expected('fix-issue', FIX_BODY.replace('${CLAUDE_SKILL_DIR}', dirOf('fix-issue')));
			assert.equal(await get('fix-issue'), want);
			assert.equal(await get('fix-issue', {}), want);
		});

		it('named arguments take their positions, by name or by words', async () => {
			assert.equal(await get('migrate', { component: 'Button', to: 'Vue' }), expected('migrate',
				'Move Button from  to Vue (Button//Vue).\n' +
				// $ARGUMENTS: the named values as a shell would need them typed
				"Stay: $component[0] $componentX Button '' Vue[x]\n"));
			assert.equal(await get('migrate', { arguments: "'Date Picker' React Svelte" }), expected('migrate',
				'Move Date Picker from React to Svelte (Date Picker/React/Svelte).\n' +
				"Stay: $component[0] $componentX 'Date Picker' React Svelte[x]\n"));
			assert.equal(await get('hinted-list', { file: 'notes.md' }), expected('hinted-list', 'Open notes.md.\n'));
		});

		it('a value is not searched for placeholders again', async () => {
			assert.equal(await get('migrate', { arguments: '$1 $ARGUMENTS ${CLAUDE_SKILL_DIR}' }),
				expected('migrate', 'Move $1 from $ARGUMENTS to ${CLAUDE_SKILL_DIR} ' +
				'($1/$ARGUMENTS/${CLAUDE_SKILL_DIR}).\nStay: $component[0] $componentX ' +
				'$1 $ARGUMENTS ${CLAUDE_SKILL_DIR}[x]\n'));
		});

		it('an unclosed quote splits at blanks, as Claude Code falls back to', async () => {
			assert.equal(await get('migrate', { arguments: 'a "b c' }), expected('migrate',
				'Move a from "b to c (a/"b/c).\nStay: $component[0] $componentX a "b c[x]\n'));
		});

		it('a body without placeholders gets "ARGUMENTS: <text>" appended', async () => {
			const dir = dirOf('plain');
			const body = PLAIN_BODY.replace('${CLAUDE_SKILL_DIR}', dir);
			assert.equal(await get('plain', { arguments: 'x  "y z"' }),
				expected('plain', `${body}\n\nARGUMENTS: x  "y z"`));
			assert.equal(await get('plain', { arguments: '' }), expected('plain', body),
				'nothing appended for empty arguments');
			assert.equal(await get('plain'), expected('plain', body));
		});

		it('an unknown argument name or a value that is not a string is -32602', async () => {
			await rejectsWith(c.request('prompts/get', { name: 'plain', arguments: { file: 'x' } }), -32602);
			await rejectsWith(c.request('prompts/get', { name: 'migrate', arguments: { component: 3 } }), -32602);
		});
	});
}
