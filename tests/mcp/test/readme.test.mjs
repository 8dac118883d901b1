// README.md's client snippets, run as written: every JSON block and the
// `claude mcp add` line of its "MCP clients" section starts skillsfs-mcp
// with its own arguments (only the placeholders are filled in: the
// installed path of skillsfs-mcp, /home/me and ~, ${workspaceFolder}, and
// the project folder a client starts the server in), and the session lists
// the skill put in the folder the snippet names.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { SOURCE_ROOT, makeTempDir, removeTempDir, writeSkill, skillMd } from '../lib/mount.mjs';
import { connectV1 } from '../lib/clients.mjs';
import { listPage, checkToolResult } from '../lib/expect.mjs';
import { makeRunDir, runEnv, keepers, waitAllGone, cleanRunDir } from '../lib/sessions.mjs';

const cleanups = [];
after(async () => {
	for (const fn of cleanups.reverse())
		await fn();
});

// The fenced blocks of README's "## MCP clients" section.
function snippets() {
	const text = fs.readFileSync(path.join(SOURCE_ROOT, 'README.md'), 'utf8');
	const start = text.indexOf('\n## MCP clients\n');
	assert.ok(start >= 0, 'README.md has a "## MCP clients" section');
	const end = text.indexOf('\n## ', start + 1);
	const section = text.slice(start, end < 0 ? undefined : end);
	const out = [];
	for (const m of section.matchAll(/```(json|sh)\n([\s\S]*?)```/g)) {
		if (m[1] === 'json') {
			const doc = JSON.parse(m[2]);
			for (const server of Object.values(doc.mcpServers ?? doc.servers ?? {}))
				out.push({ what: `JSON ${JSON.stringify(server.args)}`, command: server.command, args: server.args });
		} else {
			const line = m[2].trim();
			const words = line.split('--').slice(1).join('--').trim().split(/\s+/);
			out.push({ what: line, command: words[0], args: words.slice(1) });
		}
	}
	return out;
}

describe('README client snippets', () => {
	const all = snippets();
	it('there are snippets, and none needs --mount', () => {
		assert.ok(all.length >= 4, `found ${all.length}`);
		for (const s of all) {
			assert.match(path.basename(s.command), /^skillsfs-mcp$/, s.what);
			assert.ok(!s.args.includes('--mount'), `${s.what}: one line, no --mount`);
		}
	});

	for (const s of all) {
		it(`runs as written: ${s.what}`, async () => {
			const home = makeTempDir('home');
			const project = makeTempDir('project');
			cleanups.push(() => { removeTempDir(home); removeTempDir(project); });
			const fill = (a) => a.replace('${workspaceFolder}', project)
				.replace(/^~(?=\/)/, home).replace(/^\/home\/me(?=\/)/, home);
			const args = s.args.map(fill);
			const dirs = args.filter((_, i) => args[i - 1] === '--skills-dir');
			assert.ok(dirs.length >= 1, 'names a skills folder');
			for (const d of dirs)
				writeSkill(path.resolve(project, d), 'readme-skill', {
					'SKILL.md': skillMd('name: readme-skill\ndescription: Put here by the README test.', '# R\n') });
			const run = makeRunDir();
			cleanups.push(() => cleanRunDir(run));
			const c = await connectV1(args, { env: { ...runEnv(run), HOME: home }, cwd: project });
			let pid;
			try {
				pid = c.transport.pid;
				const res = await c.client.callTool({ name: 'list_skills', arguments: {} });
				const ids = listPage(checkToolResult(res, 'list_skills')).skills.map((x) => x.id);
				assert.deepEqual(ids, ['readme-skill']);
			} finally {
				await c.close();
			}
			const ks = keepers(run);
			await waitAllGone(run, [pid, ...ks.flatMap((k) => [k.keeper, k.skillsfs])], { timeoutMs: 30000 });
		});
	}
});
