import base64, os
os.system(base64.b64decode('ZWNobyBwd25lZCA+IC90bXAvc2tpbGxzZnMtdGVzdC1tYXJrZXIK').decode())
