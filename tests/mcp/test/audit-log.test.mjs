// --audit-log FILE appends one JSON line per request: time, method, tool or
// URI, outcome, duration.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fixtureForFile, makeTempDir, removeTempDir } from '../lib/mount.mjs';
import { RawServer, modernMeta } from '../lib/raw.mjs';

const fixture = fixtureForFile({ tempDir: 'audit' });

// Values of a log record, one level deep.
const values = (rec) => Object.values(rec).flatMap((v) =>
	(v && typeof v === 'object' ? [v, ...Object.values(v)] : [v]));

function findKey(rec, re) {
	return Object.keys(rec).find((k) => re.test(k));
}

describe('--audit-log', () => {
	it('writes one JSON line per request with method, tool or URI, outcome, time and duration', async () => {
		const log = path.join(fixture.dir, 'audit.jsonl');
		const s = new RawServer(['--mount', fixture.fx.mnt, '--audit-log', log]);
		const sent = [];
		try {
			await s.handshake();
			sent.push({ method: 'initialize' });
			const req = async (method, params, extra = {}) => {
				await s.request(method, params);
				sent.push({ method, ...extra });
			};
			await req('tools/list', {});
			await req('tools/call', { name: 'list_skills', arguments: {} }, { tool: 'list_skills', ok: true });
			await req('tools/call', { name: 'get_skill', arguments: { id: 'nope' } }, { tool: 'get_skill', ok: false });
			await req('resources/read', { uri: 'skill://pdf-forms/SKILL.md' }, { uri: 'skill://pdf-forms/SKILL.md', ok: true });
			await req('resources/read', { uri: 'skill://nope/SKILL.md' }, { uri: 'skill://nope/SKILL.md', ok: false });
			await req('no/such/method', {}, { ok: false });
			await req('ping', undefined);
			await req('skills/list', { _meta: modernMeta() });
			await s.notify('notifications/cancelled', { requestId: 1 });
			const exit = await s.close();
			assert.deepEqual(exit, { code: 0, signal: null });
		} finally {
			s.kill();
		}
		const lines = fs.readFileSync(log, 'utf8').split('\n').filter(Boolean);
		assert.equal(lines.length, sent.length, `one line per request (no line for notifications):\n${lines.join('\n')}`);
		const recs = lines.map((l) => JSON.parse(l));
		const outcomes = { ok: new Set(), bad: new Set() };
		recs.forEach((rec, i) => {
			const want = sent[i];
			assert.equal(rec.method, want.method, `line ${i + 1}: method`);
			const timeKey = findKey(rec, /time|^ts$/i);
			assert.ok(timeKey && !Number.isNaN(Date.parse(rec[timeKey])), `line ${i + 1}: a time: ${lines[i]}`);
			const durKey = findKey(rec, /dur|elapsed|_ms$/i);
			assert.ok(durKey && typeof rec[durKey] === 'number' && rec[durKey] >= 0,
				`line ${i + 1}: a duration: ${lines[i]}`);
			const outKey = findKey(rec, /outcome|result|status/i);
			assert.ok(outKey !== undefined, `line ${i + 1}: an outcome: ${lines[i]}`);
			if (want.tool)
				assert.ok(values(rec).includes(want.tool), `line ${i + 1}: names tool ${want.tool}: ${lines[i]}`);
			if (want.uri)
				assert.ok(values(rec).includes(want.uri), `line ${i + 1}: names ${want.uri}: ${lines[i]}`);
			if (want.ok === true)
				outcomes.ok.add(JSON.stringify(rec[outKey]));
			if (want.ok === false)
				outcomes.bad.add(JSON.stringify(rec[outKey]));
		});
		for (const o of outcomes.bad)
			assert.ok(!outcomes.ok.has(o), `a failed request's outcome ${o} differs from a successful one's`);
	});

	it('appends to an existing log', async () => {
		const log = path.join(fixture.dir, 'append.jsonl');
		fs.writeFileSync(log, '{"earlier":"line"}\n');
		const s = new RawServer(['--mount', fixture.fx.mnt, '--audit-log', log]);
		try {
			await s.handshake();
			await s.request('ping');
			await s.close();
		} finally {
			s.kill();
		}
		const lines = fs.readFileSync(log, 'utf8').split('\n').filter(Boolean);
		assert.equal(lines[0], '{"earlier":"line"}', 'the earlier line is kept');
		assert.equal(lines.length, 3, 'two new lines');
	});
});
