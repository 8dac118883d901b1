// skillsfs-mcp --http: the server started on a free port (the URL read from
// its stderr, never guessed), the official SDK clients over Streamable HTTP
// (v1 @modelcontextprotocol/sdk, v2 @modelcontextprotocol/client in both
// eras), and raw requests with fetch.  Every server started here is stopped
// by its test, and killed as a last resort when this process exits.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResultSchema as V1ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import { SKILLSFS_MCP, collectStderr, waitUntil } from './mount.mjs';
import { ANY_RESULT } from './clients.mjs';
import { MODERN, NEWEST_HANDSHAKE } from './raw.mjs';

const STOP_DEADLINE_MS = 10000;
const liveServers = new Set();
// The token of each server started without --token-file, by its origin:
// it makes one and names its file on stderr, and its local clients send
// it, as these helpers do.
const tokens = new Map();

// init with the Authorization header of the server at url, when it made
// a token and init does not say otherwise.
export function withToken(url, init = {}) {
	const token = tokens.get(new URL(url instanceof Request ? url.url : url).origin);
	const headers = new Headers(init.headers);
	if (!token || headers.has('authorization'))
		return init;
	headers.set('authorization', `Bearer ${token}`);
	return { ...init, headers };
}

// fetch, with the token of a server that made one.
export function authFetch(url, init) {
	return fetch(url, withToken(url, init));
}

process.on('exit', () => {
	for (const child of liveServers)
		child.kill('SIGKILL');
});

// Starts `skillsfs-mcp --http LISTEN ARGS...` and waits for the line that
// names the URL it serves.  Returns {url, child, stderr(), exited, stop()};
// stop() sends SIGTERM, waits, and returns {code, signal}.
export async function startHttp(args, { listen = '127.0.0.1:0', env = process.env } = {}) {
	const child = spawn(SKILLSFS_MCP, ['--http', listen, ...args],
		{ stdio: ['ignore', 'ignore', 'pipe'], env });
	liveServers.add(child);
	const stderr = collectStderr(child);
	let exit = null;
	const exited = new Promise((resolve) => child.once('exit', (code, signal) => {
		exit = { code, signal };
		liveServers.delete(child);
		resolve(exit);
	}));
	const server = {
		child, stderr, exited, url: null,
		async stop() {
			if (!exit)
				child.kill('SIGTERM');
			try {
				await waitUntil(() => exit, { timeoutMs: STOP_DEADLINE_MS,
					what: 'skillsfs-mcp --http to exit on SIGTERM' });
			} catch (err) {
				child.kill('SIGKILL');
				await exited;
				throw err;
			}
			return exit;
		},
	};
	try {
		server.url = await waitUntil(() => {
			if (exit)
				throw new Error(`skillsfs-mcp --http exited (${JSON.stringify(exit)}):\n${stderr()}`);
			return /^skillsfs-mcp: serving (http:\S+)$/m.exec(stderr())?.[1];
		}, { timeoutMs: 20000, what: 'skillsfs-mcp --http to print the URL it serves' });
		if (!args.includes('--token-file')) {
			server.tokenFile = /^skillsfs-mcp: bearer token in (\S+):/m.exec(stderr())?.[1];
			if (!server.tokenFile)
				throw new Error(`skillsfs-mcp --http named no token file:\n${stderr()}`);
			server.token = fs.readFileSync(server.tokenFile, 'utf8').trim();
			tokens.set(new URL(server.url).origin, server.token);
		}
	} catch (err) {
		child.kill('SIGKILL');
		throw err;
	}
	return server;
}

const info = (name) => ({ name, version: '1.0.0' });

// The same shape as clients.mjs's: {kind, client, transport, request, close}.
// close() ends the session (DELETE) when there is one.
function wrap(kind, client, transport, request) {
	return {
		kind, client, transport, request,
		async close() {
			if (transport.sessionId)
				await transport.terminateSession().catch(() => {});
			await client.close();
		},
	};
}

// headers: sent with every request (Authorization); fetch: the fetch the
// transport uses (to see when its GET stream opens); reconnectionOptions:
// the transport's, for when its GET stream drops.
export async function connectHttpV1(url, { headers, fetch = globalThis.fetch,
	reconnectionOptions } = {}) {
	const transport = new V1Http(new URL(url), { requestInit: { headers },
		fetch: (u, init) => fetch(u, withToken(u, init)), reconnectionOptions });
	const client = new V1Client(info('skillsfs-http-test-v1'), { capabilities: {} });
	await client.connect(transport);
	return wrap('v1-http', client, transport,
		(method, params = {}) => client.request({ method, params }, V1ResultSchema));
}

// era: 'legacy' (initialize, a session) or 'modern' (2026-07-28, pinned);
// the rest as for connectHttpV1.
export async function connectHttpV2(url, { era = 'legacy', headers, fetch = globalThis.fetch,
	reconnectionOptions } = {}) {
	const transport = new V2Http(new URL(url), { requestInit: { headers },
		fetch: (u, init) => fetch(u, withToken(u, init)), reconnectionOptions });
	const options = { capabilities: {} };
	if (era === 'modern')
		options.versionNegotiation = { mode: { pin: MODERN } };
	const client = new V2Client(info(`skillsfs-http-test-v2-${era}`), options);
	await client.connect(transport);
	return wrap(`v2-http-${era}`, client, transport,
		(method, params = {}) => client.request({ method, params }, ANY_RESULT));
}

export const JSON_HEADERS = {
	'content-type': 'application/json',
	accept: 'application/json, text/event-stream',
};

// One raw POST: {status, headers, text, json}.
export async function post(url, body, headers = {}) {
	const res = await authFetch(url, {
		method: 'POST',
		headers: { ...JSON_HEADERS, ...headers },
		body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
	});
	const text = await res.text();
	let json;
	try {
		json = text ? JSON.parse(text) : undefined;
	} catch {
		json = undefined;
	}
	return { status: res.status, headers: res.headers, text, json };
}

// A raw client's initialize request, with JSON-RPC id id.
export function initializeBody(id = 1) {
	return { jsonrpc: '2.0', id, method: 'initialize', params: {
		protocolVersion: NEWEST_HANDSHAKE, capabilities: {},
		clientInfo: { name: 'skillsfs-http-raw', version: '0' } } };
}

// A new session on the server at url, by hand (initialize, then
// notifications/initialized): its id.
export async function openSession(url) {
	const res = await post(url, initializeBody());
	assert.equal(res.status, 200, res.text);
	const sid = res.headers.get('mcp-session-id');
	assert.match(sid ?? '', /^[\x21-\x7e]+$/, 'a session id of visible ASCII');
	const ack = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' },
		{ 'mcp-session-id': sid });
	assert.equal(ack.status, 202);
	return sid;
}

// A GET stream of session sid on the server at url, resuming after
// lastEventId when given.
export function getStream(url, sid, lastEventId, signal) {
	const headers = { accept: 'text/event-stream', 'mcp-session-id': sid };
	if (lastEventId)
		headers['last-event-id'] = lastEventId;
	return authFetch(url, { headers, signal });
}

// Reads the events of an SSE response: next(pred) resolves with the data
// of the next event that satisfies pred (parsed JSON), rest() with all the
// data that came until the stream ended; both wait with a deadline.
export function sseEvents(res, { timeoutMs = 10000 } = {}) {
	const reader = res.body.getReader();
	const decoder = new TextDecoder();
	const queue = [];
	let buffer = '';
	let ended = false;
	let reading = null;

	// One read at a time, raced against the deadline.
	async function more(deadline, what) {
		const left = deadline - Date.now();
		let timer;
		const late = new Promise((resolve, reject) => {
			timer = setTimeout(() => reject(new Error(`no ${what} within ${timeoutMs} ms`)),
				Math.max(left, 0));
		});
		reading ??= pump().finally(() => { reading = null; });
		try {
			await Promise.race([reading, late]);
		} finally {
			clearTimeout(timer);
		}
	}

	async function pump() {
		const { value, done } = await reader.read();
		if (done) {
			ended = true;
			return;
		}
		buffer += decoder.decode(value, { stream: true });
		let cut;
		while ((cut = buffer.indexOf('\n\n')) >= 0) {
			const block = buffer.slice(0, cut);
			buffer = buffer.slice(cut + 2);
			const data = block.split('\n').filter((l) => l.startsWith('data:'))
				.map((l) => l.slice(5).replace(/^ /, '')).join('\n');
			if (data)
				queue.push(JSON.parse(data));
		}
	}
	return {
		async next(pred = () => true, what = 'an event') {
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				const i = queue.findIndex(pred);
				if (i >= 0)
					return queue.splice(i, 1)[0];
				if (ended)
					throw new Error(`the stream ended without ${what}`);
				await more(deadline, what);
			}
		},
		async rest() {
			const deadline = Date.now() + timeoutMs;
			while (!ended)
				await more(deadline, 'end of the stream');
			return queue.splice(0);
		},
		cancel() {
			return reader.cancel().catch(() => {});
		},
	};
}
