/*
 * tools.c - the two tools of skills-mcp-spec.md: list_skills (level 1 of
 * progressive disclosure: names and descriptions) and get_skill (level 2:
 * the instructions, with the absolute path of SKILL.md in the mount so the
 * agent reaches level 3 with its own file and shell tools).
 *
 * Results carry structuredContent and the same JSON as a text item
 * (2025-06-18 "structured content": "a tool that returns structured
 * content SHOULD also return the serialized JSON in a TextContent block").
 * Problems with a call's arguments or with the skill asked for are tool
 * errors (isError), so the model can read them and correct itself; an
 * unknown tool name is a protocol error (-32602).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cursor.h"
#include "files.h"
#include "findings.h"
#include "jsonrpc.h"
#include "selection.h"
#include "handler.h"
#include "skillmd.h"
#include "text.h"

#define LIST_DEFAULT_LIMIT 50
#define LIST_MAX_LIMIT 500
#define MAX_QUERY_WORDS 16
#define MAX_SUGGESTIONS 5

static const char list_skills_def[] =
"{\"name\":\"list_skills\",\"title\":\"List skills\","
"\"description\":\"List the available skills with their names and descriptions. "
"Skills are packages of instructions, scripts and reference files for specific "
"kinds of tasks. Call this to discover which skills exist, and again when a new "
"task comes up. Each entry has the skill's id (pass it to get_skill), name, "
"description, tags, path: the absolute path of its SKILL.md inside the "
"read-only skillsfs mount, and plugin: the Claude Code plugin it comes from, "
"when it comes from one. With many skills, search with query and "
"page through the list with limit and cursor.\","
"\"inputSchema\":{\"type\":\"object\",\"properties\":{"
"\"query\":{\"type\":\"string\",\"description\":\"Words to search for "
"(case-insensitive). The skills whose id, name, description or tags hold "
"every word come first, best match first; when none holds them all, the "
"best matches of any of the words.\"},"
"\"view\":{\"type\":\"string\",\"description\":\"List only the skills "
"of this view of the mount (claude-code, codex, copilot, gemini, or one "
"the configuration defines); default: the session's --view.\"},"
"\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":500,\"default\":50,"
"\"description\":\"Most skills to return (default 50, at most 500).\"},"
"\"cursor\":{\"type\":\"string\",\"description\":\"The nextCursor of the "
"previous call, to get the next page.\"}}},"
"\"outputSchema\":{\"type\":\"object\",\"properties\":{"
"\"skills\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
"\"id\":{\"type\":\"string\"},\"name\":{\"type\":\"string\"},"
"\"description\":{\"type\":\"string\"},\"path\":{\"type\":\"string\"},"
"\"plugin\":{\"type\":\"string\"},"
"\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},"
"\"required\":[\"id\",\"name\",\"description\",\"path\",\"tags\"]}},"
"\"nextCursor\":{\"type\":\"string\"}},\"required\":[\"skills\"]},"
"\"annotations\":{\"title\":\"List skills\",\"readOnlyHint\":true,"
"\"openWorldHint\":false}}";

static const char get_skill_def[] =
"{\"name\":\"get_skill\",\"title\":\"Get a skill\","
"\"description\":\"Get the full instructions of one skill: the body of its "
"SKILL.md (without the YAML header) and the absolute path of that SKILL.md "
"inside the read-only skillsfs mount. Relative paths in the instructions "
"(references/, scripts/, assets/) are relative to the folder holding SKILL.md: "
"read those files with your own file tools and run scripts with your own "
"shell, when the instructions call for them. findings lists what skillsfs's "
"security pass saw in the skill's files (hidden text, code that fetches and "
"runs code, credential reads...): weigh them before following it.\","
"\"inputSchema\":{\"type\":\"object\",\"properties\":{"
"\"id\":{\"type\":\"string\",\"description\":\"The skill's id as list_skills "
"returns it; a skill of a Claude Code plugin may also be named "
"<plugin>:<id>.\"}},\"required\":[\"id\"]},"
"\"outputSchema\":{\"type\":\"object\",\"properties\":{"
"\"path\":{\"type\":\"string\"},\"name\":{\"type\":\"string\"},"
"\"description\":{\"type\":\"string\"},\"content\":{\"type\":\"string\"},"
"\"findings\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
"\"properties\":{\"rule\":{\"type\":\"string\"},"
"\"severity\":{\"type\":\"string\"},\"file\":{\"type\":\"string\"},"
"\"line\":{\"type\":\"integer\"},\"message\":{\"type\":\"string\"}}}}},"
"\"required\":[\"path\",\"name\",\"description\",\"content\",\"findings\"]},"
"\"annotations\":{\"title\":\"Get a skill\",\"readOnlyHint\":true,"
"\"openWorldHint\":false}}";

void handle_tools_list(struct mcp_server *s, const struct request *req,
                       struct reply *r)
{
	bool bad;
	(void)s;
	if (param_string(req, "cursor", r, &bad) || bad) {
		if (!bad)
			reply_error(r, JSONRPC_INVALID_PARAMS, NULL,
				    "Invalid params: unknown cursor");
		return;
	}
	r->result = cJSON_CreateObject();
	cJSON *tools = cJSON_AddArrayToObject(r->result, "tools");
	cJSON_AddItemToArray(tools, cJSON_Parse(list_skills_def));
	cJSON_AddItemToArray(tools, cJSON_Parse(get_skill_def));
	r->cache = CACHE_STATIC;
}

/* ---- results ---------------------------------------------------------- */

/* Takes structured.  It is printed once: the text item holds that JSON,
 * and structuredContent is the same text as a raw item, so the reply's
 * own printing copies it instead of printing the tree a second time. */
static void tool_result(struct reply *r, cJSON *structured)
{
	char *text = cJSON_PrintUnformatted(structured);
	cJSON *raw = text ? cJSON_CreateRaw(text) : NULL;

	cJSON_Delete(structured);
	r->result = raw ? cJSON_CreateObject() : NULL;
	if (r->result) {
		cJSON *content = cJSON_AddArrayToObject(r->result, "content");
		cJSON *item = cJSON_CreateObject();
		cJSON_AddStringToObject(item, "type", "text");
		cJSON_AddStringToObject(item, "text", text);
		cJSON_AddItemToArray(content, item);
		cJSON_AddItemToObject(r->result, "structuredContent", raw);
	} else {
		cJSON_Delete(raw);
	}
	free(text);
}

static void tool_error(struct reply *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void tool_error(struct reply *r, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	cJSON_Delete(r->result);
	r->result = cJSON_CreateObject();
	cJSON *content = cJSON_AddArrayToObject(r->result, "content");
	cJSON *item = cJSON_CreateObject();
	cJSON_AddStringToObject(item, "type", "text");
	cJSON_AddStringToObject(item, "text", msg ? msg : "error");
	cJSON_AddItemToArray(content, item);
	cJSON_AddBoolToObject(r->result, "isError", true);
	r->tool_error = true;
	free(msg);
}

/* The model, or NULL after a tool error that says why the mount cannot be
 * read: the model reads tool errors, and can pass the advice on. */
static const struct model *tool_model(struct mcp_server *s, struct reply *r)
{
	const struct model *md = server_model(s, r);

	if (!md && r->code) {
		char *msg = r->message;
		r->message = NULL;
		r->code = 0;
		cJSON_Delete(r->data);
		r->data = NULL;
		tool_error(r, "%s", msg ? msg : "Cannot read the skillsfs mount");
		free(msg);
	}
	return md;
}

/* ---- list_skills ------------------------------------------------------ */

struct query {
	char *words[MAX_QUERY_WORDS];
	size_t n;
	bool raw_ok;   /* the words can be looked for in the JSON text itself */
};

static void query_free(struct query *q)
{
	for (size_t i = 0; i < q->n; i++)
		free(q->words[i]);
	q->n = 0;
}

static bool query_parse(const char *text, struct query *q)
{
	const char *p = text;

	q->raw_ok = true;
	while (*p) {
		p += strspn(p, " \t\r\n\f\v");
		size_t len = strcspn(p, " \t\r\n\f\v");
		if (!len)
			break;
		if (q->n == MAX_QUERY_WORDS)
			return false;
		char *w = strndup(p, len);
		if (!w)
			return false;
		for (char *c = w; *c; c++) {
			if (*c >= 'A' && *c <= 'Z')
				*c = (char)(*c + 32);
			/* Characters a JSON printer may escape would not be
			 * found verbatim in the raw line. */
			if (*c == '"' || *c == '\\' || *c == '/' ||
			    (unsigned char)*c < 0x20 || (unsigned char)*c >= 0x80)
				q->raw_ok = false;
		}
		q->words[q->n++] = w;
		p += len;
	}
	return true;
}

static bool field_has(const char *field, const char *word)
{
	return field && contains_nocase(field, strlen(field), word, strlen(word));
}

static bool query_matches(const struct query *q, const struct skill *sk,
                          const struct skill_info *si)
{
	for (size_t w = 0; w < q->n; w++) {
		const char *word = q->words[w];
		bool found = field_has(sk->id, word) || field_has(si->name, word) ||
			     field_has(si->description, word) ||
			     field_has(sk->plugin, word);
		const cJSON *tag;
		cJSON_ArrayForEach(tag, si->tags)
			if (!found && cJSON_IsString(tag))
				found = field_has(tag->valuestring, word);
		if (!found)
			return false;
	}
	return true;
}

/* A cheap first pass over the skill's raw skills_index.json line: a word
 * absent from the whole line cannot be in any of its fields. */
static bool query_may_match(const struct query *q, const struct model *md,
                            const struct skill *sk)
{
	if (!q->raw_ok || !sk->cat_len)
		return true;
	const char *line = md->catalog + sk->cat_off;
	for (size_t w = 0; w < q->n; w++)
		if (!contains_nocase(line, sk->cat_len, q->words[w],
				     strlen(q->words[w])))
			return false;
	return true;
}

static size_t after_key(const struct model *md, const char *key)
{
	size_t lo = 0, hi = md->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(md->skills[mid].id, key) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static cJSON *skill_summary(struct mcp_server *s, const struct skill *sk,
                            const struct skill_info *si)
{
	const char *id = sk->id;
	cJSON *o = cJSON_CreateObject();
	char *path = mount_skill_file(&s->mount, id, "SKILL.md");
	cJSON *tags = cJSON_CreateArray();
	const cJSON *tag;

	cJSON_AddStringToObject(o, "id", id);
	cJSON_AddStringToObject(o, "name", si->name);
	cJSON_AddStringToObject(o, "description", si->description);
	cJSON_AddStringToObject(o, "path", path ? path : "");
	cJSON_ArrayForEach(tag, si->tags)
		if (cJSON_IsString(tag))
			cJSON_AddItemToArray(tags, cJSON_CreateString(tag->valuestring));
	cJSON_AddItemToObject(o, "tags", tags);
	if (sk->plugin)
		cJSON_AddStringToObject(o, "plugin", sk->plugin);
	free(path);
	return o;
}

/* Reads limit: an integer from 1 to the maximum, as the schema says; a
 * double beyond it (1e30, 2^32+1) must not wrap into range. */
static bool arg_limit(const cJSON *args, size_t *limit, struct reply *r)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, "limit");

	*limit = LIST_DEFAULT_LIMIT;
	if (!v)
		return true;
	double d = v->valuedouble;
	if (!cJSON_IsNumber(v) || !isfinite(d) || d != floor(d) || d < 1 ||
	    d > LIST_MAX_LIMIT) {
		tool_error(r, "limit must be an integer from 1 to %d",
			   LIST_MAX_LIMIT);
		return false;
	}
	*limit = (size_t)d;
	return true;
}

static bool arg_string(const cJSON *args, const char *name, const char **out,
                       struct reply *r)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, name);

	*out = NULL;
	if (!v)
		return true;
	if (!cJSON_IsString(v)) {
		tool_error(r, "%s must be a string", name);
		return false;
	}
	*out = v->valuestring;
	return true;
}

/* selection_make's keep: what list_skills may list, and with a query,
 * only a skill holding every word (query NULL: any). */
static bool listable(const struct model *md, size_t i, const char *query,
                     void *arg)
{
	const struct query *q = arg;
	const struct skill *sk = &md->skills[i];
	struct skill_info si;

	if (!sk->model_invocable)
		return false;
	if (!query)
		return true;
	if (!query_may_match(q, md, sk) || model_skill_info(md, i, &si) < 0)
		return false;
	bool match = query_matches(q, sk, &si);
	skill_info_free(&si);
	return match;
}

/* Where a page starts in sel: after the id a cursor names (id order),
 * or at the position it names ("@N": any other order).  SIZE_MAX when
 * the cursor is not one of list_skills. */
static size_t page_start(const struct model *md, const struct selection *sel,
                         const char *cursor)
{
	char *key = cursor ? cursor_key(cursor, "list_skills") : NULL;
	size_t start = 0;

	if (cursor && !key)
		return SIZE_MAX;
	if (key && key[0] == '@') {
		start = strtoul(key + 1, NULL, 10);
	} else if (key) {
		size_t after = after_key(md, key);
		while (start < sel->n && sel->v[start] < after)
			start++;
	}
	free(key);
	return start;
}

static void list_page(struct mcp_server *s, const struct model *md,
                      const struct selection *sel, size_t start,
                      size_t limit, struct reply *r)
{
	cJSON *out = cJSON_CreateObject();
	cJSON *list = cJSON_AddArrayToObject(out, "skills");
	size_t k = start;

	for (; k < sel->n && k - start < limit; k++) {
		struct skill_info si;
		if (model_skill_info(md, sel->v[k], &si) < 0)
			continue;
		cJSON_AddItemToArray(list, skill_summary(s, &md->skills[sel->v[k]],
		                                         &si));
		skill_info_free(&si);
	}
	if (k < sel->n && k > start) {
		char pos[32];
		snprintf(pos, sizeof(pos), "@%zu", k);
		char *next = cursor_make("list_skills", sel->by_id ?
		                         md->skills[sel->v[k - 1]].id : pos);
		if (next)
			cJSON_AddStringToObject(out, "nextCursor", next);
		free(next);
	}
	tool_result(r, out);
}

static void list_skills(struct mcp_server *s, const cJSON *args,
                        struct reply *r)
{
	const char *query_text, *cursor, *view, *why;
	size_t limit;
	struct query q = { 0 };
	struct selection sel;

	if (!arg_string(args, "query", &query_text, r) ||
	    !arg_string(args, "view", &view, r) ||
	    !arg_string(args, "cursor", &cursor, r) || !arg_limit(args, &limit, r))
		return;
	const struct model *md = tool_model(s, r);
	if (!md)
		return;
	if (query_text && !query_parse(query_text, &q)) {
		query_free(&q);
		tool_error(r, "query has more than %d words", MAX_QUERY_WORDS);
		return;
	}
	view = view ? view : s->view;
	int rc = selection_make(s->mount.path, md, view, s->project,
	                        query_text && q.n ? query_text : NULL, listable,
	                        &q, &sel, &why);
	query_free(&q);
	if (rc == -ENOENT) {
		tool_error(r, "view %s: %s", view, why);
		return;
	}
	if (rc < 0) {
		tool_error(r, "out of memory");
		return;
	}
	size_t start = page_start(md, &sel, cursor);
	if (start == SIZE_MAX)
		tool_error(r, "cursor is not one that list_skills returned; "
			   "call list_skills without it to start over");
	else
		list_page(s, md, &sel, start, limit, r);
	selection_free(&sel);
}

/* ---- get_skill -------------------------------------------------------- */

/* Edit distance of two short strings (ids are at most 64 bytes). */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[66];

	if (la > 64)
		la = 64;
	if (lb > 64)
		lb = 64;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

struct candidate {
	const char *id;
	size_t score;
};

/* The ids closest to `want`: small edit distance, or one a prefix of the
 * other, or `want` inside the id.  A comma-separated list, or NULL. */
static char *closest_ids(const struct model *md, const char *want)
{
	struct candidate best[MAX_SUGGESTIONS];
	size_t nbest = 0;
	char low[65];
	size_t wl = strlen(want);

	if (wl > 64)
		wl = 64;
	for (size_t i = 0; i < wl; i++)
		low[i] = (want[i] >= 'A' && want[i] <= 'Z') ? (char)(want[i] + 32)
							    : want[i];
	low[wl] = '\0';
	size_t limit = wl / 3 > 2 ? wl / 3 : 2;

	for (size_t i = 0; i < md->n; i++) {
		const struct skill *sk = &md->skills[i];
		if (!sk->model_invocable)
			continue;
		size_t il = strlen(sk->id);
		size_t score = edit_distance(low, sk->id);
		size_t shorter = il < wl ? il : wl;
		if (shorter >= 2 && strncmp(low, sk->id, shorter) == 0 && score > 1)
			score = 1;
		if (wl >= 3 && strstr(sk->id, low) && score > 2)
			score = 2;
		if (score > limit)
			continue;
		size_t pos = nbest;
		while (pos > 0 && best[pos - 1].score > score)
			pos--;
		if (pos >= MAX_SUGGESTIONS)
			continue;
		if (nbest < MAX_SUGGESTIONS)
			nbest++;
		memmove(&best[pos + 1], &best[pos],
			(nbest - 1 - pos) * sizeof(best[0]));
		best[pos] = (struct candidate){ sk->id, score };
	}
	if (!nbest)
		return NULL;
	struct buf b = { 0 };
	for (size_t i = 0; i < nbest; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", best[i].id);
	return buf_take(&b);
}

static void unknown_skill(struct reply *r, const struct model *md,
                          const char *id, bool hidden)
{
	char *near = closest_ids(md, id);

	if (hidden)
		tool_error(r, "Skill '%s' is not available to the model "
			   "(its frontmatter sets disable-model-invocation: true); "
			   "a user can still run it as a prompt.", id);
	else if (near)
		tool_error(r, "Unknown skill id '%s'. Closest ids: %s. "
			   "Call list_skills to see every skill.", id, near);
	else
		tool_error(r, "Unknown skill id '%s'. Call list_skills to see "
			   "the available skills.", id);
	free(near);
}

static void get_skill(struct mcp_server *s, const cJSON *args, struct reply *r)
{
	const char *id;

	if (!arg_string(args, "id", &id, r))
		return;
	if (!id) {
		tool_error(r, "id is required: the id of a skill from list_skills");
		return;
	}
	const struct model *md = tool_model(s, r);
	if (!md)
		return;
	reply_audit_arg(r, "skill", id);
	ssize_t i = model_lookup(md, id);
	if (i < 0 || !md->skills[i].model_invocable) {
		unknown_skill(r, md, id, i >= 0);
		return;
	}
	id = md->skills[i].id;   /* without its plugin */

	char *path = mount_skill_file(&s->mount, id, "SKILL.md");
	char *text = NULL;
	size_t len = 0;
	int rc = path ? read_file(path, MOUNT_MAX_FILE, &text, &len) : -ENOMEM;
	struct skill_info si = { 0 };
	int frc = 0;
	cJSON *findings = rc < 0 ? NULL : skill_findings(&s->mount, id, &frc);
	if (rc < 0) {
		tool_error(r, "Cannot read %s: %s", path ? path : id, strerror(-rc));
	} else if (!findings) {
		tool_error(r, "Cannot read the catalog record of '%s': %s", id,
			   strerror(-frc));
	} else if (!is_text(text, len)) {
		tool_error(r, "%s is not UTF-8 text", path);
	} else if ((rc = model_skill_info(md, (size_t)i, &si)) < 0) {
		tool_error(r, "Cannot read the catalog entry of '%s': %s", id,
			   strerror(-rc));
	} else {
		cJSON *out = cJSON_CreateObject();
		cJSON_AddStringToObject(out, "path", path);
		cJSON_AddStringToObject(out, "name", si.name);
		cJSON_AddStringToObject(out, "description", si.description);
		cJSON_AddStringToObject(out, "content", skillmd_body(text, len));
		cJSON_AddItemToObject(out, "findings", findings);
		findings = NULL;
		tool_result(r, out);
	}
	cJSON_Delete(findings);
	skill_info_free(&si);
	free(text);
	free(path);
}

void handle_tools_call(struct mcp_server *s, const struct request *req,
                       struct reply *r)
{
	const cJSON *args;
	const char *name = param_call(req, "tool", r, &args);

	if (!name)
		return;
	if (strcmp(name, "list_skills") == 0)
		list_skills(s, args, r);
	else if (strcmp(name, "get_skill") == 0)
		get_skill(s, args, r);
	else
		reply_error(r, JSONRPC_INVALID_PARAMS, NULL,
			    "Unknown tool: %s", name);
}
