// The official TypeScript SDK clients, connected to skillsfs-mcp over stdio:
// v1 (@modelcontextprotocol/sdk) and v2 (@modelcontextprotocol/client) in the
// handshake era (2025-11-25) and in the stateless era (2026-07-28).
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResultSchema as V1ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as V2Client } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2Stdio } from '@modelcontextprotocol/client/stdio';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { SKILLSFS_MCP } from './mount.mjs';

export { SkillsClient };

const info = (name) => ({ name, version: '1.0.0' });

function childEnv() {
	return Object.fromEntries(Object.entries(process.env)
		.filter(([, v]) => typeof v === 'string'));
}

// A Standard Schema that accepts any result: for methods the v2 SDK does
// not know (skills/list, resources/directory/read, ...).
export const ANY_RESULT = {
	'~standard': { version: 1, vendor: 'skillsfs-tests', validate: (value) => ({ value }) },
};

// Uniform wrapper: {kind, client, request(method, params), close()}.
function wrap(kind, client, transport, requestFn) {
	return {
		kind,
		client,
		transport,
		request: requestFn,
		async close() {
			await client.close();
		},
	};
}

// env: extra environment variables for the server (XDG_RUNTIME_DIR, say);
// cwd: the folder the client starts it in.
export async function connectV1(args, { env = {}, cwd } = {}) {
	const transport = new V1Stdio({ command: SKILLSFS_MCP, args, env: { ...childEnv(), ...env },
		cwd, stderr: 'pipe' });
	const client = new V1Client(info('skillsfs-test-v1'), { capabilities: {} });
	await client.connect(transport);
	return wrap('v1', client, transport,
		(method, params = {}) => client.request({ method, params }, V1ResultSchema));
}

// era: 'legacy' (initialize handshake) or 'modern' (2026-07-28, pinned).
export async function connectV2(args, { era = 'legacy', versionNegotiation, env = {} } = {}) {
	const transport = new V2Stdio({ command: SKILLSFS_MCP, args, env: { ...childEnv(), ...env },
		stderr: 'pipe' });
	const options = { capabilities: {} };
	if (versionNegotiation)
		options.versionNegotiation = versionNegotiation;
	else if (era === 'modern')
		options.versionNegotiation = { mode: { pin: '2026-07-28' } };
	const client = new V2Client(info(`skillsfs-test-v2-${era}`), options);
	await client.connect(transport);
	return wrap(`v2-${era}`, client, transport,
		(method, params = {}) => client.request({ method, params }, ANY_RESULT));
}

// The three client flavours every protocol test runs with.
export const FLAVOURS = [
	{ name: 'v1 sdk, handshake 2025-11-25', connect: (args) => connectV1(args), modern: false },
	{ name: 'v2 client, handshake 2025-11-25', connect: (args) => connectV2(args, { era: 'legacy' }), modern: false },
	{ name: 'v2 client, stateless 2026-07-28', connect: (args) => connectV2(args, { era: 'modern' }), modern: true },
];

// The JSON-RPC error code of an error thrown by either SDK (or undefined).
export function errorCode(err) {
	return typeof err?.code === 'number' ? err.code : undefined;
}

// Awaits p, expecting a JSON-RPC error; returns the error.
export async function rejectsWith(p, code) {
	let result;
	try {
		result = await p;
	} catch (err) {
		if (code !== undefined && errorCode(err) !== code)
			throw new Error(`expected JSON-RPC error ${code}, got ${errorCode(err)}: ${err.message}`);
		return err;
	}
	throw new Error(`expected JSON-RPC error ${code}, got a result: ${JSON.stringify(result).slice(0, 500)}`);
}

// Calls call(uri) for each of uris, each expected to be refused with
// -32602 (invalid params); the errors, in the order of uris.
export async function invalidEach(uris, call) {
	const errs = [];
	for (const uri of uris)
		errs.push(await rejectsWith(call(uri), -32602));
	return errs;
}

// method of c (an MCP client) given each of uris, then no uri at all:
// each refused with -32602; the errors for uris, in their order.
export async function invalidUris(c, method, uris) {
	const errs = await invalidEach(uris, (uri) => c.request(method, { uri }));
	await rejectsWith(c.request(method, {}), -32602);
	return errs;
}

// Parses a tools/call result: checks structuredContent and the text copy.
export function toolJson(result) {
	const text = result.content?.find((c) => c.type === 'text')?.text;
	return { structured: result.structuredContent, text, isError: result.isError === true };
}
