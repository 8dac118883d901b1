// Skill collections as people have them, through the official v2 SDK's
// SkillsClient WITHOUT skipInvalid: a catalog made of every kind of name
// departure, every SkillsClient rule broken, the `skills` installer's
// symlink layout, dot folders, and Claude Code plugin and marketplace
// layouts lists whole (what a conforming client would refuse is left out
// of skills/list, not served broken), and every listed file reads back
// verified and byte-identical to the mount.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir, removeTempDir, mountSkills, indexEntries, writeSkill } from '../lib/mount.mjs';
import { connectV2, SkillsClient } from '../lib/clients.mjs';
import { readSkillVerified } from '../lib/expect.mjs';

const md = (fm, body = '# Body\n') => `---\n${fm}---\n${body}`;
const writeJson = (file, value) => {
	fs.mkdirSync(path.dirname(file), { recursive: true });
	fs.writeFileSync(file, JSON.stringify(value, null, 2));
};

// id -> why it is left out of skills/list (null: listed)
const EXPECT = {
	'plain': null,
	'vercel-foo': null,                       // name differs from its folder
	'ahrefs-automation': 'name',              // display-style name
	'no-name': 'name',                        // no name: the folder's
	'numeric': 'name',                        // name: 42
	'long-desc': 'description',               // 1068 characters
	'empty-desc': 'description',              // ""
	'compat-long': 'compatibility',           // 501 characters
	'compat-list': 'compatibility',           // not a string
	'meta-num': 'metadata',                   // version: 1.0
	'meta-list': 'metadata',                  // a list
	'proto-key': '__proto__',                 // a key the client cannot read
	'installed': null,                        // installer symlink
	'linked-dev': null,                       // ln -s ~/dev/x
	'sys-skill': null,                        // skills/.system
	'exp-skill': null,                        // skills/.experimental
	'xlsx': null,                             // marketplace skills list
	'lint': null,                             // marketplace plugin source
	'helper': null,                           // plugin.json skills/
};

function buildCatalog(src, outside) {
	writeSkill(src, 'plain', { 'SKILL.md': md('name: plain\ndescription: Plain.\n'),
		'scripts/run.sh': '#!/bin/sh\necho run\n', 'assets/logo.txt': 'logo\n' });
	writeSkill(src, 'foo', { 'SKILL.md': md('name: vercel-foo\ndescription: Named apart from its folder.\n') });
	writeSkill(src, 'ahrefs-automation', { 'SKILL.md': md('name: Ahrefs Automation\ndescription: Display name.\n') });
	writeSkill(src, 'no-name', { 'SKILL.md': md('description: Claude Code uses the folder name.\n') });
	writeSkill(src, 'numeric', { 'SKILL.md': md('name: 42\ndescription: A number for a name.\n') });
	writeSkill(src, 'long-desc', { 'SKILL.md': md(`name: long-desc\ndescription: ${'é'.repeat(1068)}\n`) });
	writeSkill(src, 'empty-desc', { 'SKILL.md': md('name: empty-desc\ndescription: ""\n') });
	writeSkill(src, 'compat-long', { 'SKILL.md': md(`name: compat-long\ndescription: C.\ncompatibility: ${'c'.repeat(501)}\n`) });
	writeSkill(src, 'compat-list', { 'SKILL.md': md('name: compat-list\ndescription: C.\ncompatibility:\n  - linux\n') });
	writeSkill(src, 'meta-num', { 'SKILL.md': md('name: meta-num\ndescription: M.\nmetadata:\n  version: 1.0\n') });
	writeSkill(src, 'meta-list', { 'SKILL.md': md('name: meta-list\ndescription: M.\nmetadata:\n  - a\n') });
	writeSkill(src, 'proto-key', { 'SKILL.md': md('name: proto-key\ndescription: P.\n__proto__: x\n') });
	writeSkill(src, 'Not An Id', { 'SKILL.md': md('description: Neither name nor folder is an id.\n') });

	// the `skills` installer: the skill lives in .agents/skills (here,
	// outside the root), the agent's folder links to it
	writeSkill(path.join(outside, '.agents', 'skills'), 'installed', {
		'SKILL.md': md('name: installed\ndescription: Installed by the skills CLI.\n'),
		'references/guide.md': '# Guide\n' });
	fs.symlinkSync(path.relative(src, path.join(outside, '.agents', 'skills', 'installed')),
		path.join(src, 'installed'));
	writeSkill(path.join(outside, 'dev'), 'linked-dev', {
		'SKILL.md': md('name: linked-dev\ndescription: Developed elsewhere.\n'), 'notes.txt': 'n\n' });
	fs.symlinkSync(path.join(outside, 'dev', 'linked-dev'), path.join(src, 'linked-dev'));

	writeSkill(path.join(src, 'curated', '.system'), 'sys-skill',
		{ 'SKILL.md': md('name: sys-skill\ndescription: In a dot folder.\n') });
	writeSkill(path.join(src, 'curated', '.experimental'), 'exp-skill',
		{ 'SKILL.md': md('name: exp-skill\ndescription: In another dot folder.\n') });
	writeSkill(path.join(src, 'node_modules'), 'dep-skill',
		{ 'SKILL.md': md('name: dep-skill\ndescription: Not searched.\n') });

	const market = path.join(src, 'market');
	writeJson(path.join(market, '.claude-plugin', 'marketplace.json'), {
		name: 'test-market', owner: { name: 't' },
		plugins: [
			{ name: 'document-skills', source: './', strict: false, skills: ['./skills/xlsx'] },
			{ name: 'dev-tools', source: './plugins/dev-tools' },
		] });
	writeSkill(path.join(market, 'skills'), 'xlsx', { 'SKILL.md': md('name: xlsx\ndescription: Sheets.\n') });
	writeJson(path.join(market, 'plugins', 'dev-tools', '.claude-plugin', 'plugin.json'),
		{ name: 'dev-tools', version: '1.0.0' });
	writeSkill(path.join(market, 'plugins', 'dev-tools', 'skills'), 'lint',
		{ 'SKILL.md': md('name: lint\ndescription: Lints.\n') });
	writeJson(path.join(src, 'my-plugin', '.claude-plugin', 'plugin.json'), { name: 'my-plugin' });
	writeSkill(path.join(src, 'my-plugin', 'skills'), 'helper',
		{ 'SKILL.md': md('name: helper\ndescription: Helps.\n') });
}

describe('a catalog of real-world collections, listed by SkillsClient', () => {
	let src, outside, fx, mnt, c;
	before(async () => {
		src = makeTempDir('src');
		outside = makeTempDir('outside');
		buildCatalog(src, outside);
		fx = await mountSkills(src);
		mnt = fs.realpathSync(fx.mnt);
		c = await connectV2(['--mount', fx.mnt]);
	});
	after(async () => {
		await c?.close();
		await fx?.unmount();
		if (src)
			removeTempDir(src);
		if (outside)
			removeTempDir(outside);
	});

	it('serves every skill that has a usable id, lists only what a client accepts', () => {
		const served = JSON.parse(fs.readFileSync(path.join(mnt, 'catalog', 'skills_index.json')))
			.skills.map((s) => s.id).sort();
		assert.deepEqual(served, Object.keys(EXPECT).sort());
		const listed = indexEntries(mnt).map((e) => e.frontmatter.name ?? null);
		const want = Object.keys(EXPECT).filter((id) => EXPECT[id] === null).sort();
		assert.deepEqual(indexEntries(mnt).map((e) => e.uri).sort(),
			want.map((id) => `skill://${id}/SKILL.md`).sort());
		assert.deepEqual([...listed].sort(), want);
		const status = JSON.parse(fs.readFileSync(path.join(mnt, 'status.json')));
		for (const u of status.unlisted) {
			assert.ok(EXPECT[u.id], `${u.id} is left out: ${JSON.stringify(u)}`);
			assert.ok(u.reasons.some((r) => r.includes(EXPECT[u.id])), `${u.id}: ${u.reasons}`);
		}
		assert.equal(status.unlisted.length, Object.values(EXPECT).filter(Boolean).length);
	});

	it('records the plugin of plugin and marketplace skills', () => {
		const rec = (id) => JSON.parse(fs.readFileSync(path.join(mnt, 'catalog', `${id}.json`)));
		assert.equal(rec('xlsx').plugin, 'document-skills');
		assert.equal(rec('lint').plugin, 'dev-tools');
		assert.equal(rec('helper').plugin, 'my-plugin');
		assert.equal('plugin' in rec('plain'), false);
	});

	it('SkillsClient lists the whole catalog without skipInvalid, and reads every file verified', async () => {
		const sc = new SkillsClient(c.client);
		const { skills, invalid } = await sc.list();
		assert.deepEqual(invalid, []);
		assert.deepEqual(skills.map((s) => s.uri).sort(), indexEntries(mnt).map((e) => e.uri).sort());
		let files = 0;
		for (const skill of skills)
			files += await readSkillVerified(sc, skill, mnt);
		assert.ok(files >= skills.length + 4, `every file read (${files})`);
	});
});
