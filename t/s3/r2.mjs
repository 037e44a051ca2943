// SPDX-License-Identifier: Apache-2.0
// A stand-in for Cloudflare's R2 temp-access-credentials call, run by
// sigv4-proxy.mjs on a port of its own:
//   POST /client/v4/accounts/ACCOUNT/r2/temp-access-credentials
//   Authorization: Bearer TOKEN
//   {"bucket", "parentAccessKeyId", "permission", "ttlSeconds",
//    "prefixes"?, "objects"?}
// The proxy's base access key stands for the parent R2 key. The keys
// vended are registered with the proxy like the STS stand-in's (sts.mjs),
// with the session policy that stands for what Cloudflare grants: reading
// and listing the objects under the prefixes (or the objects named; the
// whole bucket without either), and with "object-read-write" writing and
// deleting them too. The proxy enforces it on every S3 request.
//
// Answers are Cloudflare's envelope, {"success", "errors", "messages",
// "result"}. Refusals, with their HTTP status and error code:
//   403 10000  a missing or wrong bearer token, or another account
//   404 7003   another method or path
//   400 10005  a bucket name R2 would refuse
//   404 10006  a bucket other than the harness's
//   403 10003  a parentAccessKeyId other than the base key
//   400 10001  any other bad body: not JSON, a permission other than the
//              two object ones (the admin ones are not modelled), a
//              ttlSeconds not an integer of 1 to 604800 (Cloudflare's
//              maximum), prefixes or objects not arrays of strings
// (10000, 10003, 10005, 10006 and 7003 are Cloudflare's codes for those
// cases; 10001 is this stand-in's own.) Three buckets make it misbehave
// on purpose, once the token check passed:
//   hang-bucket            never answered (a client's timeout is tested)
//   no-credentials-bucket  200 with a result lacking its sessionToken
//   not-json-bucket        200 with a body that is not JSON
import fs from 'node:fs';
import { serveLoopback } from './lib.mjs';
import { vendSession } from './sts.mjs';

const MAX_TTL_S = 604800;
const MISBEHAVING = ['hang-bucket', 'no-credentials-bucket',
                     'not-json-bucket'];
const ROUTE = /^\/client\/v4\/accounts\/[^/]+\/r2\/temp-access-credentials$/;
const PERMISSIONS = ['object-read-only', 'object-read-write'];
const READ = ['s3:GetObject'];
const WRITE = ['s3:GetObject', 's3:PutObject', 's3:DeleteObject',
               's3:*Multipart*'];

class CfReject extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}
const badBody = why => new CfReject(400, 10001, why);

// IAM's wildcard characters as the policy variables that stand for them
// literally: R2 prefixes are plain text.
const iamLiteral = s => s.replace(/[*?$]/g, c => '${' + c + '}');

// The session policy of a grant. Listing is allowed within the prefixes
// only: objects named one by one allow none.
function grantPolicy(bucket, prefixes, objects, write) {
  const arn = `arn:aws:s3:::${bucket}`;
  const whole = !prefixes.length && !objects.length;
  const list = { Effect: 'Allow', Action: 's3:ListBucket', Resource: arn };
  if (!whole)
    list.Condition = { StringLike: {
      's3:prefix': prefixes.map(p => iamLiteral(p) + '*') } };
  const resources = whole ? [`${arn}/*`]
    : prefixes.map(p => `${arn}/${iamLiteral(p)}*`)
      .concat(objects.map(o => `${arn}/${iamLiteral(o)}`));
  return { Version: '2012-10-17', Statement: [
    { Effect: 'Allow', Action: write ? WRITE : READ, Resource: resources },
    list,
  ] };
}

const strings = (v, name) => {
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every(s => typeof s === 'string' && s))
    throw badBody(`${name} must be an array of non-empty strings.`);
  return v;
};

function parseJson(body) {
  try {
    return JSON.parse(body.toString());
  } catch {
    return undefined;
  }
}

// The checked body `b` (parsed): what to vend, or a CfReject.
function readBody(b, bucket, parentKey) {
  if (!b || typeof b !== 'object')
    throw badBody('The body is not a JSON object.');
  if (typeof b.bucket !== 'string'
      || !/^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/.test(b.bucket))
    throw new CfReject(400, 10005, 'The specified bucket name is not '
                       + 'valid.');
  if (MISBEHAVING.includes(b.bucket))
    return { misbehave: b.bucket };
  if (b.bucket !== bucket)
    throw new CfReject(404, 10006, 'The specified bucket does not exist.');
  if (b.parentAccessKeyId !== parentKey)
    throw new CfReject(403, 10003, 'The parent access key is not valid '
                       + 'for this bucket.');
  if (!PERMISSIONS.includes(b.permission))
    throw badBody(`permission must be one of ${PERMISSIONS.join(', ')}.`);
  if (!Number.isInteger(b.ttlSeconds) || b.ttlSeconds < 1
      || b.ttlSeconds > MAX_TTL_S)
    throw badBody(`ttlSeconds must be an integer of 1 to ${MAX_TTL_S}.`);
  const prefixes = strings(b.prefixes, 'prefixes');
  const objects = strings(b.objects, 'objects');
  return { ttl: b.ttlSeconds, policy: grantPolicy(
    bucket, prefixes, objects, b.permission === 'object-read-write') };
}

const envelope = (result, errors) => JSON.stringify({
  success: !errors.length, errors, messages: [], result,
});

// Serves the call on 127.0.0.1:`port` (0: any free one) and writes the
// port to `ready`. One log line per request: VERDICT BUCKET, VERDICT
// "verified" or "rejected:<code>".
export function startR2({ token, account, bucket, parentKey, port, ready,
                          log }) {
  const logFd = fs.openSync(log, 'a');
  const path = `/client/v4/accounts/${account}/r2/temp-access-credentials`;
  const answer = (res, status, json) => {
    res.writeHead(status, { 'content-type': 'application/json',
                            'content-length': Buffer.byteLength(json) });
    res.end(json);
  };
  const handle = (req, res, body, hold) => {
    const b = parseJson(body);
    const name = (b && typeof b.bucket === 'string' && b.bucket) || '-';
    try {
      if (req.method !== 'POST' || !ROUTE.test(req.url))
        throw new CfReject(404, 7003, 'No route for that URI.');
      // A token is valid for its own account only.
      if (req.headers.authorization !== `Bearer ${token}`
          || req.url !== path)
        throw new CfReject(403, 10000, 'Authentication error');
      const call = readBody(b, bucket, parentKey);
      fs.writeSync(logFd, `verified ${name}\n`);
      if (call.misbehave === 'hang-bucket')
        return hold(res);
      if (call.misbehave === 'not-json-bucket')
        return answer(res, 200, 'Credentials: none today\n');
      const creds = call.misbehave ? { key: 'none', secret: 'none' }
        : vendSession(call.ttl, call.policy);
      answer(res, 200, envelope({ accessKeyId: creds.key,
                                  secretAccessKey: creds.secret,
                                  sessionToken: creds.token }, []));
    } catch (e) {
      if (!(e instanceof CfReject)) throw e;
      fs.writeSync(logFd, `rejected:${e.code} ${name}\n`);
      answer(res, e.status, envelope(null, [{ code: e.code,
                                              message: e.message }]));
    }
  };
  return serveLoopback(port, ready, handle);
}
