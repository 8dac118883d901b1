// skillsfs-mcp --http: a session's GET stream is resumable.  Its events
// carry ids; a client whose stream dropped comes back with Last-Event-ID
// and gets what was said while it was away (the official v1 SDK client
// does so by itself), and an id that is not the session's, or whose
// events are no longer kept, gets a clear 400.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { mountedFixture, writeSkill, skillMd, skillIds, waitUntil } from '../lib/mount.mjs';
import { startHttp, connectHttpV1, connectHttpV2, post, authFetch as fetch, openSession as openSessionAt,
	getStream as getStreamAt } from '../lib/http.mjs';

const DEADLINE_MS = 15000;

let fx, server;
before(async () => {
	fx = await mountedFixture();
	server = await startHttp(['--mount', fx.mnt]);
});
after(async () => {
	const exit = await server?.stop();
	await fx?.cleanup();
	assert.deepEqual(exit, { code: 0, signal: null }, `exits 0 on SIGTERM:\n${server?.stderr()}`);
});

function addSkill(id) {
	writeSkill(fx.src, id, { 'SKILL.md': skillMd(`name: ${id}\ndescription: A skill added ` +
		'while a stream is down. Use in the resumption tests.', `# ${id}\n`) });
}

// The fetch of a client whose GET stream can be cut: cut() drops the
// connection of the open one and holds the next GETs until restore().
// gets: the Last-Event-ID each GET carried (null: none).
function cuttableFetch() {
	const line = { gets: [], open: 0, stream: null, held: null };
	line.fetch = async (url, init = {}) => {
		if ((init.method ?? 'GET') !== 'GET')
			return globalThis.fetch(url, init);
		await line.held?.promise;
		line.gets.push(new Headers(init.headers).get('last-event-id'));
		const ctl = new AbortController();
		init.signal?.addEventListener('abort', () => ctl.abort());
		const res = await globalThis.fetch(url, { ...init, signal: ctl.signal });
		if (res.ok) {
			line.stream = ctl;
			line.open++;
		}
		return res;
	};
	line.cut = () => {
		let release;
		line.held = { promise: new Promise((resolve) => { release = resolve; }) };
		line.held.release = release;
		line.stream.abort();
	};
	line.restore = () => {
		line.held.release();
		line.held = null;
	};
	return line;
}

const openSession = () => openSessionAt(server.url);

async function endSession(sid) {
	await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': sid } });
}

const getStream = (sid, lastEventId, signal) => getStreamAt(server.url, sid, lastEventId, signal);

// The id of the first event of an open stream that has one.
async function firstEventId(res) {
	const reader = res.body.getReader();
	const decoder = new TextDecoder();
	let text = '';
	for (;;) {
		const { value, done } = await reader.read();
		assert.ok(!done, `the stream ended before an event with an id:\n${text}`);
		text += decoder.decode(value, { stream: true });
		const id = /^id: ?(.*)$/m.exec(text)?.[1];
		if (id && text.includes('\n\n', text.indexOf('id:')))
			return id;
	}
}

// A new session whose GET stream was opened (200), read up to its first
// event with an id and closed again: {sid, primed: that id}.  The
// session is ended here only when this fails.
async function primedSession() {
	const sid = await openSession();
	const ctl = new AbortController();
	try {
		const res = await getStream(sid, null, ctl.signal);
		assert.equal(res.status, 200);
		return { sid, primed: await firstEventId(res) };
	} catch (err) {
		await endSession(sid);
		throw err;
	} finally {
		ctl.abort();
	}
}

describe('resuming a session stream', () => {
	for (const [sdk, connect, schema] of [
		['v1 sdk', connectHttpV1, ResourceListChangedNotificationSchema],
		['v2 client', connectHttpV2, 'notifications/resources/list_changed'],
	]) {
		it(`a client whose GET stream dropped hears on resuming of the change it missed (${sdk})`, async () => {
			const line = cuttableFetch();
			const c = await connect(server.url, { fetch: line.fetch, reconnectionOptions: {
				initialReconnectionDelay: 50, maxReconnectionDelay: 500,
				reconnectionDelayGrowFactor: 2, maxRetries: 20 } });
			const skill = `resume-missed-${sdk.replace(/\W/g, '')}`;
			try {
				let heard = 0;
				c.client.setNotificationHandler(schema, () => { heard++; });
				await waitUntil(() => line.open === 1, { timeoutMs: DEADLINE_MS,
					what: 'the session GET stream to open' });
				line.cut();
				addSkill(skill);
				// The client's own listing sees the new skill while its
				// stream is down: the server told the news then, to nobody.
				await waitUntil(async () => (await c.client.listResources()).resources
					.some((r) => r.uri.includes(skill)), { timeoutMs: DEADLINE_MS,
					what: `the listing to show ${skill}` });
				assert.equal(heard, 0, 'nothing is heard while the stream is down');
				line.restore();
				await waitUntil(() => heard > 0, { timeoutMs: DEADLINE_MS,
					what: 'the list_changed missed while the stream was down' });
				assert.equal(line.gets.length, 2, `GETs: ${JSON.stringify(line.gets)}`);
				assert.equal(line.gets[0], null, 'the first GET resumes nothing');
				assert.match(line.gets[1] ?? '', /^[0-9a-f]{16}-[0-9]+$/,
					'the client came back with the id of the last event it got');
			} finally {
				await c.close();
			}
		});
	}

	it('events are replayed after Last-Event-ID, each with its id', async () => {
		const { sid, primed } = await primedSession();
		try {
			addSkill('resume-replayed');
			// A request of the session sees the new generation, and its
			// news goes to the log while no stream is open.
			await waitUntil(async () => (await post(server.url, { jsonrpc: '2.0', id: 2,
				method: 'resources/list' }, { 'mcp-session-id': sid })).text
				.includes('resume-replayed'), { timeoutMs: DEADLINE_MS,
				what: 'resources/list to show resume-replayed' });
			const again = new AbortController();
			try {
				const res = await getStream(sid, primed, again.signal);
				assert.equal(res.status, 200);
				const reader = res.body.getReader();
				const decoder = new TextDecoder();
				let text = '';
				while (!/notifications\/prompts\/list_changed[^\n]*\n\n/.test(text)) {
					const { value, done } = await reader.read();
					assert.ok(!done, `the stream ended:\n${text}`);
					text += decoder.decode(value, { stream: true });
				}
				const tag = primed.split('-')[0];
				const ids = [...text.matchAll(/^id: (.*)$/gm)].map((m) => m[1]);
				assert.ok(ids.length >= 2, text);
				for (const id of ids)
					assert.ok(id.startsWith(`${tag}-`), `${id} is of this session's stream`);
				assert.match(text, new RegExp(`id: ${tag}-\\d+\\nevent: message\\ndata: .*resources/list_changed`));
			} finally {
				again.abort();
			}
		} finally {
			await endSession(sid);
		}
	});

	it("another session's event id, or one never sent, is refused with 400", async () => {
		const { sid: a, primed: idOfA } = await primedSession();
		const b = await openSession();
		try {
			const tag = idOfA.split('-')[0];
			for (const bad of [idOfA, `${tag}-999999`, 'not-an-id', `${tag}-1x`]) {
				const r = await getStream(b, bad);
				const text = await r.text();
				assert.equal(r.status, 400, `${bad}: ${text}`);
				assert.match(JSON.parse(text).error.message,
					/Last-Event-ID .* is not an event of this session's stream/);
			}
			// A's own id still resumes A's stream.
			const ok = new AbortController();
			try {
				const r = await getStream(a, idOfA, ok.signal);
				assert.equal(r.status, 200);
			} finally {
				ok.abort();
			}
		} finally {
			await endSession(a);
			await endSession(b);
		}
	});

	it('a Last-Event-ID whose events are no longer kept is refused with 400', async () => {
		const { sid, primed } = await primedSession();
		try {
			// Each new generation is two events (resources and prompts
			// list_changed): 33 of them overflow the 64 a session keeps.
			for (let i = 0; i < 33; i++) {
				const id = `resume-window-${i}`;
				addSkill(id);
				await waitUntil(() => skillIds(fx.mnt).includes(id),
					{ timeoutMs: DEADLINE_MS, what: `the mount to serve ${id}` });
				// Any request of the session looks at the generation.
				const ping = await post(server.url, { jsonrpc: '2.0', id: 3, method: 'ping' },
					{ 'mcp-session-id': sid });
				assert.equal(ping.status, 200, ping.text);
			}
			const r = await getStream(sid, primed);
			const text = await r.text();
			assert.equal(r.status, 400, text);
			assert.match(JSON.parse(text).error.message,
				/Last-Event-ID .*: the events after it are no longer kept \(a session keeps its last 64/);
		} finally {
			await endSession(sid);
		}
	});
});
