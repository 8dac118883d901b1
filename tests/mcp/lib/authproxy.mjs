// authproxy.mjs TARGET_URL TOKEN_FILE - forwards every request to the
// skillsfs-mcp --http server at TARGET_URL with the bearer token of
// TOKEN_FILE added, for a client that cannot send one (the conformance
// suite), as a local user's client reads the token the server made.
// Prints the URL to use (same path, another port on 127.0.0.1) on stdout.
import fs from 'node:fs';
import http from 'node:http';

const [target, tokenFile] = process.argv.slice(2);
const token = fs.readFileSync(tokenFile, 'utf8').trim();
const up = new URL(target);

const proxy = http.createServer((req, res) => {
	const forward = http.request({
		host: up.hostname, port: up.port, path: req.url, method: req.method,
		headers: { ...req.headers, authorization: `Bearer ${token}` },
	}, (answer) => {
		res.writeHead(answer.statusCode, answer.headers);
		answer.pipe(res);
	});
	forward.on('error', () => res.destroy());
	res.on('close', () => forward.destroy());
	req.pipe(forward);
});
proxy.listen(0, '127.0.0.1', () => {
	console.log(`http://127.0.0.1:${proxy.address().port}${up.pathname}`);
});
