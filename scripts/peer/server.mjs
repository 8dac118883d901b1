#!/usr/bin/env node
// server.mjs - the peer that scripts/bench compares skillsfs-mcp with: a
// minimal skills MCP server written the way one would on the official
// TypeScript SDK (McpServer + StdioServerTransport, zod schemas), serving
// the same two tools over the skill folders themselves, without a mount.
//
//   node scripts/peer/server.mjs SKILLS_DIR
//
// At start it walks SKILLS_DIR (not entering dot folders, node_modules, or
// a skill folder) and reads each SKILL.md's frontmatter; list_skills answers
// from that table, get_skill reads SKILL.md from disk on every call, as
// skillsfs-mcp reads it from the mount.  Tool shapes follow skillsfs-mcp(1):
//   list_skills {query?, limit? (default 50, at most 500), cursor?}
//     -> {skills: [{id, name, description, path, tags}], nextCursor?}
//   get_skill {id} -> {path, name, description, content}
// The frontmatter reader is deliberately small (top-level name and
// description, plain, quoted or folded; x-personal-mcp tags), which only
// makes the peer's start-up cheaper than a full YAML parser would.
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const root = process.argv[2];
if (!root) {
	process.stderr.write('usage: server.mjs SKILLS_DIR\n');
	process.exit(2);
}

function unquote(v) {
	v = v.trim();
	if (v.startsWith('"'))
		return JSON.parse(v);
	if (v.startsWith("'"))
		return v.slice(1, -1).replace(/''/g, "'");
	return v;
}

// name, description, tags and the body offset of a SKILL.md text.
function frontmatter(text) {
	const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
	if (!m)
		return null;
	const lines = m[1].split(/\r?\n/);
	const out = { tags: [], bodyStart: m[0].length };
	let block = null;	// folded or literal scalar being read
	let inMeta = false;
	for (const line of lines) {
		if (block) {
			if (/^\s+\S/.test(line) || line === '') {
				block.parts.push(line.trim());
				continue;
			}
			out[block.key] = block.parts.join(block.sep).trim();
			block = null;
		}
		const top = /^([A-Za-z0-9_-]+):\s*(.*)$/.exec(line);
		if (top) {
			inMeta = top[1] === 'x-personal-mcp';
			if (top[1] === 'name' || top[1] === 'description') {
				if (top[2] === '>' || top[2] === '|')
					block = { key: top[1], parts: [],
						  sep: top[2] === '>' ? ' ' : '\n' };
				else
					out[top[1]] = unquote(top[2]);
			}
			continue;
		}
		const tags = inMeta && /^\s+tags:\s*\[(.*)\]\s*$/.exec(line);
		if (tags)
			out.tags = tags[1].split(',').map(unquote).filter(Boolean);
	}
	if (block)
		out[block.key] = block.parts.join(block.sep).trim();
	return out.name && out.description ? out : null;
}

// Every skill under dir, by id.
function scan(dir, skills) {
	let entries;
	try {
		entries = readdirSync(dir, { withFileTypes: true });
	} catch {
		return;
	}
	const md = entries.find((e) => e.isFile() && e.name === 'SKILL.md');
	if (md) {
		const file = path.join(dir, md.name);
		const fm = frontmatter(readFileSync(file, 'utf8'));
		if (fm && !skills.has(fm.name))
			skills.set(fm.name, { id: fm.name, name: fm.name,
					      description: fm.description,
					      tags: fm.tags, path: file });
		return;
	}
	for (const e of entries)
		if (e.isDirectory() && !e.name.startsWith('.') &&
		    e.name !== 'node_modules')
			scan(path.join(dir, e.name), skills);
}

const table = new Map();
scan(path.resolve(root), table);
const sorted = [...table.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

function matches(skill, words) {
	const fields = [skill.id, skill.name, skill.description, ...skill.tags]
		.map((f) => f.toLowerCase());
	return words.every((w) => fields.some((f) => f.includes(w)));
}

function result(structured) {
	return { content: [{ type: 'text', text: JSON.stringify(structured) }],
		 structuredContent: structured };
}

function toolError(message) {
	return { content: [{ type: 'text', text: message }], isError: true };
}

const server = new McpServer({ name: 'skills-peer', version: '0.0.0' });

server.registerTool('list_skills', {
	title: 'List skills',
	description: 'List the available skills with their names and descriptions.',
	inputSchema: {
		query: z.string().optional(),
		limit: z.number().int().min(1).optional(),
		cursor: z.string().optional(),
	},
	outputSchema: {
		skills: z.array(z.object({
			id: z.string(), name: z.string(), description: z.string(),
			path: z.string(), tags: z.array(z.string()),
		})),
		nextCursor: z.string().optional(),
	},
	annotations: { readOnlyHint: true, openWorldHint: false },
}, async ({ query, limit, cursor }) => {
	const max = Math.min(limit ?? 50, 500);
	const words = (query ?? '').toLowerCase().split(/\s+/).filter(Boolean);
	let start = 0;
	if (cursor !== undefined) {
		const after = Buffer.from(cursor, 'base64url').toString();
		while (start < sorted.length && sorted[start].id <= after)
			start++;
	}
	const skills = [];
	let next;
	for (let i = start; i < sorted.length; i++) {
		const s = sorted[i];
		if (words.length && !matches(s, words))
			continue;
		if (skills.length === max) {
			next = Buffer.from(skills[max - 1].id).toString('base64url');
			break;
		}
		skills.push({ id: s.id, name: s.name, description: s.description,
			      path: s.path, tags: s.tags });
	}
	return result(next ? { skills, nextCursor: next } : { skills });
});

server.registerTool('get_skill', {
	title: 'Get a skill',
	description: 'Get the full instructions of one skill and the path of its SKILL.md.',
	inputSchema: { id: z.string() },
	outputSchema: {
		path: z.string(), name: z.string(), description: z.string(),
		content: z.string(),
	},
	annotations: { readOnlyHint: true, openWorldHint: false },
}, async ({ id }) => {
	const s = table.get(id);
	if (!s)
		return toolError(`Unknown skill id '${id}'.`);
	let text;
	try {
		text = await readFile(s.path, 'utf8');
	} catch (e) {
		return toolError(`Cannot read ${s.path}: ${e.message}`);
	}
	const fm = frontmatter(text);
	return result({ path: s.path, name: s.name, description: s.description,
			content: fm ? text.slice(fm.bodyStart) : text });
});

await server.connect(new StdioServerTransport());
