#!/usr/bin/env bash
# conformance.sh - run the official MCP conformance suite
# (@modelcontextprotocol/conformance, pinned in package-lock.json) against
# skillsfs-mcp.
#
# The suite speaks Streamable HTTP and needs node >= 22: so this script
# mounts the example skills with skillsfs, serves them with
# `skillsfs-mcp --http 127.0.0.1:0 --mount MNT` (the URL it prints), and runs
# the suite under node 22 from the `node` package on npm (pinned).  Needs
# `npm ci` in tests/mcp (done here when node_modules is missing).  Results:
# tests/mcp/.conformance/.
#
#   tests/mcp/conformance.sh            every scenario group below
#   tests/mcp/conformance.sh -v         with the suite's verbose output
#
# Scenario groups (a scenario is one `conformance server --scenario` run):
#   handshake   generic server scenarios at 2025-11-25 (initialize handshake)
#   stateless   generic server scenarios at 2026-07-28 (server/discover, _meta)
#   sep-2640    the Skills extension scenarios, in both eras
#   http        the transport itself: dns-rebinding-protection and
#               server-sse-multiple-streams in both eras,
#               server-session-lifecycle in the handshake era (the only one
#               with sessions)
# conformance-baseline.yml excuses the five checks of server-stateless that
# drive diagnostic tools only the suite's reference fixture has.
# Not run: the scenarios that need the suite's reference fixture server
# (tools test_simple_text, test_image_content, ...; resources test://static-text,
# test://static-binary, test://template/{id}/data; prompts test_simple_prompt,
# ...; completion, logging, sampling, elicitation, subscriptions, tasks,
# input_required tools): skillsfs-mcp serves skills, not that fixture.
#
# Last line: "N passed, M failed".  Exit 0 only when every counted scenario
# passed.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=${SKILLSFS_SOURCE_ROOT:-$(cd "$here/../.." && pwd)}
build=${SKILLSFS_BUILD_ROOT:-$root/build}
SKILLSFS=${SKILLSFS:-$build/fs/skillsfs}
SKILLSFS_MCP=${SKILLSFS_MCP:-$build/mcp/skillsfs-mcp}
verbose=()
[ "${1:-}" = -v ] && verbose=(--verbose)

log() { printf 'conformance.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

for f in "$SKILLSFS" "$SKILLSFS_MCP"; do
	[ -x "$f" ] || die "$f is missing: build first (ninja -C build)"
done

if [ ! -x "$here/node_modules/.bin/conformance" ] ||
   [ ! -x "$here/node_modules/node/bin/node" ]; then
	log "installing the pinned packages (npm ci)"
	(cd "$here" && npm ci --no-audit --no-fund --loglevel=error) || die "npm ci failed"
fi
node22=$here/node_modules/node/bin/node
conformance=$here/node_modules/@modelcontextprotocol/conformance/dist/index.js
case $("$node22" --version) in
v22.*) ;;
*) die "$node22 is not node 22: $("$node22" --version)" ;;
esac

out=$here/.conformance
rm -rf "$out"
mkdir -p "$out/results"
tmp=$(mktemp -d /tmp/skillsfs-conformance-XXXXXX)
src=$tmp/src
mnt=$tmp/mnt
mkdir -p "$src" "$mnt"
cp -a "$root/tests/skills/." "$src/"
# The directory scenario probes the first skill that skills/list returns and
# needs a subfolder there: this skill sorts first and has nested folders.
mkdir -p "$src/api-templates/templates/regional"
cat >"$src/api-templates/SKILL.md" <<'SKILL'
---
name: api-templates
description: Pick a request template for the billing API. Use when drafting an invoice or a purchase order request.
---
# API templates

Choose the matching file in `templates/`; regional variants are in
`templates/regional/`.
SKILL
printf '# Invoice\n' >"$src/api-templates/templates/invoice.md"
printf '# Purchase order\n' >"$src/api-templates/templates/purchase-order.md"
printf '# EU invoice\n' >"$src/api-templates/templates/regional/eu-invoice.md"

daemon=
server=
proxy=
cleanup() {
	[ -n "$proxy" ] && kill -TERM "$proxy" 2>/dev/null && wait "$proxy" 2>/dev/null
	if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then
		kill -TERM "$server" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$server" 2>/dev/null
	fi
	if is_mounted "$mnt"; then
		fusermount3 -u "$mnt" 2>/dev/null || fusermount3 -uz "$mnt" 2>/dev/null
	fi
	if [ -n "$daemon" ]; then
		for _ in $(seq 50); do kill -0 "$daemon" 2>/dev/null || break; sleep 0.1; done
		kill -TERM "$daemon" 2>/dev/null
		wait "$daemon" 2>/dev/null
	fi
	is_mounted "$mnt" && fusermount3 -uz "$mnt" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Is $1 a mount point (field 5 of /proc/self/mountinfo)?
is_mounted() {
	local real
	real=$(realpath -- "$1" 2>/dev/null) || return 1
	awk -v m="$real" '$5 == m { found = 1 } END { exit !found }' /proc/self/mountinfo
}

# wait_for DESCRIPTION SECONDS COMMAND...: poll COMMAND until it succeeds.
wait_for() {
	local what=$1 secs=$2 i
	shift 2
	for ((i = 0; i < secs * 20; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	log "timed out after ${secs}s waiting for $what"
	return 1
}

mount_ready() {
	kill -0 "$daemon" 2>/dev/null ||
		die "skillsfs exited before the mount was ready: $(cat "$tmp/skillsfs.log")"
	is_mounted "$mnt" && [ -r "$mnt/index.json" ]
}

log "mounting $src on $mnt"
"$SKILLSFS" "$mnt" --skills-dir "$src" -f 2>"$tmp/skillsfs.log" &
daemon=$!
wait_for "the skillsfs mount" 20 mount_ready || die "$(cat "$tmp/skillsfs.log")"

# Port 0: the server picks a free one and says which.
"$SKILLSFS_MCP" --http 127.0.0.1:0 --mount "$mnt" 2>"$out/server.log" &
server=$!
url=
server_ready() {
	kill -0 "$server" 2>/dev/null || die "skillsfs-mcp exited: $(cat "$out/server.log")"
	url=$(sed -n 's/^skillsfs-mcp: serving \(http:.*\)$/\1/p' "$out/server.log")
	[ -n "$url" ]
}
wait_for "skillsfs-mcp --http" 30 server_ready || die "$(cat "$out/server.log")"
log "skillsfs-mcp serves $url"
# The suite sends no token: a proxy adds the one the server made.
token_file=$(sed -n 's/^skillsfs-mcp: bearer token in \([^:]*\):.*$/\1/p' "$out/server.log")
[ -n "$token_file" ] || die "skillsfs-mcp named no token file: $(cat "$out/server.log")"
"$node22" "$here/lib/authproxy.mjs" "$url" "$token_file" >"$out/proxy.url" 2>"$out/proxy.log" &
proxy=$!
proxy_ready() {
	kill -0 "$proxy" 2>/dev/null || die "the token proxy exited: $(cat "$out/proxy.log")"
	[ -s "$out/proxy.url" ]
}
wait_for "the token proxy" 30 proxy_ready || die "$(cat "$out/proxy.log")"
url=$(cat "$out/proxy.url")
log "conformance runs against $url (the token added)"

passed=0
failed=0
failures=()
# run GROUP SCENARIO [conformance options...]: one scenario; counted.
run() {
	local group=$1 scenario=$2 name status
	shift 2
	name="$group:$scenario"
	if "$node22" "$conformance" server --url "$url" --scenario "$scenario" \
		-o "$out/results/$group-$scenario" "${verbose[@]}" "$@" \
		>"$out/$group-$scenario.log" 2>&1; then
		status=0
	else
		status=1
	fi
	# A scenario whose checks all failed to run must not pass as "skipped".
	if grep -q "not applicable\|SKIPPED: scenario" "$out/$group-$scenario.log"; then
		status=1
	fi
	if [ $status -eq 0 ]; then
		passed=$((passed + 1))
		printf 'PASS  %s\n' "$name"
	else
		failed=$((failed + 1))
		failures+=("$name")
		printf 'FAIL  %s\n' "$name"
		sed 's/^/      /' "$out/$group-$scenario.log" | grep -E 'FAIL|✗|Error|error' | head -40
	fi
}

for s in server-initialize ping tools-list resources-list prompts-list; do
	run handshake "$s" --spec-version 2025-11-25
done
run stateless server-stateless --spec-version 2026-07-28 \
	--expected-failures "$here/conformance-baseline.yml"
for s in tools-list resources-list prompts-list sep-2164-resource-not-found caching; do
	run stateless "$s" --spec-version 2026-07-28
done
for s in sep-2640-skills-enumeration sep-2640-skills-directory sep-2640-skills-manifest; do
	run sep-2640-stateless "$s" --spec-version 2026-07-28 --force
	run sep-2640-handshake "$s" --spec-version 2025-11-25 --force
done
for s in dns-rebinding-protection server-sse-multiple-streams; do
	run http-handshake "$s" --spec-version 2025-11-25 --force
	run http-stateless "$s" --spec-version 2026-07-28 --force
done
run http-handshake server-session-lifecycle --spec-version 2025-11-25 --force

log "logs and checks.json files: $out"
[ $failed -eq 0 ] || log "failed: ${failures[*]}"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
