/*
 * prompts.c - prompts/list and prompts/get: the init-skills guide, and each
 * skill a user may invoke (frontmatter user-invocable is not false) as a
 * prompt named by its id that returns its instructions.
 *
 * A skill's prompt text starts with the folder the skill lives in, as a
 * skill's relative paths (scripts/, references/) need it; the body of
 * SKILL.md follows, its placeholders replaced as Claude Code replaces them
 * (arguments.c).  A skill's prompt takes the argument "arguments" (what a
 * user types after /<skill>, offered when the frontmatter has an
 * argument-hint) and one argument per name its `arguments` field gives.
 * A skill of a Claude Code plugin is also found as "<plugin>:<id>".  A
 * skill whose id is "init-skills" is not offered as a prompt: the guide
 * has that name.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arguments.h"
#include "buf.h"
#include "cursor.h"
#include "instructions.h"
#include "jsonrpc.h"
#include "handler.h"
#include "skillmd.h"
#include "text.h"

#define GUIDE_PROMPT "init-skills"
#define PROMPTS_PAGE 100
#define RAW_ARGUMENT "arguments"

static bool offered(const struct skill *sk)
{
	return sk->user_invocable && strcmp(sk->id, GUIDE_PROMPT) != 0;
}

static cJSON *prompt_object(const char *name, const char *title,
                            const char *description)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "name", name);
	if (title)
		cJSON_AddStringToObject(o, "title", title);
	cJSON_AddStringToObject(o, "description", description);
	return o;
}

/* The arguments a skill's prompt declares, from its frontmatter. */
static void add_arguments(cJSON *prompt, const char *id, const cJSON *fm)
{
	size_t nnames;
	char **names = args_names(fm, &nnames);
	char *hint = args_hint(fm);
	bool raw_named = false;

	if (!hint && !nnames)
		return;
	cJSON *list = cJSON_AddArrayToObject(prompt, "arguments");
	for (size_t i = 0; i < nnames; i++) {
		cJSON *a = cJSON_CreateObject();
		char *desc = xasprintf("Argument %zu of /%s%s%s, as $%s and $%zu "
				       "in the skill.", i + 1, id,
				       hint ? " " : "", hint ? hint : "",
				       names[i], i);
		cJSON_AddStringToObject(a, "name", names[i]);
		cJSON_AddStringToObject(a, "description", desc ? desc : "");
		cJSON_AddBoolToObject(a, "required", false);
		cJSON_AddItemToArray(list, a);
		raw_named |= strcmp(names[i], RAW_ARGUMENT) == 0;
		free(desc);
	}
	if (hint && !raw_named) {
		cJSON *a = cJSON_CreateObject();
		char *desc = xasprintf("What a user would type after /%s: %s. "
				       "Words are split as a shell splits them.",
				       id, hint);
		cJSON_AddStringToObject(a, "name", RAW_ARGUMENT);
		cJSON_AddStringToObject(a, "description", desc ? desc : hint);
		cJSON_AddBoolToObject(a, "required", false);
		cJSON_AddItemToArray(list, a);
		free(desc);
	}
	args_names_free(names, nnames);
	free(hint);
}

/* Cursor keys: "" after the guide, else the id of the last skill. */
void handle_prompts_list(struct mcp_server *s, const struct request *req,
                         struct reply *r)
{
	char *after;
	const struct model *md = list_begin(s, req, "prompts", r, &after);

	if (!md)
		return;
	/* One open of index.json for the page (the arguments of each
	 * prompt come from its frontmatter); -1 reads each another way. */
	int fd = model_index_open(md);
	cJSON *result = cJSON_CreateObject();
	cJSON *list = cJSON_AddArrayToObject(result, "prompts");
	size_t count = 0;
	const char *last = NULL;
	bool more = false;

	if (!after) {
		cJSON_AddItemToArray(list, prompt_object(GUIDE_PROMPT,
			"Skills usage guide",
			"Background on working with the skills this server offers: "
			"what skills are, progressive disclosure, and the five steps "
			"from discovering a skill to running its scripts."));
		count++;
		last = "";
	}
	for (size_t i = 0; i < md->n; i++) {
		const struct skill *sk = &md->skills[i];
		struct skill_info si;
		if (!offered(sk) || (after && strcmp(sk->id, after) <= 0))
			continue;
		if (count == PROMPTS_PAGE) {
			more = true;
			break;
		}
		if (model_skill_info(md, i, &si) < 0)
			continue;
		cJSON *prompt = prompt_object(sk->id,
			strcmp(si.name, sk->id) ? si.name : NULL, si.description);
		cJSON *fm = model_frontmatter(&s->mount, md, fd, i);
		add_arguments(prompt, sk->id, fm);
		cJSON_Delete(fm);
		cJSON_AddItemToArray(list, prompt);
		skill_info_free(&si);
		count++;
		last = sk->id;
	}
	if (more && last) {
		char *next = cursor_make("prompts", last);
		if (next)
			cJSON_AddStringToObject(result, "nextCursor", next);
		free(next);
	}
	if (fd >= 0)
		close(fd);
	free(after);
	r->result = result;
	r->cache = CACHE_MOUNT;
}

static void set_messages(struct reply *r, const char *description,
                         const char *text)
{
	r->result = cJSON_CreateObject();
	cJSON_AddStringToObject(r->result, "description", description);
	cJSON *msgs = cJSON_AddArrayToObject(r->result, "messages");
	cJSON *msg = cJSON_CreateObject();
	cJSON_AddStringToObject(msg, "role", "user");
	cJSON *content = cJSON_AddObjectToObject(msg, "content");
	cJSON_AddStringToObject(content, "type", "text");
	cJSON_AddStringToObject(content, "text", text);
	cJSON_AddItemToArray(msgs, msg);
}

/* The arguments of a prompts/get as Claude Code would have them: "arguments"
 * is the text typed after /<skill>, a named argument sets its position.
 * Nothing given leaves a->raw NULL.  False after an error reply. */
static bool collect_args(const cJSON *given, char **names, size_t nnames,
                         const char *prompt, struct args *a, struct reply *r)
{
	const cJSON *v;
	const char *raw = NULL;
	bool named = false;

	cJSON_ArrayForEach(v, given) {
		size_t k = 0;
		while (k < nnames && strcmp(names[k], v->string) != 0)
			k++;
		if (!cJSON_IsString(v)) {
			reply_error(r, JSONRPC_INVALID_PARAMS, NULL,
				    "Invalid params: argument '%s' must be a string",
				    v->string);
			return false;
		}
		if (k == nnames && strcmp(v->string, RAW_ARGUMENT) != 0) {
			reply_error(r, JSONRPC_INVALID_PARAMS, NULL,
				    "Invalid params: prompt '%s' has no argument "
				    "'%s'", prompt, v->string);
			return false;
		}
		if (k == nnames)
			raw = v->valuestring;
		else
			named = true;
	}
	if (raw && args_split(raw, a) < 0)
		goto oom;
	a->raw = raw;
	cJSON_ArrayForEach(v, given) {
		for (size_t k = 0; k < nnames; k++)
			if (strcmp(names[k], v->string) == 0 &&
			    args_set(a, k, v->valuestring) < 0)
				goto oom;
	}
	if (named && !raw && args_join(a) < 0)
		goto oom;
	return true;
oom:
	reply_error(r, JSONRPC_INTERNAL_ERROR, NULL, "Out of memory");
	return false;
}

static void skill_prompt(struct mcp_server *s, const struct model *md,
                         size_t i, const char *name, const cJSON *given,
                         struct reply *r)
{
	const char *id = md->skills[i].id;
	char *dir = mount_skill_file(&s->mount, id, NULL);
	char *text = NULL, *body = NULL, **names = NULL;
	size_t body_off = 0, nnames = 0;
	struct skill_info si = { 0 };
	struct args a = { 0 };
	cJSON *fm = mount_frontmatter(&s->mount, id, &text, &body_off);
	int rc;

	if (fm)
		names = args_names(fm, &nnames);

	if (!fm || !dir) {
		reply_error(r, JSONRPC_INTERNAL_ERROR, NULL,
			    "Cannot read the frontmatter of %s/SKILL.md",
			    dir ? dir : id);
	} else if (!is_text(text, strlen(text))) {
		reply_error(r, JSONRPC_INTERNAL_ERROR, NULL,
			    "%s/SKILL.md is not UTF-8 text", dir);
	} else if ((rc = model_skill_info(md, i, &si)) < 0) {
		reply_error(r, JSONRPC_INTERNAL_ERROR, NULL,
			    "Cannot read the catalog entry of %s: %s", id,
			    strerror(-rc));
	} else if (collect_args(given, names, nnames, name, &a, r)) {
		body = args_substitute(text + body_off, &a,
				       (const char *const *)names, nnames, dir);
		char *msg = body ? xasprintf("Base directory for this skill: "
					     "%s\n\n%s", dir, body) : NULL;
		if (msg)
			set_messages(r, si.description, msg);
		else
			reply_error(r, JSONRPC_INTERNAL_ERROR, NULL,
				    "Out of memory");
		free(msg);
	}
	args_free(&a);
	args_names_free(names, nnames);
	skill_info_free(&si);
	cJSON_Delete(fm);
	free(body);
	free(text);
	free(dir);
}

void handle_prompts_get(struct mcp_server *s, const struct request *req,
                        struct reply *r)
{
	const cJSON *args;
	const char *name = param_call(req, "prompt", r, &args);

	if (!name)
		return;
	if (strcmp(name, GUIDE_PROMPT) == 0) {
		set_messages(r, "Background on working with skills",
			     instructions_text());
		return;
	}
	const struct model *md = server_model(s, r);
	if (!md)
		return;
	ssize_t i = model_lookup(md, name);
	if (i < 0 || !offered(&md->skills[i])) {
		cJSON *data = cJSON_CreateObject();
		cJSON_AddStringToObject(data, "name", name);
		reply_error(r, JSONRPC_INVALID_PARAMS, data,
			    "Unknown prompt: %s", name);
		return;
	}
	skill_prompt(s, md, (size_t)i, name, args, r);
}
