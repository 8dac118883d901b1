// tools/list, list_skills and get_skill with every SDK client flavour.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { mountedFixture, splitFrontmatter, skillIds } from '../lib/mount.mjs';
import { FLAVOURS } from '../lib/clients.mjs';
import { expectedListed, listPage, checkToolResult, sortBy, distance } from '../lib/expect.mjs';

let fx;
before(async () => { fx = await mountedFixture(); });
after(async () => { await fx?.cleanup(); });

for (const flavour of FLAVOURS) {
	describe(flavour.name, () => {
		let c;
		let tools;
		before(async () => {
			c = await flavour.connect(['--mount', fx.mnt]);
			// Fetching the tools first lets both SDKs validate every
			// structuredContent against the tool's outputSchema.
			tools = (await c.client.listTools()).tools;
		});
		after(async () => { await c?.close(); });

		const call = (name, args) => c.client.callTool({ name, arguments: args });
		const listAll = async (args = {}) => {
			const pages = [];
			let cursor;
			do {
				const res = await call('list_skills', cursor ? { ...args, cursor } : args);
				const page = listPage(checkToolResult(res, 'list_skills'));
				pages.push(page.skills);
				cursor = page.nextCursor;
				assert.ok(pages.length < 1000, 'list_skills paging ends');
			} while (cursor);
			return { skills: pages.flat(), pages };
		};

		it('tools/list has list_skills and get_skill, read-only, closed-world, with an outputSchema', () => {
			const names = tools.map((t) => t.name).sort();
			assert.ok(names.includes('list_skills'), `list_skills in ${names}`);
			assert.ok(names.includes('get_skill'), `get_skill in ${names}`);
			for (const t of tools) {
				assert.equal(typeof t.description, 'string', `${t.name} description`);
				assert.ok(t.description.length > 0, `${t.name} description non-empty`);
				assert.equal(t.inputSchema?.type, 'object', `${t.name} inputSchema type object`);
				assert.equal(t.annotations?.readOnlyHint, true, `${t.name} readOnlyHint`);
				assert.equal(t.annotations?.openWorldHint, false, `${t.name} openWorldHint`);
				assert.equal(t.outputSchema?.type, 'object', `${t.name} outputSchema type object`);
			}
			const get = tools.find((t) => t.name === 'get_skill');
			assert.ok(get.inputSchema.properties?.id, 'get_skill takes id');
			assert.deepEqual(get.inputSchema.required, ['id'], 'get_skill requires id');
			const list = tools.find((t) => t.name === 'list_skills');
			for (const p of ['query', 'limit', 'cursor'])
				assert.ok(list.inputSchema.properties?.[p], `list_skills takes ${p}`);
		});

		it('list_skills lists every skill the model may invoke, with an absolute path into the mount', async () => {
			const { skills } = await listAll();
			const want = expectedListed(fx.mnt);
			assert.ok(want.length >= 5, 'fixture has the example and extra skills');
			assert.deepEqual(sortBy(skills, 'id'), sortBy(want, 'id'));
			for (const s of skills) {
				assert.ok(path.isAbsolute(s.path), `${s.id}: path absolute`);
				assert.ok(s.path.startsWith(fs.realpathSync(fx.mnt) + '/'), `${s.id}: path inside the mount`);
				assert.ok(fs.statSync(s.path).isFile(), `${s.id}: ${s.path} exists in the mount`);
			}
			for (const id of ['pdf-forms', 'csv-report', 'commit-messages'])
				assert.ok(skills.some((s) => s.id === id), `example skill ${id} listed`);
		});

		it('list_skills leaves out disable-model-invocation skills', async () => {
			const { skills } = await listAll();
			assert.ok(skillIds(fx.mnt).includes('hidden-helper'), 'hidden-helper is served by the mount');
			assert.ok(!skills.some((s) => s.id === 'hidden-helper'), 'hidden-helper not listed');
		});

		it('list_skills query matches words case-insensitively over id, name, description and tags', async () => {
			const ids = async (query) => (await listAll({ query })).skills.map((s) => s.id).sort();
			assert.deepEqual(await ids('PDF'), ['pdf-forms'], 'description/id word, upper case');
			assert.deepEqual(await ids('csv'), ['csv-report', 'pdf-forms'], 'id word, and a description word');
			assert.deepEqual(await ids('quokka'), ['binary-assets'], 'a tag used nowhere else');
			assert.deepEqual(await ids('Commit-Messages'), ['commit-messages'], 'mixed-case id');
			assert.deepEqual(await ids('git commit'), ['commit-messages'], 'two words of one skill');
			assert.deepEqual(await ids('xylophone-nowhere'), [], 'no match: empty list');
			assert.deepEqual(await ids('hidden'), [], 'query never brings back a disable-model-invocation skill');
		});

		it('list_skills limit and cursor page through the catalog', async () => {
			const all = (await listAll()).skills.map((s) => s.id).sort();
			const { skills, pages } = await listAll({ limit: 2 });
			assert.ok(pages.length >= Math.ceil(all.length / 2), `pages: ${pages.length} for ${all.length} skills`);
			for (const p of pages)
				assert.ok(p.length <= 2, `page of ${p.length} > limit 2`);
			const ids = skills.map((s) => s.id);
			assert.equal(new Set(ids).size, ids.length, 'no skill on two pages');
			assert.deepEqual(ids.sort(), all);
		});

		it('list_skills refuses a bogus cursor', async () => {
			let failed = false;
			try {
				const res = await call('list_skills', { cursor: 'not-a-cursor-\u0000' });
				failed = res.isError === true;
			} catch (err) {
				failed = err.code === -32602;
			}
			assert.ok(failed, 'a bogus cursor is an isError result or -32602');
		});

		it('get_skill returns the SKILL.md body read from the returned path, frontmatter removed', async () => {
			for (const want of expectedListed(fx.mnt)) {
				const res = await call('get_skill', { id: want.id });
				const got = checkToolResult(res, `get_skill ${want.id}`);
				assert.equal(got.path, want.path, `${want.id}: path`);
				assert.equal(got.name, want.name, `${want.id}: name`);
				assert.equal(got.description, want.description, `${want.id}: description`);
				const onDisk = fs.readFileSync(got.path, 'utf8');
				assert.equal(got.content, splitFrontmatter(onDisk)[1], `${want.id}: content is the body`);
				assert.ok(!got.content.startsWith('---'), `${want.id}: no frontmatter in content`);
				// the findings of its catalog record, files relative to the skill
				const rec = JSON.parse(fs.readFileSync(path.join(fx.mnt, 'catalog', `${want.id}.json`), 'utf8'));
				assert.deepEqual(got.findings, rec.findings.map((f) => ({
					rule: f.rule, severity: f.severity, file: path.relative(rec.source, f.file),
					line: f.line, message: f.message,
				})), `${want.id}: findings`);
			}
		});

		it('get_skill paths lead to the skill\'s other files in the mount', async () => {
			const got = checkToolResult(await call('get_skill', { id: 'pdf-forms' }), 'get_skill');
			const dir = path.dirname(got.path);
			const src = path.join(fx.src, 'pdf-forms');
			for (const rel of ['references/field-types.md', 'scripts/fill.sh', 'assets/mapping.json'])
				assert.deepEqual(fs.readFileSync(path.join(dir, rel)), fs.readFileSync(path.join(src, rel)), rel);
			assert.ok(fs.statSync(path.join(dir, 'scripts/fill.sh')).mode & 0o111, 'script stays executable');
		});

		it('get_skill with an unknown id is an isError result naming the closest ids', async () => {
			for (const typo of ['pdf-form', 'csv-reports', 'comit-messages']) {
				const res = await call('get_skill', { id: typo });
				assert.equal(res.isError, true, `${typo}: isError`);
				const text = res.content.filter((x) => x.type === 'text').map((x) => x.text).join('\n');
				const closest = expectedListed(fx.mnt).map((s) => s.id)
					.sort((a, b) => distance(typo, a) - distance(typo, b))[0];
				assert.ok(text.includes(closest), `${typo}: message names ${closest}: ${text}`);
			}
		});

		it('get_skill without an id is refused', async () => {
			let refused = false;
			try {
				const res = await call('get_skill', {});
				refused = res.isError === true;
			} catch (err) {
				refused = err.code === -32602;
			}
			assert.ok(refused, 'missing id: isError or -32602');
		});
	});
}
