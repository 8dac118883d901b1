#!/usr/bin/env node
// The official TypeScript SDK client's own listing of a remote server's
// skills, for scripts/bench-mcp-source: connect over Streamable HTTP,
// SkillsClient.list() of every page, and with --read each SKILL.md read
// (and verified) as SkillsClient.read does.  Prints one line of JSON:
// {"skills": N, "ms": time from before connect to the end, in-process}.
//
//   node list-skills.mjs URL [--read]
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';

const [url, ...rest] = process.argv.slice(2);
const t0 = performance.now();
const client = new Client({ name: 'bench-list-skills', version: '1.0.0' },
	{ capabilities: {}, listMaxPages: 100000 });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const skills = new SkillsClient(client);
const { skills: entries } = await skills.list();
if (rest.includes('--read'))
	for (const e of entries)
		await skills.read(e);
const ms = performance.now() - t0;
await client.close();
console.log(JSON.stringify({ skills: entries.length, ms }));
