#!/usr/bin/env node
// bench-mcp.mjs - latency client for scripts/bench: spawns an MCP server on
// stdio, keeps one connection, and times each request from just before it
// is written to the moment its answer line has arrived (the answer is
// parsed and checked after the timestamp).
//
//   node scripts/bench-mcp.mjs --ids FILE [--calls 1000] [--warmup 100]
//        [--limit 50] -- COMMAND ARG...
//
// FILE holds one skill id per line; get_skill cycles through them in a
// fixed pseudo-random order.  Prints one JSON object:
//   startup_ms      spawn to the answer to initialize
//   first_list_ms   spawn to the answer to the first list_skills
//   list, get       {n, p50, p90, p99, mean, min, max} in ms
//   vmhwm_kib       the server's peak RSS (VmHWM) at the end
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

function usage() {
	process.stderr.write('usage: bench-mcp.mjs --ids FILE [--calls N] ' +
		'[--warmup N] [--limit N] -- COMMAND ARG...\n');
	process.exit(2);
}

const argv = process.argv.slice(2);
const opt = { calls: 1000, warmup: 100, limit: 50, ids: null };
while (argv.length && argv[0] !== '--') {
	const k = argv.shift();
	const v = argv.shift();
	if (v === undefined)
		usage();
	if (k === '--ids')
		opt.ids = v;
	else if (k === '--calls' || k === '--warmup' || k === '--limit')
		opt[k.slice(2)] = Number(v);
	else
		usage();
}
if (argv.shift() !== '--' || !argv.length || !opt.ids)
	usage();
const ids = readFileSync(opt.ids, 'utf8').split('\n').filter(Boolean);
if (!ids.length) {
	process.stderr.write('bench-mcp: no ids\n');
	process.exit(2);
}

const now = () => Number(process.hrtime.bigint()) / 1e6;	// ms

const t0 = now();
const child = spawn(argv[0], argv.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
let exited = null;
child.on('exit', (code, signal) => {
	exited = { code, signal };
	for (const w of waiting.values())
		w.reject(new Error(`server exited: ${JSON.stringify(exited)}`));
	waiting.clear();
});

const waiting = new Map();	// id -> {resolve, reject}
let partial = '';
child.stdout.setEncoding('utf8');
child.stdout.on('data', (chunk) => {
	const at = now();
	partial += chunk;
	let nl;
	while ((nl = partial.indexOf('\n')) >= 0) {
		const line = partial.slice(0, nl);
		partial = partial.slice(nl + 1);
		// find the id without parsing the whole line first
		const m = /"id":(\d+)[,}]/.exec(line.slice(0, 64)) ||
			/"id":(\d+)[,}]/.exec(line);
		const w = m && waiting.get(Number(m[1]));
		if (w) {
			waiting.delete(Number(m[1]));
			w.resolve({ at, line });
		}
	}
});

let nextId = 1;
function request(method, params) {
	const id = nextId++;
	const msg = JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n';
	return new Promise((resolve, reject) => {
		waiting.set(id, { resolve, reject });
		child.stdin.write(msg);
	}).then(({ at, line }) => {
		const msgIn = JSON.parse(line);
		if (msgIn.error)
			throw new Error(`${method}: ${JSON.stringify(msgIn.error)}`);
		return { msg: msgIn, at };
	});
}

async function timed(method, params) {
	const start = now();
	const { msg, at } = await request(method, params);
	if (msg.result && msg.result.isError)
		throw new Error(`${method} ${JSON.stringify(params)}: ` +
			JSON.stringify(msg.result.content));
	return { ms: at - start, msg, at };
}

function stats(v) {
	const s = [...v].sort((a, b) => a - b);
	const q = (p) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
	const r = (x) => Math.round(x * 1000) / 1000;
	return { n: s.length, p50: r(q(0.5)), p90: r(q(0.9)), p99: r(q(0.99)),
		 mean: r(s.reduce((a, b) => a + b, 0) / s.length),
		 min: r(s[0]), max: r(s[s.length - 1]) };
}

function vmhwm(pid) {
	try {
		const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
		return m ? Number(m[1]) : null;
	} catch {
		return null;
	}
}

try {
	const init = await request('initialize', {
		protocolVersion: '2025-11-25', capabilities: {},
		clientInfo: { name: 'skillsfs-bench', version: '0' },
	});
	const startup = init.at - t0;
	child.stdin.write(JSON.stringify({ jsonrpc: '2.0',
		method: 'notifications/initialized' }) + '\n');
	const first = await timed('tools/call', { name: 'list_skills',
		arguments: { limit: opt.limit } });
	const firstList = first.at - t0;
	const nskills = first.msg.result.structuredContent.skills.length;
	if (nskills !== Math.min(opt.limit, ids.length))
		throw new Error(`list_skills returned ${nskills} skills`);

	// list_skills pages through the catalog with its cursor, so calls read
	// different parts of it; it starts over at the end.
	const list = [];
	let cursor;
	for (let i = 0; i < opt.warmup + opt.calls; i++) {
		const args = { limit: opt.limit };
		if (cursor)
			args.cursor = cursor;
		const { ms, msg } = await timed('tools/call',
			{ name: 'list_skills', arguments: args });
		cursor = msg.result.structuredContent.nextCursor;
		if (i >= opt.warmup)
			list.push(ms);
	}

	const get = [];
	let k = 12345;
	for (let i = 0; i < opt.warmup + opt.calls; i++) {
		k = (k * 1103515245 + 12345) % 2147483648;
		const id = ids[k % ids.length];
		const { ms, msg } = await timed('tools/call',
			{ name: 'get_skill', arguments: { id } });
		if (!msg.result.structuredContent.content)
			throw new Error(`get_skill ${id}: no content`);
		if (i >= opt.warmup)
			get.push(ms);
	}

	const out = {
		startup_ms: Math.round(startup * 1000) / 1000,
		first_list_ms: Math.round(firstList * 1000) / 1000,
		list: stats(list), get: stats(get),
		vmhwm_kib: vmhwm(child.pid),
	};
	child.stdin.end();
	process.stdout.write(JSON.stringify(out) + '\n');
} catch (e) {
	process.stderr.write(`bench-mcp: ${e.message}\n`);
	child.kill('SIGTERM');
	process.exitCode = 1;
}
