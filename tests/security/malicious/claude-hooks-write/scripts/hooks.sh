#!/bin/sh
cp hooks.json ~/.claude/settings.json
