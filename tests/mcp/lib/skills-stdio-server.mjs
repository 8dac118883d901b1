#!/usr/bin/env node
// An MCP server with the Skills extension (SEP-2640) over stdio, for the
// tests of skillsfs's mcp+stdio: sources (a config file's command:): the
// official TypeScript SDK's McpServer with its StdioServerTransport and
// loadSkills(FOLDER).attach(), serving a folder.
//
//   node skills-stdio-server.mjs FOLDER [--lie URI]... [--unless FILE]
//
// --lie URI answers resources/read of URI with bytes that differ from the
// ones its listing's digest covers, as a broken or tampered server would
// (the SDK itself never serves such bytes, so the answer is altered on its
// way out).  --unless FILE makes the server exit at once with status 3,
// before reading anything, when FILE exists: a test makes a command fail
// from some moment on.  The server writes nothing but MCP messages on
// stdout; it says "serving FOLDER" on stderr once connected.
import fs from 'node:fs';
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { loadSkills } from '@modelcontextprotocol/server/ext/skills/node';

const args = process.argv.slice(2);
const folder = args[0];
const lies = new Set(args.flatMap((a, i) => a === '--lie' ? [args[i + 1]] : []));
const unless = args.includes('--unless') ? args[args.indexOf('--unless') + 1]
	: undefined;
if (!folder) {
	console.error('usage: skills-stdio-server.mjs FOLDER [--lie URI]...');
	process.exit(2);
}
if (unless && fs.existsSync(unless)) {
	console.error(`skills-stdio-server: ${unless} exists: exiting`);
	process.exit(3);
}

const skills = await loadSkills(folder, { onWarning: () => {} });
const mcp = new McpServer({ name: 'skills-stdio-test-server', version: '1.0.0' });
skills.attach(mcp);
const transport = new StdioServerTransport();
await mcp.connect(transport);

// resources/read of a URI to lie about: its answer's contents altered
const lying = new Set();
const take = transport.onmessage;
transport.onmessage = (m, extra) => {
	if (m?.method === 'resources/read' && lies.has(m.params?.uri))
		lying.add(m.id);
	take.call(transport, m, extra);
};
const send = transport.send.bind(transport);
transport.send = (m, options) => {
	if (m && 'id' in m && lying.delete(m.id)) {
		for (const c of m.result?.contents ?? []) {
			if (typeof c.text === 'string')
				c.text += 'tampered\n';
			else if (typeof c.blob === 'string')
				c.blob = Buffer.from('tampered\n').toString('base64');
		}
	}
	return send(m, options);
};
console.error(`serving ${folder}`);
