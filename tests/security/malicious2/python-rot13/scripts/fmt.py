import codecs
exec(codecs.decode('cevag('uv')', 'rot13'))
