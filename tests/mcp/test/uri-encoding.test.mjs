// File names that need percent-encoding in skill:// URIs ('#', '?', '%',
// space, '&', non-ASCII, a name that literally holds "%26"): every URI is
// spelled the one canonical way in index.json, skills/list, skills/get,
// resources/list and resources/directory/read, and decoded on read.  The
// official v2 SkillsClient (without skipInvalid) lists, gets, reads and
// verifies every file.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { mountedSource, writeSkill, skillMd, indexEntries,
	RANDOM_BINARY } from '../lib/mount.mjs';
import { connectV1, connectV2, SkillsClient } from '../lib/clients.mjs';
import { listAll } from '../lib/expect.mjs';

const ID = 'odd-names';
// Relative path in the skill -> content.
const FILES = {
	'SKILL.md': skillMd(`
name: ${ID}
description: Files whose names need percent-encoding in a URI. Use in tests.
`, '# Odd names\n\nSee `a#b?.txt` and `café ☃.md`.\n'),
	'a#b?.txt': 'hash and question mark\n',
	'100%.txt': 'a percent sign\n',
	'Q%26A.md': 'a name that holds %26 literally\n',
	'Q&A.md': 'an ampersand\n',
	'space name.txt': 'a space\n',
	'café ☃.md': 'non-ASCII ✓\n',
	'dir #1/x?.txt': 'in a folder that needs encoding too\n',
	'dir #1/deeper/ü.bin': RANDOM_BINARY,
	"keep!$&'()*+,;=@[]|~.txt": 'every byte kept as it is\n',
};

// The canonical spelling, written here from the SDK's documented rule
// (ENCODED_IN_SEGMENT), not taken from the server.
function encodePath(rel) {
	return rel.split('/').map((seg) => seg.replace(/[^\w!$&'()*+,.:;=@[\]|~-]/gu,
		(ch) => encodeURIComponent(ch))).join('/');
}
const uriOf = (rel) => `skill://${ID}/${encodePath(rel)}`;

const fixture = mountedSource('enc-src', (src) => {
	writeSkill(src, ID, FILES);
});

const filesOnDisk = () => Object.keys(FILES).sort();

function bytesOf(content) {
	return 'text' in content ? Buffer.from(content.text, 'utf8') : Buffer.from(content.blob, 'base64');
}

describe('index.json', () => {
	it('spells every file URI the canonical way, and each is a WHATWG-canonical URI', () => {
		const [entry] = indexEntries(fixture.mnt).filter((e) => e.uri === `skill://${ID}/SKILL.md`);
		assert.ok(entry, 'the skill is listed');
		const uris = entry.resources.map((r) => r.uri);
		assert.deepEqual([...uris].sort(), filesOnDisk().map(uriOf).sort());
		for (const uri of uris) {
			assert.equal(new URL(uri).href, uri, `${uri} is its own canonical form`);
			assert.doesNotMatch(uri, /%(?![0-9A-F]{2})/, `${uri}: every escape in uppercase hex`);
		}
		assert.ok(uris.includes(`skill://${ID}/Q%2526A.md`), 'a literal %26 is %2526');
		assert.ok(uris.includes(`skill://${ID}/Q&A.md`), "'&' is kept");
	});
});

for (const era of ['legacy', 'modern']) {
	describe(`v2 client, ${era}`, () => {
		let c;
		before(async () => { c = await connectV2(['--mount', fixture.fx.mnt], { era }); });
		after(async () => { await c?.close(); });

		it('SkillsClient without skipInvalid lists, gets and reads every file, verified', async () => {
			const sc = new SkillsClient(c.client);
			const { skills, invalid } = await sc.list();
			assert.deepEqual(invalid, []);
			const skill = skills.find((s) => s.uri === `skill://${ID}/SKILL.md`);
			assert.ok(skill, 'the skill is listed');
			const { skill: again } = await sc.get(skill.uri);
			assert.deepEqual(again, skill, 'skills/get equals skills/list');
			assert.deepEqual(skill.resources.map((r) => r.uri).sort(), filesOnDisk().map(uriOf).sort());
			for (const rel of filesOnDisk()) {
				const file = await sc.read(skill, uriOf(rel));
				assert.equal(file.verified, true, `${rel}: verified`);
				assert.deepEqual(Buffer.from(file.bytes), fs.readFileSync(path.join(fixture.src, ID, rel)),
					`${rel}: bytes`);
			}
			// A relative reference is resolved and found however it is spelled.
			const byRef = await sc.read(skill, 'Q%26A.md');
			assert.equal(Buffer.from(byRef.bytes).toString(), FILES['Q&A.md'], "Q%26A.md is 'Q&A.md'");
		});

		it('resources/read of every listed URI returns the file, under the same URI', async () => {
			const { skill } = await c.request('skills/get', { uri: `skill://${ID}/SKILL.md` });
			for (const r of skill.resources) {
				const res = await c.request('resources/read', { uri: r.uri });
				assert.equal(res.contents.length, 1, `${r.uri}: one item`);
				assert.equal(res.contents[0].uri, r.uri, `${r.uri}: same URI back`);
				const rel = decodeURIComponent(r.uri.slice(`skill://${ID}/`.length));
				assert.deepEqual(bytesOf(res.contents[0]), fs.readFileSync(path.join(fixture.src, ID, rel)),
					`${r.uri}: bytes`);
			}
		});

		it('an unencoded # or ? is refused, not cut off', async () => {
			for (const uri of [`skill://${ID}/a#b?.txt`, `skill://${ID}/a%23b?.txt`]) {
				let failed = false;
				try {
					await c.request('resources/read', { uri });
				} catch (err) {
					failed = err.code === -32602;
				}
				assert.ok(failed, `${uri}: -32602`);
			}
		});

		it('resources/directory/read names agree with skills/list, folder by folder', async () => {
			const { skill } = await c.request('skills/get', { uri: `skill://${ID}/SKILL.md` });
			const listed = new Set(skill.resources.map((r) => r.uri));
			const seen = new Set();
			const walk = async (rel) => {
				const uri = rel ? uriOf(rel) : `skill://${ID}`;
				const res = await c.request('resources/directory/read', { uri });
				const names = fs.readdirSync(path.join(fixture.mnt, 'skills', ID, rel)).sort();
				assert.deepEqual(res.resources.map((r) => r.name).sort(), names, `${uri}: names`);
				for (const r of res.resources) {
					const childRel = rel ? `${rel}/${r.name}` : r.name;
					assert.equal(r.uri, uriOf(childRel), `${r.name}: canonical child URI`);
					if (r.mimeType === 'inode/directory') {
						await walk(childRel);
					} else {
						assert.ok(listed.has(r.uri), `${r.uri} is in skills/list`);
						seen.add(r.uri);
					}
				}
			};
			await walk('');
			assert.deepEqual([...seen].sort(), [...listed].sort(), 'every listed file found by walking');
			// The folder written another way still lists canonical children.
			const other = await c.request('resources/directory/read', { uri: `skill://${ID}/dir%20%231` });
			assert.deepEqual(other.resources.map((r) => r.uri).sort(),
				[uriOf('dir #1/deeper'), uriOf('dir #1/x?.txt')]);
		});

		it('resources/list gives each file of the skill under its skills/list URI', async () => {
			const uris = (await listAll(c, 'resources/list', 'resources')).map((r) => r.uri);
			const mine = uris.filter((u) => u.startsWith(`skill://${ID}/`));
			assert.deepEqual(mine.sort(), filesOnDisk().map(uriOf).sort());
		});
	});
}

describe('v1 sdk', () => {
	it('reads every file by its listed URI', async () => {
		const c = await connectV1(['--mount', fixture.fx.mnt]);
		try {
			const { skill } = await c.request('skills/get', { uri: `skill://${ID}/SKILL.md` });
			for (const r of skill.resources) {
				const res = await c.client.readResource({ uri: r.uri });
				const rel = decodeURIComponent(r.uri.slice(`skill://${ID}/`.length));
				assert.deepEqual(bytesOf(res.contents[0]), fs.readFileSync(path.join(fixture.src, ID, rel)),
					`${r.uri}: bytes`);
			}
		} finally {
			await c.close();
		}
	});
});
