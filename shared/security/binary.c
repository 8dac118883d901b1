/*
 * binary.c - what cannot be read as text: executables, libraries and
 * bytecode shipped without their source (what they do cannot be
 * reviewed), archives (what they hold is not scanned), a file whose
 * magic disagrees with its extension (an executable named .png), and
 * long encoded blobs in text.  Fonts, images, PDFs and office documents
 * are what skills ship: known by their magic, left alone.
 */
#include <ctype.h>
#include <string.h>

#include "rules.h"

enum klass { K_NONE, K_EXEC, K_BYTECODE, K_ARCHIVE, K_DOCUMENT };

struct magic {
	const char *bytes;
	size_t len, off;
	enum klass k;
	const char *what;
};

static const struct magic magics[] = {
	{ "\x7f" "ELF", 4, 0, K_EXEC, "an ELF executable" },
	{ "MZ", 2, 0, K_EXEC, "a Windows executable" },
	{ "\xcf\xfa\xed\xfe", 4, 0, K_EXEC, "a Mach-O executable" },
	{ "\xce\xfa\xed\xfe", 4, 0, K_EXEC, "a Mach-O executable" },
	{ "\xca\xfe\xba\xbe", 4, 0, K_BYTECODE, "a Java class or Mach-O "
	                                      "universal binary" },
	{ "\0asm", 4, 0, K_BYTECODE, "WebAssembly" },
	{ "PK\x03\x04", 4, 0, K_ARCHIVE, "a zip archive" },
	{ "\x1f\x8b", 2, 0, K_ARCHIVE, "a gzip stream" },
	{ "BZh", 3, 0, K_ARCHIVE, "a bzip2 stream" },
	{ "\xfd" "7zXZ", 5, 0, K_ARCHIVE, "an xz stream" },
	{ "7z\xbc\xaf\x27\x1c", 6, 0, K_ARCHIVE, "a 7-zip archive" },
	{ "Rar!", 4, 0, K_ARCHIVE, "a RAR archive" },
	{ "\x28\xb5\x2f\xfd", 4, 0, K_ARCHIVE, "a zstd stream" },
	{ "ustar", 5, 257, K_ARCHIVE, "a tar archive" },
	{ "%PDF", 4, 0, K_DOCUMENT, "a PDF" },
	{ "\x89PNG", 4, 0, K_DOCUMENT, "a PNG image" },
	{ "\xff\xd8\xff", 3, 0, K_DOCUMENT, "a JPEG image" },
	{ "GIF8", 4, 0, K_DOCUMENT, "a GIF image" },
	{ "RIFF", 4, 0, K_DOCUMENT, "a RIFF file" },
	{ "OTTO", 4, 0, K_DOCUMENT, "a font" },
	{ "\0\x01\0\0", 4, 0, K_DOCUMENT, "a font" },
	{ "wOFF", 4, 0, K_DOCUMENT, "a font" },
	{ "wOF2", 4, 0, K_DOCUMENT, "a font" },
	{ "SQLite format 3", 15, 0, K_DOCUMENT, "an SQLite database" },
	{ "\xd0\xcf\x11\xe0", 4, 0, K_DOCUMENT, "an OLE document" },
};

const char *sec_magic(const unsigned char *p, size_t len, int *klass)
{
	for (size_t i = 0; i < sizeof(magics) / sizeof(*magics); i++) {
		const struct magic *m = &magics[i];
		/* the first byte before memcmp: most text has no magic */
		if (len >= m->off + m->len &&
		    p[m->off] == (unsigned char)m->bytes[0] &&
		    memcmp(p + m->off, m->bytes, m->len) == 0) {
			/* "MZ" starts some text; a PE has its header offset */
			if (m->k == K_EXEC && m->len == 2 && len < 64)
				continue;
			*klass = m->k;
			return m->what;
		}
	}
	/* Python bytecode: two bytes of version, then \r\n */
	if (len >= 16 && p[2] == '\r' && p[3] == '\n' && p[1] < 0x10 &&
	    p[0] > 0x20) {
		*klass = K_BYTECODE;
		return "Python bytecode";
	}
	*klass = K_NONE;
	return NULL;
}

static const char *ext_of(const char *rel)
{
	const char *base = strrchr(rel, '/');
	base = base ? base + 1 : rel;
	const char *dot = strrchr(base, '.');
	return dot && dot != base ? dot + 1 : "";
}

static bool ext_in(const char *ext, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(ext, list[i]) == 0)
			return true;
	return false;
}

static const char *const text_exts[] = {
	"md", "txt", "json", "yaml", "yml", "toml", "csv", "html", "htm", "css",
	"sh", "py", "js", "ts", "mjs", "ps1", "rb", "pl", "xml", "svg", "ini",
	"cfg", "conf", "bash", "zsh", "lua", "go", "rs", "c", "h",
};
static const char *const image_exts[] = {
	"png", "jpg", "jpeg", "gif", "webp", "ico", "bmp", "ttf", "otf", "woff",
	"woff2", "pdf", "wav", "mp3", "mp4",
};
static const char *const archive_exts[] = {
	"zip", "gz", "tgz", "bz2", "xz", "7z", "rar", "tar", "zst", "jar",
	"whl", "docx", "xlsx", "pptx", "odt", "ods", "odp", "epub", "apk",
	"vsix", "nupkg", "skill", "crx", "xpi", "egg",
};

/* A source file next to the binary: the same stem with a source
 * extension, or a build file in the skill. */
static bool has_source(const char *rel, const char *const *sib, size_t n)
{
	static const char *const src[] = {
		".c", ".cc", ".cpp", ".go", ".rs", ".py", ".java", ".zig", ".swift",
		".ts", ".wat", ".kt",
	};
	const char *base = strrchr(rel, '/');
	base = base ? base + 1 : rel;
	/* __pycache__/tool.cpython-312.pyc is built from tool.py */
	const char *dot = strchr(base, '.');
	size_t stem = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	for (size_t i = 0; i < n; i++) {
		const char *b = strrchr(sib[i], '/');
		b = b ? b + 1 : sib[i];
		if (strcmp(b, "Makefile") == 0 || strcmp(b, "Cargo.toml") == 0 ||
		    strcmp(b, "go.mod") == 0 || strcmp(b, "CMakeLists.txt") == 0 ||
		    strcmp(b, "build.zig") == 0)
			return true;
		if (strncmp(b, base, stem) != 0 || strcmp(b, base) == 0)
			continue;
		for (size_t k = 0; k < sizeof(src) / sizeof(*src); k++)
			if (strcmp(b + stem, src[k]) == 0)
				return true;
	}
	return false;
}

static int binary(struct sec_ctx *c, const struct sec_file *f,
                  const char *const *sib, size_t n)
{
	int k;
	const char *what = sec_magic((const unsigned char *)f->text, f->len, &k);
	const char *ext = ext_of(f->rel);
	size_t next = sizeof(text_exts) / sizeof(*text_exts);

	if (what && ext_in(ext, text_exts, next) && k != K_DOCUMENT)
		return sec_report(c, f, 0, k == K_EXEC ? SFS_RISK_HIGH
		                                       : SFS_RISK_MEDIUM,
		                  "security/magic-mismatch", "named .%s but holds "
		                  "%s", ext, what);
	if (what && ext_in(ext, image_exts, sizeof(image_exts) /
	                                    sizeof(*image_exts)) &&
	    k != K_DOCUMENT)
		return sec_report(c, f, 0, k == K_EXEC ? SFS_RISK_HIGH
		                                       : SFS_RISK_MEDIUM,
		                  "security/magic-mismatch", "named .%s but holds "
		                  "%s", ext, what);
	if (k == K_EXEC || k == K_BYTECODE) {
		bool src = has_source(f->rel, sib, n);
		enum sfs_risk r = src ? SFS_RISK_LOW : SFS_RISK_HIGH;
		return sec_report(c, f, 0, r, "security/binary-no-source",
		                  "%s %s", what, src ? "built from a source in the "
		                  "skill" : "without its source: what it does "
		                  "cannot be reviewed");
	}
	if (k == K_ARCHIVE && !ext_in(ext, archive_exts, sizeof(archive_exts) /
	                                                 sizeof(*archive_exts)))
		return sec_report(c, f, 0, SFS_RISK_MEDIUM,
		                  "security/magic-mismatch", "named .%s but holds "
		                  "%s", *ext ? ext : "(no extension)", what);
	if (k == K_ARCHIVE && ext_in(ext, archive_exts, 11))
		return sec_report(c, f, 0, SFS_RISK_LOW, "security/binary-no-source",
		                  "%s: what it holds is not scanned", what);
	if (!what && f->kind == SEC_BINARY && ext_in(ext, text_exts, next))
		return sec_report(c, f, 0, SFS_RISK_MEDIUM,
		                  "security/magic-mismatch", "named .%s but holds "
		                  "binary data", ext);
	return 0;
}

int sec_binary_file(struct sec_ctx *c, const struct sec_file *f,
                    const char *const *siblings, size_t nsiblings)
{
	if (f->kind != SEC_BINARY) {
		/* text named as a binary format: an .exe that is a script */
		const char *ext = ext_of(f->rel);
		/* the first letter before the names: most text is .md */
		if (!ext[0] || !strchr("edspjEDSPJ", ext[0]))
			return 0;
		if (strcasecmp(ext, "exe") == 0 || strcasecmp(ext, "dll") == 0 ||
		    strcasecmp(ext, "so") == 0 || strcasecmp(ext, "png") == 0 ||
		    strcasecmp(ext, "jpg") == 0 || strcasecmp(ext, "pdf") == 0)
			return sec_report(c, f, 0, strncmp(f->text, "#!", 2) == 0 ?
			                  SFS_RISK_HIGH : SFS_RISK_MEDIUM,
			                  "security/magic-mismatch", "named .%s but "
			                  "holds text%s", ext,
			                  strncmp(f->text, "#!", 2) == 0 ?
			                  " that runs (#!)" : "");
		return 0;
	}
	return binary(c, f, siblings, nsiblings);
}

/* Base64 or hex runs; a long one in text is a payload or a key more
 * often than anything a reader needs. */
int sec_blob_line(struct sec_ctx *c, const struct sec_file *f,
                  const struct sec_line *l)
{
	enum { MIN_RUN = SEC_BLOB_MIN };
	if (l->len < MIN_RUN)
		return 0;
	size_t cur = 0, start = 0;
	for (size_t i = 0; i <= l->len; i++) {
		unsigned char ch = i < l->len ? (unsigned char)l->p[i] : ' ';
		if (isalnum(ch) || ch == '+' || ch == '/' || ch == '=' ||
		    ch == '_' || ch == '-') {
			if (cur++ == 0)
				start = i;
			continue;
		}
		if (cur >= MIN_RUN) {
			/* a picture or a font inlined as a data: URI is a
			 * document's own */
			size_t from = start > 40 ? start - 40 : 0;
			bool media = memmem(l->p + from, start - from, "image/", 6) ||
			             memmem(l->p + from, start - from, "font/", 5);
			bool lower_only = true;
			unsigned char seen[256] = { 0 };
			unsigned distinct = 0;
			for (size_t k = start; k < start + cur; k++) {
				unsigned char ch2 = (unsigned char)l->p[k];
				lower_only = lower_only && !isupper(ch2);
				distinct += !seen[ch2];
				seen[ch2] = 1;
			}
			/* encoded data uses most of its alphabet; "aaaa..." or a
			 * long-word-with-hyphens does not */
			if (media || f->is_test || distinct < 14) {
				cur = 0;
				continue;
			}
			return sec_report(c, f, (size_t)(l->p - f->text) + start,
			                  f->kind == SEC_SCRIPT && !lower_only ?
			                  SFS_RISK_MEDIUM : SFS_RISK_LOW,
			                  "security/encoded-blob", "%zu characters of "
			                  "encoded data in text", cur);
		}
		cur = 0;
	}
	return 0;
}
