// Sessions of skillsfs-mcp with private mounts: a runtime folder per test
// (XDG_RUNTIME_DIR), what its keepers and mounts are, and a cleanup that
// leaves no keeper, daemon or mount behind, also when a test fails.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { mountTable, waitUntil } from './mount.mjs';

const liveRunDirs = new Set();

// A runtime folder (0700, ours) for the servers a test starts.  Not one of
// mount.mjs's temporary folders: it may hold mounts, which go first.
export function makeRunDir() {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skillsfs-mcp-run-'));
	fs.chmodSync(dir, 0o700);
	liveRunDirs.add(dir);
	return dir;
}

export function runEnv(run) {
	return { XDG_RUNTIME_DIR: run };
}

// Where skillsfs-mcp keeps its private mounts and locks under `run`.
export function stateDir(run) {
	return path.join(run, 'skillsfs');
}

// The keepers of `run`: [{base, keeper, skillsfs}] from BASE.keeper files.
export function keepers(run) {
	const dir = stateDir(run);
	let names = [];
	try {
		names = fs.readdirSync(dir).filter((n) => n.endsWith('.keeper'));
	} catch {
		return [];
	}
	return names.map((n) => {
		const text = fs.readFileSync(path.join(dir, n), 'utf8');
		const pid = (what) => Number((text.match(new RegExp(`^${what} (\\d+)$`, 'm')) ?? [])[1] ?? 0);
		return { base: path.join(dir, n.slice(0, -'.keeper'.length)), keeper: pid('keeper'),
			skillsfs: pid('skillsfs') };
	}).filter((k) => k.keeper > 0);
}

// The mounts (of any type) at or under `dir`.
export function mountsUnder(dir) {
	let real;
	try {
		real = fs.realpathSync(dir);
	} catch {
		return [];
	}
	return mountTable().filter((m) => m.mountPoint === real || m.mountPoint.startsWith(real + '/'));
}

export function alive(pid) {
	if (!pid)
		return false;
	try {
		process.kill(pid, 0);
	} catch (err) {
		return err.code === 'EPERM';
	}
	// A zombie is gone for our purpose: it holds no lock and no mount.
	try {
		return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
	} catch {
		return false;
	}
}

// Waits until nothing of `run` is left: no mount, no keeper, no daemon.
export async function waitAllGone(run, pids, { timeoutMs = 20000 } = {}) {
	await waitUntil(() => mountsUnder(run).length === 0 && pids.every((p) => !alive(p)),
		{ timeoutMs, what: `no mount under ${run} and pids ${pids.join(',')} gone ` +
			`(mounts: ${JSON.stringify(mountsUnder(run))})` });
}

function killAll(run) {
	for (const k of keepers(run)) {
		for (const pid of [k.keeper, k.skillsfs]) {
			try {
				process.kill(pid, 'SIGKILL');
			} catch {
				// gone already
			}
		}
	}
	for (const m of mountsUnder(run).reverse())
		spawnSync('fusermount3', ['-uz', m.mountPoint], { stdio: 'ignore' });
}

// Ends what the servers of `run` left: keepers are asked first (SIGTERM:
// they unmount), then killed.
export async function cleanRunDir(run) {
	for (const k of keepers(run)) {
		try {
			process.kill(k.keeper, 'SIGTERM');
		} catch {
			// gone already
		}
	}
	try {
		await waitUntil(() => keepers(run).every((k) => !alive(k.keeper) && !alive(k.skillsfs)),
			{ timeoutMs: 10000, what: 'keepers to end' });
	} catch {
		// killed below
	}
	killAll(run);
	liveRunDirs.delete(run);
	if (mountsUnder(run).length === 0)
		fs.rmSync(run, { recursive: true, force: true });
}

process.on('exit', () => {
	for (const run of liveRunDirs) {
		killAll(run);
		if (mountsUnder(run).length === 0)
			fs.rmSync(run, { recursive: true, force: true });
	}
});
