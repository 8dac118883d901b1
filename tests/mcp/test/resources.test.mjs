// resources/list, resources/templates/list and resources/read for every URI
// family, compared byte for byte with the files of the mount.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fixtureForFile, skillIds, skillFiles, indexEntries } from '../lib/mount.mjs';
import { FLAVOURS, invalidEach, rejectsWith } from '../lib/clients.mjs';
import { listAll, metaMentions } from '../lib/expect.mjs';

const fixture = fixtureForFile();

// Every resource:// URI the mount answers for, with its file in the mount.
function uriFamilies() {
	const out = [{ uri: 'resource://catalog/skills_index',
		files: [path.join(fixture.mnt, 'catalog', 'skills_index.json')], mime: 'application/json' }];
	for (const id of skillIds(fixture.mnt)) {
		out.push({ uri: `resource://catalog/skills/${id}`,
			files: [path.join(fixture.mnt, 'catalog', `${id}.json`)], mime: 'application/json' });
		out.push({ uri: `resource://skills/${id}/document`,
			files: [path.join(fixture.mnt, 'skills', id, 'SKILL.md')], mime: 'text/markdown' });
		const refs = path.join(fixture.mnt, 'refs', id);
		if (!fs.existsSync(refs))
			continue;
		for (const f of fs.readdirSync(refs)) {
			const ref = f.replace(/\.md$/, '');
			out.push({ uri: `resource://skills/${id}/references/${ref}`,
				files: [path.join(refs, f), fs.realpathSync(path.join(refs, f))],
				mime: 'text/markdown' });
		}
	}
	return out;
}

// Is buf valid UTF-8?
function isUtf8(buf) {
	try {
		new TextDecoder('utf-8', { fatal: true }).decode(buf);
		return true;
	} catch {
		return false;
	}
}

function expectedMime(rel, bytes) {
	if (rel.endsWith('.md'))
		return 'text/markdown';
	if (rel.endsWith('.json'))
		return 'application/json';
	if (rel.endsWith('.png'))
		return 'image/png';
	if (!isUtf8(bytes))
		return 'application/octet-stream';
	return null;	// some text type
}

// The bytes of one resources/read content item.
function contentBytes(item) {
	if (typeof item.text === 'string')
		return Buffer.from(item.text, 'utf8');
	assert.equal(typeof item.blob, 'string', `${item.uri}: text or blob`);
	return Buffer.from(item.blob, 'base64');
}

for (const flavour of FLAVOURS) {
	describe(flavour.name, () => {
		let c;
		let listed;
		before(async () => {
			c = await flavour.connect(['--mount', fixture.fx.mnt]);
			listed = await listAll(c, 'resources/list', 'resources');
		});
		after(async () => { await c?.close(); });

		const read = (uri) => c.client.readResource({ uri });

		it('resources/list pages hold each URI once, every one with a name', () => {
			const uris = listed.map((r) => r.uri);
			assert.equal(new Set(uris).size, uris.length, 'no URI listed twice');
			for (const r of listed) {
				assert.equal(typeof r.uri, 'string');
				assert.equal(typeof r.name, 'string', `${r.uri}: name`);
			}
		});

		it('resources/list has the catalog, each skill\'s document, references and SKILL.md', () => {
			const uris = new Set(listed.map((r) => r.uri));
			for (const fam of uriFamilies())
				assert.ok(uris.has(fam.uri), `${fam.uri} listed`);
			for (const id of skillIds(fixture.mnt))
				assert.ok(uris.has(`skill://${id}/SKILL.md`), `skill://${id}/SKILL.md listed`);
		});

		it('resources/list entries carry mime types and the mount path in _meta', () => {
			const byUri = new Map(listed.map((r) => [r.uri, r]));
			for (const fam of uriFamilies()) {
				const r = byUri.get(fam.uri);
				assert.equal(r.mimeType, fam.mime, `${fam.uri}: mimeType`);
				assert.ok(metaMentions(r._meta, fam.files),
					`${fam.uri}: _meta names ${fam.files[0]}: ${JSON.stringify(r._meta)}`);
			}
			for (const r of listed.filter((x) => x.uri.startsWith('skill://'))) {
				const rel = r.uri.slice('skill://'.length);
				assert.ok(metaMentions(r._meta, [path.join(fixture.mnt, 'skills', rel)]),
					`${r.uri}: _meta names its mount path: ${JSON.stringify(r._meta)}`);
			}
		});

		it('skill://<id>/SKILL.md resources take name and description from the frontmatter', () => {
			const byUri = new Map(listed.map((r) => [r.uri, r]));
			for (const e of indexEntries(fixture.mnt)) {
				const r = byUri.get(e.uri);
				assert.ok(r, `${e.uri} listed`);
				assert.equal(r.name, e.frontmatter.name, `${e.uri}: name`);
				assert.equal(r.description, e.frontmatter.description, `${e.uri}: description`);
				assert.equal(r.mimeType, 'text/markdown', `${e.uri}: mimeType`);
			}
		});

		it('resources/list refuses a bogus cursor with -32602', async () => {
			await rejectsWith(c.request('resources/list', { cursor: 'bogus-cursor' }), -32602);
		});

		it('resources/templates/list has the URI contract templates', async () => {
			const res = await c.request('resources/templates/list', {});
			const templates = res.resourceTemplates.map((t) => t.uriTemplate);
			for (const t of ['resource://catalog/skills/{skill_id}',
				'resource://skills/{skill_id}/document',
				'resource://skills/{skill_id}/references/{ref_id}'])
				assert.ok(templates.includes(t), `${t} in ${JSON.stringify(templates)}`);
			assert.ok(!templates.some((t) => t.startsWith('resource://docs/')),
				'no docs template when no docs are configured');
			for (const t of res.resourceTemplates)
				assert.equal(typeof t.name, 'string', `${t.uriTemplate}: name`);
		});

		it('resources/read of every resource:// family returns the mount\'s bytes', async () => {
			for (const fam of uriFamilies()) {
				const res = await read(fam.uri);
				assert.equal(res.contents.length, 1, `${fam.uri}: one content item`);
				const item = res.contents[0];
				assert.equal(item.uri, fam.uri, `${fam.uri}: content uri`);
				assert.equal(item.mimeType, fam.mime, `${fam.uri}: mimeType`);
				assert.equal(typeof item.text, 'string', `${fam.uri}: text`);
				assert.deepEqual(contentBytes(item), fs.readFileSync(fam.files[0]), `${fam.uri}: bytes`);
			}
		});

		it('resources/read of skill://<id>/<path> returns every file byte for byte, text or blob by content', async () => {
			let files = 0;
			let blobs = 0;
			for (const id of skillIds(fixture.mnt)) {
				for (const rel of skillFiles(fixture.mnt, id)) {
					const uri = `skill://${id}/${rel}`;
					const bytes = fs.readFileSync(path.join(fixture.mnt, 'skills', id, rel));
					const res = await read(uri);
					assert.equal(res.contents.length, 1, `${uri}: one content item`);
					const item = res.contents[0];
					assert.equal(item.uri, uri, `${uri}: content uri`);
					assert.deepEqual(contentBytes(item), bytes, `${uri}: bytes`);
					if (isUtf8(bytes))
						assert.equal(typeof item.text, 'string', `${uri}: UTF-8 file as text`);
					else
						assert.equal(typeof item.blob, 'string', `${uri}: binary file as blob`);
					blobs += typeof item.blob === 'string';
					const mime = expectedMime(rel, bytes);
					if (mime)
						assert.equal(item.mimeType, mime, `${uri}: mimeType`);
					else
						assert.ok(typeof item.mimeType === 'string' && item.mimeType.length > 0,
							`${uri}: some mimeType`);
					files++;
				}
			}
			assert.ok(files >= 15, `read ${files} files`);
			assert.ok(blobs >= 2, `read ${blobs} binary files`);
		});

		it('an unknown resource is -32602 with data.uri', async () => {
			const unknown = ['resource://catalog/skills/no-such-skill',
				'resource://skills/no-such-skill/document',
				'resource://skills/pdf-forms/references/no-such-ref',
				'resource://docs/index.md',
				'skill://no-such-skill/SKILL.md',
				'skill://pdf-forms/no-such-file.md',
				'skill://pdf-forms/references/field-types.md.bak',
				'resource://catalog/nothing',
				'unknown-scheme://pdf-forms/SKILL.md'];
			const errs = await invalidEach(unknown, read);
			errs.forEach((err, k) => assert.equal(err.data?.uri, unknown[k], `${unknown[k]}: data.uri`));
		});

		it('path traversal is refused', async () => {
			await invalidEach(['skill://pdf-forms/../csv-report/SKILL.md',
				'skill://pdf-forms/../../../../../../etc/passwd',
				'skill://pdf-forms/scripts/../../../../etc/hostname',
				'skill://pdf-forms/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
				'skill://pdf-forms/..%2f..%2f..%2fetc%2fpasswd',
				'skill://pdf-forms//etc/passwd',
				'skill://../etc/passwd',
				'skill://./pdf-forms/SKILL.md',
				'resource://skills/../../etc/passwd/document',
				'resource://skills/pdf-forms/references/../../csv-report/document',
				'resource://docs/../../../etc/passwd',
				'resource://catalog/skills/../skills_index'], read);
		});

		it('resources/read without a uri is -32602', async () => {
			await rejectsWith(c.request('resources/read', {}), -32602);
		});
	});
}
