// When the mount's generation changes (a skill added to or removed from the
// source), handshake-era clients get notifications/resources/list_changed
// and notifications/prompts/list_changed.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ResourceListChangedNotificationSchema, PromptListChangedNotificationSchema }
	from '@modelcontextprotocol/sdk/types.js';
import { mountedFixture, writeSkill, skillMd, waitUntil, skillIds } from '../lib/mount.mjs';
import { connectV1, connectV2 } from '../lib/clients.mjs';
import { listPage, checkToolResult } from '../lib/expect.mjs';

const NOTIFY_DEADLINE_MS = 10000;

// Counts notifications by method; waitFor(method, n) resolves once n came.
function counter() {
	const seen = {};
	return {
		seen,
		hit(method) { seen[method] = (seen[method] ?? 0) + 1; },
		waitFor(method, n, what) {
			return waitUntil(() => (seen[method] ?? 0) >= n,
				{ timeoutMs: NOTIFY_DEADLINE_MS, what: `${method} #${n} (${what})` });
		},
	};
}

const flavours = [
	{
		name: 'v1 sdk',
		async connect(mnt, count) {
			const c = await connectV1(['--mount', mnt]);
			c.client.setNotificationHandler(ResourceListChangedNotificationSchema,
				(n) => count.hit(n.method));
			c.client.setNotificationHandler(PromptListChangedNotificationSchema,
				(n) => count.hit(n.method));
			return c;
		},
	},
	{
		name: 'v2 client, handshake 2025-11-25',
		async connect(mnt, count) {
			const c = await connectV2(['--mount', mnt], { era: 'legacy' });
			for (const m of ['notifications/resources/list_changed', 'notifications/prompts/list_changed'])
				c.client.setNotificationHandler(m, (n) => count.hit(n.method));
			return c;
		},
	},
];

for (const flavour of flavours) {
	describe(flavour.name, () => {
		let fx;
		let c;
		const count = counter();
		before(async () => {
			fx = await mountedFixture();
			c = await flavour.connect(fx.mnt, count);
		});
		after(async () => {
			await c?.close();
			await fx?.cleanup();
		});

		const listedIds = async () => {
			const res = await c.client.callTool({ name: 'list_skills', arguments: {} });
			return listPage(checkToolResult(res, 'list_skills')).skills.map((s) => s.id);
		};

		it('declares listChanged for resources and prompts', () => {
			const caps = c.client.getServerCapabilities();
			assert.equal(caps.resources?.listChanged, true, 'resources.listChanged');
			assert.equal(caps.prompts?.listChanged, true, 'prompts.listChanged');
		});

		it('a skill added to the source brings both list_changed notifications', async () => {
			assert.ok(!(await listedIds()).includes('fresh-skill'));
			writeSkill(fx.src, 'fresh-skill', {
				'SKILL.md': skillMd(`
name: fresh-skill
description: A skill added while the server runs. Use when testing change notifications.
`, '# Fresh\n\nJust arrived.\n'),
			});
			await Promise.all([
				count.waitFor('notifications/resources/list_changed', 1, 'after adding fresh-skill'),
				count.waitFor('notifications/prompts/list_changed', 1, 'after adding fresh-skill'),
			]);
			assert.ok(skillIds(fx.mnt).includes('fresh-skill'), 'the mount serves it');
			assert.ok((await listedIds()).includes('fresh-skill'), 'list_skills has it');
			const { prompts } = await c.client.listPrompts();
			assert.ok(prompts.some((p) => p.name === 'fresh-skill'), 'prompts/list has it');
			const md = await c.client.readResource({ uri: 'skill://fresh-skill/SKILL.md' });
			assert.match(md.contents[0].text, /Just arrived/);
		});

		it('a skill removed from the source brings them again', async () => {
			const before = { ...count.seen };
			fs.rmSync(path.join(fx.src, 'fresh-skill'), { recursive: true, force: true });
			await Promise.all([
				count.waitFor('notifications/resources/list_changed',
					(before['notifications/resources/list_changed'] ?? 0) + 1, 'after removing fresh-skill'),
				count.waitFor('notifications/prompts/list_changed',
					(before['notifications/prompts/list_changed'] ?? 0) + 1, 'after removing fresh-skill'),
			]);
			assert.ok(!(await listedIds()).includes('fresh-skill'), 'list_skills no longer has it');
		});
	});
}
