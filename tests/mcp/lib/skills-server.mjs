#!/usr/bin/env node
// A remote MCP server with the Skills extension (SEP-2640) for the tests
// of skillsfs's mcp+http:// sources: the official TypeScript SDK's own
// helpers (loadSkills, createMcpHandler) serving a folder of skills over
// Streamable HTTP on a node http server at 127.0.0.1, on a port the kernel
// chooses.
//
//   node skills-server.mjs FOLDER [--lie URI]... [--era both|modern]
//        [--page-size N] [--token-file FILE] [--tls CERT KEY]
//        [--sessions N]
//
// Prints its endpoint's URL as its first line on stdout, then "reloaded"
// each time SIGHUP has made it read the folder again (so a test waits for
// a line, never for a while).  --lie URI makes it answer resources/read of
// URI with bytes that differ from the ones its listing's digest covers,
// as a broken or tampered server would: the SDK itself never serves such
// bytes, so the answer is altered on its way out.  --lie-frontmatter URI
// alters instead the description that skills/list gives for the skill
// whose SKILL.md is URI, so that the file (its digest still the listed
// one) no longer has the listed frontmatter.
//
// --era modern serves only the stateless 2026-07-28 era (the SDK's
// createMcpHandler with legacy: 'reject'); the default serves both, the
// 2025 era statelessly (the SDK's own default).  --page-size N pages
// skills/list by N (the SDK's default is 100).  --token-file FILE answers
// 401 to a request without "Authorization: Bearer <the file's text>" (read
// at each request, so a test can rotate it).  --tls CERT KEY serves https.
// --sessions N gives each initialize a Mcp-Session-Id and answers 404 to
// the Nth request that carries one, then to every later use of that id, as
// a server whose sessions expire does (the SDK's stateless legacy serving
// has no sessions, so they are kept here, in front of it), and prints
// "expired" when it does.  --count-pages prints "page N" for the Nth
// skills/list it answers, so a test sees that cursors were followed.
// --ttl-ms N gives the listing that ttlMs (the SDK's cacheHint).  After a
// SIGHUP that changed the listing, the server notifies its listeners
// (notifications/resources/list_changed on subscriptions/listen) as the
// SDK says a handler should, and prints "reloaded, notified" instead of
// "reloaded".  It prints
// "listening" once a subscriptions/listen stream is open (its answer's
// headers sent), so a test changes the listing only once a listener can
// hear of it.  --storm N makes it, once a listener listens, send N
// list_changed notifications 10 ms apart, each with a listing that
// differs from the one before (a counter in each entry's _meta), as a
// server that never stops notifying would, then print "storm over".
// --counts FILE keeps in FILE (rewritten at each request) how many
// requests of each method it was sent: {"initialize": N, ...}.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { randomUUID } from 'node:crypto';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { loadSkills } from '@modelcontextprotocol/server/ext/skills/node';

const args = process.argv.slice(2);
const folder = args[0];
const lies = new Set(args.flatMap((a, i) => a === '--lie' ? [args[i + 1]] : []));
const fmLies = new Set(args.flatMap((a, i) =>
	a === '--lie-frontmatter' ? [args[i + 1]] : []));
const option = (name) => {
	const i = args.indexOf(name);
	return i < 0 ? undefined : args[i + 1];
};
const era = option('--era') ?? 'both';
const pageSize = option('--page-size');
const tokenFile = option('--token-file');
const tls = option('--tls') && { cert: fs.readFileSync(option('--tls')),
	key: fs.readFileSync(args[args.indexOf('--tls') + 2]) };
const expireAt = Number(option('--sessions') ?? 0);
const countPages = args.includes('--count-pages');
const ttlMs = option('--ttl-ms');
const storm = Number(option('--storm') ?? 0);
const countsFile = option('--counts');
const counts = {};
let stormed = 0;   // notifications of the storm sent so far
let pages = 0;
const sessions = new Set();   // the live ones
let sessionUses = 0;
if (!folder) {
	console.error('usage: skills-server.mjs FOLDER [--lie URI]...');
	process.exit(2);
}

const skills = await loadSkills(folder, { onWarning: () => {},
	...(pageSize ? { pageSize: Number(pageSize) } : {}),
	...(ttlMs ? { cacheHint: { ttlMs: Number(ttlMs) } } : {}) });
const handler = createMcpHandler(() => {
	const mcp = new McpServer({ name: 'skills-test-server', version: '1.0.0' });
	skills.attach(mcp);
	return mcp;
}, { legacy: era === 'modern' ? 'reject' : 'stateless' });

// The JSON-RPC message `m` with its resources/read contents altered.
function tamper(m) {
	for (const c of m?.result?.contents ?? []) {
		if (typeof c.text === 'string')
			c.text += 'tampered\n';
		else if (typeof c.blob === 'string')
			c.blob = Buffer.from('tampered\n').toString('base64');
	}
	return m;
}

// The JSON-RPC message `m` with the listed frontmatter of the skills to
// lie about altered.
function tamperListing(m) {
	for (const skill of m?.result?.skills ?? []) {
		if (fmLies.has(skill.uri))
			skill.frontmatter.description += ' (altered)';
		if (storm)
			skill._meta = { ...skill._meta, storm: stormed };
	}
	return m;
}

// The storm: once a listener listens, `storm` notifications 10 ms apart.
function startStorm() {
	if (!storm || stormed)
		return;
	const timer = setInterval(() => {
		stormed++;
		handler.notify.resourcesChanged();
		if (stormed >= storm) {
			clearInterval(timer);
			console.log('storm over');
		}
	}, 10);
}

// The body of an answer, each JSON-RPC message in it passed through fix.
function altered(text, contentType, fix = tamper) {
	if (!contentType.startsWith('text/event-stream'))
		return JSON.stringify(fix(JSON.parse(text)));
	return text.split('\n').map((line) => line.startsWith('data:') ?
		'data: ' + JSON.stringify(fix(JSON.parse(line.slice(5)))) :
		line).join('\n');
}

// Whether the request may go on: a bearer token when one is required, a
// live session when sessions are kept.  Answers the request when not.
function admitted(req, res, asked) {
	if (tokenFile) {
		const want = 'Bearer ' + fs.readFileSync(tokenFile, 'utf8').trim();
		if (req.headers.authorization !== want) {
			res.writeHead(401, { 'www-authenticate': 'Bearer' });
			res.end();
			return false;
		}
	}
	const id = req.headers['mcp-session-id'];
	if (expireAt && id && asked?.method !== 'initialize') {
		if (!sessions.has(id) || ++sessionUses === expireAt) {
			if (sessions.delete(id))
				console.log('expired');
			res.writeHead(404);
			res.end();
			return false;
		}
	}
	return true;
}

// A stream of events, passed on as it comes, until either side ends it.
async function stream(response, res) {
	const out = {};
	response.headers.forEach((v, k) => {
		if (k !== 'content-length')
			out[k] = v;
	});
	res.writeHead(response.status, out);
	res.flushHeaders();
	console.log('listening');
	startStorm();
	const reader = response.body.getReader();
	res.on('close', () => reader.cancel().catch(() => {}));
	for (;;) {
		const { done, value } = await reader.read();
		if (done)
			break;
		res.write(value);
	}
	res.end();
}

async function serve(req, res) {
	const chunks = [];
	for await (const c of req)
		chunks.push(c);
	const body = Buffer.concat(chunks);
	let asked = null;
	try {
		asked = JSON.parse(body.toString());
	} catch {
		// not JSON: nothing to alter
	}
	if (countsFile && typeof asked?.method === 'string') {
		counts[asked.method] = (counts[asked.method] ?? 0) + 1;
		fs.writeFileSync(countsFile + '.tmp', JSON.stringify(counts));
		fs.renameSync(countsFile + '.tmp', countsFile);
	}
	if (!admitted(req, res, asked))
		return;
	const headers = new Headers();
	for (const [k, v] of Object.entries(req.headers))
		if (k !== 'connection' && k !== 'content-length')
			headers.set(k, Array.isArray(v) ? v.join(', ') : v);
	const request = new Request(`http://${req.headers.host}${req.url}`, {
		method: req.method, headers,
		body: body.length ? body : undefined,
	});
	const response = await handler.fetch(request);
	if (asked?.method === 'subscriptions/listen' && response.body &&
	    (response.headers.get('content-type') ?? '')
		    .startsWith('text/event-stream')) {
		await stream(response, res);
		return;
	}
	let text = await response.text();
	if (countPages && asked?.method === 'skills/list' && response.ok)
		console.log(`page ${++pages}`);
	if (asked?.method === 'resources/read' && lies.has(asked.params?.uri))
		text = altered(text, response.headers.get('content-type') ?? '');
	if (asked?.method === 'skills/list' && (fmLies.size || storm) &&
	    response.ok)
		text = altered(text, response.headers.get('content-type') ?? '',
			tamperListing);
	const out = {};
	response.headers.forEach((v, k) => {
		if (k !== 'content-length')
			out[k] = v;
	});
	if (expireAt && asked?.method === 'initialize' && response.ok) {
		out['mcp-session-id'] = randomUUID();
		sessions.add(out['mcp-session-id']);
	}
	res.writeHead(response.status, out);
	res.end(text);
}

const listener = (req, res) => {
	serve(req, res).catch((e) => {
		console.error(e);
		res.writeHead(500);
		res.end();
	});
};
const server = tls ? https.createServer(tls, listener)
	: http.createServer(listener);
process.on('SIGHUP', () => {
	skills.reload().then((changes) => {
		if (changes.listChanged)
			handler.notify.resourcesChanged();
		console.log(changes.listChanged ? 'reloaded, notified' : 'reloaded');
	}, (e) => console.error('reload failed:', e));
});
process.on('SIGTERM', () => process.exit(0));
server.listen(0, '127.0.0.1', () => {
	console.log(`${tls ? 'https' : 'http'}://127.0.0.1:${server.address().port}/mcp`);
});
