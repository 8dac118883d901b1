// Skill collections as people have them, over MCP: skills of Claude Code
// plugins (list_skills shows the plugin; get_skill, prompts/get and the
// resource:// templates take <plugin>:<id>), and served skills that the
// mount leaves out of index.json because the official SDK client would
// refuse their entry (skills/list and skills/get leave them out; tools,
// prompts and resources still serve them).  main's collections test
// covers the layouts and the listing; this one what the MCP server adds.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { mountedSource, writeSkill, skillMd, indexEntries,
	PNG_1X1 } from '../lib/mount.mjs';
import { connectV2, SkillsClient, rejectsWith, toolJson } from '../lib/clients.mjs';
import { listAll } from '../lib/expect.mjs';

const LONG = 'Summarise long reports. '.repeat(46).trim();   // 1103 code points
const body = (title) => `# ${title}\n\nDo the thing the ${title} way.\n`;

const fixture = mountedSource('coll-src', (src) => {
	fs.mkdirSync(path.join(src, 'my-plugin', '.claude-plugin'), { recursive: true });
	fs.writeFileSync(path.join(src, 'my-plugin', '.claude-plugin', 'plugin.json'),
		JSON.stringify({ name: 'my-plugin', version: '1.0.0', description: 'A test plugin' }));
	writeSkill(src, 'my-plugin/skills/my-skill', {
		'SKILL.md': skillMd(`
name: my-skill
description: A skill of a plugin. Use in tests of plugin skills.
argument-hint: "[target]"
`, body('plugin skill') + 'Target: $ARGUMENTS\n'),
		'references/notes.md': '# Notes\n',
	});
	fs.mkdirSync(path.join(src, 'other-plugin', '.claude-plugin'), { recursive: true });
	fs.writeFileSync(path.join(src, 'other-plugin', '.claude-plugin', 'plugin.json'),
		JSON.stringify({ name: 'other-plugin' }));
	writeSkill(src, 'other-plugin/skills/other-skill', {
		'SKILL.md': skillMd(`
name: other-skill
description: A skill of another plugin. Use in tests of plugin skills.
`, body('other plugin')),
	});
	// A marketplace whose plugin lists its skills (strict: false).
	fs.mkdirSync(path.join(src, 'market', '.claude-plugin'), { recursive: true });
	fs.writeFileSync(path.join(src, 'market', '.claude-plugin', 'marketplace.json'), JSON.stringify({
		name: 'test-market', owner: { name: 't' },
		plugins: [{ name: 'document-skills', source: './', strict: false, skills: ['./skills/xlsx'] }],
	}));
	writeSkill(src, 'market/skills/xlsx', {
		'SKILL.md': skillMd(`
name: xlsx
description: Spreadsheets, from a marketplace plugin. Use in tests.
`, body('xlsx')),
	});
	writeSkill(src, 'plain-skill', {
		'SKILL.md': skillMd(`
name: plain-skill
description: A skill of no plugin. Use in tests.
`, body('plain')),
	});
	// Entries the official client refuses: a description over 1024
	// characters, metadata values that are not strings.
	writeSkill(src, 'long-desc', {
		'SKILL.md': skillMd(`
name: long-desc
description: ${LONG}
`, body('long description')),
		'assets/a b#1?.txt': 'a name that needs encoding\n',
		'assets/logo.png': PNG_1X1,
	});
	writeSkill(src, 'bad-metadata', {
		'SKILL.md': skillMd(`
name: bad-metadata
description: Metadata with a number. Use in tests.
metadata:
  count: 3
`, body('bad metadata')),
	});
	writeSkill(src, 'hidden-long', {
		'SKILL.md': skillMd(`
name: hidden-long
description: ${LONG}
disable-model-invocation: true
`, body('hidden long')),
	});
});

const readJson = (rel) => JSON.parse(fs.readFileSync(path.join(fixture.mnt, rel), 'utf8'));
const pluginOf = (id) => readJson(`catalog/${id}.json`).plugin;
const listedIds = () => indexEntries(fixture.mnt).map((e) => e.uri.slice(8, -9));
const servedIds = () => fs.readdirSync(path.join(fixture.mnt, 'skills')).sort();
const UNLISTED = ['bad-metadata', 'hidden-long', 'long-desc'];

// What the mount must serve for these tests to mean anything.
function needPlugins() {
	assert.equal(pluginOf('my-skill'), 'my-plugin', 'catalog/my-skill.json records the plugin');
}

function needUnlisted() {
	const served = servedIds();
	for (const id of UNLISTED) {
		assert.ok(served.includes(id), `${id} is served`);
		assert.ok(!listedIds().includes(id), `${id} is left out of index.json`);
	}
}

function skillFiles(id) {
	const root = path.join(fixture.mnt, 'skills', id);
	const out = [];
	const walk = (rel) => {
		for (const ent of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
			const r = rel ? `${rel}/${ent.name}` : ent.name;
			if (ent.isDirectory())
				walk(r);
			else
				out.push(r);
		}
	};
	walk('');
	return out;
}
const encodePath = (rel) => rel.split('/').map((seg) => seg.replace(/[^\w!$&'()*+,.:;=@[\]|~-]/gu,
	(ch) => encodeURIComponent(ch))).join('/');

for (const era of ['legacy', 'modern']) {
	describe(`v2 client, ${era}`, () => {
		let c;
		before(async () => { c = await connectV2(['--mount', fixture.fx.mnt], { era }); });
		after(async () => { await c?.close(); });

		const tool = async (name, args) => toolJson(await c.client.callTool({ name, arguments: args }));
		const allSkills = async () => (await tool('list_skills', { limit: 500 })).structured.skills;

		it('list_skills shows the plugin of each plugin skill, and no plugin for others', async () => {
			needPlugins();
			const byId = Object.fromEntries((await allSkills()).map((s) => [s.id, s]));
			assert.equal(byId['my-skill'].plugin, 'my-plugin');
			assert.equal(byId['other-skill'].plugin, 'other-plugin');
			assert.equal(byId.xlsx.plugin, 'document-skills', 'a marketplace plugin');
			assert.equal('plugin' in byId['plain-skill'], false, 'plain-skill: no plugin key');
			const found = (await tool('list_skills', { query: 'my-plugin' })).structured.skills;
			assert.deepEqual(found.map((s) => s.id), ['my-skill'], 'a query matches the plugin name');
		});

		it('get_skill takes <plugin>:<id> for a skill of that plugin, and only for it', async () => {
			needPlugins();
			const plain = await tool('get_skill', { id: 'my-skill' });
			const named = await tool('get_skill', { id: 'my-plugin:my-skill' });
			assert.equal(named.isError, false, named.text);
			assert.deepEqual(named.structured, plain.structured);
			assert.equal(named.structured.path, path.join(fixture.mnt, 'skills', 'my-skill', 'SKILL.md'));
			const xlsx = await tool('get_skill', { id: 'document-skills:xlsx' });
			assert.equal(xlsx.structured?.content, body('xlsx'), xlsx.text);
			for (const id of ['other-plugin:my-skill', 'my-plugin:plain-skill', 'my-plugin:', ':my-skill',
				'my-plugin:no-such-skill']) {
				const r = await tool('get_skill', { id });
				assert.equal(r.isError, true, `${id}: unknown`);
				assert.match(r.text, /Unknown skill id/, `${id}: says unknown`);
			}
		});

		it('prompts/get takes <plugin>:<id>, with its arguments', async () => {
			needPlugins();
			const res = await c.client.getPrompt({ name: 'my-plugin:my-skill', arguments: { arguments: 'prod' } });
			assert.equal(res.messages[0].content.text,
				`Base directory for this skill: ${path.join(fixture.mnt, 'skills', 'my-skill')}\n\n` +
				body('plugin skill') + 'Target: prod\n');
			await rejectsWith(c.request('prompts/get', { name: 'other-plugin:my-skill' }), -32602);
		});

		it('the resource:// templates take <plugin>:<id>', async () => {
			needPlugins();
			const doc = await c.client.readResource({ uri: 'resource://skills/my-plugin:my-skill/document' });
			assert.equal(doc.contents[0].text,
				fs.readFileSync(path.join(fixture.mnt, 'skills', 'my-skill', 'SKILL.md'), 'utf8'));
			const rec = await c.client.readResource({ uri: 'resource://catalog/skills/my-plugin:my-skill' });
			assert.equal(JSON.parse(rec.contents[0].text).plugin, 'my-plugin');
			for (const uri of ['resource://skills/other-plugin:my-skill/document',
				'resource://catalog/skills/my-plugin:plain-skill',
				'resource://skills/my/plugin:my-skill/document'])
				await rejectsWith(c.request('resources/read', { uri }), -32602);
		});

		it('SkillsClient without skipInvalid lists the whole catalog; refused entries are not in it', async () => {
			needUnlisted();
			const sc = new SkillsClient(c.client);
			const { skills, invalid } = await sc.list();
			assert.deepEqual(invalid, []);
			const ids = skills.map((s) => s.frontmatter.name).sort();
			assert.deepEqual(ids, listedIds().sort(), 'exactly the entries of index.json');
			for (const id of UNLISTED)
				assert.ok(!ids.includes(id), `${id} left out`);
			for (const skill of skills)
				for (const r of skill.resources)
					assert.equal((await sc.read(skill, r.uri)).verified, true, `${r.uri}: verified`);
			for (const id of UNLISTED)
				await rejectsWith(c.request('skills/get', { uri: `skill://${id}/SKILL.md` }), -32602);
			const status = readJson('status.json');
			for (const id of UNLISTED)
				assert.ok(JSON.stringify(status.unlisted ?? null).includes(id),
					`status.json lists ${id} under "unlisted"`);
		});

		it('tools and prompts still serve a skill left out of skills/list', async () => {
			needUnlisted();
			const ids = (await allSkills()).map((s) => s.id);
			assert.ok(ids.includes('long-desc') && ids.includes('bad-metadata'), 'list_skills has them');
			assert.ok(!ids.includes('hidden-long'), 'disable-model-invocation read from SKILL.md');
			const got = await tool('get_skill', { id: 'long-desc' });
			assert.equal(got.isError, false, got.text);
			assert.equal(got.structured.content, body('long description'));
			assert.equal(got.structured.description, LONG);
			assert.equal((await tool('get_skill', { id: 'hidden-long' })).isError, true);
			const { prompts } = await c.request('prompts/list', {});
			const names = prompts.map((p) => p.name);
			for (const id of UNLISTED)
				assert.ok(names.includes(id), `prompt ${id}`);
			const p = await c.client.getPrompt({ name: 'hidden-long' });
			assert.match(p.messages[0].content.text, /Do the thing the hidden long way/);
		});

		it('resources list, read and walk the files of a skill left out of skills/list', async () => {
			needUnlisted();
			const uris = (await listAll(c, 'resources/list', 'resources')).map((r) => r.uri);
			const files = skillFiles('long-desc');
			const mine = uris.filter((u) => u.startsWith('skill://long-desc/'));
			assert.deepEqual(mine.sort(), files.map((f) => `skill://long-desc/${encodePath(f)}`).sort());
			assert.ok(uris.includes('resource://skills/long-desc/document'), 'its document');
			for (const uri of mine) {
				const res = await c.client.readResource({ uri });
				const item = res.contents[0];
				const bytes = 'text' in item ? Buffer.from(item.text) : Buffer.from(item.blob, 'base64');
				const rel = decodeURIComponent(uri.slice('skill://long-desc/'.length));
				assert.deepEqual(bytes, fs.readFileSync(path.join(fixture.mnt, 'skills', 'long-desc', rel)), uri);
			}
			const dir = await c.request('resources/directory/read', { uri: 'skill://long-desc/assets' });
			assert.deepEqual(dir.resources.map((r) => r.uri).sort(),
				['skill://long-desc/assets/a%20b%231%3F.txt', 'skill://long-desc/assets/logo.png']);
		});
	});
}
