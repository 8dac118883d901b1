// Requests at the edges: list_skills limits beyond the range, a UTF-8 byte
// order mark, a lone surrogate escape, the skill named in get_skill's audit
// line, and the logging capability (findings of a refresh as
// notifications/message once a client sets a level).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { fixtureForFile, writeSkill, skillMd, waitUntil } from '../lib/mount.mjs';
import { connectV1 } from '../lib/clients.mjs';
import { RawServer } from '../lib/raw.mjs';

const fixture = fixtureForFile({ tempDir: 'requests' });

async function withServer(args, fn) {
	const s = new RawServer(args);
	try {
		await s.handshake();
		await fn(s);
		assert.deepEqual(await s.close(), { code: 0, signal: null });
	} finally {
		s.kill();
	}
}

describe('list_skills limit', () => {
	for (const limit of [0, 501, 2 ** 32 + 1, 1e30, -1, 1.5]) {
		it(`limit ${limit} is refused, as the message says: 1 to 500`, async () => {
			await withServer(['--mount', fixture.fx.mnt], async (s) => {
				const r = await s.request('tools/call', { name: 'list_skills', arguments: { limit } });
				assert.equal(r.result?.isError, true, JSON.stringify(r));
				assert.match(r.result.content[0].text, /limit must be an integer from 1 to 500/);
			});
		});
	}

	it('limit 500 and limit 1 are accepted', async () => {
		await withServer(['--mount', fixture.fx.mnt], async (s) => {
			for (const limit of [1, 500]) {
				const r = await s.request('tools/call', { name: 'list_skills', arguments: { limit } });
				assert.notEqual(r.result?.isError, true, JSON.stringify(r));
				assert.ok(r.result.structuredContent.skills.length <= limit);
			}
		});
	});
});

describe('request text', () => {
	it('a UTF-8 byte order mark before a valid request: answered, with its id', async () => {
		await withServer(['--mount', fixture.fx.mnt], async (s) => {
			await s.writeRaw('\ufeff' + JSON.stringify({ jsonrpc: '2.0', id: 'bom-1', method: 'tools/list' }) + '\n');
			const r = await s.response('bom-1');
			assert.ok(r.result?.tools?.length, JSON.stringify(r));
		});
	});

	it('a lone \\ud800 escape does not lose the request id', async () => {
		await withServer(['--mount', fixture.fx.mnt], async (s) => {
			await s.writeRaw('{"jsonrpc":"2.0","id":77,"method":"tools/call","params":' +
				'{"name":"get_skill","arguments":{"id":"pdf\\ud800forms"}}}\n');
			const r = await s.response(77);
			assert.equal(r.id, 77);
			assert.equal(r.result?.isError, true, 'an unknown skill, not a lost request');
			await s.writeRaw('{"jsonrpc":"2.0","id":"pair","method":"tools/call","params":' +
				'{"name":"get_skill","arguments":{"id":"\\ud83d\\ude00\\udc00"}}}\n');
			const r2 = await s.response('pair');
			assert.equal(r2.result?.isError, true, JSON.stringify(r2));
		});
	});
});

describe('audit', () => {
	it('a get_skill line says which skill was asked for', async () => {
		const log = path.join(fixture.dir, 'audit.jsonl');
		await withServer(['--mount', fixture.fx.mnt, '--audit-log', log], async (s) => {
			await s.request('tools/call', { name: 'get_skill', arguments: { id: 'pdf-forms' } });
			await s.request('tools/call', { name: 'get_skill', arguments: { id: 'no-such-skill' } });
		});
		const recs = fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
			.filter((r) => r.tool === 'get_skill');
		assert.deepEqual(recs.map((r) => [r.skill, r.outcome]),
			[['pdf-forms', 'ok'], ['no-such-skill', 'tool_error']]);
	});
});

describe('logging', () => {
	it('after logging/setLevel, a refresh with findings sends notifications/message naming the file', async () => {
		const c = await connectV1(['--mount', fixture.fx.mnt]);
		const messages = [];
		c.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { messages.push(n.params); });
		try {
			assert.ok(c.client.getServerCapabilities()?.logging, 'the logging capability is declared');
			await c.client.setLoggingLevel('warning');
			// No description: an error under the serving rule (a bad name
			// alone is only a warning now).
			writeSkill(fixture.fx.src, 'broken-name', { 'SKILL.md': skillMd('name: broken-name\nlicense: MIT',
				'# Broken\n') });
			const m = await waitUntil(() => messages.find((x) => JSON.stringify(x.data).includes('broken-name')),
				{ timeoutMs: 15000, what: 'a notifications/message about broken-name' });
			assert.equal(m.level, 'error');
			assert.equal(m.logger, 'skillsfs');
			assert.ok(m.data.counts.errors >= 1);
			assert.ok(m.data.findings.some((f) => f.file.includes(path.join('broken-name', 'SKILL.md'))),
				JSON.stringify(m.data.findings));
		} finally {
			await c.close();
			fs.rmSync(path.join(fixture.fx.src, 'broken-name'), { recursive: true, force: true });
		}
	});

	it('without a level set, no notifications/message', async () => {
		const c = await connectV1(['--mount', fixture.fx.mnt]);
		const messages = [];
		const changed = [];
		c.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { messages.push(n.params); });
		c.client.fallbackNotificationHandler = async (n) => { changed.push(n.method); };
		try {
			writeSkill(fixture.fx.src, 'quiet-broken', { 'SKILL.md': skillMd('name: Quiet-Broken\ndescription: Another bad name.',
				'# Q\n') });
			await waitUntil(() => changed.includes('notifications/resources/list_changed'),
				{ timeoutMs: 15000, what: 'the refresh to be announced' });
			assert.deepEqual(messages, []);
		} finally {
			await c.close();
			fs.rmSync(path.join(fixture.fx.src, 'quiet-broken'), { recursive: true, force: true });
		}
	});

	it('an unknown level is refused', async () => {
		await withServer(['--mount', fixture.fx.mnt], async (s) => {
			const r = await s.request('logging/setLevel', { level: 'loud' });
			assert.equal(r.error?.code, -32602);
		});
	});
});
