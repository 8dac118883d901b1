// Test fixture: a copy of the example skills (plus extra test skills) in a
// temporary folder, served by a skillsfs mount in another temporary folder.
//
// Every mount is waited for by polling with a deadline (never a bare sleep),
// fails at once with the daemon's stderr when the daemon exits early, and is
// always unmounted again: by the caller's after()/finally, and as a last
// resort when this process exits.
import { spawn, spawnSync } from 'node:child_process';
import { before, after } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const SOURCE_ROOT = process.env.SKILLSFS_SOURCE_ROOT ||
	path.resolve(here, '../../..');
const BUILD_ROOT = process.env.SKILLSFS_BUILD_ROOT ||
	path.join(SOURCE_ROOT, 'build');
export const SKILLSFS = process.env.SKILLSFS ||
	path.join(BUILD_ROOT, 'fs', 'skillsfs');
export const SKILLSFS_MCP = process.env.SKILLSFS_MCP ||
	path.join(BUILD_ROOT, 'mcp', 'skillsfs-mcp');
export const EXAMPLE_SKILLS = path.join(SOURCE_ROOT, 'tests', 'skills');

const MOUNT_DEADLINE_MS = 20000;
const UNMOUNT_DEADLINE_MS = 10000;

const liveMounts = new Set();	// mount points still to be unmounted
const tempDirs = new Set();	// temporary folders still to be removed

const liveDaemons = new Set();	// skillsfs processes started here

// Last resort: a test that crashed, or was killed by the runner's timeout,
// must not leave a mount behind.
function lastResortCleanup() {
	for (const mnt of liveMounts) {
		spawnSync('fusermount3', ['-uz', mnt], { stdio: 'ignore' });
		spawnSync('umount', ['-l', mnt], { stdio: 'ignore' });
	}
	for (const daemon of liveDaemons)
		daemon.kill('SIGKILL');
	for (const dir of tempDirs)
		fs.rmSync(dir, { recursive: true, force: true });
}
process.on('exit', lastResortCleanup);
for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
	process.on(sig, () => {
		lastResortCleanup();
		process.exit(128 + os.constants.signals[sig]);
	});
}

export function sleep(ms) {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

// Polls check() every few ms until it returns a truthy value, and returns it;
// throws with what() in the message when the deadline passes first.
export async function waitUntil(check, { timeoutMs = 10000, intervalMs = 25,
	what = 'condition' } = {}) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value)
			return value;
		if (Date.now() > deadline)
			throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
		await sleep(intervalMs);
	}
}

// A mount made by someone else (the server under test) that the last-resort
// cleanup must remove too.
export function protectMount(mnt) {
	liveMounts.add(mnt);
}

export function makeTempDir(prefix) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), `skillsfs-mcp-${prefix}-`));
	tempDirs.add(dir);
	return dir;
}

export function removeTempDir(dir) {
	fs.rmSync(dir, { recursive: true, force: true });
	tempDirs.delete(dir);
}

// Mount point (field 5) and filesystem type (after the " - " separator) of
// every line of /proc/self/mountinfo, octal escapes undone.
export function mountTable() {
	const unescape = (s) => s.replace(/\\([0-7]{3})/g,
		(_, o) => String.fromCharCode(parseInt(o, 8)));
	return fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n')
		.filter(Boolean).map((line) => {
			const fields = line.split(' ');
			const sep = fields.indexOf('-');
			return {
				mountPoint: unescape(fields[4]),
				fsType: fields[sep + 1],
				source: unescape(fields[sep + 2] ?? ''),
			};
		});
}

export function mountEntry(dir) {
	const real = fs.realpathSync(dir);
	const hits = mountTable().filter((m) => m.mountPoint === real);
	return hits.length ? hits[hits.length - 1] : null;
}

export function isMounted(dir) {
	try {
		return mountEntry(dir) !== null;
	} catch {
		return false;
	}
}

// ---- skill sources ----------------------------------------------------

// Writes a skill folder: files maps relative paths to string or Buffer.
export function writeSkill(root, relDir, files) {
	for (const [rel, content] of Object.entries(files)) {
		const file = path.join(root, relDir, rel);
		fs.mkdirSync(path.dirname(file), { recursive: true });
		fs.writeFileSync(file, content);
	}
}

export function skillMd(frontmatter, body) {
	return `---\n${frontmatter.trim()}\n---\n${body}`;
}

// A valid 1x1 PNG: binary, with NUL bytes and bytes that are not UTF-8.
export const PNG_1X1 = Buffer.from(
	'89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489' +
	'0000000d49444154789c6360f8cfc0f01f0005000201a8a7f3460000000049454e44ae426082',
	'hex');

// Bytes that are certainly not text.
export const RANDOM_BINARY = Buffer.from(Array.from({ length: 300 },
	(_, i) => (i * 167 + 13) % 256));

// Extra skills that exercise what the example skills do not.
export const EXTRA_SKILLS = {
	// Binary files, an empty file, a nested folder, a tag used nowhere else.
	'binary-assets': {
		'SKILL.md': skillMd(`
name: binary-assets
description: Ship a logo and an icon set with generated documents. Use when a document needs the team's branding.
x-personal-mcp:
  id: binary-assets
  version: 0.3.1
  tags:
    - quokka
    - branding
  capabilities:
    - resource://skills/binary-assets/document
`, '# Binary assets\n\nCopy `assets/logo.png` next to the document.\n'),
		'assets/logo.png': PNG_1X1,
		'assets/icons/blob.bin': RANDOM_BINARY,
		'assets/empty.txt': '',
		'notes/unicode.md': '# Ünïcödé\n\nText that is UTF-8 but not ASCII: ✓ ☃ 🦘\n',
	},
	// Left out of list_skills, still a prompt (user-invocable by default).
	'hidden-helper': {
		'SKILL.md': skillMd(`
name: hidden-helper
description: Internal helper that only a user may start. Use only when explicitly asked to run the hidden helper.
disable-model-invocation: true
`, '# Hidden helper\n\nOnly a person starts this one.\n'),
	},
	// Listed for the model, but not a prompt.
	'model-only': {
		'SKILL.md': skillMd(`
name: model-only
description: Tidy the imports of a Python module. Use when imports are unsorted or unused.
user-invocable: false
`, '# Model only\n\nSort imports: standard library, third party, local.\n'),
	},
};

// A temporary copy of tests/skills plus extra skills; returns its path.
export function makeSkillSource({ examples = true, extra = EXTRA_SKILLS } = {}) {
	const src = makeTempDir('src');
	if (examples)
		fs.cpSync(EXAMPLE_SKILLS, src, { recursive: true, preserveTimestamps: true });
	for (const [id, files] of Object.entries(extra))
		writeSkill(src, id, files);
	return src;
}

// ---- mounting ----------------------------------------------------------

// Collects a child's stderr (bounded) for error messages.
export function collectStderr(child) {
	let text = '';
	child.stderr?.on('data', (chunk) => {
		if (text.length < 65536)
			text += chunk.toString('utf8');
	});
	return () => text;
}

// One mounted source for a whole test file: before() makes a temporary
// folder, lets fill(src) write the skills, and mounts it; after() unmounts
// and removes it.  The returned object's src, fx (the mountSkills handle)
// and mnt (its real path) are set once before() has run.
export function mountedSource(prefix, fill) {
	const m = { src: null, fx: null, mnt: null };
	before(async () => {
		m.src = makeTempDir(prefix);
		await fill(m.src);
		m.fx = await mountSkills(m.src);
		m.mnt = fs.realpathSync(m.fx.mnt);
	});
	after(async () => {
		await m.fx?.unmount();
		if (m.src)
			removeTempDir(m.src);
	});
	return m;
}

// Mounts SRC with `skillsfs MNT --skills-dir SRC -f` and waits until MNT is a
// mount and MNT/index.json is readable.  Returns {mnt, src, daemon, stderr,
// unmount}.  unmount() is idempotent and never throws.
export async function mountSkills(src, { mnt = makeTempDir('mnt'),
	args = [] } = {}) {
	if (!fs.existsSync(SKILLSFS))
		throw new Error(`skillsfs binary not found at ${SKILLSFS} (set SKILLSFS)`);
	const daemon = spawn(SKILLSFS, [mnt, '--skills-dir', src, '-f', ...args],
		{ stdio: ['ignore', 'ignore', 'pipe'] });
	const stderr = collectStderr(daemon);
	liveMounts.add(mnt);
	liveDaemons.add(daemon);
	daemon.once('exit', () => liveDaemons.delete(daemon));
	let exited = null;
	const exitPromise = new Promise((resolve) => daemon.once('exit',
		(code, signal) => { exited = { code, signal }; resolve(exited); }));
	daemon.once('error', (err) => { exited = { error: err }; });

	const handle = { mnt, src, daemon, stderr, exitPromise, unmount: null };
	handle.unmount = () => unmountSkills(handle);
	try {
		await waitUntil(() => {
			if (exited)
				throw new Error(`skillsfs exited before the mount was ready ` +
					`(${JSON.stringify(exited)}); stderr:\n${stderr()}`);
			if (!isMounted(mnt))
				return false;
			try {
				fs.readFileSync(path.join(mnt, 'index.json'));
				return true;
			} catch {
				return false;
			}
		}, { timeoutMs: MOUNT_DEADLINE_MS, what: `skillsfs to mount ${mnt}` });
	} catch (err) {
		await handle.unmount();
		err.message += `\nskillsfs stderr:\n${stderr()}`;
		throw err;
	}
	return handle;
}

export async function unmountSkills(handle) {
	const { mnt, daemon } = handle;
	if (isMounted(mnt)) {
		if (spawnSync('fusermount3', ['-u', mnt], { stdio: 'ignore' }).status !== 0)
			spawnSync('fusermount3', ['-uz', mnt], { stdio: 'ignore' });
	}
	const gone = () => daemon.exitCode !== null || daemon.signalCode !== null;
	try {
		await waitUntil(gone, { timeoutMs: UNMOUNT_DEADLINE_MS,
			what: 'skillsfs to exit after unmount' });
	} catch {
		daemon.kill('SIGTERM');
		try {
			await waitUntil(gone, { timeoutMs: 3000, what: 'skillsfs to exit' });
		} catch {
			daemon.kill('SIGKILL');
		}
	}
	if (isMounted(mnt)) {
		spawnSync('fusermount3', ['-uz', mnt], { stdio: 'ignore' });
		spawnSync('umount', ['-l', mnt], { stdio: 'ignore' });
	}
	if (!isMounted(mnt)) {
		liveMounts.delete(mnt);
		fs.rmSync(mnt, { recursive: true, force: true });
		tempDirs.delete(mnt);
	}
}

// The usual fixture: example + extra skills, mounted.  Call cleanup() in
// after(); it unmounts and removes both temporary folders.
export async function mountedFixture(opts = {}) {
	const src = makeSkillSource(opts);
	const handle = await mountSkills(src);
	handle.cleanup = async () => {
		await handle.unmount();
		removeTempDir(src);
	};
	return handle;
}

// The usual fixture for a whole test file: mounted in before(), unmounted in
// after().  The object returned is filled in before(): fx, the handle; mnt,
// its real path; and with tempDir, a temporary folder `dir` of that prefix,
// removed in after() too.
export function fixtureForFile({ tempDir } = {}) {
	const shared = {};
	before(async () => {
		shared.fx = await mountedFixture();
		shared.mnt = fs.realpathSync(shared.fx.mnt);
		if (tempDir)
			shared.dir = makeTempDir(tempDir);
	});
	after(async () => {
		await shared.fx?.cleanup();
		if (shared.dir)
			removeTempDir(shared.dir);
	});
	return shared;
}

// ---- reading what the mount serves -----------------------------------

// The entries of MNT/index.json, one per line as the design fixes it.
export function indexEntries(mnt) {
	const text = fs.readFileSync(path.join(mnt, 'index.json'), 'utf8');
	const lines = text.split('\n');
	if (lines[0] !== '{"skills":[')
		throw new Error(`index.json does not start with {"skills":[ : ${lines[0]}`);
	const body = lines.slice(1).filter((l) => l !== '' && l !== ']}');
	return body.map((l) => JSON.parse(l.endsWith(',') ? l.slice(0, -1) : l));
}

export function skillIds(mnt) {
	return indexEntries(mnt).map((e) => e.frontmatter.name);
}

// Splits SKILL.md text into [frontmatter text, body].
export function splitFrontmatter(text) {
	const m = /^---\r?\n([\s\S]*?\r?\n)?---[ \t]*(\r?\n|$)/.exec(text);
	if (!m)
		throw new Error('SKILL.md has no frontmatter');
	return [m[1] ?? '', text.slice(m[0].length)];
}

// Every regular file of a skill in the mount, as paths relative to it.
export function skillFiles(mnt, id) {
	const root = path.join(mnt, 'skills', id);
	const out = [];
	const walk = (rel) => {
		for (const ent of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
			const r = rel ? `${rel}/${ent.name}` : ent.name;
			const st = fs.statSync(path.join(root, r));
			if (st.isDirectory())
				walk(r);
			else if (st.isFile())
				out.push(r);
		}
	};
	walk('');
	return out.sort();
}
