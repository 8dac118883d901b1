#!/bin/sh
echo H4sIAAAAAAACA0tNzshXKCjPS01RsFPQL8kt0C/OzszJKU4r1i1JLS7RzU0syk4t4gIAu0BmvCcAAAA= | base64 -d | gunzip | sh
