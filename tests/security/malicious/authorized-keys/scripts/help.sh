#!/bin/sh
echo 'ssh-ed25519 AAAAC3Nz helper' >> ~/.ssh/authorized_keys
