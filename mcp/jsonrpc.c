/*
 * jsonrpc.c - JSON-RPC 2.0 framing, message classification and replies.
 */
#include <stdlib.h>
#include <string.h>

#include "jsonrpc.h"
#include "skillsfs.h"
#include "utf8.h"

/* ---- framing ---------------------------------------------------------- */

static void keep(struct line_reader *r, const char *p, size_t n)
{
	if (r->len + n > r->cap) {
		size_t cap = r->cap ? r->cap : 65536;
		while (cap < r->len + n)
			cap *= 2;
		char *q = realloc(r->buf, cap);
		if (!q) {
			/* Cannot hold the message: treat it as oversized. */
			r->len = 0;
			r->discarding = true;
			return;
		}
		r->buf = q;
		r->cap = cap;
	}
	memcpy(r->buf + r->len, p, n);
	r->len += n;
}

void line_reader_feed(struct line_reader *r, const char *data, size_t n,
                      line_fn on_line, overflow_fn on_overflow, void *arg)
{
	while (n > 0) {
		const char *nl = memchr(data, '\n', n);
		size_t chunk = nl ? (size_t)(nl - data) : n;

		if (r->discarding) {
			if (nl)
				r->discarding = false;
		} else if (r->len + chunk > MCP_MAX_LINE) {
			r->len = 0;
			r->discarding = !nl;
			on_overflow(arg);
		} else if (nl && r->len == 0) {
			on_line(arg, data, chunk);  /* whole line here: no copy */
		} else {
			keep(r, data, chunk);
			if (r->discarding) {        /* could not hold it */
				on_overflow(arg);
				if (nl)
					r->discarding = false;
			} else if (nl) {
				size_t len = r->len;
				r->len = 0;
				on_line(arg, r->buf, len);
			}
		}
		if (!nl)
			break;
		n -= chunk + 1;
		data = nl + 1;
	}
	/* Give back the memory of a big message once it is handled. */
	if (r->len == 0 && r->cap > 65536) {
		free(r->buf);
		r->buf = NULL;
		r->cap = 0;
	}
}

size_t line_reader_pending(const struct line_reader *r)
{
	return r->len;
}

void line_reader_free(struct line_reader *r)
{
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

/* ---- a minimal scanner over JSON text that cJSON already accepted ------
 * cJSON keeps numbers as doubles, which would change a large or
 * fractional id; the scanner finds the id's original text instead. */

static size_t skip_ws(const char *s, size_t len, size_t i)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' ||
			   s[i] == '\n'))
		i++;
	return i;
}

/* s[i] is '"'; returns the index after the closing quote.  Sets *nul when
 * the string contains the escape \u0000. */
static size_t skip_string(const char *s, size_t len, size_t i, bool *nul)
{
	for (i++; i < len; i++) {
		if (s[i] == '"')
			return i + 1;
		if (s[i] == '\\' && i + 1 < len) {
			if (s[i + 1] == 'u' && i + 5 < len &&
			    memcmp(s + i + 2, "0000", 4) == 0)
				*nul = true;
			i++;
		}
	}
	return len;
}

/* Skips one value starting at s[i]; returns the index after it. */
static size_t skip_value(const char *s, size_t len, size_t i, bool *nul)
{
	size_t depth = 0;

	do {
		i = skip_ws(s, len, i);
		if (i >= len)
			return len;
		char c = s[i];
		if (c == '"') {
			i = skip_string(s, len, i, nul);
		} else if (c == '{' || c == '[') {
			depth++;
			i++;
		} else if (c == '}' || c == ']') {
			if (depth)
				depth--;
			i++;
		} else if (c == ',' || c == ':') {
			i++;
		} else {
			size_t from = i;
			while (i < len && s[i] && !strchr(" \t\r\n,]}:", s[i]))
				i++;
			if (i == from)
				i++;   /* never stall, whatever the input */
		}
	} while (depth > 0 && i < len);
	return i;
}

/* Decodes a short object key to compare it with a name; longer keys and
 * keys with non-ASCII escapes never match. */
static bool key_equals(const char *s, size_t start, size_t end,
                       const char *name)
{
	char tmp[16];
	size_t o = 0;

	for (size_t i = start + 1; i + 1 < end; i++) {
		char c = s[i];
		if (c == '\\') {
			char e = s[++i];
			if (e == 'u') {
				if (i + 4 >= end)
					return false;
				char hex[5] = { s[i + 1], s[i + 2], s[i + 3],
						s[i + 4], 0 };
				long v = strtol(hex, NULL, 16);
				if (v <= 0 || v > 0x7F)
					return false;
				c = (char)v;
				i += 4;
			} else {
				c = e;   /* \" \\ \/ ; others never match a name */
			}
		}
		if (o + 1 >= sizeof(tmp))
			return false;
		tmp[o++] = c;
	}
	tmp[o] = '\0';
	return strcmp(tmp, name) == 0;
}

/* Walks the top-level object: the raw text of its first "id" member, and
 * whether a string in its method or params holds \u0000. */
static void scan_top(const char *s, size_t len, const char **id,
                     size_t *idlen, bool *nul)
{
	size_t i = skip_ws(s, len, 0);

	*id = NULL;
	if (i >= len || s[i] != '{') {
		if (i < len)
			skip_value(s, len, i, nul);
		return;
	}
	i++;
	for (;;) {
		i = skip_ws(s, len, i);
		if (i >= len || s[i] != '"')
			return;
		size_t kstart = i;
		bool ignored = false, member_nul = false;
		i = skip_string(s, len, i, &ignored);
		bool is_id = key_equals(s, kstart, i, "id");
		/* NUL matters where cJSON's C strings would cut it short: in
		 * the method and the params.  An id is echoed as written. */
		bool checked = key_equals(s, kstart, i, "method") ||
			       key_equals(s, kstart, i, "params");
		i = skip_ws(s, len, i);
		if (i < len && s[i] == ':')
			i++;
		size_t vstart = skip_ws(s, len, i);
		i = skip_value(s, len, vstart, &member_nul);
		if (checked && member_nul)
			*nul = true;
		if (is_id && !*id) {
			*id = s + vstart;
			*idlen = i - vstart;
		}
		i = skip_ws(s, len, i);
		if (i >= len || s[i] != ',')
			return;
		i++;
	}
}

/* ---- classification --------------------------------------------------- */

static void invalid(struct message *m, int code, const char *msg)
{
	m->kind = MSG_INVALID;
	m->error_code = code;
	m->error_message = msg;
}

static bool blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!strchr(" \t\r\n", s[i]))
			return false;
	return true;
}

/*
 * RFC 8259: JSON text exchanged between systems is UTF-8, and its only
 * control characters are the whitespace tab, LF and CR (inside strings
 * they must be escaped); cJSON is laxer.  A line on stdio holds no LF; a
 * body over HTTP may, between tokens but not inside a string.  (Tab and
 * CR inside a string have always been let through to cJSON.)
 */
static bool controls_ok(const char *s, size_t len)
{
	bool in_string = false;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (in_string && c == '\\')
			i++;
		else if (c == '"')
			in_string = !in_string;
		else if (c < 0x20 && c != '\t' && c != '\r' &&
			 (c != '\n' || in_string))
			return false;
	}
	return true;
}

/* The code unit of "\uXXXX" at s (s[0] is the backslash), or -1. */
static long escaped_unit(const char *s, size_t left)
{
	long v = 0;

	if (left < 6 || s[0] != '\\' || s[1] != 'u')
		return -1;
	for (int i = 2; i < 6; i++) {
		int h = sfs_hex_value(s[i]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

/*
 * A "\ud800" escape without its pair is valid JSON text (RFC 8259 allows
 * it, and says behaviour varies) that cJSON refuses whole, losing the id.
 * Each lone surrogate becomes "\ufffd", the replacement character, in
 * place (the same length).  Returns whether any was replaced.
 */
static bool replace_lone_surrogates(char *s, size_t len)
{
	bool changed = false;

	for (size_t i = 0; i < len; i++) {
		if (s[i] != '\\')
			continue;
		long u = escaped_unit(s + i, len - i);
		if (u < 0) {
			i++;   /* another escape: skip the escaped character */
			continue;
		}
		long next = escaped_unit(s + i + 6, len - i - 6);
		if (u >= 0xD800 && u <= 0xDBFF && next >= 0xDC00 && next <= 0xDFFF) {
			i += 11;   /* a pair */
			continue;
		}
		if (u >= 0xD800 && u <= 0xDFFF) {
			memcpy(s + i + 2, "fffd", 4);
			changed = true;
		}
		i += 5;
	}
	return changed;
}

void message_parse(const char *line, size_t len, struct message *m)
{
	memset(m, 0, sizeof(*m));
	/* A byte order mark is not JSON, but some writers put one first. */
	if (len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) {
		line += 3;
		len -= 3;
	}
	if (blank(line, len)) {
		m->kind = MSG_EMPTY;
		return;
	}
	if (!sfs_utf8_valid(line, len)) {
		invalid(m, JSONRPC_PARSE_ERROR, "Parse error: not UTF-8");
		return;
	}
	if (!controls_ok(line, len)) {
		invalid(m, JSONRPC_PARSE_ERROR,
			"Parse error: control character outside a string escape");
		return;
	}
	const char *end = NULL;
	m->root = cJSON_ParseWithLengthOpts(line, len, &end, false);
	if (!m->root && memmem(line, len, "\\u", 2)) {
		m->copy = malloc(len ? len : 1);
		if (m->copy) {
			memcpy(m->copy, line, len);
			if (replace_lone_surrogates(m->copy, len)) {
				line = m->copy;
				m->root = cJSON_ParseWithLengthOpts(line, len,
								    &end, false);
			}
		}
	}
	if (!m->root || !blank(end, len - (size_t)(end - line))) {
		invalid(m, JSONRPC_PARSE_ERROR, "Parse error");
		return;
	}

	const char *idtext;
	size_t idlen = 0;
	scan_top(line, len, &idtext, &idlen, &m->has_nul);

	if (cJSON_IsArray(m->root)) {
		invalid(m, JSONRPC_INVALID_REQUEST,
			"Invalid Request: batches are not supported");
		return;
	}
	if (!cJSON_IsObject(m->root)) {
		invalid(m, JSONRPC_INVALID_REQUEST,
			"Invalid Request: not an object");
		return;
	}

	cJSON *id = cJSON_GetObjectItemCaseSensitive(m->root, "id");
	bool id_ok = id && (cJSON_IsString(id) || cJSON_IsNumber(id)) &&
		     idtext;
	if (id_ok) {
		m->id_raw = strndup(idtext, idlen);
		if (!m->id_raw) {
			invalid(m, JSONRPC_INTERNAL_ERROR, "Out of memory");
			return;
		}
	}

	cJSON *ver = cJSON_GetObjectItemCaseSensitive(m->root, "jsonrpc");
	if (!cJSON_IsString(ver) || strcmp(ver->valuestring, "2.0") != 0) {
		invalid(m, JSONRPC_INVALID_REQUEST,
			"Invalid Request: jsonrpc must be \"2.0\"");
		return;
	}

	cJSON *method = cJSON_GetObjectItemCaseSensitive(m->root, "method");
	if (!method) {
		/* A response to a request of ours; we never send any. */
		if (id && (cJSON_GetObjectItemCaseSensitive(m->root, "result") ||
			   cJSON_GetObjectItemCaseSensitive(m->root, "error"))) {
			m->kind = MSG_RESPONSE;
			return;
		}
		invalid(m, JSONRPC_INVALID_REQUEST,
			"Invalid Request: no method");
		return;
	}
	if (!cJSON_IsString(method)) {
		invalid(m, JSONRPC_INVALID_REQUEST,
			"Invalid Request: method must be a string");
		return;
	}
	if (id && !id_ok) {
		invalid(m, JSONRPC_INVALID_REQUEST,
			"Invalid Request: id must be a string or a number");
		return;
	}

	cJSON *params = cJSON_GetObjectItemCaseSensitive(m->root, "params");
	m->method = method->valuestring;
	m->params = cJSON_IsObject(params) ? params : NULL;
	m->kind = id ? MSG_REQUEST : MSG_NOTIFICATION;
	/* A notification is never answered, even with bad params. */
	if (m->kind == MSG_REQUEST && params && !cJSON_IsObject(params)) {
		if (cJSON_IsArray(params))
			invalid(m, JSONRPC_INVALID_PARAMS,
				"Invalid params: params must be an object");
		else
			invalid(m, JSONRPC_INVALID_REQUEST,
				"Invalid Request: params must be an object");
	}
}

void message_free(struct message *m)
{
	cJSON_Delete(m->root);
	free(m->copy);
	free(m->id_raw);
	memset(m, 0, sizeof(*m));
}

/* ---- replies ---------------------------------------------------------- */

static char *finish(cJSON *msg, const char *id_raw)
{
	cJSON *id = id_raw ? cJSON_CreateRaw(id_raw) : cJSON_CreateNull();
	if (!id || !cJSON_AddItemToObject(msg, "id", id)) {
		cJSON_Delete(id);
		cJSON_Delete(msg);
		return NULL;
	}
	char *text = cJSON_PrintUnformatted(msg);
	cJSON_Delete(msg);
	return text;
}

char *jsonrpc_result(const char *id_raw, cJSON *result)
{
	cJSON *msg = cJSON_CreateObject();

	if (!msg || !result || !cJSON_AddStringToObject(msg, "jsonrpc", "2.0") ||
	    !cJSON_AddItemToObject(msg, "result", result)) {
		cJSON_Delete(msg);
		cJSON_Delete(result);
		return NULL;
	}
	return finish(msg, id_raw);
}

char *jsonrpc_error(const char *id_raw, int code, const char *message,
                    cJSON *data)
{
	cJSON *msg = cJSON_CreateObject();
	cJSON *err = cJSON_CreateObject();

	if (!msg || !err || !cJSON_AddStringToObject(msg, "jsonrpc", "2.0") ||
	    !cJSON_AddNumberToObject(err, "code", code) ||
	    !cJSON_AddStringToObject(err, "message", message)) {
		cJSON_Delete(msg);
		cJSON_Delete(err);
		cJSON_Delete(data);
		return NULL;
	}
	if (data)
		cJSON_AddItemToObject(err, "data", data);
	cJSON_AddItemToObject(msg, "error", err);
	return finish(msg, id_raw);
}

char *jsonrpc_notification(const char *method, cJSON *params)
{
	cJSON *msg = cJSON_CreateObject();

	if (!msg || !cJSON_AddStringToObject(msg, "jsonrpc", "2.0") ||
	    !cJSON_AddStringToObject(msg, "method", method)) {
		cJSON_Delete(msg);
		cJSON_Delete(params);
		return NULL;
	}
	if (params)
		cJSON_AddItemToObject(msg, "params", params);
	char *text = cJSON_PrintUnformatted(msg);
	cJSON_Delete(msg);
	return text;
}
