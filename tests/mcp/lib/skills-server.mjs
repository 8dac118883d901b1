#!/usr/bin/env node
// A remote MCP server with the Skills extension (SEP-2640) for the tests
// of skillsfs's mcp+http:// sources: the official TypeScript SDK's own
// helpers (loadSkills, createMcpHandler) serving a folder of skills over
// Streamable HTTP on a node http server at 127.0.0.1, on a port the kernel
// chooses.
//
//   node skills-server.mjs FOLDER [--lie URI]...
//
// Prints its endpoint's URL as its first line on stdout, then "reloaded"
// each time SIGHUP has made it read the folder again (so a test waits for
// a line, never for a while).  --lie URI makes it answer resources/read of
// URI with bytes that differ from the ones its listing's digest covers,
// as a broken or tampered server would: the SDK itself never serves such
// bytes, so the answer is altered on its way out.
import http from 'node:http';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { loadSkills } from '@modelcontextprotocol/server/ext/skills/node';

const args = process.argv.slice(2);
const folder = args[0];
const lies = new Set(args.flatMap((a, i) => a === '--lie' ? [args[i + 1]] : []));
if (!folder) {
	console.error('usage: skills-server.mjs FOLDER [--lie URI]...');
	process.exit(2);
}

const skills = await loadSkills(folder, { onWarning: () => {} });
const handler = createMcpHandler(() => {
	const mcp = new McpServer({ name: 'skills-test-server', version: '1.0.0' });
	skills.attach(mcp);
	return mcp;
});

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

// The body of an answer to a read of a URI to lie about, altered.
function altered(text, contentType) {
	if (!contentType.startsWith('text/event-stream'))
		return JSON.stringify(tamper(JSON.parse(text)));
	return text.split('\n').map((line) => line.startsWith('data:') ?
		'data: ' + JSON.stringify(tamper(JSON.parse(line.slice(5)))) :
		line).join('\n');
}

async function serve(req, res) {
	const chunks = [];
	for await (const c of req)
		chunks.push(c);
	const body = Buffer.concat(chunks);
	const headers = new Headers();
	for (const [k, v] of Object.entries(req.headers))
		if (k !== 'connection' && k !== 'content-length')
			headers.set(k, Array.isArray(v) ? v.join(', ') : v);
	const request = new Request(`http://${req.headers.host}${req.url}`, {
		method: req.method, headers,
		body: body.length ? body : undefined,
	});
	const response = await handler.fetch(request);
	let text = await response.text();
	let asked = null;
	try {
		asked = JSON.parse(body.toString());
	} catch {
		// not JSON: nothing to alter
	}
	if (asked?.method === 'resources/read' && lies.has(asked.params?.uri))
		text = altered(text, response.headers.get('content-type') ?? '');
	const out = {};
	response.headers.forEach((v, k) => {
		if (k !== 'content-length')
			out[k] = v;
	});
	res.writeHead(response.status, out);
	res.end(text);
}

const server = http.createServer((req, res) => {
	serve(req, res).catch((e) => {
		console.error(e);
		res.writeHead(500);
		res.end();
	});
});
process.on('SIGHUP', () => {
	skills.reload().then(() => console.log('reloaded'),
		(e) => console.error('reload failed:', e));
});
process.on('SIGTERM', () => process.exit(0));
server.listen(0, '127.0.0.1', () => {
	console.log(`http://127.0.0.1:${server.address().port}/mcp`);
});
