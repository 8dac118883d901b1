// A raw stdio peer for skillsfs-mcp: spawns the binary, writes bytes, and
// reads newline-delimited JSON-RPC messages back.  Keeps every stdout line
// as received, so a test can check that stdout carries only protocol lines.
import { spawn } from 'node:child_process';
import { SKILLSFS_MCP, collectStderr, waitUntil } from './mount.mjs';

export const HANDSHAKE_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
export const NEWEST_HANDSHAKE = '2025-11-25';
export const MODERN = '2026-07-28';
export const SKILLS_EXT = 'io.modelcontextprotocol/skills';

export function modernMeta(extra = {}) {
	return {
		'io.modelcontextprotocol/protocolVersion': MODERN,
		'io.modelcontextprotocol/clientCapabilities': {},
		'io.modelcontextprotocol/clientInfo': { name: 'skillsfs-raw-test', version: '0' },
		...extra,
	};
}

export class RawServer {
	constructor(args, { env = process.env, cwd } = {}) {
		this.child = spawn(SKILLSFS_MCP, args, { stdio: ['pipe', 'pipe', 'pipe'], env, cwd });
		this.stderr = collectStderr(this.child);
		this.lines = [];		// every stdout line, raw text
		this.queue = [];		// parsed messages not yet taken
		this.waiters = [];
		this.partial = Buffer.alloc(0);
		this.exit = null;
		this.nextId = 1000;
		this.exited = new Promise((resolve) => this.child.once('exit',
			(code, signal) => {
				this.exit = { code, signal };
				this._wake();
				resolve(this.exit);
			}));
		this.child.stdin.on('error', () => {});	// EPIPE after the server exits
		this.child.stdout.on('data', (chunk) => this._onData(chunk));
	}

	_onData(chunk) {
		let buf = Buffer.concat([this.partial, chunk]);
		let nl;
		while ((nl = buf.indexOf(0x0a)) >= 0) {
			const line = buf.subarray(0, nl).toString('utf8');
			buf = buf.subarray(nl + 1);
			this.lines.push(line);
			let msg;
			try {
				msg = JSON.parse(line);
			} catch {
				msg = { __unparsable: line };
			}
			this.queue.push(msg);
		}
		this.partial = buf;
		this._wake();
	}

	_wake() {
		for (const w of this.waiters.splice(0))
			w();
	}

	// Writes text as is (no newline added); waits for the pipe to drain.
	async writeRaw(text) {
		if (this.exit || this.child.stdin.destroyed)
			throw new Error(`skillsfs-mcp is gone (${JSON.stringify(this.exit)}); stderr:\n${this.stderr()}`);
		if (!this.child.stdin.write(text)) {
			// A server that dies never drains: wait for either.
			await new Promise((resolve) => {
				const done = () => {
					this.child.stdin.off('drain', done);
					this.child.stdin.off('close', done);
					resolve();
				};
				this.child.stdin.once('drain', done);
				this.child.stdin.once('close', done);
				this.exited.then(done);
			});
		}
	}

	async send(msg) {
		await this.writeRaw((typeof msg === 'string' ? msg : JSON.stringify(msg)) + '\n');
	}

	// Takes the next message that satisfies pred (default: any).
	async take(pred = () => true, { timeoutMs = 10000, what = 'a message' } = {}) {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const i = this.queue.findIndex(pred);
			if (i >= 0)
				return this.queue.splice(i, 1)[0];
			if (this.exit)
				throw new Error(`skillsfs-mcp exited (${JSON.stringify(this.exit)}) ` +
					`while waiting for ${what}; stderr:\n${this.stderr()}`);
			const left = deadline - Date.now();
			if (left <= 0)
				throw new Error(`no ${what} within ${timeoutMs} ms; stderr:\n${this.stderr()}`);
			await new Promise((resolve) => {
				const t = setTimeout(resolve, left);
				this.waiters.push(() => { clearTimeout(t); resolve(); });
			});
		}
	}

	// The very next message, whatever it is.
	next(opts) {
		return this.take(() => true, opts);
	}

	// The response to id (responses carry no method).
	response(id, opts = {}) {
		return this.take((m) => !('method' in m) && m.id === id,
			{ what: `the response to id ${JSON.stringify(id)}`, ...opts });
	}

	async request(method, params, { id = this.nextId++, timeoutMs } = {}) {
		const msg = { jsonrpc: '2.0', id, method };
		if (params !== undefined)
			msg.params = params;
		await this.send(msg);
		return this.response(id, { timeoutMs });
	}

	async notify(method, params) {
		const msg = { jsonrpc: '2.0', method };
		if (params !== undefined)
			msg.params = params;
		await this.send(msg);
	}

	// initialize + notifications/initialized; returns the initialize result.
	async handshake(protocolVersion = NEWEST_HANDSHAKE) {
		const res = await this.request('initialize', {
			protocolVersion,
			capabilities: {},
			clientInfo: { name: 'skillsfs-raw-test', version: '0' },
		});
		if (!res.result)
			throw new Error(`initialize failed: ${JSON.stringify(res)}`);
		await this.notify('notifications/initialized');
		return res.result;
	}

	// Closes stdin and waits for the exit; returns {code, signal}.
	async close({ timeoutMs = 5000 } = {}) {
		this.child.stdin.end();
		try {
			await waitUntil(() => this.exit, { timeoutMs, what: 'skillsfs-mcp to exit' });
		} catch (err) {
			this.kill();
			throw err;
		}
		return this.exit;
	}

	kill() {
		if (!this.exit)
			this.child.kill('SIGKILL');
	}
}

// Runs fn(s) with a fresh RawServer started with args; the server is killed
// afterwards whatever happened (a no-op once it has exited).
export async function withRawServer(args, fn, options) {
	const s = new RawServer(args, options);
	try {
		return await fn(s);
	} finally {
		s.kill();
	}
}
