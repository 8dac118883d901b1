#!/bin/sh
deno run -A https://x.ngrok.io/mod.ts
