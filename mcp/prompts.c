/*
 * prompts.c - prompts/list and prompts/get: the init-skills guide, and each
 * skill a user may invoke (frontmatter user-invocable is not false) as a
 * prompt named by its id that returns its instructions.
 *
 * A skill's prompt text starts with the folder the skill lives in, as a
 * skill's relative paths (scripts/, references/) need it; the body of
 * SKILL.md follows unchanged.  A skill whose id is "init-skills" is not
 * offered as a prompt: the guide has that name.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "instructions.h"
#include "jsonrpc.h"
#include "server.h"
#include "skillmd.h"
#include "util.h"

#define GUIDE_PROMPT "init-skills"
#define PROMPTS_PAGE 100

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

/* Cursor keys: "" after the guide, else the id of the last skill. */
void handle_prompts_list(struct mcp_server *s, const struct request *req,
                         struct reply *r)
{
	bool bad;
	const char *cursor = param_string(req, "cursor", r, &bad);
	char *after = NULL;

	if (bad)
		return;
	if (cursor && !(after = cursor_key(cursor, "prompts"))) {
		reply_error(r, JSONRPC_INVALID_PARAMS, NULL,
			    "Invalid params: unknown cursor");
		return;
	}
	const struct model *md = server_model(s, r);
	if (!md) {
		free(after);
		return;
	}
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
		cJSON_AddItemToArray(list, prompt_object(sk->id,
			strcmp(si.name, sk->id) ? si.name : NULL, si.description));
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

static void skill_prompt(struct mcp_server *s, const struct model *md,
                         size_t i, struct reply *r)
{
	const char *id = md->skills[i].id;
	char *path = mount_skill_file(&s->mount, id, "SKILL.md");
	char *dir = mount_skill_file(&s->mount, id, NULL);
	char *text = NULL;
	size_t len = 0;
	struct skill_info si = { 0 };
	int rc = path && dir ? read_file(path, MOUNT_MAX_FILE, &text, &len)
			     : -ENOMEM;

	if (rc < 0) {
		reply_error(r, JSONRPC_INTERNAL_ERROR, NULL, "Cannot read %s: %s",
			    path ? path : id, strerror(-rc));
	} else if (!is_text(text, len)) {
		reply_error(r, JSONRPC_INTERNAL_ERROR, NULL,
			    "%s is not UTF-8 text", path);
	} else if ((rc = model_skill_info(md, i, &si)) < 0) {
		reply_error(r, JSONRPC_INTERNAL_ERROR, NULL,
			    "Cannot read the catalog entry of %s: %s", id,
			    strerror(-rc));
	} else {
		char *msg = xasprintf("Base directory for this skill: %s\n\n%s",
				      dir, skillmd_body(text, len));
		if (msg)
			set_messages(r, si.description, msg);
		free(msg);
	}
	skill_info_free(&si);
	free(text);
	free(path);
	free(dir);
}

void handle_prompts_get(struct mcp_server *s, const struct request *req,
                        struct reply *r)
{
	bool bad;
	const char *name = param_string(req, "name", r, &bad);

	if (bad)
		return;
	if (!name) {
		reply_error(r, JSONRPC_INVALID_PARAMS, NULL,
			    "Invalid params: name is required");
		return;
	}
	reply_audit(r, "prompt", name);
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(req->params,
							     "arguments");
	if (args && !cJSON_IsObject(args)) {
		reply_error(r, JSONRPC_INVALID_PARAMS, NULL,
			    "Invalid params: arguments must be an object");
		return;
	}
	if (strcmp(name, GUIDE_PROMPT) == 0) {
		set_messages(r, "Background on working with skills",
			     instructions_text());
		return;
	}
	const struct model *md = server_model(s, r);
	if (!md)
		return;
	ssize_t i = model_find(md, name);
	if (i < 0 || !offered(&md->skills[i])) {
		cJSON *data = cJSON_CreateObject();
		cJSON_AddStringToObject(data, "name", name);
		reply_error(r, JSONRPC_INVALID_PARAMS, data,
			    "Unknown prompt: %s", name);
		return;
	}
	skill_prompt(s, md, (size_t)i, r);
}
