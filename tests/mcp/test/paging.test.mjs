// Paging over a catalog with many skills: list_skills limit + cursor,
// resources/list, skills/list and prompts/list cursors.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mountSkills, makeSkillSource, removeTempDir, skillMd, indexEntries, EXTRA_SKILLS } from '../lib/mount.mjs';
import { FLAVOURS } from '../lib/clients.mjs';
import { expectedListed, listPage, checkToolResult, sortBy } from '../lib/expect.mjs';

const BULK = 60;
let fx;
before(async () => {
	const extra = { ...EXTRA_SKILLS };
	for (let i = 0; i < BULK; i++) {
		const id = `bulk-${String(i).padStart(3, '0')}`;
		const hidden = i % 10 === 3;
		extra[id] = {
			'SKILL.md': skillMd(`
name: ${id}
description: Bulk skill number ${i}${i % 2 ? ' about walruses' : ''}. Use when testing paging.${hidden ? '\ndisable-model-invocation: true' : ''}
`, `# Bulk ${i}\n`),
			'references/a.md': `# A ${i}\n`,
		};
	}
	const src = makeSkillSource({ extra });
	fx = await mountSkills(src);
	fx.cleanup = async () => {
		await fx.unmount();
		removeTempDir(src);
	};
});
after(async () => { await fx?.cleanup(); });

async function walk(fetchPage, what) {
	const pages = [];
	let cursor;
	do {
		const { items, next } = await fetchPage(cursor);
		pages.push(items);
		assert.ok(next === undefined || (typeof next === 'string' && next.length > 0),
			`${what}: nextCursor is a non-empty string or absent`);
		if (next !== undefined)
			assert.notEqual(next, cursor, `${what}: the cursor moves on`);
		cursor = next;
		assert.ok(pages.length < 1000, `${what}: paging ends`);
	} while (cursor);
	return pages;
}

for (const flavour of FLAVOURS) {
	describe(flavour.name, () => {
		let c;
		before(async () => {
			c = await flavour.connect(['--mount', fx.mnt]);
			await c.client.listTools();
		});
		after(async () => { await c?.close(); });

		const listSkills = (args) => walk(async (cursor) => {
			const res = await c.client.callTool({ name: 'list_skills',
				arguments: cursor ? { ...args, cursor } : args });
			const page = listPage(checkToolResult(res, 'list_skills'));
			return { items: page.skills, next: page.nextCursor };
		}, 'list_skills');

		// The pages of a list method whose items are in r[key].
		const walkList = (method, key) => walk(async (cursor) => {
			const r = await c.request(method, cursor ? { cursor } : {});
			return { items: r[key], next: r.nextCursor };
		}, method);

		for (const limit of [1, 7, 25]) {
			it(`list_skills with limit ${limit} walks the whole catalog in pages of at most ${limit}`, async () => {
				const want = sortBy(expectedListed(fx.mnt), 'id');
				const pages = await listSkills({ limit });
				for (const p of pages)
					assert.ok(p.length <= limit, `page of ${p.length}`);
				assert.ok(pages.length >= Math.ceil(want.length / limit), `${pages.length} pages for ${want.length}`);
				const got = pages.flat();
				assert.equal(new Set(got.map((s) => s.id)).size, got.length, 'no skill twice');
				assert.deepEqual(sortBy(got, 'id'), want);
			});
		}

		it('list_skills without a limit still bounds its answer, or lists everything', async () => {
			const pages = await listSkills({});
			assert.deepEqual(sortBy(pages.flat(), 'id'), sortBy(expectedListed(fx.mnt), 'id'));
		});

		it('list_skills query and limit page through the matches only', async () => {
			const want = expectedListed(fx.mnt).filter((s) => / walruses\./.test(s.description))
				.map((s) => s.id).sort();
			assert.ok(want.length >= 20);
			const pages = await listSkills({ query: 'WALRUSES', limit: 4 });
			assert.ok(pages.length >= Math.ceil(want.length / 4));
			assert.deepEqual(pages.flat().map((s) => s.id).sort(), want);
		});

		it('skills/list pages add up to MNT/index.json, in order, entries never split', async () => {
			const pages = await walkList('skills/list', 'skills');
			assert.deepEqual(pages.flat(), indexEntries(fx.mnt));
		});

		it('resources/list pages have each URI once, and every skill\'s SKILL.md', async () => {
			const pages = await walkList('resources/list', 'resources');
			const uris = pages.flat().map((r) => r.uri);
			assert.equal(new Set(uris).size, uris.length, 'no URI twice');
			for (const e of indexEntries(fx.mnt)) {
				assert.ok(uris.includes(e.uri), `${e.uri}`);
				assert.ok(uris.includes(`resource://catalog/skills/${e.frontmatter.name}`));
			}
		});

		it('prompts/list pages have init-skills and every user-invocable skill once', async () => {
			const pages = await walkList('prompts/list', 'prompts');
			const names = pages.flat().map((p) => p.name);
			assert.equal(new Set(names).size, names.length, 'no prompt twice');
			const want = indexEntries(fx.mnt).filter((e) => e.frontmatter['user-invocable'] !== false)
				.map((e) => e.frontmatter.name);
			assert.deepEqual(names.filter((n) => n !== 'init-skills').sort(), want.sort());
		});
	});
}
