// SPDX-License-Identifier: Apache-2.0
// Fills the test bucket through the verifying proxy with signed PUTs, then
// checks that the proxy tells good signatures from bad ones, and that the
// STS stand-in vends credentials the proxy holds to their session policy.
// Exits non-zero on any failure, so with-s3.sh never runs tests against a
// broken harness.
//   node upload.mjs --endpoint http://127.0.0.1:PROXY_PORT --bucket B
//        --key ID --secret SECRET --region R --session-token T
//        --fixtures DIR --sts-endpoint http://127.0.0.1:STS_PORT
//        --sts-role ARN --sts-external-id ID [--sts-any-external-id 1]
// Objects: DIR/** under fixtures/; paging/obj-0000..1099 (more than one
// ListObjectsV2 page), paging/sub/nested (a common prefix between the
// pages), paging/ (a directory marker); special/... (keys needing escapes).
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parseArgs, die, nodeRequire, encodeKey } from './lib.mjs';

const args = parseArgs({ 'sts-any-external-id': '0' });
for (const k of ['endpoint', 'bucket', 'key', 'secret', 'region',
                 'session-token', 'fixtures', 'sts-endpoint', 'sts-role',
                 'sts-external-id'])
  if (!args[k]) die(`--${k} is required`);
const aws4 = nodeRequire()('aws4');
const endpoint = new URL(args.endpoint);
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
const creds = { accessKeyId: args.key, secretAccessKey: args.secret };
const sha256 = buf => crypto.createHash('sha256').update(buf).digest('hex');

const PAGING_COUNT = 1100;
const SPECIAL_KEYS = ['special/plus+sign é ~x.txt',
                             'special/quote\'s (1)*!.txt'];

function send({ method, path: p, body = Buffer.alloc(0), headers = {},
                to = endpoint }) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: to.hostname, port: to.port,
                               method, path: p, headers, agent }, res => {
      const chunks = [];
      res.on('data', c => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode,
                                    body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

// A request signed by aws4 with `secret` (the right one unless told).
function signed(method, p, body = Buffer.alloc(0), opts = {}) {
  const headers = { 'x-amz-content-sha256': sha256(body),
                    'content-length': String(body.length) };
  const r = aws4.sign({ method, host: endpoint.host, path: p, service: 's3',
                        region: args.region, headers },
                      { ...creds, ...(opts.creds || {}) });
  return { method, path: p, body, headers: r.headers };
}

async function must(req, status, what) {
  const res = await send(req);
  if (res.status !== status)
    die(`${what}: expected HTTP ${status}, got ${res.status}: ${res.body}`);
  return res;
}

async function putObject(key, body) {
  await must(signed('PUT', `/${args.bucket}/${encodeKey(key)}`, body), 200,
             `PUT ${key}`);
}

function* walkFiles(dir, rel = '') {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const r = rel ? rel + '/' + e.name : e.name;
    if (e.isDirectory()) yield* walkFiles(path.join(dir, e.name), r);
    else if (e.isFile()) yield r;
  }
}

async function pool(items, n, fn) {
  let i = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (i < items.length) await fn(items[i++]);
  }));
}

await must(signed('PUT', `/${args.bucket}`), 200, 'create bucket');

const jobs = [];
for (const rel of walkFiles(args.fixtures))
  jobs.push(['fixtures/' + rel, () => fs.readFileSync(path.join(args.fixtures,
                                                               rel))]);
for (let i = 0; i < PAGING_COUNT; i++) {
  const name = 'obj-' + String(i).padStart(4, '0');
  jobs.push(['paging/' + name, () => Buffer.from(name + '\n')]);
}
jobs.push(['paging/sub/nested', () => Buffer.from('nested\n')]);
jobs.push(['paging/', () => Buffer.alloc(0)]);
for (const k of SPECIAL_KEYS) jobs.push([k, () => Buffer.from(k + '\n')]);
await pool(jobs, 8, ([key, body]) => putObject(key, body()));

// The proxy must refuse what a broken client would send.
const probe = `/${args.bucket}/${encodeKey('fixtures/simple_table/_delta_log/00000000000000000000.json')}`;
await must(signed('GET', probe), 200, 'self-check: good signature');
let r = await must(signed('GET', probe, undefined,
                          { creds: { secretAccessKey: 'not-the-secret' } }),
                   403, 'self-check: wrong secret');
if (!r.body.includes('<Code>SignatureDoesNotMatch</Code>'))
  die('self-check: wrong secret not reported as SignatureDoesNotMatch');
await must({ method: 'GET', path: probe }, 403, 'self-check: unsigned');
const tampered = signed('GET', probe);
tampered.path = probe.replace('00000000000000000000', '00000000000000000001');
await must(tampered, 403, 'self-check: path changed after signing');
const unsignedToken = signed('GET', probe);
unsignedToken.headers['x-amz-security-token'] = args['session-token'];
await must(unsignedToken, 403, 'self-check: unsigned session token');
await must(signed('GET', probe, undefined,
                  { creds: { sessionToken: args['session-token'] } }),
           200, 'self-check: signed session token');
await must(signed('GET', probe, undefined,
                  { creds: { sessionToken: 'some-other-token' } }),
           400, 'self-check: wrong session token');

// An AssumeRole signed by aws4, the other implementation of SigV4.
const sts = new URL(args['sts-endpoint']);
function assumeRole(params, opts = {}) {
  const body = new URLSearchParams({
    Action: 'AssumeRole', Version: '2011-06-15', RoleArn: args['sts-role'],
    RoleSessionName: 'upload-self-check', ExternalId: args['sts-external-id'],
    ...params }).toString();
  const r = aws4.sign({ method: 'POST', host: sts.host, path: '/',
                        service: 'sts', region: args.region, body },
                      { ...creds, ...(opts.creds || {}) });
  return send({ method: 'POST', path: '/', body, headers: r.headers,
                to: sts });
}

async function mustSts(params, status, code, what, opts) {
  const res = await assumeRole(params, opts);
  if (res.status !== status || !res.body.includes(code))
    die(`${what}: expected HTTP ${status} ${code}, got ${res.status}: `
        + res.body);
  return res.body;
}

const tag = (xml, name) =>
  (new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml) || [])[1];
const policy = JSON.stringify({ Version: '2012-10-17', Statement: [
  { Effect: 'Allow', Action: 's3:GetO*',
    Resource: `arn:aws:s3:::${args.bucket}/fixtures/simple_table/*` }] });
const granted = await mustSts({ Policy: policy, DurationSeconds: '900' },
                              200, '<Credentials>', 'self-check: AssumeRole');
const vended = { accessKeyId: tag(granted, 'AccessKeyId'),
                 secretAccessKey: tag(granted, 'SecretAccessKey'),
                 sessionToken: tag(granted, 'SessionToken') };
await mustSts({}, 403, '<Code>SignatureDoesNotMatch</Code>',
              'self-check: STS, wrong secret',
              { creds: { secretAccessKey: 'not-the-secret' } });
// With --sts-any-external-id 1 the stand-in takes any external id but
// still demands one.
if (args['sts-any-external-id'] !== '1')
  await mustSts({ ExternalId: 'other' }, 403, '<Code>AccessDenied</Code>',
                'self-check: STS, wrong external id');
await mustSts({ ExternalId: '' }, 403, '<Code>AccessDenied</Code>',
              'self-check: STS, no external id');
await mustSts({ DurationSeconds: '899' }, 400, '<Code>ValidationError</Code>',
              'self-check: STS, short duration');
await mustSts({ Policy: '{' }, 400, '<Code>ValidationError</Code>',
              'self-check: STS, policy not JSON');
await must(signed('GET', probe, undefined, { creds: vended }), 200,
           'self-check: vended keys within their policy');
await must(signed('GET', `/${args.bucket}/paging/obj-0000`, undefined,
                  { creds: vended }),
           403, 'self-check: vended keys outside their policy');
await must(signed('GET', probe, undefined,
                  { creds: { ...vended, sessionToken: undefined } }),
           400, 'self-check: vended keys without their token');
agent.destroy();
process.stdout.write(`uploaded ${jobs.length} objects; proxy and STS `
                     + 'self-check ok\n');
