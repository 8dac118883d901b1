// list_skills and skills/list with views (--view, the view argument), a
// project's .skillsfs.yaml, and a query ranked as the mount's search/ ranks
// it (issue 23), with the official SDK client.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { mountedSource, writeSkill, skillMd, makeTempDir, removeTempDir } from '../lib/mount.mjs';
import { connectV1 } from '../lib/clients.mjs';

// 60 skills with long descriptions: more than the claude-code view holds.
function fill(src) {
	for (let i = 0; i < 60; i++) {
		const id = `tool-${String(i).padStart(2, '0')}`;
		writeSkill(src, id, { 'SKILL.md': skillMd(`name: ${id}\ndescription: Handle ` +
			`${'plain '.repeat(30)}records number ${i}.`, 'Body.\n') });
	}
	writeSkill(src, 'pdf-form-fill', { 'SKILL.md': skillMd('name: pdf-form-fill\n' +
		'description: Fill in the fields of PDF forms.', '# Filling forms\n') });
	writeSkill(src, 'pdf-merge', { 'SKILL.md': skillMd('name: pdf-merge\n' +
		'description: Merge several PDF files into one.', 'Body.\n') });
	writeSkill(src, 'form-letters', { 'SKILL.md': skillMd('name: form-letters\n' +
		'description: Write form letters to many people at once.', 'Body.\n') });
}

describe('views and ranking in skillsfs-mcp', () => {
	const m = mountedSource('views-src', fill);
	let project;
	before(() => {
		project = makeTempDir('project');
		fs.mkdirSync(path.join(project, 'sub'));
		fs.writeFileSync(path.join(project, '.skillsfs.yaml'),
			'pins: [tool-42]\ninclude: [\'pdf-*\', \'form-*\']\n');
	});
	after(() => removeTempDir(project));

	const ids = async (c, args) => {
		const res = await c.client.callTool({ name: 'list_skills', arguments: args });
		assert.ok(!res.isError, JSON.stringify(res.content));
		return res.structuredContent.skills.map((s) => s.id);
	};

	it('a query ranks skills with every word first, best first', async () => {
		const c = await connectV1(['--mount', m.mnt]);
		try {
			assert.deepEqual(await ids(c, { query: 'pdf form' }), ['pdf-form-fill']);
			// no skill holds all three words: the best matches of any
			const any = await ids(c, { query: 'fill pdf forms quickly' });
			assert.equal(any[0], 'pdf-form-fill');
			assert.deepEqual([...any].sort(), ['form-letters', 'pdf-form-fill', 'pdf-merge']);
			assert.deepEqual(await ids(c, { query: 'xylophone' }), []);
		} finally {
			await c.close();
		}
	});

	it('--view and the view argument list only the view\'s skills', async () => {
		const view = fs.readdirSync(path.join(m.mnt, 'views', 'claude-code'))
			.filter((n) => n !== 'find-skills').sort();
		assert.ok(view.length > 3 && view.length < 63, `${view.length} skills in the view`);
		const c = await connectV1(['--mount', m.mnt, '--view', 'claude-code']);
		try {
			assert.deepEqual((await ids(c, { limit: 500 })).sort(), view);
			const codex = fs.readdirSync(path.join(m.mnt, 'views', 'codex'))
				.filter((n) => n !== 'find-skills').sort();
			assert.deepEqual((await ids(c, { view: 'codex', limit: 500 })).sort(), codex);
			const res = await c.client.callTool({ name: 'list_skills', arguments: { view: 'nope' } });
			assert.equal(res.isError, true);
			assert.match(res.content[0].text, /view nope: no such view/);
			const list = await c.request('skills/list', { view: 'claude-code' });
			const uris = list.skills.map((s) => s.uri).sort();
			assert.deepEqual(uris, view.map((id) => `skill://${id}/SKILL.md`).sort());
		} finally {
			await c.close();
		}
	});

	it('a session started in a project lists what its .skillsfs.yaml admits, pins first', async () => {
		const c = await connectV1(['--mount', m.mnt], { cwd: path.join(project, 'sub') });
		try {
			assert.deepEqual(await ids(c, {}), ['tool-42', 'form-letters', 'pdf-form-fill', 'pdf-merge']);
			// paging keeps the order
			const first = await c.client.callTool({ name: 'list_skills', arguments: { limit: 2 } });
			const page = first.structuredContent;
			assert.deepEqual(page.skills.map((s) => s.id), ['tool-42', 'form-letters']);
			const next = await ids(c, { limit: 2, cursor: page.nextCursor });
			assert.deepEqual(next, ['pdf-form-fill', 'pdf-merge']);
		} finally {
			await c.close();
		}
	});
});
