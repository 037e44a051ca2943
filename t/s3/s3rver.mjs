// SPDX-License-Identifier: Apache-2.0
// Starts s3rver on 127.0.0.1 (port 0 = a free one) and writes the port to
// --ready once it listens. Runs until SIGTERM/SIGINT. S3RVER_VERBOSE=1 in
// the environment makes s3rver log its requests and errors to stdout (in
// with-s3.sh's work directory, removed at exit).
//   node s3rver.mjs --dir DATA_DIR --ready FILE [--port N]
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs, die, nodeRequire } from './lib.mjs';

const args = parseArgs({ port: '0' });
if (!args.dir || !args.ready) die('--dir and --ready are required');
const require = nodeRequire();

// s3rver 3.7 walks its store in file-name order (fs-extra sorts readdir),
// which is not key order when one key extends another: "x-y._S3rver_object"
// sorts before "x._S3rver_object", and a directory "x" before "x-y". Its
// pagination (the continuation token is the last key of a page, the next
// page the keys above it) then drops keys at page boundaries. Walking in key
// order, installed before the store module takes its reference to walk(),
// makes paging behave like S3.
const OBJECT_SUFFIX = '._S3rver_object';
const utils = require(path.join(path.dirname(require.resolve('s3rver')),
                                'utils.js'));
utils.walk = function* walk(dir, recurseFilter) {
  const entries = fs.readdirSync(dir, { withFileTypes: true }).map(e => {
    const isDir = e.isDirectory();
    // Order by the key each entry stands for: "x" (file) < "x-y" < "x/".
    const order = isDir ? e.name + '/'
      : e.name.endsWith(OBJECT_SUFFIX) ? e.name.slice(0, -OBJECT_SUFFIX.length)
      : e.name;
    return { name: e.name, isDir, order: Buffer.from(order) };
  }).sort((a, b) => Buffer.compare(a.order, b.order));
  for (const e of entries) {
    const p = path.posix.join(dir, e.name);
    if (!e.isDir) yield p;
    else if (!recurseFilter || recurseFilter(p)) yield* walk(p, recurseFilter);
  }
};
const S3rver = require('s3rver');

fs.mkdirSync(args.dir, { recursive: true });
const server = new S3rver({
  address: '127.0.0.1',
  port: Number(args.port),
  directory: args.dir,
  silent: !process.env.S3RVER_VERBOSE,
  // Only path-style requests reach it: the proxy rewrites virtual-hosted
  // ones, so host names must not be taken for buckets.
  vhostBuckets: false,
});
const { port } = await server.run();
fs.writeFileSync(args.ready + '.tmp', String(port));
fs.renameSync(args.ready + '.tmp', args.ready);
const stop = () => server.close().finally(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
