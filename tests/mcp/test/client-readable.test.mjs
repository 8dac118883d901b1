// Differential test of the frontmatter the official SEP-2640 client can
// read.  SkillsClient.read() of @modelcontextprotocol/client reads a
// skill's SKILL.md with its own YAML-subset reader (parseSkillMarkdown,
// not exported) and refuses the skill unless it reads exactly the
// frontmatter that skills/list showed.  Hand-written frontmatters for
// every construct where that reader and libyaml part ways, and a few
// hundred generated ones, are mounted with skillsfs, and:
//  - every skill index.json lists reads back through SkillsClient.read()
//    (the client's own parser and deep comparison) without an error;
//  - every served skill that index.json leaves out only because the
//    client could not read it alike does fail SkillsClient.read() when
//    given an entry with skillsfs's frontmatter: the rule leaves out no
//    more than it must.
// skillsfs's frontmatter of a left-out skill (what index.json would show)
// comes from the library through tests/check/render_tool.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir, removeTempDir, mountSkills, indexEntries, writeSkill } from '../lib/mount.mjs';
import { connectV2, SkillsClient } from '../lib/clients.mjs';

const BUILD_ROOT = process.env.SKILLSFS_BUILD_ROOT ||
	path.resolve(import.meta.dirname, '../../../build');
const RENDER_TOOL = path.join(BUILD_ROOT, 'tests', 'check', 'render_tool');
const READABILITY = 'the official SEP-2640 client cannot read';

// ---- the samples ----------------------------------------------------------

// Each sample is the YAML after name and description (extra), or a whole
// SKILL.md (file, where NAME stands for the skill's name).  want, where
// given: 'listed', 'unlisted' (by the readability rule) or 'refused' (not
// served at all); the differential checks apply to every sample.  over:
// a deliberate exception, left out though the client would read it alike.

// Samples of one verdict (want, or null where none is set), each the
// YAML after name and description (extras) or a whole SKILL.md (files).
const extras = (want, ...texts) => texts.map((extra) => ({ extra, want }));
const files = (want, ...texts) => texts.map((file) => ({ file, want }));

const HAND = [
	// quoted scalars
	...extras('listed',
		'sample: "one line"\n',
		"sample: 'it''s'\n",
		'sample: "\\t\\n\\e\\/\\N\\_\\L\\P\\u00e9\\U0001F600\\x41"\n'),
	...extras('unlisted',
		'sample: "multi\n  line"\n',
		"sample: 'multi\n  line'\n",
		'sample: "a\\\n  b"\n',
		'sample: "a\\0b"\n',
		'sample: "\\x00"\n',
		'sample: "\\u0000"\n'),
	// tags
	...extras('unlisted',
		'sample: !!str 5\n',
		'sample: !!str text\n',
		'sample: ! x\n',
		'sample: !custom x\n',
		'sample: !!map {a: b}\n',
		'sample: !!seq\n  - a\n',
		'sample:\n  - !!int "3"\n',
		'!!str sample: x\n'),
	// flow collections
	...extras('listed',
		'sample: [a, b, "c d", 1, true, null]\n',
		'sample: {a: 1, "b": two, c: [x, y]}\n',
		'sample: [{a: b}]\n',
		'sample: {"a":b}\n',
		'sample: [http://x.y/z, a:b]\n',
		'sample: [a, [b, {c: d}], []]\n',
		'sample: []\nother: {}\n'),
	...extras('unlisted',
		'sample: [a,\n  b]\n',
		'sample: {a: 1,\n  b: 2}\n',
		'sample: [\n  a, b\n  ]\n',
		'sample: [a: b]\n',
		'sample: {a:b}\n',
		'sample: {a: }\n',
		'sample: {a, b: c}\n'),
	...extras(null,
		'sample: {a :b}\n',
		'sample: {? a : b}\n',
		'sample: [1, 2, ]\n'),
	// block scalars
	...extras('listed',
		'sample: |\n  line one\n  line two\n',
		'sample: |+\n  keep\n\n',
		'sample: |-\n  strip\n\n',
		'sample: >\n  a\n  b\n\n  c\n',
		'sample: >\n  a\n    more\n  b\n\n    more2\n  c\n',
		'sample: > # comment\n  folded\n',
		'sample: |\n\n  after a blank\n',
		'sample: |\n  a\n  \tb tab after the indentation\n'),
	...extras('unlisted',
		'sample: |2\n    indented\n',
		'sample: >-1\n  x\n',
		'sample: |-2\n   x\n',
		'sample: >+\n    \n  #x\n'),
	...extras(null,
		'sample: |\n      \n  leading wide blank\n',
		'sample:\n  - |\n     \n    x\n  - k: |\n        \n      y\n',
		'sample: |\n  a\n\tb\n',
		'sample: |\n  a\n \t\nnext: x\n',
		'sample: >\n  a\n  \tb\n  c\n'),
	// BOM, line breaks
	...extras(null,
		'\uFEFFsample: x\n',
		'sample: a\uFEFFb\n',
		'sample: "a\uFEFFb"\n',
		'sample: a\u0085b\n',
		'sample: a\u2028b\n',
		'sample: "a\u2029b"\n',
		'sample: a\rb\n',
		'other: x\n\uFEFFsample: y\n'),
	...extras('unlisted',
		'sample:\n\uFEFF  - b\n',
		"sample: ['a \u2028b']\n",
		'sample: [a \u2028b]\n'),
	...extras('listed',
		"sample: 'a\u2028b'\n",
		"sample: ['a\u2028b', {k: \"c\u2029d\"}]\n",
		'sample: [a\u2028b, {k: c\u2029d}]\n'),
	// deliberately left out though the client reads it alike: a NEL or
	// a lone CR is judged wherever it stands, comments included
	{ extra: "sample: 'a' # \u0085\n", want: 'unlisted', over: true },
	{ extra: 'sample: a # c\r  \n', want: 'unlisted', over: true },
	...extras(null,
		'sample: [a, "b\u0085c", d]\n',
		'sample: |\n  a\u2028b\n',
		'sample: "a" # x\u2028y\n',
		'sample: [a, -]\n',
		'sample: [a, -b, :c, ?d]\n',
		'sample: {a: -}\n'),
	...files('listed',
		'\uFEFF---\nname: NAME\ndescription: D.\n---\nbody\n',
		'---\r\nname: NAME\r\ndescription: D.\r\nsample: |\r\n  a\r\n  b\r\n---\r\nbody\r\n'),
	// tabs
	...extras(null,
		'sample: foo\n\tbar\n',
		'sample: foo\n  \tbar\n',
		'sample:\n  -\tkey: v\n',
		'sample:\n  - \tkey: v\n',
		'sample: x\n\t# a comment after a tab\n'),
	...extras('listed',
		'sample:\tx\n'),
	...extras('refused',
		'sample:\n  -\tv\n'),
	// keys
	...extras('refused',
		'sample: 1\nsample: 2\n'),
	...extras('unlisted',
		'1: x\n',
		'true: x\n',
		'null: x\n',
		'~: x\n',
		'0x10: x\n',
		'.inf: x\n',
		'"sample" : x\n',
		'? sample\n: x\n',
		'? sample\n',
		'sample:\n  ? a\n  : b\n',
		'sample:\n  __proto__: x\n',
		'sample: [{"__proto__": x}]\n'),
	...extras('listed',
		'yes: x\n',
		'"1": x\n',
		"'true': x\n",
		'"sa:mple": x\n',
		'sa:mple: x\n',
		'sample  : x\n',
		'constructor: x\ntoString: y\n'),
	// plain scalars: comments and continuation
	...extras('refused',
		'sample: foo # c\n  bar\n',
		'sample: a: b\n'),
	...extras(null,
		'sample: foo\n  # c\n  bar\n'),
	...extras('listed',
		'sample: a#b c\n',
		'sample: a\n  b\n\n  c\n',
		'sample:\n  a\n  b\n',
		'sample:\n  - a\n   b\n',
		'sample:\n- a\n- b\n',
		'sample: -x ?y :z\n',
		'sample: ?q\n',
		'sample:\n  a:\n    b: [1, 2]\n    c:\n      - d: e\n        f: g\n'),
	...extras('unlisted',
		'sample:\n  - ?q\n',
		'sample:\n  ?q\n',
		'sample:\n  - - ?q\n'),
	// typing: the client's YAML 1.2 core schema against frontmatter.c
	...['yes', 'no', 'on', 'off', 'y', 'n', 'Yes', 'OFF'].map((v) => ({ extra: `sample: ${v}\n`, want: 'listed' })),
	...['0o17', '0x1F', '0x1f', '0o8', '0777', '1_000', '2024-01-01', '12:30:00', '0b101',
		'+5', '-0', '1.', '.5', '1e3', '1E-3', '+1.5e+2', '12345678901234567890',
		'1e-400', '0x20000000000001', '9007199254740993', '3.14159265358979312', '0.1', '1e22', '1e23', '0xFFFFFFFFFFFFFFFF', '0o1777777777777777777777',
		'~', 'null', 'Null', 'NULL', 'nULL', 'true', 'True', 'TRUE', 'tRUE', '""', "''",
		'.', '-', '+', '.e1', '1e', '0x', '0o', '+0x1F', '-0o7', '+.inf2', 'inf', 'nan', 'NaN']
		.map((v) => ({ extra: `sample: ${v}\n` })),
	...['.inf', '-.inf', '+.Inf', '.INF', '.nan', '.NaN', '.NAN', '1e400', '-1e400',
		'0x' + 'f'.repeat(17), '0o' + '7'.repeat(23)]
		.map((v) => ({ extra: `sample: ${v}\n`, want: 'unlisted' })),
	...extras('unlisted',
		'sample: [.inf, 1]\n'),
	...extras('listed',
		'metadata:\n  version: "1.0"\n  count: "3"\n'),
	// unicode
	...extras('listed',
		'sample: héllo wörld ✓ 😀\n',
		'sample: "日本語: テキスト"\n',
		'clé: ünïcödé\n'),
	// fences and the document

	...files('unlisted',
		'--- \nname: NAME\ndescription: D.\n---\nbody\n',
		'---\nname: NAME\ndescription: D.\n...\nbody\n',
		'---\n{name: NAME, description: D.}\n---\nbody\n',
		'---\nname: NAME\ndescription: "A quoted\n  description."\n---\nbody\n'),
	...files('listed',
		'---\nname: NAME\ndescription: D.\n---  \nbody\n',
		'---\n  name: NAME\n  description: D.\n---\nbody\n',
		'---\n# a comment\nname: NAME # trailing\ndescription: D.\n\n---\nbody\n',
		'---\nname: NAME\ndescription: >-\n  Folded\n  description.\n---\nbody\n'),
];

// A small deterministic generator (mulberry32), so that a failure names a
// sample that the next run makes again.
function rng(seed) {
	return () => {
		seed |= 0;
		seed = (seed + 0x6D2B79F5) | 0;
		let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const WORDS = ['alpha', 'Use when: x', 'a # b', 'a#b', 'x: y', 'it\'s', 'say "hi"', 'ünï', '😀 ok',
	'a\u2028b', 'a\u0085b', '\uFEFFa', 'a  b', '- a', '? b', '#x', 'a #', '0.1e1', '-.5', 'TRUE', '~x',
	'1.0', '007', '0x1A', '0o17', 'yes', 'null', '~', 'true', '.inf', '1e999', '-', '?q', ':c',
	'@at', '`tick', '%pct', '&amp', '*star', '!bang', '|pipe', '>gt', '[br', '{cu', 'a, b',
	'tab\there', 'trail ', '', 'back\\slash', 'url http://x', '2024-01-01', '1_000'];

function pick(r, list) {
	return list[Math.floor(r() * list.length)];
}

// One value written in one of the ways YAML allows.
function scalar(r, w) {
	switch (Math.floor(r() * 7)) {
	case 0: return w;
	case 1: return `'${w.replaceAll("'", "''")}'`;
	case 2: return JSON.stringify(w);
	case 3: return `${w} # note`;
	case 4: return `"${w.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}\n  ${pick(r, WORDS)}"`;
	case 5: return `${w}\n  ${pick(r, WORDS)}`;
	default: return `!!str ${w}`;
	}
}

// A block scalar of a few lines, some more indented, some blank or
// holding only blanks, some with trailing blanks or a tab.
function blockScalar(r) {
	let text = `sample: ${pick(r, ['|', '>', '|-', '>-', '|+', '>+', '| # c', '>2'])}\n`;
	const lines = 1 + Math.floor(r() * 5);
	for (let k = 0; k < lines; k++) {
		const kind = Math.floor(r() * 6);
		if (kind === 0)
			text += '\n';
		else if (kind === 1)
			text += ' '.repeat(Math.floor(r() * 5)) + '\n';
		else
			text += '  ' + ' '.repeat(kind === 2 ? 1 + Math.floor(r() * 3) : 0) +
				(kind === 3 ? '\t' : '') + pick(r, WORDS) + (kind === 4 ? '  ' : '') + '\n';
	}
	return text + (r() < 0.5 ? 'after: x\n' : '');
}

function generated(count) {
	const r = rng(2640);
	const out = [];
	for (let i = 0; i < count; i++) {
		const w = pick(r, WORDS), v = scalar(r, w);
		const block = v.includes('\n') ? v.replace(/\n {2}/g, '\n    ') : v;
		switch (Math.floor(r() * 10)) {
		case 0: out.push({ extra: `sample: ${v}\n` }); break;
		case 1: out.push({ extra: `sample:\n  - ${block}\n  - ${scalar(r, pick(r, WORDS))}\n` }); break;
		case 2: out.push({ extra: `sample:\n  inner: ${block}\n` }); break;
		case 3: out.push({ extra: `sample: [${w.includes(',') ? JSON.stringify(w) : v}, ${pick(r, WORDS)}]\n` }); break;
		case 4: out.push({ extra: `sample: {k: ${v}}\n` }); break;
		case 5: out.push({ extra: `sample: ${pick(r, ['|', '>', '|-', '>+', '|2', '>-'])}\n  ${w}\n${r() < 0.5 ? '\n' : ''}  ${pick(r, WORDS)}\n` }); break;
		case 8: out.push({ extra: blockScalar(r) }); break;
		case 9: out.push({ extra: `sample:\n  a:\n    - b: ${v.replace(/\n {2}/g, '\n        ')}\n      c: [${pick(r, WORDS.filter((x) => !/[,[\]{}]/.test(x)))}, {d: ${JSON.stringify(w)}}]\n` }); break;
		case 6: out.push({ extra: `metadata:\n  ${pick(r, ['k', '"k"', 'k k', '1'])}: ${v}\n` }); break;
		default: out.push({ extra: `${pick(r, ['s', '"s"', "'s'", 'on', '12', 's s'])}: ${v}\n` }); break;
		}
	}
	return out;
}

const SAMPLES = [...HAND, ...generated(400)];
const nameOf = (i) => `c${i}`;
const textOf = (s, i) => s.file ? s.file.replaceAll('NAME', nameOf(i)) :
	`---\nname: ${nameOf(i)}\ndescription: Sample ${i}.\n${s.extra}---\n# Body\n`;
const label = (s, i) => `${nameOf(i)} ${JSON.stringify(s.file ?? s.extra)}`;

// ---- the test ----------------------------------------------------------

describe('what index.json lists, the official client reads alike', () => {
	let src, fx, mnt, c, sc, listed, unlisted, frontmatters;
	before(async () => {
		src = makeTempDir('readable');
		SAMPLES.forEach((s, i) => writeSkill(src, nameOf(i), { 'SKILL.md': textOf(s, i) }));
		fx = await mountSkills(src);
		mnt = fs.realpathSync(fx.mnt);
		c = await connectV2(['--mount', fx.mnt]);
		sc = new SkillsClient(c.client);
		listed = new Map(indexEntries(mnt).map((e) => [e.frontmatter.name, e]));
		const status = JSON.parse(fs.readFileSync(path.join(mnt, 'status.json')));
		unlisted = new Map(status.unlisted.map((u) => [u.id, u.reasons]));
		const rt = spawnSync(RENDER_TOOL, ['--skills-dir', src, 'frontmatters'], { encoding: 'utf8' });
		assert.equal(rt.status, 0, rt.stderr);
		frontmatters = JSON.parse(rt.stdout);
	});
	after(async () => {
		await c?.close();
		await fx?.unmount();
		if (src)
			removeTempDir(src);
	});

	const served = (i) => Object.hasOwn(frontmatters, nameOf(i));

	it('lists what each hand-written sample expects', () => {
		const wrong = [];
		HAND.forEach((s, i) => {
			if (!s.want)
				return;
			const got = listed.has(nameOf(i)) ? 'listed' :
				(unlisted.get(nameOf(i)) ?? []).some((r) => r.startsWith(READABILITY)) ? 'unlisted' :
				served(i) ? `unlisted for ${unlisted.get(nameOf(i))}` : 'refused';
			if (got !== s.want)
				wrong.push(`${label(s, i)}: want ${s.want}, got ${got}`);
		});
		assert.deepEqual(wrong, []);
	});

	it('SkillsClient lists the whole catalog without skipInvalid', async () => {
		const { skills, invalid } = await sc.list();
		assert.deepEqual(invalid, []);
		assert.equal(skills.length, listed.size);
		// the generated samples reach every outcome
		const outcomes = SAMPLES.map((s, i) => listed.has(nameOf(i)) ? 'l' : served(i) ? 'u' : 'r');
		console.log(`samples: ${SAMPLES.length}; listed ${outcomes.filter((x) => x === 'l').length}, ` +
			`left out ${outcomes.filter((x) => x === 'u').length}, not served ${outcomes.filter((x) => x === 'r').length}`);
		for (const o of ['l', 'u', 'r'])
			assert.ok(outcomes.filter((x) => x === o).length >= 20, `outcome ${o}: ${outcomes.join('')}`);
	});

	it('every listed skill reads back through the client\'s own parser, equal', async () => {
		const failed = [];
		for (const [i, s] of SAMPLES.entries()) {
			const entry = listed.get(nameOf(i));
			if (!entry)
				continue;
			assert.deepEqual(entry.frontmatter, frontmatters[nameOf(i)], label(s, i));
			try {
				const doc = await sc.read(entry);
				assert.deepEqual(doc.frontmatter, entry.frontmatter);
			} catch (err) {
				failed.push(`${label(s, i)}: ${err.message}`);
			}
		}
		assert.deepEqual(failed, []);
	});

	it('every skill left out for the client\'s reader is one the client cannot read alike', async () => {
		const readable = [], over = [];
		let judged = 0;
		for (const [i, s] of SAMPLES.entries()) {
			const reasons = unlisted.get(nameOf(i));
			if (!reasons || !reasons.every((r) => r.startsWith(READABILITY)))
				continue;
			judged++;
			// skills/get does not answer for a left-out skill; its entry
			// is what index.json would list, read as a "dynamic" skill
			// (the client still parses and compares the frontmatter)
			const entry = { uri: `skill://${nameOf(i)}/SKILL.md`,
				frontmatter: frontmatters[nameOf(i)], resources: 'dynamic' };
			try {
				await sc.read(entry);
				(s.over ? over : readable).push(`${label(s, i)}: ${reasons}`);
			} catch (err) {
				assert.equal(err.reason, 'frontmatter', `${label(s, i)}: ${err.message}`);
			}
		}
		assert.ok(judged >= 40, `${judged} samples left out for the reader`);
		assert.deepEqual(readable, []);
		// the deliberate exceptions are still exceptions
		assert.equal(over.length, SAMPLES.filter((s) => s.over).length, over.join('\n'));
	});
});
