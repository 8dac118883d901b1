// The MCP Skills extension (SEP-2640): capability, skills/list, skills/get,
// resources/directory/read; and the v2 SDK's SkillsClient, which verifies
// every file it reads against the entry's digest, size and frontmatter.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fixtureForFile, indexEntries, skillIds } from '../lib/mount.mjs';
import { FLAVOURS, SkillsClient, invalidUris, rejectsWith } from '../lib/clients.mjs';
import { SKILLS_EXT } from '../lib/raw.mjs';
import { listAll, readSkillVerified } from '../lib/expect.mjs';

const fixture = fixtureForFile();

// Every folder of a skill in the mount, relative to the skill ('' = root).
function skillDirs(id) {
	const root = path.join(fixture.mnt, 'skills', id);
	const out = [''];
	const walk = (rel) => {
		for (const ent of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
			const r = rel ? `${rel}/${ent.name}` : ent.name;
			if (ent.isDirectory()) {
				out.push(r);
				walk(r);
			}
		}
	};
	walk('');
	return out;
}

for (const flavour of FLAVOURS) {
	describe(flavour.name, () => {
		let c;
		before(async () => { c = await flavour.connect(['--mount', fixture.fx.mnt]); });
		after(async () => { await c?.close(); });

		const listSkills = () => listAll(c, 'skills/list', 'skills');

		it('declares the skills extension as an object with directoryRead, beside resources', () => {
			const caps = c.client.getServerCapabilities();
			const ext = caps?.extensions?.[SKILLS_EXT];
			assert.ok(ext && typeof ext === 'object' && !Array.isArray(ext),
				`extensions["${SKILLS_EXT}"] is a JSON object: ${JSON.stringify(caps?.extensions)}`);
			assert.equal(ext.directoryRead, true, 'directoryRead: true');
			assert.ok(caps.resources && typeof caps.resources === 'object', 'resources capability');
			assert.ok(caps.tools && typeof caps.tools === 'object', 'tools capability');
			assert.ok(caps.prompts && typeof caps.prompts === 'object', 'prompts capability');
		});

		it('skills/list entries are exactly the lines of MNT/index.json', async () => {
			const entries = await listSkills();
			assert.deepEqual(entries, indexEntries(fixture.mnt));
		});

		it('skills/list entries describe files the mount serves, with sizes that match', async () => {
			for (const e of await listSkills()) {
				const id = e.frontmatter.name;
				assert.equal(e.uri, `skill://${id}/SKILL.md`);
				assert.equal(e.resources[0].uri, e.uri, `${id}: SKILL.md first`);
				for (const r of e.resources) {
					const rel = r.uri.slice(`skill://${id}/`.length);
					const st = fs.statSync(path.join(fixture.mnt, 'skills', id, rel));
					assert.equal(r.size, st.size, `${r.uri}: size`);
					assert.match(r.digest, /^sha256:[0-9a-f]{64}$/, `${r.uri}: digest`);
				}
			}
		});

		it('skills/list refuses a bogus cursor with -32602', async () => {
			await rejectsWith(c.request('skills/list', { cursor: 'bogus-cursor' }), -32602);
		});

		it('skills/get returns the index entry of each skill', async () => {
			for (const e of indexEntries(fixture.mnt)) {
				const res = await c.request('skills/get', { uri: e.uri });
				assert.deepEqual(res.skill, e, `${e.uri}`);
				assert.equal(res.nextCursor, undefined, 'skills/get carries no cursor');
			}
		});

		it('skills/get of an unknown skill, or of a URI that is not a SKILL.md, is -32602', async () => {
			await invalidUris(c, 'skills/get', ['skill://no-such-skill/SKILL.md',
				'skill://pdf-forms/references/field-types.md', 'skill://pdf-forms',
				'skill://pdf-forms/../csv-report/SKILL.md',
				'resource://skills/pdf-forms/document', 'not a uri']);
		});

		it('resources/directory/read lists the direct children of every skill folder', async () => {
			// "the same Resource objects that resources/list returns"
			const listed = new Map((await listAll(c, 'resources/list', 'resources')).map((r) => [r.uri, r]));
			let dirs = 0;
			for (const id of skillIds(fixture.mnt)) {
				for (const rel of skillDirs(id)) {
					const uri = rel ? `skill://${id}/${rel}` : `skill://${id}`;
					const res = await c.request('resources/directory/read', { uri });
					assert.ok(Array.isArray(res.resources), `${uri}: resources array`);
					const got = res.resources.map((r) => [r.uri, r.mimeType === 'inode/directory']).sort();
					const want = fs.readdirSync(path.join(fixture.mnt, 'skills', id, rel), { withFileTypes: true })
						.map((ent) => [`${uri}/${ent.name}`, ent.isDirectory()]).sort();
					assert.deepEqual(got, want, `${uri}: children`);
					for (const r of res.resources) {
						assert.equal(typeof r.name, 'string', `${r.uri}: name`);
						if (listed.has(r.uri))
							assert.equal(r.mimeType, listed.get(r.uri).mimeType,
								`${r.uri}: same mimeType as in resources/list`);
						if (r.uri.endsWith('.md'))
							assert.equal(r.mimeType, 'text/markdown', `${r.uri}: mimeType`);
						if (r.uri.endsWith('.json'))
							assert.equal(r.mimeType, 'application/json', `${r.uri}: mimeType`);
					}
					dirs++;
				}
			}
			assert.ok(dirs >= 10, `read ${dirs} folders`);
		});

		it('resources/directory/read of a file or an unknown folder is -32602', async () => {
			await invalidUris(c, 'resources/directory/read', ['skill://pdf-forms/SKILL.md',
				'skill://pdf-forms/scripts/fill.sh', 'skill://pdf-forms/no-such-folder',
				'skill://no-such-skill', 'skill://pdf-forms/../csv-report',
				'resource://catalog/skills_index']);
		});

		if (flavour.name.startsWith('v2')) {
			it('SkillsClient lists, gets and reads every file of every skill, verified', async () => {
				const sc = new SkillsClient(c.client);
				assert.equal(sc.supported, true, 'SkillsClient sees the extension');
				assert.equal(sc.directoryRead, true, 'SkillsClient sees directoryRead');
				const { skills, invalid } = await sc.list();
				assert.deepEqual(invalid, []);
				assert.deepEqual(skills.map((s) => s.uri).sort(), indexEntries(fixture.mnt).map((e) => e.uri).sort());
				for (const skill of skills) {
					const { skill: again } = await sc.get(skill.uri);
					assert.deepEqual(again, skill, `${skill.uri}: get equals list`);
					await readSkillVerified(sc, skill, fixture.mnt);
				}
				const dir = await sc.readDirectory('skill://pdf-forms/references');
				assert.deepEqual(dir.resources.map((r) => r.uri).sort(),
					fs.readdirSync(path.join(fixture.mnt, 'skills/pdf-forms/references'))
						.map((n) => `skill://pdf-forms/references/${n}`).sort());
			});
		}
	});
}
