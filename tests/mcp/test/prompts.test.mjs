// prompts/list and prompts/get; the init-skills text is also the server's
// instructions and what `skillsfs-mcp instructions` prints.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { fixtureForFile, indexEntries, splitFrontmatter, SKILLSFS_MCP } from '../lib/mount.mjs';
import { FLAVOURS, rejectsWith } from '../lib/clients.mjs';

const fixture = fixtureForFile();

const noTrailingNewlines = (s) => s.replace(/\n+$/, '');

function cli(args) {
	const r = spawnSync(SKILLSFS_MCP, args, { encoding: 'utf8', timeout: 10000 });
	assert.equal(r.status, 0, `skillsfs-mcp ${args.join(' ')} exits 0; stderr: ${r.stderr}`);
	return r.stdout;
}

function promptText(res) {
	assert.ok(Array.isArray(res.messages) && res.messages.length >= 1, 'messages');
	return res.messages.map((m) => {
		assert.equal(m.content?.type, 'text', 'text content');
		return m.content.text;
	}).join('\n');
}

const userInvocable = () => indexEntries(fixture.mnt)
	.filter((e) => e.frontmatter['user-invocable'] !== false)
	.map((e) => e.frontmatter.name);

describe('skillsfs-mcp instructions', () => {
	it('prints the guide wrapped in <skills-mcp-instructions>, and bare with --no-xml', () => {
		const bare = cli(['instructions', '--no-xml']);
		const wrapped = cli(['instructions']);
		assert.ok(bare.trim().length > 200, 'a real guide');
		assert.ok(!bare.includes('<skills-mcp-instructions>'), '--no-xml has no tag');
		const m = /^<skills-mcp-instructions>\n?([\s\S]*?)\n?<\/skills-mcp-instructions>\n?$/.exec(wrapped);
		assert.ok(m, `wrapped output is one <skills-mcp-instructions> element: ${wrapped.slice(0, 80)}...`);
		assert.equal(noTrailingNewlines(m[1]), noTrailingNewlines(bare), 'same text inside the tag');
	});
});

for (const flavour of FLAVOURS) {
	describe(flavour.name, () => {
		let c;
		before(async () => { c = await flavour.connect(['--mount', fixture.fx.mnt]); });
		after(async () => { await c?.close(); });

		it('prompts/list has init-skills and every user-invocable skill, and no other skill', async () => {
			const { prompts } = await c.request('prompts/list', {});
			const names = prompts.map((p) => p.name);
			assert.equal(new Set(names).size, names.length, 'no prompt twice');
			assert.deepEqual(names.filter((n) => n !== 'init-skills').sort(), userInvocable().sort());
			assert.ok(names.includes('init-skills'), 'init-skills');
			assert.ok(!names.includes('model-only'), 'user-invocable: false is no prompt');
			assert.ok(names.includes('hidden-helper'), 'disable-model-invocation does not hide the prompt');
			for (const p of prompts) {
				assert.equal(typeof p.description, 'string', `${p.name}: description`);
				assert.ok(p.description.length > 0, `${p.name}: description non-empty`);
			}
		});

		it('init-skills is the instructions text, the same as `skillsfs-mcp instructions --no-xml`', async () => {
			const text = promptText(await c.client.getPrompt({ name: 'init-skills' }));
			assert.equal(noTrailingNewlines(text), noTrailingNewlines(cli(['instructions', '--no-xml'])));
			const instructions = c.client.getInstructions();
			assert.equal(typeof instructions, 'string', 'the server has instructions');
			assert.equal(noTrailingNewlines(instructions), noTrailingNewlines(text),
				'server instructions equal the init-skills prompt');
		});

		it('prompts/get of a skill returns its instructions', async () => {
			for (const id of userInvocable()) {
				const text = promptText(await c.client.getPrompt({ name: id }));
				const body = splitFrontmatter(fs.readFileSync(`${fixture.mnt}/skills/${id}/SKILL.md`, 'utf8'))[1];
				assert.ok(text.includes(body.trim()), `${id}: prompt holds the SKILL.md body`);
			}
		});

		it('prompts/get of an unknown prompt or a non-invocable skill is -32602', async () => {
			for (const name of ['no-such-prompt', 'model-only', 'init-skill'])
				await rejectsWith(c.request('prompts/get', { name }), -32602);
			await rejectsWith(c.request('prompts/get', {}), -32602);
		});
	});
}
