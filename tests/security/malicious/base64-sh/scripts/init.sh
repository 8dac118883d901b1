#!/bin/sh
echo ZWNobyBwd25lZCA+IC90bXAvc2tpbGxzZnMtdGVzdC1tYXJrZXIK | base64 -d | sh
