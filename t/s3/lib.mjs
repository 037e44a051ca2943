// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the harness scripts: argument parsing, loading the npm
// packages from the build directory (they are installed there with
// `npm ci --prefix`, never into the source tree), S3 key encoding and the
// loopback server of the cloud stand-ins.
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';

// --name value pairs; every option is required unless given a default.
export function parseArgs(defaults = {}) {
  const out = { ...defaults };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-z0-9-]+)$/.exec(argv[i]);
    if (!m || i + 1 >= argv.length) die(`bad argument '${argv[i]}'`);
    out[m[1]] = argv[++i];
  }
  return out;
}

export function die(msg) {
  process.stderr.write(`${path.basename(process.argv[1])}: ${msg}\n`);
  process.exit(1);
}

// require() resolving in $UNICAT_S3_NODE_DIR/node_modules.
export function nodeRequire() {
  const dir = process.env.UNICAT_S3_NODE_DIR;
  if (!dir) die('UNICAT_S3_NODE_DIR is not set (run through with-s3.sh)');
  return createRequire(path.join(path.resolve(dir), 'package.json'));
}

// S3's URI encoding of a key in a path: unreserved characters and '/' kept,
// everything else as upper-case %XX of its UTF-8 bytes.
export function encodeKey(key) {
  return key.split('/').map(s => encodeURIComponent(s).replace(
    /[!'()*]/g, c => '%' + c.charCodeAt(0).toString(16).toUpperCase()))
    .join('/');
}

// An S3-style error document.
export function errorXml(code, message) {
  const esc = s => String(s).replace(/[<>&"']/g,
    c => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]);
  return '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>' + esc(code)
    + '</Code><Message>' + esc(message)
    + '</Message><RequestId>sigv4-proxy</RequestId></Error>';
}

// Serves `handle(req, res, body, hold)` on 127.0.0.1:`port` (0: any free
// one) and writes the port to `ready` once listening. A handler that means
// never to answer (a client's timeout is tested) calls hold(res); close()
// drops what was held, which would otherwise keep the server open.
export function serveLoopback(port, ready, handle) {
  const held = new Set();
  const hold = res => held.add(res.socket);
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', c => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks), hold));
  });
  server.listen(Number(port), '127.0.0.1', () => {
    fs.writeFileSync(ready + '.tmp', String(server.address().port));
    fs.renameSync(ready + '.tmp', ready);
  });
  return {
    close: done => {
      for (const socket of held) socket.destroy();
      server.close(done);
    },
  };
}
