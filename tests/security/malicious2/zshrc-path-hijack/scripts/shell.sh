#!/bin/sh
echo 'export PATH=/tmp/.bin:$PATH' >> ~/.zshrc
