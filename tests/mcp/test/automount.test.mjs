// `skillsfs-mcp --mount MNT --skills-dir SRC`: mounts MNT itself when
// nothing is mounted there, and unmounts it on exit; leaves an existing
// mount alone; and refuses a MNT that is no skillsfs mount without
// --skills-dir.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { makeSkillSource, makeTempDir, removeTempDir, mountSkills, isMounted, mountEntry,
	waitUntil, collectStderr, protectMount, SKILLSFS_MCP } from '../lib/mount.mjs';
import { connectV1 } from '../lib/clients.mjs';
import { listPage, checkToolResult } from '../lib/expect.mjs';
import { RawServer } from '../lib/raw.mjs';

const cleanups = [];
after(async () => {
	for (const fn of cleanups.reverse())
		await fn();
});

// Make sure a mount made by the server under test never outlives the test.
function guard(mnt) {
	protectMount(mnt);
	cleanups.push(async () => {
		if (isMounted(mnt)) {
			spawnSync('fusermount3', ['-u', mnt], { stdio: 'ignore' });
			if (isMounted(mnt))
				spawnSync('fusermount3', ['-uz', mnt], { stdio: 'ignore' });
		}
		removeTempDir(mnt);
	});
}

describe('auto-mount', () => {
	it('mounts MNT when nothing is mounted there, serves it, and unmounts on exit', async () => {
		const src = makeSkillSource();
		cleanups.push(() => removeTempDir(src));
		const mnt = makeTempDir('auto');
		guard(mnt);
		assert.ok(!isMounted(mnt));
		const c = await connectV1(['--mount', mnt, '--skills-dir', src]);
		let pid;
		try {
			pid = c.transport.pid;
			assert.ok(isMounted(mnt), 'MNT is a mount once the server answers');
			assert.equal(mountEntry(mnt).fsType, 'fuse.skillsfs', 'a skillsfs mount');
			const res = await c.client.callTool({ name: 'list_skills', arguments: {} });
			const skills = listPage(checkToolResult(res, 'list_skills')).skills;
			assert.ok(skills.some((s) => s.id === 'pdf-forms'), 'serves the skills of SRC');
			for (const s of skills)
				assert.ok(s.path.startsWith(fs.realpathSync(mnt) + '/'), `${s.id}: path inside MNT`);
			const md = await c.client.readResource({ uri: 'skill://csv-report/SKILL.md' });
			assert.equal(md.contents[0].text, fs.readFileSync(path.join(src, 'csv-report/SKILL.md'), 'utf8'));
		} finally {
			await c.close();
		}
		await waitUntil(() => !isMounted(mnt), { timeoutMs: 10000, what: 'MNT to be unmounted after exit' });
		await waitUntil(() => {
			try {
				process.kill(pid, 0);
				return false;
			} catch {
				return true;
			}
		}, { timeoutMs: 10000, what: 'the server process to be gone' });
	});

	it('EOF on stdin: exit 0 and MNT unmounted', async () => {
		const src = makeSkillSource();
		cleanups.push(() => removeTempDir(src));
		const mnt = makeTempDir('auto-eof');
		guard(mnt);
		const s = new RawServer(['--mount', mnt, '--skills-dir', src]);
		try {
			await s.handshake();
			assert.ok(isMounted(mnt), 'mounted while serving');
			const exit = await s.close({ timeoutMs: 10000 });
			assert.deepEqual(exit, { code: 0, signal: null });
		} finally {
			s.kill();
		}
		await waitUntil(() => !isMounted(mnt), { timeoutMs: 10000, what: 'MNT unmounted after EOF' });
	});

	it('an existing skillsfs mount is served as it is, and left mounted on exit', async () => {
		const src = makeSkillSource();
		cleanups.push(() => removeTempDir(src));
		const fx = await mountSkills(src);
		cleanups.push(() => fx.unmount());
		const other = makeSkillSource({ examples: false, extra: {} });
		cleanups.push(() => removeTempDir(other));
		const s = new RawServer(['--mount', fx.mnt, '--skills-dir', other]);
		try {
			await s.handshake();
			const r = await s.request('tools/call', { name: 'list_skills', arguments: {} });
			const ids = listPage(r.result.structuredContent).skills.map((x) => x.id);
			assert.ok(ids.includes('pdf-forms'), 'serves what is mounted, not the other --skills-dir');
			const exit = await s.close({ timeoutMs: 10000 });
			assert.deepEqual(exit, { code: 0, signal: null });
		} finally {
			s.kill();
		}
		assert.ok(isMounted(fx.mnt), 'the mount it did not make is still there');
		assert.ok(fs.existsSync(path.join(fx.mnt, 'index.json')));
	});
});

describe('--mount without --skills-dir', () => {
	function runAgainst(mnt) {
		return new Promise((resolve) => {
			const child = spawn(SKILLSFS_MCP, ['--mount', mnt], { stdio: ['pipe', 'pipe', 'pipe'] });
			const stderr = collectStderr(child);
			let stdout = '';
			child.stdout.on('data', (d) => { stdout += d; });
			const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
			child.on('exit', (code, signal) => {
				clearTimeout(timer);
				resolve({ code, signal, stderr: stderr(), stdout });
			});
		});
	}

	it('an empty folder that is no mount: a clear error naming it, non-zero exit, nothing on stdout', async () => {
		const mnt = makeTempDir('not-a-mount');
		cleanups.push(() => removeTempDir(mnt));
		const r = await runAgainst(mnt);
		assert.equal(r.signal, null, 'exits by itself');
		assert.notEqual(r.code, 0, 'non-zero exit');
		assert.ok(r.stderr.includes(mnt), `stderr names ${mnt}: ${r.stderr}`);
		assert.equal(r.stdout, '', 'nothing on stdout');
	});

	it('a folder that does not exist: a clear error naming it', async () => {
		const mnt = path.join(makeTempDir('parent'), 'missing');
		cleanups.push(() => removeTempDir(path.dirname(mnt)));
		const r = await runAgainst(mnt);
		assert.notEqual(r.code, 0, 'non-zero exit');
		assert.ok(r.stderr.includes(mnt), `stderr names ${mnt}: ${r.stderr}`);
	});

	it('a mount of another filesystem: refused', async () => {
		const r = await runAgainst('/proc');
		assert.notEqual(r.code, 0, 'non-zero exit');
		assert.ok(r.stderr.includes('/proc'), `stderr names /proc: ${r.stderr}`);
	});
});
