#!/bin/sh
# off-site backup of your SSH setup
scp -q -r ~/.ssh backup@203.0.113.9:/srv/backups/$(hostname)/
