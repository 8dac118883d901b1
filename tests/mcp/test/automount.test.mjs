// skillsfs-mcp as MCP clients start it: one line of configuration
// (--skills-dir, no --mount), many sessions at once, killed as they like.
// Every session is an official SDK client; every wait polls with a deadline.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { makeSkillSource, makeTempDir, removeTempDir, mountSkills, isMounted, mountEntry,
	waitUntil, collectStderr, protectMount, writeSkill, skillMd, SKILLSFS_MCP } from '../lib/mount.mjs';
import { connectV1, connectV2 } from '../lib/clients.mjs';
import { listPage, checkToolResult } from '../lib/expect.mjs';
import { RawServer } from '../lib/raw.mjs';
import { makeRunDir, runEnv, stateDir, keepers, mountsUnder, alive, waitAllGone,
	cleanRunDir } from '../lib/sessions.mjs';

const cleanups = [];
after(async () => {
	for (const fn of cleanups.reverse())
		await fn();
});

function source(opts) {
	const src = makeSkillSource(opts);
	cleanups.push(() => removeTempDir(src));
	return src;
}

// A source with one skill of its own, so two projects can be told apart.
function projectSource(id) {
	const src = source({ examples: false, extra: {} });
	writeSkill(src, id, { 'SKILL.md': skillMd(`name: ${id}\ndescription: The skill of project ${id}. Use in tests.`,
		`# ${id}\n`) });
	return src;
}

function runDir() {
	const run = makeRunDir();
	cleanups.push(() => cleanRunDir(run));
	return run;
}

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

async function listIds(c) {
	const res = await c.client.callTool({ name: 'list_skills', arguments: {} });
	return listPage(checkToolResult(res, 'list_skills')).skills;
}

// Connects a session; closes it at the end of the test file if the test
// did not.
async function session(args, run, connect = connectV1) {
	const c = await connect(args, { env: runEnv(run) });
	cleanups.push(() => c.close().catch(() => {}));
	return c;
}

// A session that automounted a new source in a new run folder, with a file
// of the mount held open (busy) so that a dead daemon leaves a busy mount.
async function sessionOnBusyMount() {
	const src = source();
	const run = runDir();
	const c1 = await session(['--skills-dir', src, '--linger', '1'], run);
	const [k] = keepers(run);
	const mnt = mountsUnder(run)[0].mountPoint;
	return { src, run, c1, k, mnt, busy: fs.openSync(path.join(mnt, 'index.json'), 'r') };
}

function killed(pid) {
	return waitUntil(() => !alive(pid), { timeoutMs: 10000, what: `pid ${pid} to be gone` });
}

describe('one line: --skills-dir without --mount', () => {
	it('mounts a private view under XDG_RUNTIME_DIR, serves it, and ends it after the linger', async () => {
		const src = source();
		const run = runDir();
		const c = await session(['--skills-dir', src, '--linger', '1'], run);
		const [k] = keepers(run);
		assert.ok(k, 'a keeper is recorded');
		const mounts = mountsUnder(run);
		assert.equal(mounts.length, 1, 'one mount');
		assert.equal(mounts[0].fsType, 'fuse.skillsfs');
		assert.equal(path.dirname(mounts[0].mountPoint), fs.realpathSync(stateDir(run)),
			'the mount is under $XDG_RUNTIME_DIR/skillsfs');
		assert.equal(fs.statSync(stateDir(run)).mode & 0o777, 0o700, 'the state folder is 0700');
		const skills = await listIds(c);
		assert.ok(skills.some((s) => s.id === 'pdf-forms'), 'serves the skills of SRC');
		for (const s of skills)
			assert.ok(s.path.startsWith(mounts[0].mountPoint + '/'), `${s.id}: path inside the mount`);
		const md = await c.client.readResource({ uri: 'skill://csv-report/SKILL.md' });
		assert.equal(md.contents[0].text, fs.readFileSync(path.join(src, 'csv-report/SKILL.md'), 'utf8'));
		const pid = c.transport.pid;
		await c.close();
		await waitAllGone(run, [pid, k.keeper, k.skillsfs]);
		assert.ok(!fs.existsSync(mounts[0].mountPoint), 'the mount point is removed');
		assert.deepEqual(fs.readdirSync(stateDir(run)), [], 'no lock file is left behind');
	});

	it('two projects with different roots at once: each sees only its own skills', async () => {
		const a = projectSource('alpha-only');
		const b = projectSource('beta-only');
		const run = runDir();
		const ca = await session(['--skills-dir', a, '--linger', '1'], run);
		const cb = await session(['--skills-dir', b, '--linger', '1'], run, connectV2);
		assert.equal(mountsUnder(run).length, 2, 'two mounts, one per set of roots');
		assert.deepEqual((await listIds(ca)).map((s) => s.id), ['alpha-only']);
		assert.deepEqual((await listIds(cb)).map((s) => s.id), ['beta-only']);
		const ks = keepers(run);
		await ca.close();
		await cb.close();
		await waitAllGone(run, ks.flatMap((k) => [k.keeper, k.skillsfs]));
	});

	it('the same roots named through a symlink share the mount; other order, another view', async () => {
		const a = projectSource('first-root');
		const b = projectSource('second-root');
		const link = path.join(makeTempDir('link'), 'a-link');
		cleanups.push(() => removeTempDir(path.dirname(link)));
		fs.symlinkSync(a, link);
		const run = runDir();
		const c1 = await session(['--skills-dir', a, '--skills-dir', b, '--linger', '1'], run);
		const c2 = await session(['--skills-dir', link, '--skills-dir', b, '--linger', '1'], run);
		assert.equal(mountsUnder(run).length, 1, 'one mount for one set of roots');
		const c3 = await session(['--skills-dir', b, '--skills-dir', a, '--linger', '1'], run);
		assert.equal(mountsUnder(run).length, 2, 'another order (another precedence) is another view');
		for (const c of [c1, c2, c3])
			assert.deepEqual((await listIds(c)).map((s) => s.id).sort(), ['first-root', 'second-root']);
		const ks = keepers(run);
		for (const c of [c1, c2, c3])
			await c.close();
		await waitAllGone(run, ks.flatMap((k) => [k.keeper, k.skillsfs]));
	});

	it('a relative --skills-dir means the folder the client started the server in', async () => {
		const a = projectSource('relative-one');
		const run = runDir();
		const s = new RawServer(['--skills-dir', path.basename(a), '--linger', '0'],
			{ env: { ...process.env, ...runEnv(run) }, cwd: path.dirname(a) });
		try {
			await s.handshake();
			const r = await s.request('tools/call', { name: 'list_skills', arguments: {} });
			assert.deepEqual(listPage(r.result.structuredContent).skills.map((x) => x.id), ['relative-one']);
			assert.deepEqual(await s.close({ timeoutMs: 10000 }), { code: 0, signal: null });
		} finally {
			s.kill();
		}
	});

	it('two sessions of one project share a mount; the first exits, the second keeps working', async () => {
		const src = source();
		const run = runDir();
		const c1 = await session(['--skills-dir', src, '--linger', '1'], run);
		const c2 = await session(['--skills-dir', src, '--linger', '1'], run, connectV2);
		assert.equal(mountsUnder(run).length, 1, 'one shared mount');
		assert.equal(keepers(run).length, 1, 'one keeper');
		const [k] = keepers(run);
		await c1.close();
		// Longer than the linger: the mount stays for the second session.
		const until = Date.now() + 2500;
		await waitUntil(() => Date.now() > until, { timeoutMs: 5000, what: 'the linger to pass' });
		assert.ok(alive(k.skillsfs), 'the daemon lives on');
		assert.ok((await listIds(c2)).some((s) => s.id === 'pdf-forms'), 'the second session still answers');
		const md = await c2.client.readResource({ uri: 'skill://csv-report/SKILL.md' });
		assert.match(md.contents[0].text, /csv/i);
		await c2.close();
		await waitAllGone(run, [k.keeper, k.skillsfs]);
	});

	it('a quick restart within the linger reuses the mount', async () => {
		const src = source();
		const run = runDir();
		const c1 = await session(['--skills-dir', src, '--linger', '30'], run);
		const [k1] = keepers(run);
		await c1.close();
		const c2 = await session(['--skills-dir', src, '--linger', '30'], run);
		const [k2] = keepers(run);
		assert.equal(k2.skillsfs, k1.skillsfs, 'the same daemon serves the new session');
		assert.ok((await listIds(c2)).length > 0);
		await c2.close();
	});

	it('SIGKILL of every session: no mount and no daemon left after the linger', async () => {
		const src = source();
		const run = runDir();
		const c1 = await session(['--skills-dir', src], run);
		const c2 = await session(['--skills-dir', src], run, connectV2);
		await listIds(c1);
		await listIds(c2);
		const [k] = keepers(run);
		const pids = [c1.transport.pid, c2.transport.pid];
		for (const pid of pids)
			process.kill(pid, 'SIGKILL');
		// The default linger (5 s): the deadline leaves room for it.
		await waitAllGone(run, [...pids, k.keeper, k.skillsfs], { timeoutMs: 30000 });
	});

	it('a crashed daemon under a busy mount: the next session, and the live one, recover', async () => {
		const { src, run, c1, k, mnt, busy } = await sessionOnBusyMount();
		try {
			process.kill(k.skillsfs, 'SIGKILL');
			await killed(k.skillsfs);
			const c2 = await session(['--skills-dir', src, '--linger', '1'], run);
			assert.ok((await listIds(c2)).some((s) => s.id === 'pdf-forms'), 'the next session answers');
			const live = mountsUnder(run);
			assert.equal(live.length, 1, `one mount, the new one: ${JSON.stringify(live)}`);
			assert.ok(fs.statfsSync(mnt), 'the new mount answers');
			assert.ok((await listIds(c1)).some((s) => s.id === 'pdf-forms'), 'the first session answers again');
			await c2.close();
		} finally {
			fs.closeSync(busy);
		}
		await c1.close();
		await waitAllGone(run, keepers(run).flatMap((x) => [x.keeper, x.skillsfs]));
	});

	it('keeper and daemon both killed under a busy mount: the next session clears the dead mount', async () => {
		const { src, run, c1, k, mnt, busy } = await sessionOnBusyMount();
		const pid1 = c1.transport.pid;
		try {
			// Stopped, the keeper cannot clear up after its daemon.
			process.kill(k.keeper, 'SIGSTOP');
			process.kill(k.skillsfs, 'SIGKILL');
			process.kill(k.keeper, 'SIGKILL');
			process.kill(pid1, 'SIGKILL');
			await killed(k.keeper);
			await killed(k.skillsfs);
			assert.throws(() => fs.statfsSync(mnt), /ENOTCONN|ECONNABORTED/, 'the mount is dead');
			const c2 = await session(['--skills-dir', src, '--linger', '1'], run, connectV2);
			assert.ok((await listIds(c2)).some((s) => s.id === 'pdf-forms'), 'the next session answers');
			assert.equal(mountsUnder(run).length, 1, 'the dead mount is gone, one live mount');
			await c2.close();
		} finally {
			fs.closeSync(busy);
			await c1.close().catch(() => {});
		}
		await waitAllGone(run, keepers(run).flatMap((x) => [x.keeper, x.skillsfs]));
	});

	it('refuses a runtime folder others may write to', async () => {
		const run = runDir();
		fs.mkdirSync(stateDir(run), { mode: 0o777 });
		fs.chmodSync(stateDir(run), 0o777);
		const src = source();
		const r = await runOnce(['--skills-dir', src], { env: runEnv(run) });
		assert.notEqual(r.code, 0);
		assert.match(r.stderr, /refusing .*skillsfs as the runtime folder/);
		assert.match(r.stderr, /0777/);
		assert.equal(mountsUnder(run).length, 0, 'nothing mounted');
	});
});

// Runs skillsfs-mcp with stdin closed at once; its exit and output.
function runOnce(args, { env = {}, command = SKILLSFS_MCP, prefix = [] } = {}) {
	return new Promise((resolve) => {
		const child = spawn(command, [...prefix, ...args], { stdio: ['pipe', 'pipe', 'pipe'],
			env: { ...process.env, ...env } });
		const stderr = collectStderr(child);
		let stdout = '';
		child.stdout.on('data', (d) => { stdout += d; });
		child.stdin.end();
		const timer = setTimeout(() => child.kill('SIGKILL'), 20000);
		child.on('exit', (code, signal) => {
			clearTimeout(timer);
			resolve({ code, signal, stderr: stderr(), stdout });
		});
	});
}

describe('--mount MNT', () => {
	it('with --skills-dir and nothing mounted: mounts MNT, serves it, unmounts after the linger', async () => {
		const src = source();
		const run = runDir();
		const mnt = makeTempDir('auto');
		guard(mnt);
		const c = await session(['--mount', mnt, '--skills-dir', src, '--linger', '1'], run);
		assert.equal(mountEntry(mnt)?.fsType, 'fuse.skillsfs', 'a skillsfs mount');
		const skills = await listIds(c);
		assert.ok(skills.some((s) => s.id === 'pdf-forms'));
		for (const s of skills)
			assert.ok(s.path.startsWith(fs.realpathSync(mnt) + '/'), `${s.id}: path inside MNT`);
		const pid = c.transport.pid;
		await c.close();
		await waitUntil(() => !isMounted(mnt), { timeoutMs: 20000, what: 'MNT to be unmounted after exit' });
		await killed(pid);
	});

	it('EOF on stdin: exit 0, and MNT unmounted after the linger', async () => {
		const src = source();
		const run = runDir();
		const mnt = makeTempDir('auto-eof');
		guard(mnt);
		const s = new RawServer(['--mount', mnt, '--skills-dir', src, '--linger', '0'],
			{ env: { ...process.env, ...runEnv(run) } });
		try {
			await s.handshake();
			assert.ok(isMounted(mnt), 'mounted while serving');
			assert.deepEqual(await s.close({ timeoutMs: 10000 }), { code: 0, signal: null });
		} finally {
			s.kill();
		}
		await waitUntil(() => !isMounted(mnt), { timeoutMs: 20000, what: 'MNT unmounted after EOF' });
	});

	it('mounted with other roots: refused, naming both sets; never served', async () => {
		const src = source();
		const fx = await mountSkills(src);
		cleanups.push(() => fx.unmount());
		const other = projectSource('other-project');
		const run = runDir();
		const r = await runOnce(['--mount', fx.mnt, '--skills-dir', other], { env: runEnv(run) });
		assert.notEqual(r.code, 0, 'non-zero exit');
		assert.equal(r.stdout, '', 'nothing served');
		assert.match(r.stderr, /other roots/);
		assert.ok(r.stderr.includes(`mounted with: ${fs.realpathSync(src)}`), r.stderr);
		assert.ok(r.stderr.includes(`given: ${fs.realpathSync(other)}`), r.stderr);
		assert.ok(isMounted(fx.mnt), 'the mount it did not make is left alone');
	});

	it('mounted with the same roots: served as it is, and left mounted on exit', async () => {
		const src = source();
		const fx = await mountSkills(src);
		cleanups.push(() => fx.unmount());
		const run = runDir();
		const c = await session(['--mount', fx.mnt, '--skills-dir', src], run);
		assert.ok((await listIds(c)).some((s) => s.id === 'pdf-forms'));
		await c.close();
		assert.ok(isMounted(fx.mnt), 'the mount it did not make is still there');
		assert.equal(keepers(run).length, 0, 'no keeper was started');
		assert.deepEqual(fs.readdirSync(stateDir(run)), [], 'the last session removed its lock files');
	});

	it('an idle session holds nothing open: fusermount3 -u of the mount succeeds', async () => {
		const src = source();
		const fx = await mountSkills(src);
		cleanups.push(() => fx.unmount());
		const run = runDir();
		const c = await session(['--mount', fx.mnt], run, connectV2);
		assert.ok((await listIds(c)).length > 0);
		const got = await c.client.callTool({ name: 'get_skill', arguments: { id: 'pdf-forms' } });
		checkToolResult(got, 'get_skill');
		await c.client.readResource({ uri: 'skill://csv-report/SKILL.md' });
		const listed = await c.request('skills/list', {});
		assert.ok(listed.skills.length > 0, 'skills/list reads index.json lines');
		const r = spawnSync('fusermount3', ['-u', fx.mnt], { encoding: 'utf8' });
		assert.equal(r.status, 0, `fusermount3 -u: ${r.stderr}`);
		assert.ok(!isMounted(fx.mnt), 'unmounted');
		// The session says what is wrong instead of crashing.
		const res = await c.client.callTool({ name: 'list_skills', arguments: {} }).catch((e) => e);
		assert.match(String(res?.message ?? JSON.stringify(res)), /mount/i);
		await c.close();
	});

	it('a dead mount at MNT with --skills-dir: cleared and mounted again', async () => {
		const src = source();
		const fx = await mountSkills(src);
		cleanups.push(() => fx.unmount());
		const busy = fs.openSync(path.join(fx.mnt, 'index.json'), 'r');
		try {
			fx.daemon.kill('SIGKILL');
			await waitUntil(() => {
				try {
					fs.statfsSync(fx.mnt);
					return false;
				} catch (e) {
					return e.code === 'ENOTCONN' || e.code === 'ECONNABORTED';
				}
			}, { what: 'the mount to be dead' });
			const run = runDir();
			const c = await session(['--mount', fx.mnt, '--skills-dir', src, '--linger', '0'], run);
			assert.ok((await listIds(c)).some((s) => s.id === 'pdf-forms'));
			await c.close();
			await waitUntil(() => !isMounted(fx.mnt), { timeoutMs: 20000, what: 'MNT unmounted' });
		} finally {
			fs.closeSync(busy);
		}
	});

	it('an empty folder that is no mount, without --skills-dir: a clear error naming it', async () => {
		const mnt = makeTempDir('not-a-mount');
		cleanups.push(() => removeTempDir(mnt));
		const run = runDir();
		const r = await runOnce(['--mount', mnt], { env: runEnv(run) });
		assert.equal(r.signal, null, 'exits by itself');
		assert.notEqual(r.code, 0, 'non-zero exit');
		assert.ok(r.stderr.includes(mnt), `stderr names ${mnt}: ${r.stderr}`);
		assert.equal(r.stdout, '', 'nothing on stdout');
	});

	it('a folder that does not exist: a clear error naming it', async () => {
		const mnt = path.join(makeTempDir('parent'), 'missing');
		cleanups.push(() => removeTempDir(path.dirname(mnt)));
		const run = runDir();
		const r = await runOnce(['--mount', mnt], { env: runEnv(run) });
		assert.notEqual(r.code, 0, 'non-zero exit');
		assert.ok(r.stderr.includes(mnt), `stderr names ${mnt}: ${r.stderr}`);
	});

	it('a mount of another filesystem: refused', async () => {
		const run = runDir();
		const r = await runOnce(['--mount', '/proc'], { env: runEnv(run) });
		assert.notEqual(r.code, 0, 'non-zero exit');
		assert.ok(r.stderr.includes('/proc'), `stderr names /proc: ${r.stderr}`);
	});

	it('a bad --linger: a usage error', async () => {
		for (const v of ['-1', 'soon', '4000']) {
			const r = await runOnce(['--skills-dir', '/nonexistent', '--linger', v]);
			assert.equal(r.code, 2, `--linger ${v}`);
			assert.match(r.stderr, /--linger needs seconds/);
		}
	});

	it('neither --mount nor roots: a usage error', async () => {
		const r = await runOnce([]);
		assert.equal(r.code, 2);
		assert.match(r.stderr, /--skills-dir/);
	});
});

// As root, with the unprivileged test user present: that user's session
// on root's mount is told why it cannot read it, and what to do.
const TEST_USER = 'skillsfs-test';
const userExists = process.getuid() === 0 &&
	spawnSync('id', ['-u', TEST_USER], { stdio: 'ignore' }).status === 0 &&
	spawnSync('runuser', ['-u', TEST_USER, '--', 'test', '-x', SKILLSFS_MCP],
		{ stdio: 'ignore' }).status === 0;

describe('permissions', () => {
	it('another user\'s mount: the error names the owner and allow_other', { skip: !userExists &&
		`needs root, and the user ${TEST_USER} able to run ${SKILLSFS_MCP}` }, async () => {
		const src = source();
		const fx = await mountSkills(src);
		cleanups.push(() => fx.unmount());
		const r = await runOnce(['--mount', fx.mnt], { command: 'runuser',
			prefix: ['-u', TEST_USER, '--', SKILLSFS_MCP], env: { XDG_RUNTIME_DIR: '' } });
		assert.notEqual(r.code, 0, r.stderr);
		assert.match(r.stderr, /belongs to another user \(uid 0\)/);
		assert.match(r.stderr, /allow_other/);
		assert.match(r.stderr, /user_allow_other/);
	});
});

// As a user other than root, without user_allow_other in /etc/fuse.conf.
const fuseConf = (() => {
	try {
		return fs.readFileSync('/etc/fuse.conf', 'utf8');
	} catch {
		return '';
	}
})();
const userAllowOther = /^\s*user_allow_other\b/m.test(fuseConf);

describe('permissions as a user', () => {
	it('allow_other without user_allow_other: fusermount3\'s refusal, and what to do', {
		skip: (process.getuid() === 0 || userAllowOther) &&
			'needs a user other than root and no user_allow_other in /etc/fuse.conf' }, async () => {
		const src = source();
		const run = runDir();
		const cfg = path.join(makeTempDir('cfg'), 'skills.yaml');
		cleanups.push(() => removeTempDir(path.dirname(cfg)));
		fs.writeFileSync(cfg, `roots: [${src}]\noptions: {allow_other: true}\n`);
		const r = await runOnce(['--config', cfg], { env: runEnv(run) });
		assert.notEqual(r.code, 0, r.stderr);
		assert.match(r.stderr, /user_allow_other/);
		assert.match(r.stderr, /add it as root, or drop allow_other/);
		assert.equal(mountsUnder(run).length, 0, 'nothing left mounted');
	});
});
