// skillsfs-mcp --http: the official SDK clients over Streamable HTTP (v1,
// and v2 in both eras) get what they get on stdio; notifications come on a
// session's GET stream and on a 2026-07-28 subscriptions/listen; raw
// requests meet the transport's rules (sessions, methods, sizes, Origin and
// Host, the bearer token); and the rest works as on stdio (automount, the
// audit log, SIGTERM).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { mountedFixture, makeTempDir, removeTempDir, makeSkillSource, skillIds,
	indexEntries, writeSkill, skillMd, waitUntil, SKILLSFS_MCP } from '../lib/mount.mjs';
import { connectV1, connectV2, SkillsClient, errorCode } from '../lib/clients.mjs';
import { listAll, listPage, checkToolResult, readSkillVerified } from '../lib/expect.mjs';
import { MODERN, NEWEST_HANDSHAKE, modernMeta } from '../lib/raw.mjs';
import { startHttp, connectHttpV1, connectHttpV2, post, sseEvents,
	JSON_HEADERS, authFetch, initializeBody, openSession as openSessionAt,
	getStream } from '../lib/http.mjs';
import { makeRunDir, runEnv, keepers, mountsUnder, waitAllGone,
	cleanRunDir } from '../lib/sessions.mjs';

const NOTIFY_DEADLINE_MS = 10000;
// Raw requests carry the token the server made, as a local client does.
const fetch = authFetch;

// One mount and one server for the file; what a test starts besides, it
// stops itself.
let fx, mnt, server, dir;
before(async () => {
	fx = await mountedFixture();
	mnt = fs.realpathSync(fx.mnt);
	dir = makeTempDir('http');
	server = await startHttp(['--mount', fx.mnt]);
});
after(async () => {
	const exit = await server?.stop();
	await fx?.cleanup();
	if (dir)
		removeTempDir(dir);
	assert.deepEqual(exit, { code: 0, signal: null }, `exits 0 on SIGTERM:\n${server?.stderr()}`);
});

// The result of p, or {error: code} when it is a JSON-RPC error.
async function outcome(p) {
	try {
		return await p;
	} catch (err) {
		if (errorCode(err) === undefined)
			throw err;
		return { error: errorCode(err) };
	}
}

// A new session by hand on this file's server (or url): its id.
const openSession = (url = server.url) => openSessionAt(url);

function modernBody(method, params = {}, id = 7) {
	return { jsonrpc: '2.0', id, method, params: { ...params, _meta: modernMeta() } };
}

function modernHeaders(method) {
	return { 'mcp-protocol-version': MODERN, 'mcp-method': method };
}

// ---- the SDK clients: what stdio answers, HTTP answers -----------------

const PAIRS = [
	{ name: 'v1 sdk, handshake 2025-11-25',
		http: (url) => connectHttpV1(url), stdio: (args) => connectV1(args) },
	{ name: 'v2 client, handshake 2025-11-25',
		http: (url) => connectHttpV2(url, { era: 'legacy' }),
		stdio: (args) => connectV2(args, { era: 'legacy' }) },
	{ name: 'v2 client, stateless 2026-07-28', modern: true,
		http: (url) => connectHttpV2(url, { era: 'modern' }),
		stdio: (args) => connectV2(args, { era: 'modern' }) },
];

for (const pair of PAIRS) {
	describe(`${pair.name}, over HTTP as on stdio`, () => {
		let h, s;
		before(async () => {
			h = await pair.http(server.url);
			s = await pair.stdio(['--mount', fx.mnt]);
		});
		after(async () => {
			await h?.close();
			await s?.close();
		});

		it('connects with the same version, capabilities and instructions', () => {
			assert.deepEqual(h.client.getServerCapabilities(), s.client.getServerCapabilities());
			assert.deepEqual(h.client.getServerVersion(), s.client.getServerVersion());
			assert.equal(h.client.getInstructions(), s.client.getInstructions());
			if (h.client.getNegotiatedProtocolVersion)
				assert.equal(h.client.getNegotiatedProtocolVersion(),
					s.client.getNegotiatedProtocolVersion());
		});

		it('answers tools, resources, prompts and the skills extension alike', async () => {
			const ids = skillIds(mnt);
			const calls = [
				['tools/list', {}],
				['tools/call', { name: 'list_skills', arguments: {} }],
				['tools/call', { name: 'list_skills', arguments: { query: 'pdf', limit: 1 } }],
				['tools/call', { name: 'get_skill', arguments: { id: ids[0] } }],
				['tools/call', { name: 'get_skill', arguments: { id: 'no-such-skill' } }],
				['resources/templates/list', {}],
				['resources/read', { uri: `skill://${ids[0]}/SKILL.md` }],
				['resources/read', { uri: 'skill://binary-assets/assets/logo.png' }],
				['resources/read', { uri: 'resource://catalog/skills_index' }],
				['resources/read', { uri: 'skill://no-such-skill/SKILL.md' }],
				['prompts/list', {}],
				['prompts/get', { name: 'init-skills' }],
				['prompts/get', { name: ids[0] }],
				['skills/get', { uri: `skill://${ids[0]}/SKILL.md` }],
				['resources/directory/read', { uri: 'skill://binary-assets/assets' }],
			];
			// 2026-07-28 over HTTP answers an unknown method 404, which the
			// SDK reports as an HTTP error (the raw tests below look at it).
			if (!pair.modern)
				calls.push(['no/such/method', {}]);
			for (const [method, params] of calls)
				assert.deepEqual(await outcome(h.request(method, params)),
					await outcome(s.request(method, params)), `${method} ${JSON.stringify(params)}`);
			for (const [method, key] of [['resources/list', 'resources'], ['skills/list', 'skills']])
				assert.deepEqual(await listAll(h, method, key), await listAll(s, method, key), method);
			const listed = listPage(checkToolResult(
				await h.client.callTool({ name: 'list_skills', arguments: {} }), 'list_skills'));
			assert.ok(listed.skills.length > 0, 'list_skills lists skills');
		});
	});
}

describe('the v2 SkillsClient over HTTP', () => {
	for (const era of ['legacy', 'modern']) {
		it(`lists and reads every skill, verified (${era})`, async () => {
			const c = await connectHttpV2(server.url, { era });
			try {
				const sc = new SkillsClient(c.client);
				const { skills, invalid } = await sc.list();
				assert.deepEqual(invalid ?? [], []);
				assert.deepEqual(skills.map((e) => e.frontmatter.name).sort(),
					indexEntries(mnt).map((e) => e.frontmatter.name).sort());
				for (const skill of skills)
					await readSkillVerified(sc, skill, mnt);
			} finally {
				await c.close();
			}
		});
	}
});

// ---- notifications -----------------------------------------------------

// A fetch that tells when the transport's GET stream is open: until then
// the session has no stream to be told on.
function watchingFetch() {
	const watch = { open: false };
	watch.fetch = async (url, init) => {
		const res = await fetch(url, init);
		if ((init?.method ?? 'GET') === 'GET' && res.ok)
			watch.open = true;
		return res;
	};
	return watch;
}

function addSkill(id) {
	writeSkill(fx.src, id, { 'SKILL.md': skillMd(`name: ${id}\ndescription: A skill added while a ` +
		'client listens. Use in the HTTP tests.', `# ${id}\n`) });
}

describe('notifications over HTTP', () => {
	it('a handshake-era session hears of a new skill on its GET stream (v1 sdk)', async () => {
		const watch = watchingFetch();
		const c = await connectHttpV1(server.url, { fetch: watch.fetch });
		try {
			let heard = 0;
			c.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => { heard++; });
			await waitUntil(() => watch.open, { timeoutMs: NOTIFY_DEADLINE_MS,
				what: 'the session GET stream to open' });
			addSkill('http-heard-by-session');
			await waitUntil(() => heard > 0, { timeoutMs: NOTIFY_DEADLINE_MS,
				what: 'notifications/resources/list_changed on the GET stream' });
		} finally {
			await c.close();
		}
	});

	it('a 2026-07-28 subscriptions/listen hears of a new skill (v2 client)', async () => {
		const c = await connectHttpV2(server.url, { era: 'modern' });
		try {
			const heard = { resources: 0, prompts: 0 };
			c.client.setNotificationHandler('notifications/resources/list_changed', () => { heard.resources++; });
			c.client.setNotificationHandler('notifications/prompts/list_changed', () => { heard.prompts++; });
			const sub = await c.client.listen({ resourcesListChanged: true, promptsListChanged: true });
			try {
				addSkill('http-heard-by-listen');
				await waitUntil(() => heard.resources > 0 && heard.prompts > 0, { timeoutMs: NOTIFY_DEADLINE_MS,
					what: 'both list_changed notifications on the listen stream' });
			} finally {
				await sub.close();
			}
		} finally {
			await c.close();
		}
	});

	it('a session has one GET stream at a time (409)', async () => {
		const sid = await openSession();
		const ctl = new AbortController();
		try {
			const first = await getStream(server.url, sid, null, ctl.signal);
			assert.equal(first.status, 200);
			assert.equal(first.headers.get('content-type'), 'text/event-stream');
			const second = await getStream(server.url, sid);
			assert.equal(second.status, 409, await second.text());
		} finally {
			ctl.abort();
			await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': sid } });
		}
	});
});

// ---- the transport's rules, with raw requests --------------------------

describe('the transport', () => {
	it('initialize opens a session; its requests name it; DELETE ends it, then 404', async () => {
		const sid = await openSession();
		const list = await post(server.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' },
			{ 'mcp-session-id': sid, 'mcp-protocol-version': NEWEST_HANDSHAKE });
		assert.equal(list.status, 200);
		assert.equal(list.headers.get('content-type'), 'application/json');
		assert.ok(Array.isArray(list.json.result.tools), list.text);
		const del = await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': sid } });
		assert.equal(del.status, 204);
		const after = await post(server.url, { jsonrpc: '2.0', id: 3, method: 'tools/list' },
			{ 'mcp-session-id': sid });
		assert.equal(after.status, 404, after.text);
		const again = await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': sid } });
		assert.equal(again.status, 404);
	});

	it('an unknown session id is 404, for POST, GET and DELETE', async () => {
		const headers = { 'mcp-session-id': 'no-such-session' };
		assert.equal((await post(server.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' },
			headers)).status, 404);
		assert.equal((await fetch(server.url, { headers: { ...headers, accept: 'text/event-stream' } })).status, 404);
		assert.equal((await fetch(server.url, { method: 'DELETE', headers })).status, 404);
	});

	it('a handshake-era request without a session is 400, naming what to do', async () => {
		const res = await post(server.url, { jsonrpc: '2.0', id: 'x', method: 'tools/list' });
		assert.equal(res.status, 400);
		assert.equal(res.json.id, 'x');
		assert.match(res.json.error.message, /initialize/);
	});

	it('an unsupported MCP-Protocol-Version in a session is 400', async () => {
		const sid = await openSession();
		const res = await post(server.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' },
			{ 'mcp-session-id': sid, 'mcp-protocol-version': '1999-01-01' });
		assert.equal(res.status, 400, res.text);
		await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': sid } });
	});

	it('a notification or a response is 202 with no body', async () => {
		const sid = await openSession();
		for (const msg of [{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
			{ jsonrpc: '2.0', id: 5, result: {} }]) {
			const res = await post(server.url, msg, { 'mcp-session-id': sid });
			assert.equal(res.status, 202);
			assert.equal(res.text, '');
		}
		const alone = await post(server.url, { jsonrpc: '2.0', method: 'notifications/initialized' });
		assert.equal(alone.status, 202);
		await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': sid } });
	});

	it('a malformed body is a JSON-RPC parse error with id null, and the server goes on', async () => {
		for (const body of ['{"jsonrpc":"2.0",', 'not json', Buffer.from([0xff, 0xfe]), '[]',
			'{"jsonrpc":"2.0","id":1}']) {
			const res = await post(server.url, body);
			assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
			assert.equal(res.json.jsonrpc, '2.0');
			assert.ok([-32700, -32600].includes(res.json.error.code), res.text);
		}
		const parse = await post(server.url, '{"jsonrpc":"2.0",');
		assert.deepEqual([parse.json.error.code, parse.json.id], [-32700, null]);
		const empty = await post(server.url, '');
		assert.equal(empty.status, 400);
		const pretty = await post(server.url, JSON.stringify(modernBody('tools/list'), null, 2),
			modernHeaders('tools/list'));
		assert.equal(pretty.status, 200, `a body with line feeds: ${pretty.text}`);
	});

	it('a body longer than 4 MiB is refused as on stdio (413, -32600)', async () => {
		const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list',
			params: { pad: 'x'.repeat(4 << 20) } });
		const res = await post(server.url, big);
		assert.equal(res.status, 413);
		assert.equal(res.json.error.code, -32600);
		assert.match(res.json.error.message, /longer than/);
	});

	it('another path is 404; GET without a session 405; PUT 405', async () => {
		const other = await fetch(new URL('/other', server.url), { method: 'POST',
			headers: JSON_HEADERS, body: '{}' });
		assert.equal(other.status, 404);
		const get = await fetch(server.url, { headers: { accept: 'text/event-stream' } });
		assert.equal(get.status, 405);
		assert.ok(get.headers.get('allow'), 'an Allow header');
		const put = await fetch(server.url, { method: 'PUT', body: '{}' });
		assert.equal(put.status, 405);
	});

	it('a body that is not JSON, or an answer the client cannot take, is refused', async () => {
		const form = await post(server.url, 'a=b', { 'content-type': 'application/x-www-form-urlencoded' });
		assert.equal(form.status, 415);
		const xml = await post(server.url, initializeBody(), { accept: 'application/xml' });
		assert.equal(xml.status, 406);
	});

	it('an Origin that is not of this machine is 403; one that is passes', async () => {
		for (const origin of ['http://evil.example.com', 'https://127.0.0.1.evil.example.com',
			'null', 'http://localhost.evil.example.com:80'])
			assert.equal((await post(server.url, initializeBody(), { origin })).status, 403, origin);
		for (const origin of ['http://localhost:3000', 'http://127.0.0.1', 'https://[::1]:8443']) {
			const res = await post(server.url, modernBody('tools/list'),
				{ origin, ...modernHeaders('tools/list') });
			assert.equal(res.status, 200, `${origin}: ${res.text}`);
		}
	});

	it('a Host that is not of this machine is 403 (DNS rebinding)', async () => {
		const u = new URL(server.url);
		const status = (host) => new Promise((resolve, reject) => {
			const req = http.request({ host: u.hostname, port: u.port, path: u.pathname,
				method: 'POST', headers: { ...JSON_HEADERS, host, ...modernHeaders('tools/list'),
					authorization: `Bearer ${server.token}` } },
			(res) => { res.resume(); resolve(res.statusCode); });
			req.on('error', reject);
			req.end(JSON.stringify(modernBody('tools/list')));
		});
		assert.equal(await status(`evil.example.com:${u.port}`), 403);
		assert.equal(await status(`localhost:${u.port}`), 200);
		assert.equal(await status(`[::1]:${u.port}`), 200);
	});

	it('2026-07-28: headers that disagree with the body are -32020 (400), an unknown method 404', async () => {
		const mismatch = await post(server.url, modernBody('tools/list'), modernHeaders('prompts/list'));
		assert.equal(mismatch.status, 400);
		assert.equal(mismatch.json.error.code, -32020);
		const name = await post(server.url, modernBody('tools/call', { name: 'list_skills', arguments: {} }),
			{ ...modernHeaders('tools/call'), 'mcp-name': 'get_skill' });
		assert.equal(name.json.error?.code, -32020, name.text);
		const encoded = await post(server.url, modernBody('tools/call', { name: 'list_skills', arguments: {} }),
			{ ...modernHeaders('tools/call'),
				'mcp-name': `=?base64?${Buffer.from('list_skills').toString('base64')}?=` });
		assert.equal(encoded.status, 200, encoded.text);
		const unknown = await post(server.url, modernBody('ping'), modernHeaders('ping'));
		assert.deepEqual([unknown.status, unknown.json.error.code, unknown.json.id], [404, -32601, 7]);
		const noMeta = await post(server.url, { jsonrpc: '2.0', id: 8, method: 'server/discover', params: {} },
			modernHeaders('server/discover'));
		assert.deepEqual([noMeta.status, noMeta.json.error.code], [400, -32602]);
	});

	it('at most 64 sessions: a 65th ends the one used least recently', async () => {
		const sids = [];
		try {
			for (let i = 0; i < 65; i++)
				sids.push(await openSession());
			const first = await post(server.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' },
				{ 'mcp-session-id': sids[0] });
			assert.equal(first.status, 404, 'the oldest session ended');
			const last = await post(server.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' },
				{ 'mcp-session-id': sids[64] });
			assert.equal(last.status, 200);
		} finally {
			for (const sid of sids)
				await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': sid } });
		}
	});
});

// ---- --token-file ------------------------------------------------------

function tokenFile(name, token, mode = 0o600) {
	const file = path.join(dir, name);
	fs.writeFileSync(file, `${token}\n`, { mode });
	fs.chmodSync(file, mode);
	return file;
}

describe('--token-file', () => {
	const token = 'skillsfs-test-token-0123456789abcdef';
	let guarded;
	before(async () => {
		guarded = await startHttp(['--mount', fx.mnt, '--token-file', tokenFile('token', token)]);
	});
	after(async () => {
		const exit = await guarded?.stop();
		assert.deepEqual(exit, { code: 0, signal: null });
	});

	it('a request without the token, or with another, is 401 with WWW-Authenticate: Bearer', async () => {
		for (const headers of [{}, { authorization: `Bearer ${token}x` },
			{ authorization: `Bearer ${token.slice(0, -1)}` }, { authorization: `Basic ${token}` }]) {
			const res = await post(guarded.url, initializeBody(), headers);
			assert.equal(res.status, 401, JSON.stringify(headers));
			assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
		}
		const get = await fetch(guarded.url);
		assert.equal(get.status, 401, 'before anything else');
	});

	it('the SDK clients with the token are served (v1, v2 in both eras)', async () => {
		const headers = { Authorization: `Bearer ${token}` };
		for (const connect of [() => connectHttpV1(guarded.url, { headers }),
			() => connectHttpV2(guarded.url, { era: 'legacy', headers }),
			() => connectHttpV2(guarded.url, { era: 'modern', headers })]) {
			const c = await connect();
			try {
				const { tools } = await c.client.listTools();
				assert.ok(tools.some((t) => t.name === 'list_skills'), c.kind);
			} finally {
				await c.close();
			}
		}
	});

	it('serves an address beyond loopback with a token; an Origin must be the address reached', async () => {
		const wide = await startHttp(['--mount', fx.mnt, '--token-file', tokenFile('wide', token)],
			{ listen: '0.0.0.0:0' });
		try {
			const url = wide.url.replace('0.0.0.0', '127.0.0.1');
			const headers = { authorization: `Bearer ${token}`, ...modernHeaders('tools/list') };
			assert.equal((await post(url, initializeBody())).status, 401);
			const res = await post(url, modernBody('tools/list'), headers);
			assert.equal(res.status, 200, res.text);
			const same = await post(url, modernBody('tools/list'),
				{ ...headers, origin: `http://127.0.0.1:${new URL(url).port}` });
			assert.equal(same.status, 200, same.text);
			for (const origin of ['http://evil.example.com', 'http://localhost:8080']) {
				const other = await post(url, modernBody('tools/list'), { ...headers, origin });
				assert.equal(other.status, 403, origin);
			}
		} finally {
			assert.deepEqual(await wide.stop(), { code: 0, signal: null });
		}
	});

	it('refuses to start beyond loopback without a token: exit 2, saying what to do', () => {
		for (const listen of ['0.0.0.0:0', '[::]:0']) {
			const r = spawnSync(SKILLSFS_MCP, ['--http', listen, '--mount', fx.mnt],
				{ encoding: 'utf8', timeout: 10000 });
			assert.equal(r.status, 2, r.stderr);
			assert.match(r.stderr, /--token-file/);
		}
	});

	it('refuses a token others may read, a short one, and --token-file without --http', () => {
		const cases = [
			['--http', '127.0.0.1:0', '--token-file', tokenFile('open', token, 0o644)],
			['--http', '127.0.0.1:0', '--token-file', tokenFile('short', 'short')],
			['--token-file', tokenFile('alone', token)],
			['--http', '127.0.0.1:99999'],
		];
		for (const args of cases) {
			const r = spawnSync(SKILLSFS_MCP, [...args, '--mount', fx.mnt], { encoding: 'utf8', timeout: 10000 });
			assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
			assert.match(r.stderr, /^skillsfs-mcp: /, r.stderr);
		}
	});

	it('without --token-file a token is made, in a 0600 file of the runtime folder, and gone at exit', async () => {
		const run = makeRunDir();
		for (const listen of ['127.0.0.2:0', '[::1]:0']) {
			const s = await startHttp(['--mount', fx.mnt], { listen,
				env: { ...process.env, ...runEnv(run) } });
			try {
				assert.ok(s.tokenFile.startsWith(run), s.tokenFile);
				assert.equal(fs.statSync(s.tokenFile).mode & 0o777, 0o600);
				assert.equal(fs.statSync(path.dirname(s.tokenFile)).mode & 0o777, 0o700);
				assert.match(s.token, /^[0-9a-f]{64}$/);
				const bare = await post(s.url, modernBody('tools/list'),
					{ authorization: 'Bearer not-the-token-0123456789', ...modernHeaders('tools/list') });
				assert.equal(bare.status, 401, listen);
				const served = await post(s.url, modernBody('tools/list'), modernHeaders('tools/list'));
				assert.equal(served.status, 200, served.text);
			} finally {
				assert.deepEqual(await s.stop(), { code: 0, signal: null });
			}
			assert.ok(!fs.existsSync(s.tokenFile), 'the token file goes with the server');
		}
		cleanRunDir(run);
	});
});

// ---- as on stdio -------------------------------------------------------

describe('as on stdio', () => {
	it('--skills-dir mounts privately; SIGTERM ends the server and the mount goes', async () => {
		const src = makeSkillSource();
		const run = makeRunDir();
		let s;
		try {
			s = await startHttp(['--skills-dir', src, '--linger', '0'], { env: { ...process.env, ...runEnv(run) } });
			const c = await connectHttpV2(s.url, { era: 'modern' });
			try {
				const res = await c.client.callTool({ name: 'list_skills', arguments: {} });
				assert.ok(listPage(checkToolResult(res, 'list_skills')).skills.length > 0);
			} finally {
				await c.close();
			}
			assert.equal(mountsUnder(run).length, 1, 'a private mount');
			const pids = keepers(run).flatMap((k) => [k.keeper, k.skillsfs]);
			assert.deepEqual(await s.stop(), { code: 0, signal: null });
			await waitAllGone(run, pids);
		} finally {
			await s?.stop().catch(() => {});
			await cleanRunDir(run);
			removeTempDir(src);
		}
	});

	it('--audit-log writes one line per request, the session\'s and the stateless ones', async () => {
		const log = path.join(dir, 'audit.jsonl');
		const s = await startHttp(['--mount', fx.mnt, '--audit-log', log]);
		try {
			const sid = await openSession(s.url);
			await post(s.url, { jsonrpc: '2.0', id: 2, method: 'tools/call',
				params: { name: 'get_skill', arguments: { id: skillIds(mnt)[0] } } }, { 'mcp-session-id': sid });
			await post(s.url, modernBody('tools/list'), modernHeaders('tools/list'));
			await post(s.url, '{');
		} finally {
			assert.deepEqual(await s.stop(), { code: 0, signal: null });
		}
		const recs = fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
		assert.deepEqual(recs.map((r) => r.method ?? null), ['initialize', 'tools/call', 'tools/list', null]);
		assert.equal(recs[1].tool, 'get_skill');
		assert.equal(recs[3].code, -32700);
	});

	it('SIGTERM ends an open subscriptions/listen with its result, and exits 0', async () => {
		const s = await startHttp(['--mount', fx.mnt]);
		try {
			const res = await fetch(s.url, { method: 'POST', headers: { ...JSON_HEADERS,
				...modernHeaders('subscriptions/listen') },
			body: JSON.stringify(modernBody('subscriptions/listen',
				{ notifications: { promptsListChanged: true } }, 'listen-1')) });
			assert.equal(res.status, 200);
			assert.equal(res.headers.get('content-type'), 'text/event-stream');
			const events = sseEvents(res);
			const ack = await events.next(() => true, 'the acknowledgement');
			assert.equal(ack.method, 'notifications/subscriptions/acknowledged');
			assert.equal(ack.params._meta['io.modelcontextprotocol/subscriptionId'], 'listen-1');
			s.child.kill('SIGTERM');
			const rest = await events.rest();
			assert.deepEqual(rest.map((m) => [m.id, 'result' in m]), [['listen-1', true]]);
		} finally {
			assert.deepEqual(await s.stop(), { code: 0, signal: null });
		}
	});

	it('a client that leaves its listen stream is let go; the server goes on, and stops cleanly', async () => {
		const s = await startHttp(['--mount', fx.mnt]);
		try {
			const ctl = new AbortController();
			const res = await fetch(s.url, { method: 'POST', signal: ctl.signal,
				headers: { ...JSON_HEADERS, ...modernHeaders('subscriptions/listen') },
				body: JSON.stringify(modernBody('subscriptions/listen',
					{ notifications: { resourcesListChanged: true } }, 'gone')) });
			await sseEvents(res).next(() => true, 'the acknowledgement');
			ctl.abort();
			const alive = await post(s.url, modernBody('tools/list'), modernHeaders('tools/list'));
			assert.equal(alive.status, 200);
		} finally {
			assert.deepEqual(await s.stop(), { code: 0, signal: null });
		}
	});
});
