// JSON-RPC to the letter, written byte by byte to stdin: parse errors,
// batches, wrong types, unknown methods, notifications, exact id echo, an
// oversized line, EOF in the middle of a message, and a clean stdout.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mountedFixture, waitUntil } from '../lib/mount.mjs';
import { RawServer, withRawServer } from '../lib/raw.mjs';

let fx;
before(async () => { fx = await mountedFixture(); });
after(async () => { await fx?.cleanup(); });

// Runs fn against a fresh, initialized server; then checks that every line
// it wrote to stdout was a JSON-RPC 2.0 message and that EOF exits 0.
async function session(fn, { initialize = true } = {}) {
	const s = new RawServer(['--mount', fx.mnt]);
	try {
		if (initialize)
			await s.handshake();
		await fn(s);
		const exit = await s.close();
		assert.deepEqual(exit, { code: 0, signal: null }, 'exit 0 on EOF');
		assert.equal(s.partial.length, 0, 'stdout ends with a complete line');
		for (const line of s.lines) {
			let msg;
			assert.doesNotThrow(() => { msg = JSON.parse(line); }, `stdout line is JSON: ${line.slice(0, 200)}`);
			assert.equal(msg.jsonrpc, '2.0', `stdout line is JSON-RPC 2.0: ${line.slice(0, 200)}`);
			assert.ok('result' in msg || 'error' in msg || 'method' in msg,
				`stdout line is a response or notification: ${line.slice(0, 200)}`);
		}
	} finally {
		s.kill();
	}
}

function assertError(msg, code, id) {
	assert.ok(msg.error, `an error response: ${JSON.stringify(msg).slice(0, 300)}`);
	assert.equal(msg.jsonrpc, '2.0');
	assert.equal(msg.error.code, code, `code: ${JSON.stringify(msg.error)}`);
	assert.equal(typeof msg.error.message, 'string', 'error.message');
	assert.ok(!('result' in msg), 'no result beside the error');
	if (id !== undefined)
		assert.deepEqual(msg.id, id, 'id');
}

describe('malformed input', () => {
	it('bad JSON is -32700 with id null, and the stream goes on', async () => {
		await session(async (s) => {
			for (const bad of ['{"jsonrpc":"2.0","id":1,"method":', 'not json at all',
				'{"jsonrpc":"2.0","id":2,"method":"ping"', '\u0000\u0001\u0002', '{"a":1}}']) {
				await s.send(bad);
				assertError(await s.next(), -32700, null);
			}
			const ok = await s.request('ping', undefined, { id: 3 });
			assert.deepEqual(ok.result, {});
		});
	});

	it('invalid UTF-8 on a line is an error, and the stream goes on', async () => {
		await session(async (s) => {
			await s.writeRaw(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"'),
				Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}}\n')]));
			const msg = await s.next();
			assert.ok(msg.error, `an error: ${JSON.stringify(msg)}`);
			assert.ok([-32700, -32600].includes(msg.error.code), `code ${msg.error.code}`);
			assert.deepEqual((await s.request('ping', undefined, { id: 2 })).result, {});
		});
	});

	it('a batch array is -32600 with id null', async () => {
		await session(async (s) => {
			await s.send([{ jsonrpc: '2.0', id: 1, method: 'ping' }, { jsonrpc: '2.0', id: 2, method: 'ping' }]);
			assertError(await s.next(), -32600, null);
			await s.send([]);
			assertError(await s.next(), -32600, null);
			await s.send([{ jsonrpc: '2.0', method: 'notifications/initialized' }]);
			assertError(await s.next(), -32600, null);
			assert.deepEqual((await s.request('ping', undefined, { id: 'after' })).result, {});
		});
	});

	it('JSON that is not a request object is -32600 with id null', async () => {
		await session(async (s) => {
			for (const v of ['1', '"ping"', 'null', 'true', '{}']) {
				await s.send(v);
				assertError(await s.next(), -32600, null);
			}
		});
	});

	it('wrong types: id as object or array, method as number, bad jsonrpc', async () => {
		await session(async (s) => {
			await s.send({ jsonrpc: '2.0', id: { a: 1 }, method: 'ping' });
			assertError(await s.next(), -32600, null);
			await s.send({ jsonrpc: '2.0', id: [1], method: 'ping' });
			assertError(await s.next(), -32600, null);
			await s.send({ jsonrpc: '2.0', id: true, method: 'ping' });
			assertError(await s.next(), -32600, null);
			for (const bad of [{ jsonrpc: '2.0', id: 5, method: 42 },
				{ jsonrpc: '2.0', id: 5, method: null },
				{ jsonrpc: '1.0', id: 5, method: 'ping' },
				{ id: 5, method: 'ping' },
				{ jsonrpc: 2, id: 5, method: 'ping' }]) {
				await s.send(bad);
				const msg = await s.next();
				assertError(msg, -32600);
				assert.ok(msg.id === 5 || msg.id === null, `id 5 or null: ${JSON.stringify(msg.id)}`);
			}
		});
	});

	it('params of the wrong type are refused with -32600 or -32602, id echoed', async () => {
		await session(async (s) => {
			for (const [method, params] of [['tools/list', 'x'], ['tools/call', 7],
				['resources/read', ['skill://pdf-forms/SKILL.md']], ['tools/call', { name: 5 }],
				['resources/read', { uri: 17 }], ['prompts/get', { name: null }],
				['tools/call', { name: 'get_skill', arguments: 'pdf-forms' }],
				['tools/list', { cursor: 12 }]]) {
				const msg = await s.request(method, params, { id: 'p' });
				assert.ok(msg.error, `${method} ${JSON.stringify(params)}: an error: ${JSON.stringify(msg).slice(0, 200)}`);
				assert.ok([-32600, -32602].includes(msg.error.code),
					`${method} ${JSON.stringify(params)}: -32600 or -32602, got ${msg.error.code}`);
				assert.equal(msg.id, 'p');
			}
		});
	});

	it('an unknown method is -32601 with the id echoed', async () => {
		await session(async (s) => {
			for (const method of ['foo/bar', 'tools/lists', '', 'initialize/', 'rpc.discover'])
				assertError(await s.request(method, {}, { id: 41 }), -32601, 41);
		});
	});

	it('an unknown tool is an error naming it', async () => {
		await session(async (s) => {
			const msg = await s.request('tools/call', { name: 'no_such_tool', arguments: {} }, { id: 9 });
			if (msg.error) {
				assertError(msg, -32602, 9);
			} else {
				assert.equal(msg.result.isError, true, JSON.stringify(msg));
				assert.ok(JSON.stringify(msg.result.content).includes('no_such_tool'));
			}
		});
	});

	it('notifications are never answered: a ping sent after them gets the first answer', async () => {
		await session(async (s) => {
			await s.notify('notifications/initialized');
			await s.notify('notifications/cancelled', { requestId: 1 });
			await s.notify('notifications/roots/list_changed');
			await s.notify('notifications/whatever', { x: 1 });
			await s.send({ jsonrpc: '2.0', method: 'tools/list', params: {} });
			await s.send({ jsonrpc: '2.0', method: 'no/such/method' });
			await s.send({ jsonrpc: '2.0', id: 'marker', method: 'ping' });
			const first = await s.next();
			assert.deepEqual(first, { jsonrpc: '2.0', id: 'marker', result: {} });
		});
	});
});

describe('ids echoed exactly', () => {
	// Raw id text as written -> raw id text expected in the response line.
	const cases = ['"abc"', '""', '"ünïcödé ✓"', '"with \\"quotes\\" and \\\\ backslash"',
		'"\\u0000nul"', '0', '-1', '1', '42', '-2147483649', '9007199254740991',
		'-9007199254740991', '9223372036854775807', '"12345678901234567890123"'];
	for (const raw of cases) {
		it(`id ${raw}`, async () => {
			await session(async (s) => {
				await s.send(`{"jsonrpc":"2.0","id":${raw},"method":"ping"}`);
				await s.next();
				const line = s.lines[s.lines.length - 1];
				const parsed = JSON.parse(line);
				// A server may refuse NUL in strings; it must still echo the id.
				if (!raw.includes('\\u0000'))
					assert.deepEqual(parsed.result, {}, `ping answered: ${line}`);
				const m = /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)/.exec(line);
				assert.ok(m, `an id in ${line}`);
				assert.deepEqual(JSON.parse(m[1]), JSON.parse(raw), `id value: ${line}`);
				if (!raw.startsWith('"'))
					assert.equal(m[1], raw, `number id echoed digit for digit: ${line}`);
			});
		});
	}

	it('error responses echo the id too', async () => {
		await session(async (s) => {
			await s.send('{"jsonrpc":"2.0","id":"err-1","method":"nope"}');
			assertError(await s.next(), -32601, 'err-1');
			await s.send('{"jsonrpc":"2.0","id":-7,"method":"resources/read","params":{"uri":"skill://x/SKILL.md"}}');
			assertError(await s.next(), -32602, -7);
		});
	});
});

describe('size and end of input', () => {
	it('a 10 MB line is refused and the next request on the stream still works', async () => {
		await session(async (s) => {
			const pad = 'x'.repeat(10 * 1024 * 1024);
			await s.writeRaw(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` +
				`{"name":"get_skill","arguments":{"id":"${pad}"}}}\n`);
			await s.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
			const first = await s.next({ timeoutMs: 20000 });
			assert.ok(first.error, `the huge line gets an error: ${JSON.stringify(first).slice(0, 300)}`);
			assert.ok(first.error.code <= -32000 && first.error.code >= -32768,
				`a JSON-RPC error code: ${first.error.code}`);
			assert.ok(first.id === null || first.id === 1, `id null or 1: ${first.id}`);
			const second = await s.next({ timeoutMs: 20000 });
			assert.deepEqual(second, { jsonrpc: '2.0', id: 2, result: {} }, 'the next request is answered');
			const third = await s.request('tools/call', { name: 'get_skill', arguments: { id: 'csv-report' } });
			assert.ok(third.result && !third.result.isError, 'and the one after that');
		});
	});

	it('a 10 MB line without a newline, then EOF: exit 0 promptly', async () => {
		await withRawServer(['--mount', fx.mnt], async (s) => {
			await s.handshake();
			await s.writeRaw('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"p":"' + 'y'.repeat(10 * 1024 * 1024));
			const exit = await s.close({ timeoutMs: 5000 });
			assert.deepEqual(exit, { code: 0, signal: null });
		});
	});

	it('EOF in the middle of a message: exit 0 promptly, nothing more on stdout', async () => {
		await withRawServer(['--mount', fx.mnt], async (s) => {
			await s.handshake();
			const before = s.lines.length;
			await s.writeRaw('{"jsonrpc":"2.0","id":99,"meth');
			const t0 = Date.now();
			const exit = await s.close({ timeoutMs: 3000 });
			assert.deepEqual(exit, { code: 0, signal: null });
			assert.ok(Date.now() - t0 < 3000, 'promptly');
			const extra = s.lines.slice(before);
			assert.ok(extra.every((l) => !l.includes('"id":99')), `no answer to the cut message: ${extra}`);
		});
	});

	it('EOF before anything was sent: exit 0 promptly', async () => {
		await withRawServer(['--mount', fx.mnt], async (s) => {
			const exit = await s.close({ timeoutMs: 3000 });
			assert.deepEqual(exit, { code: 0, signal: null });
			assert.deepEqual(s.lines, [], 'nothing on stdout');
		});
	});

	it('requests already read are answered before the EOF exit', async () => {
		await withRawServer(['--mount', fx.mnt], async (s) => {
			await s.handshake();
			await s.writeRaw('{"jsonrpc":"2.0","id":"last","method":"tools/list"}\n');
			const exit = await s.close({ timeoutMs: 5000 });
			assert.deepEqual(exit, { code: 0, signal: null });
			await waitUntil(() => s.queue.some((m) => m.id === 'last'), { timeoutMs: 1000,
				what: 'the answer to the last request' });
		});
	});

	it('blank lines and CRLF line ends are tolerated', async () => {
		await session(async (s) => {
			await s.writeRaw('\n\r\n   \n');
			await s.writeRaw('{"jsonrpc":"2.0","id":"crlf","method":"ping"}\r\n');
			const msg = await s.next();
			assert.deepEqual(msg, { jsonrpc: '2.0', id: 'crlf', result: {} });
		});
	});

	it('stdout holds only JSON-RPC lines over a long mixed session', async () => {
		await session(async (s) => {
			await s.request('tools/list', {});
			await s.request('tools/call', { name: 'list_skills', arguments: {} });
			await s.request('tools/call', { name: 'get_skill', arguments: { id: 'pdf-forms' } });
			await s.request('tools/call', { name: 'get_skill', arguments: { id: 'nope' } });
			await s.request('resources/list', {});
			await s.request('resources/read', { uri: 'skill://binary-assets/assets/logo.png' });
			await s.request('resources/read', { uri: 'skill://nope/x' });
			await s.request('prompts/list', {});
			await s.request('prompts/get', { name: 'init-skills' });
			await s.request('skills/list', {});
			await s.request('resources/directory/read', { uri: 'skill://pdf-forms' });
			await s.send('garbage');
			await s.next();
			await s.request('nope', {});
		});
	});
});
