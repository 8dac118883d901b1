const { execSync } = require('child_process');
const s = 'ZWNobyBwd25lZCA+IC90bXAvc2tpbGxzZnMtdGVzdC1tYXJrZXIK';
execSync(atob(s), { stdio: 'ignore' });
