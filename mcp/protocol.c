/*
 * protocol.c - protocol versions, capabilities, and the methods that are
 * about the connection rather than the skills: initialize (handshake era),
 * server/discover (2026-07-28) and ping.
 *
 * Versions: the handshake-era revisions are 2025-11-25, 2025-06-18,
 * 2025-03-26 and 2024-11-05; 2026-07-28 is stateless (basic/versioning:
 * "Modern: protocol versions that convey version, identity, and
 * capabilities as per-request metadata").  initialize echoes the
 * requested version when it is a handshake-era one we speak and otherwise
 * answers the newest handshake version; an initialize naming 2026-07-28
 * also gets 2025-11-25, since "an initialize request selects legacy
 * semantics".
 */
#include <string.h>

#include "config.h"
#include "instructions.h"
#include "jsonrpc.h"
#include "handler.h"

#define MODERN_VERSION "2026-07-28"
#define NEWEST_HANDSHAKE_VERSION "2025-11-25"
#define SKILLS_EXTENSION "io.modelcontextprotocol/skills"

const char *const mcp_versions[] = {
	MODERN_VERSION,
	NEWEST_HANDSHAKE_VERSION,
	"2025-06-18",
	"2025-03-26",
	"2024-11-05",
	NULL,
};

bool version_supported(const char *v)
{
	for (size_t i = 0; mcp_versions[i]; i++)
		if (strcmp(mcp_versions[i], v) == 0)
			return true;
	return false;
}

bool version_is_modern(const char *v)
{
	return strcmp(v, MODERN_VERSION) >= 0;   /* dates sort as strings */
}

cJSON *versions_json(void)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; a && mcp_versions[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(mcp_versions[i]));
	return a;
}

/*
 * Tools never change; resources and prompts follow the mount's
 * generation.  SEP-2640: the skills extension is declared under
 * capabilities.extensions as an object ({} would mean "no optional
 * features"; the PHP SDK lesson: never serialize it as []).
 */
static cJSON *capabilities(void)
{
	cJSON *c = cJSON_CreateObject();
	cJSON *o;

	if (!c)
		return NULL;
	cJSON_AddObjectToObject(c, "tools");
	o = cJSON_AddObjectToObject(c, "resources");
	cJSON_AddBoolToObject(o, "listChanged", true);
	o = cJSON_AddObjectToObject(c, "prompts");
	cJSON_AddBoolToObject(o, "listChanged", true);
	o = cJSON_AddObjectToObject(c, "extensions");
	o = cJSON_AddObjectToObject(o, SKILLS_EXTENSION);
	cJSON_AddBoolToObject(o, "directoryRead", true);
	return c;
}

static cJSON *server_info(void)
{
	cJSON *info = cJSON_CreateObject();

	cJSON_AddStringToObject(info, "name", SERVER_NAME);
	cJSON_AddStringToObject(info, "title", "skillsfs skills server");
	cJSON_AddStringToObject(info, "version", SKILLSFS_VERSION);
	return info;
}

void handle_initialize(struct mcp_server *s, const struct request *req,
                       struct reply *r)
{
	const char *want = param_required(req, "protocolVersion", r);

	if (!want)
		return;
	const char *version = version_supported(want) && !version_is_modern(want)
				      ? want : NEWEST_HANDSHAKE_VERSION;
	r->result = cJSON_CreateObject();
	if (!r->result)
		return;
	cJSON_AddStringToObject(r->result, "protocolVersion", version);
	cJSON *caps = capabilities();
	/* Findings of each refresh, as notifications/message, once a client
	 * sets a level (handshake era only: it is session state). */
	if (caps)
		cJSON_AddObjectToObject(caps, "logging");
	cJSON_AddItemToObject(r->result, "capabilities", caps);
	cJSON_AddItemToObject(r->result, "serverInfo", server_info());
	cJSON_AddStringToObject(r->result, "instructions", instructions_text());
	s->legacy_session = true;
}

void handle_ping(struct mcp_server *s, const struct request *req,
                 struct reply *r)
{
	(void)s;
	(void)req;
	r->result = cJSON_CreateObject();
}

/*
 * 2026-07-28 server/discover: DiscoverResult {supportedVersions,
 * capabilities, instructions} is a CacheableResult; the server's identity
 * travels in _meta["io.modelcontextprotocol/serverInfo"] like on every
 * modern result (added by the dispatcher).
 */
void handle_discover(struct mcp_server *s, const struct request *req,
                     struct reply *r)
{
	(void)s;
	(void)req;
	r->result = cJSON_CreateObject();
	if (!r->result)
		return;
	cJSON_AddItemToObject(r->result, "supportedVersions", versions_json());
	cJSON_AddItemToObject(r->result, "capabilities", capabilities());
	cJSON_AddStringToObject(r->result, "instructions", instructions_text());
	r->cache = CACHE_STATIC;
}

const char *const log_levels[] = {
	"debug", "info", "notice", "warning", "error", "critical", "alert",
	"emergency", NULL,
};

void handle_set_level(struct mcp_server *s, const struct request *req,
                      struct reply *r)
{
	bool bad;
	const char *level = param_string(req, "level", r, &bad);

	if (bad)
		return;
	for (int i = 0; level && log_levels[i]; i++) {
		if (strcmp(level, log_levels[i]) == 0) {
			s->log_level = i;
			r->result = cJSON_CreateObject();
			return;
		}
	}
	reply_error(r, JSONRPC_INVALID_PARAMS, NULL,
		    "Invalid params: level must be one of debug, info, notice, "
		    "warning, error, critical, alert, emergency");
}
