// Both eras of the protocol: the initialize handshake with version
// negotiation, and the stateless 2026-07-28 revision (server/discover,
// per-request _meta, resultType, caching hints, -32022).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mountedFixture } from '../lib/mount.mjs';
import { RawServer, HANDSHAKE_VERSIONS, NEWEST_HANDSHAKE, MODERN, SKILLS_EXT, modernMeta } from '../lib/raw.mjs';
import { connectV1, connectV2 } from '../lib/clients.mjs';

let fx;
before(async () => { fx = await mountedFixture(); });
after(async () => { await fx?.cleanup(); });

async function withRaw(fn) {
	const s = new RawServer(['--mount', fx.mnt]);
	try {
		await fn(s);
		const exit = await s.close();
		assert.deepEqual(exit, { code: 0, signal: null }, 'exits 0 on EOF');
	} finally {
		s.kill();
	}
}

function checkCapabilities(caps, what) {
	assert.ok(caps.tools && typeof caps.tools === 'object', `${what}: tools`);
	assert.ok(caps.resources && typeof caps.resources === 'object', `${what}: resources`);
	assert.ok(caps.prompts && typeof caps.prompts === 'object', `${what}: prompts`);
	const ext = caps.extensions?.[SKILLS_EXT];
	assert.ok(ext && typeof ext === 'object' && !Array.isArray(ext), `${what}: skills extension object`);
	assert.equal(ext.directoryRead, true, `${what}: directoryRead`);
}

describe('handshake era', () => {
	for (const version of HANDSHAKE_VERSIONS) {
		it(`initialize echoes the supported version ${version}`, async () => {
			await withRaw(async (s) => {
				const r = await s.handshake(version);
				assert.equal(r.protocolVersion, version);
				assert.equal(typeof r.serverInfo?.name, 'string', 'serverInfo.name');
				assert.equal(typeof r.serverInfo?.version, 'string', 'serverInfo.version');
				checkCapabilities(r.capabilities, version);
				assert.equal(typeof r.instructions, 'string', 'instructions');
				const ping = await s.request('ping');
				assert.deepEqual(ping.result, {}, 'ping answers {}');
			});
		});
	}

	for (const version of ['2024-10-07', '1999-01-01', '2099-12-31', 'not-a-version']) {
		it(`initialize with unsupported ${version} answers the newest, ${NEWEST_HANDSHAKE}`, async () => {
			await withRaw(async (s) => {
				const r = await s.handshake(version);
				assert.equal(r.protocolVersion, NEWEST_HANDSHAKE);
			});
		});
	}

	it('initialize without params is -32602', async () => {
		await withRaw(async (s) => {
			const r = await s.request('initialize');
			assert.equal(r.error?.code, -32602, JSON.stringify(r));
		});
	});

	it('ping answers {} with the request id, before and after initialize', async () => {
		await withRaw(async (s) => {
			const early = await s.request('ping', undefined, { id: 'early' });
			assert.deepEqual(early, { jsonrpc: '2.0', id: 'early', result: {} });
			await s.handshake();
			const late = await s.request('ping', {}, { id: 7 });
			assert.deepEqual(late, { jsonrpc: '2.0', id: 7, result: {} });
		});
	});

	it('v1 SDK client negotiates 2025-11-25', async () => {
		const c = await connectV1(['--mount', fx.mnt]);
		try {
			checkCapabilities(c.client.getServerCapabilities(), 'v1');
			assert.equal(typeof c.client.getServerVersion()?.name, 'string');
			assert.deepEqual(await c.client.ping(), {});
		} finally {
			await c.close();
		}
	});

	it('v2 client in the default (legacy) mode negotiates 2025-11-25', async () => {
		const c = await connectV2(['--mount', fx.mnt], { era: 'legacy' });
		try {
			assert.equal(c.client.getNegotiatedProtocolVersion(), NEWEST_HANDSHAKE);
			assert.equal(c.client.getProtocolEra(), 'legacy');
			checkCapabilities(c.client.getServerCapabilities(), 'v2 legacy');
			await c.client.ping();
		} finally {
			await c.close();
		}
	});
});

describe('stateless era 2026-07-28', () => {
	it('v2 client pinned to 2026-07-28 connects through server/discover', async () => {
		const c = await connectV2(['--mount', fx.mnt], { era: 'modern' });
		try {
			assert.equal(c.client.getProtocolEra(), 'modern');
			assert.equal(c.client.getNegotiatedProtocolVersion(), MODERN);
			checkCapabilities(c.client.getServerCapabilities(), 'v2 modern');
			const { tools } = await c.client.listTools();
			assert.ok(tools.some((t) => t.name === 'list_skills'));
		} finally {
			await c.close();
		}
	});

	it('v2 client in auto mode picks the stateless era', async () => {
		const c = await connectV2(['--mount', fx.mnt], { versionNegotiation: { mode: 'auto' } });
		try {
			assert.equal(c.client.getProtocolEra(), 'modern');
			assert.equal(c.client.getNegotiatedProtocolVersion(), MODERN);
		} finally {
			await c.close();
		}
	});

	it('server/discover lists the versions, capabilities and instructions, with resultType', async () => {
		await withRaw(async (s) => {
			const r = await s.request('server/discover', { _meta: modernMeta() });
			assert.ok(r.result, JSON.stringify(r));
			assert.ok(r.result.supportedVersions.includes(MODERN), 'supportedVersions has 2026-07-28');
			assert.equal(r.result.resultType, 'complete');
			checkCapabilities(r.result.capabilities, 'discover');
			assert.equal(typeof r.result.instructions, 'string', 'instructions');
			const info = r.result._meta?.['io.modelcontextprotocol/serverInfo'] ?? r.result.serverInfo;
			assert.equal(typeof info?.name, 'string', 'server identifies itself');
		});
	});

	it('requests need no initialize: each carries its version in _meta', async () => {
		await withRaw(async (s) => {
			const r = await s.request('tools/call', { name: 'list_skills', arguments: {}, _meta: modernMeta() });
			assert.equal(r.result?.resultType, 'complete', JSON.stringify(r).slice(0, 300));
			assert.ok(r.result.structuredContent, 'structuredContent');
		});
	});

	it('cacheable results carry resultType, ttlMs and cacheScope', async () => {
		await withRaw(async (s) => {
			const calls = [
				['tools/list', {}],
				['prompts/list', {}],
				['resources/list', {}],
				['resources/templates/list', {}],
				['resources/read', { uri: 'skill://pdf-forms/SKILL.md' }],
				['resources/read', { uri: 'resource://catalog/skills_index' }],
				['skills/list', {}],
				// SEP-2640 leaves this open, but the v2 SDK's SkillsClient
				// and the conformance suite both require the hints here.
				['skills/get', { uri: 'skill://pdf-forms/SKILL.md' }],
				// The same for the v2 SDK's SkillsClient.readDirectory().
				['resources/directory/read', { uri: 'skill://pdf-forms' }],
			];
			for (const [method, params] of calls) {
				const r = await s.request(method, { ...params, _meta: modernMeta() });
				assert.ok(r.result, `${method}: ${JSON.stringify(r).slice(0, 300)}`);
				assert.equal(r.result.resultType, 'complete', `${method}: resultType`);
				assert.ok(Number.isInteger(r.result.ttlMs) && r.result.ttlMs >= 0, `${method}: ttlMs ${r.result.ttlMs}`);
				assert.ok(['public', 'private'].includes(r.result.cacheScope), `${method}: cacheScope ${r.result.cacheScope}`);
			}
			for (const [method, params] of [['prompts/get', { name: 'init-skills' }],
				['resources/directory/read', { uri: 'skill://pdf-forms' }],
				['tools/call', { name: 'get_skill', arguments: { id: 'csv-report' } }]]) {
				const r = await s.request(method, { ...params, _meta: modernMeta() });
				assert.equal(r.result?.resultType, 'complete', `${method}: ${JSON.stringify(r).slice(0, 300)}`);
			}
		});
	});

	it('an unsupported version in _meta is -32022 naming the supported versions', async () => {
		await withRaw(async (s) => {
			for (const v of ['2099-01-01', '2026-07-27', 'bogus']) {
				const r = await s.request('tools/list', {
					_meta: modernMeta({ 'io.modelcontextprotocol/protocolVersion': v }) });
				assert.equal(r.error?.code, -32022, `${v}: ${JSON.stringify(r)}`);
				assert.ok(Array.isArray(r.error.data?.supported), `${v}: data.supported`);
				assert.ok(r.error.data.supported.includes(MODERN), `${v}: supported has ${MODERN}`);
				assert.equal(r.error.data.requested, v, `${v}: data.requested`);
			}
		});
	});

	it('a stateless request without clientCapabilities in _meta is -32602', async () => {
		await withRaw(async (s) => {
			const meta = modernMeta();
			delete meta['io.modelcontextprotocol/clientCapabilities'];
			const r = await s.request('tools/list', { _meta: meta });
			assert.equal(r.error?.code, -32602, JSON.stringify(r));
		});
	});

	it('ping is gone from 2026-07-28: -32601', async () => {
		await withRaw(async (s) => {
			const r = await s.request('ping', { _meta: modernMeta() });
			assert.equal(r.error?.code, -32601, JSON.stringify(r));
		});
	});

	it('initialize with only 2026-07-28 _meta is a removed method: -32601', async () => {
		await withRaw(async (s) => {
			const r = await s.request('initialize', { _meta: modernMeta() });
			assert.equal(r.error?.code, -32601, JSON.stringify(r));
		});
	});

	it('initialize with a handshake protocolVersion is a handshake, whatever its _meta', async () => {
		await withRaw(async (s) => {
			const r = await s.request('initialize', {
				protocolVersion: NEWEST_HANDSHAKE,
				capabilities: {},
				clientInfo: { name: 'test', version: '1' },
				_meta: modernMeta(),
			});
			assert.equal(r.result?.protocolVersion, NEWEST_HANDSHAKE, JSON.stringify(r));
		});
	});

	it('errors in the stateless era are JSON-RPC errors too', async () => {
		await withRaw(async (s) => {
			let r = await s.request('resources/read', { uri: 'skill://nope/SKILL.md', _meta: modernMeta() });
			assert.equal(r.error?.code, -32602, JSON.stringify(r));
			assert.equal(r.error.data?.uri, 'skill://nope/SKILL.md');
			r = await s.request('skills/get', { uri: 'skill://nope/SKILL.md', _meta: modernMeta() });
			assert.equal(r.error?.code, -32602, JSON.stringify(r));
			r = await s.request('no/such/method', { _meta: modernMeta() });
			assert.equal(r.error?.code, -32601, JSON.stringify(r));
		});
	});

	it('one process serves both eras, request by request', async () => {
		await withRaw(async (s) => {
			const modern = await s.request('tools/list', { _meta: modernMeta() });
			assert.equal(modern.result?.resultType, 'complete');
			const init = await s.handshake(NEWEST_HANDSHAKE);
			assert.equal(init.protocolVersion, NEWEST_HANDSHAKE);
			const again = await s.request('tools/list', { _meta: modernMeta() });
			assert.equal(again.result?.resultType, 'complete');
		});
	});
});
