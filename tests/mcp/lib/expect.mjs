// What the server should answer, derived from what the mount serves (never
// hard-coded): the tests compare the server with the files under MNT.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { indexEntries } from './mount.mjs';

// The list_skills record of every skill the model may invoke.
export function expectedListed(mnt) {
	const real = fs.realpathSync(mnt);
	return indexEntries(mnt)
		.filter((e) => e.frontmatter['disable-model-invocation'] !== true)
		.map((e) => {
			const id = e.frontmatter.name;
			return {
				id,
				name: e.frontmatter.name,
				description: e.frontmatter.description,
				path: path.join(real, 'skills', id, 'SKILL.md'),
				tags: e.frontmatter['x-personal-mcp']?.tags ?? [],
			};
		});
}

// The array of skills in a list_skills structuredContent, and its cursor.
export function listPage(structured) {
	assert.equal(typeof structured, 'object', 'structuredContent is an object');
	assert.ok(structured !== null && !Array.isArray(structured),
		'structuredContent is a JSON object (MCP requires an object)');
	const arrays = Object.entries(structured).filter(([, v]) => Array.isArray(v));
	assert.equal(arrays.length, 1,
		`structuredContent holds exactly one array of skills: ${JSON.stringify(structured).slice(0, 300)}`);
	const next = structured.nextCursor;
	return { skills: arrays[0][1], nextCursor: next };
}

// Checks a tools/call result of a successful tool: not isError, has
// structuredContent, and a text block holding the same JSON.
export function checkToolResult(result, what) {
	assert.notEqual(result.isError, true,
		`${what}: isError set: ${JSON.stringify(result.content).slice(0, 500)}`);
	assert.ok(result.structuredContent !== undefined, `${what}: structuredContent present`);
	const texts = (result.content ?? []).filter((c) => c.type === 'text');
	assert.ok(texts.length >= 1, `${what}: a text content block`);
	assert.deepEqual(JSON.parse(texts[0].text), result.structuredContent,
		`${what}: the text block is the same JSON as structuredContent`);
	return result.structuredContent;
}

// Does any value of obj (searched two levels deep) equal one of wanted?
export function metaMentions(meta, wanted) {
	if (!meta || typeof meta !== 'object')
		return false;
	const values = [];
	for (const v of Object.values(meta)) {
		values.push(v);
		if (v && typeof v === 'object')
			values.push(...Object.values(v));
	}
	return values.some((v) => wanted.includes(v));
}

export function sortBy(list, key) {
	return [...list].sort((a, b) => (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0));
}

// Levenshtein distance, to pick the ids closest to a misspelled one.
export function distance(a, b) {
	const d = Array.from({ length: a.length + 1 }, (_, i) => [i]);
	for (let j = 1; j <= b.length; j++)
		d[0][j] = j;
	for (let i = 1; i <= a.length; i++) {
		for (let j = 1; j <= b.length; j++) {
			d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1,
				d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
		}
	}
	return d[a.length][b.length];
}

// Every item of a paged list (resources/list, skills/list, ...) through
// client c, following nextCursor: each page must hold an array `key`, and
// the paging must end.
export async function listAll(c, method, key) {
	const items = [];
	let cursor;
	let pages = 0;
	do {
		const page = await c.request(method, cursor ? { cursor } : {});
		assert.ok(Array.isArray(page[key]), `${method}: ${key} array: ${JSON.stringify(page).slice(0, 300)}`);
		items.push(...page[key]);
		cursor = page.nextCursor;
		assert.ok(++pages < 1000, `${method} paging ends`);
	} while (cursor);
	return items;
}

// Reads a skill's SKILL.md and every file through the v2 SDK's SkillsClient
// sc, which verifies digest and size: each must be verified and hold the
// bytes of its file under MNT.  Returns how many files (besides SKILL.md)
// it read.
export async function readSkillVerified(sc, skill, mnt) {
	const id = skill.frontmatter.name;
	const doc = await sc.read(skill);
	assert.equal(doc.verified, true, `${skill.uri}: verified`);
	assert.deepEqual(doc.frontmatter, skill.frontmatter, `${skill.uri}: frontmatter`);
	for (const r of skill.resources) {
		const file = await sc.read(skill, r.uri);
		assert.equal(file.verified, true, `${r.uri}: verified`);
		const rel = r.uri.slice(`skill://${id}/`.length);
		assert.deepEqual(Buffer.from(file.bytes),
			fs.readFileSync(path.join(mnt, 'skills', id, rel)), `${r.uri}: bytes`);
	}
	return skill.resources.length;
}
