// SPDX-License-Identifier: Apache-2.0
// A reverse proxy in front of s3rver that checks every request's AWS
// Signature Version 4 on its own, with the aws4 package and the known test
// credentials: s3rver's own V4 support is incomplete, and the point is a
// second implementation that disagrees with the client when the client is
// wrong. Both kinds of signature are checked: an Authorization header, and
// the X-Amz-* query parameters of a pre-signed URL (which must also be
// within its X-Amz-Expires). Rejected requests get an S3-style XML error
// (403 like S3); accepted ones are forwarded without their Authorization
// header or X-Amz-* query parameters.
//
// With --sts-ready it also runs the STS stand-in of sts.mjs on a port of
// its own: the temporary credentials it vends are accepted here too, with
// their session token (required, and only until they expire), and every
// request signed with them must be allowed by their session policy, or it
// is refused with AccessDenied like any other bad request.
//
// With --r2-ready it runs the stand-in for Cloudflare's R2 temporary
// credentials of r2.mjs as well, on a port of its own, for the bucket
// --r2-bucket: the keys it vends are accepted the same way, within the
// prefixes and the permission they were asked for (the base key stands for
// their parent R2 key).
//
//   node sigv4-proxy.mjs --upstream http://127.0.0.1:PORT --key ID
//        --secret SECRET --region REGION --log FILE --ready FILE
//        [--session-token TOKEN] [--port N]
//        [--sts-ready FILE --sts-role ARN --sts-external-id ID
//         --sts-log FILE [--sts-port N]]
//        [--r2-ready FILE --r2-token TOKEN --r2-account ID --r2-bucket B
//         --r2-log FILE [--r2-port N]]
//
// The log has one line per request, written before the answer is sent:
//   VERDICT METHOD STYLE HOST URL TOKEN
// VERDICT is "verified" or "rejected:<S3 error code>", STYLE "path" or
// "vhost" (bucket in the host name), TOKEN "token:none", "token:signed" or
// "token:unsigned" (an x-amz-security-token header missing from
// SignedHeaders) or "token:query" (in the signed query of a pre-signed
// URL). A client that takes the proxy for an HTTP proxy (the
// tests point https_proxy here to see which AWS host a store would
// contact) is logged as "tunnel CONNECT - HOST:PORT - token:none" and
// refused.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { parseArgs, die, nodeRequire, errorXml } from './lib.mjs';
import { sessions, policyAllows, s3Access, startSts } from './sts.mjs';
import { startR2 } from './r2.mjs';

const args = parseArgs({ port: '0', 'session-token': '', 'sts-ready': '',
                         'sts-port': '0', 'r2-ready': '', 'r2-port': '0' });
for (const k of ['upstream', 'key', 'secret', 'region', 'log', 'ready'])
  if (!args[k]) die(`--${k} is required`);
const aws4 = nodeRequire()('aws4');
const upstream = new URL(args.upstream);
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
const logFd = fs.openSync(args.log, 'a');
const MAX_SKEW_MS = 15 * 60 * 1000;
const sha256 = buf => crypto.createHash('sha256').update(buf).digest('hex');

class Reject extends Error {
  constructor(code, message, status = 403) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

// The signed headers must all be present; aws4 is handed exactly those.
function signedHeaders(h, signed) {
  const headers = {};
  const include = {};
  for (const name of signed) {
    if (h[name] === undefined)
      throw new Reject('AccessDenied', `The signed header ${name} is absent.`);
    headers[name] = h[name];
    include[name] = true;
  }
  return { headers, include };
}

// The credentials of an access key id: the base ones, whose session token
// is optional, or temporary ones vended by the STS stand-in.
function credentialsOf(keyId) {
  if (keyId === args.key)
    return { secret: args.secret, token: args['session-token'] || null,
             session: null };
  const session = sessions.get(keyId);
  if (!session)
    throw new Reject('InvalidAccessKeyId', 'The access key id is unknown.');
  if (Date.now() >= session.expires)
    throw new Reject('ExpiredToken', 'The provided token has expired.', 400);
  return { secret: session.secret, token: session.token, session };
}

function checkToken(token, creds) {
  const sent = token !== null && token !== undefined;
  if ((sent && creds.token && token !== creds.token)
      || (!sent && creds.session))
    throw new Reject('InvalidToken', 'The session token is invalid.', 400);
}

// A vended credential may do only what its session policy allows.
function authorize(creds, method, path) {
  if (!creds.session || !creds.session.policy) return;
  const { action, resource, context } = s3Access(method, path);
  if (!policyAllows(creds.session.policy, action, resource, context))
    throw new Reject('AccessDenied', 'Access Denied');
}

// Throws a Reject unless the request carries a valid signature by known
// credentials over its method, path, query, signed headers and body;
// returns those credentials.
function verify(req, body) {
  const h = req.headers;
  const auth = h.authorization;
  if (!auth)
    throw new Reject('AccessDenied', 'Anonymous access is refused.');
  const m = /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
  if (!m)
    throw new Reject('AuthorizationHeaderMalformed',
                     'The authorization header is malformed.', 400);
  const [, keyId, date, region, service, signedList, signature] = m;
  const creds = credentialsOf(keyId);
  if (region !== args.region || service !== 's3')
    throw new Reject('AuthorizationHeaderMalformed',
                     `The credential scope must be ${args.region}/s3.`, 400);
  const amzDate = h['x-amz-date'] || '';
  const dm = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!dm || amzDate.slice(0, 8) !== date)
    throw new Reject('AccessDenied',
                     'x-amz-date is missing or does not match the scope.');
  const when = Date.UTC(+dm[1], +dm[2] - 1, +dm[3], +dm[4], +dm[5], +dm[6]);
  if (Math.abs(Date.now() - when) > MAX_SKEW_MS)
    throw new Reject('RequestTimeTooSkewed', 'The request time is skewed.');

  const signed = signedList.split(';');
  for (const name of ['host', 'x-amz-date', 'x-amz-content-sha256'])
    if (!signed.includes(name))
      throw new Reject('AccessDenied', `The header ${name} is not signed.`);
  for (const name of Object.keys(h))
    if (name.startsWith('x-amz-') && !signed.includes(name))
      throw new Reject('AccessDenied',
                       `The header ${name} is present but not signed.`);
  const { headers, include } = signedHeaders(h, signed);

  const payload = h['x-amz-content-sha256'];
  if (payload !== 'UNSIGNED-PAYLOAD' && payload !== sha256(body))
    throw new Reject('XAmzContentSHA256Mismatch',
                     'x-amz-content-sha256 does not match the body.', 400);
  checkToken(h['x-amz-security-token'], creds);

  // Recompute from exactly the signed headers, with the request's own date.
  const expected = aws4.sign({
    method: req.method,
    host: h.host,
    path: req.url,
    service: 's3',
    region: args.region,
    headers,
    extraHeadersToInclude: include,
  }, { accessKeyId: keyId, secretAccessKey: creds.secret });
  const em = /SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
    expected.headers.Authorization);
  if (!em || em[1] !== signedList
      || !crypto.timingSafeEqual(Buffer.from(em[2]), Buffer.from(signature)))
    throw new Reject('SignatureDoesNotMatch',
                     'The request signature we calculated does not match '
                     + 'the signature you provided.');
  return creds;
}

// The query parameters of a pre-signed URL's signature.
const QUERY_AUTH = ['X-Amz-Algorithm', 'X-Amz-Credential', 'X-Amz-Date',
                    'X-Amz-Expires', 'X-Amz-SignedHeaders',
                    'X-Amz-Security-Token', 'X-Amz-Signature'];

function splitUrl(url) {
  const i = url.indexOf('?');
  return i < 0 ? { path: url, query: [] }
    : { path: url.slice(0, i), query: url.slice(i + 1).split('&') };
}

function paramName(p) {
  const name = p.split('=')[0];
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}
const isPresigned = url =>
  splitUrl(url).query.some(p => paramName(p) === 'X-Amz-Signature');

// The URL without the signature's query parameters, the others as sent.
function withoutQueryAuth(url) {
  const { path, query } = splitUrl(url);
  const kept = query.filter(p => !QUERY_AUTH.includes(paramName(p)));
  return kept.length ? path + '?' + kept.join('&') : path;
}

// Like verify(), for the query-string signature of a pre-signed URL.
function verifyPresigned(req) {
  const h = req.headers;
  if (h.authorization)
    throw new Reject('InvalidArgument',
                     'Only one auth mechanism allowed.', 400);
  const q = new URL(req.url, 'http://proxy').searchParams;
  const malformed = what => new Reject('AuthorizationQueryParametersError',
                                       what, 400);
  if (q.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256')
    throw malformed('X-Amz-Algorithm must be AWS4-HMAC-SHA256.');
  const cm = /^([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request$/.exec(
    q.get('X-Amz-Credential') || '');
  if (!cm)
    throw malformed('X-Amz-Credential is malformed.');
  const [, keyId, date, region, service] = cm;
  const creds = credentialsOf(keyId);
  if (region !== args.region || service !== 's3')
    throw malformed(`The credential scope must be ${args.region}/s3.`);
  const amzDate = q.get('X-Amz-Date') || '';
  const dm = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!dm || amzDate.slice(0, 8) !== date)
    throw malformed('X-Amz-Date is missing or does not match the scope.');
  const expires = q.get('X-Amz-Expires') || '';
  if (!/^\d+$/.test(expires) || +expires < 1 || +expires > 604800)
    throw malformed('X-Amz-Expires must be 1 to 604800 seconds.');
  const when = Date.UTC(+dm[1], +dm[2] - 1, +dm[3], +dm[4], +dm[5], +dm[6]);
  if (when - Date.now() > MAX_SKEW_MS)
    throw new Reject('AccessDenied', 'Request is not yet valid.');
  if (Date.now() > when + 1000 * +expires)
    throw new Reject('AccessDenied', 'Request has expired.');
  const signedList = q.get('X-Amz-SignedHeaders') || '';
  const signed = signedList.split(';');
  if (!signed.includes('host'))
    throw new Reject('AccessDenied', 'The header host is not signed.');
  const { headers, include } = signedHeaders(h, signed);
  const token = q.get('X-Amz-Security-Token');
  checkToken(token, creds);

  // Recompute from the request's date and lifetime; aws4 adds the other
  // signature parameters itself.
  const rest = withoutQueryAuth(req.url);
  const expected = aws4.sign({
    method: req.method,
    host: h.host,
    path: rest + (rest.includes('?') ? '&' : '?')
      + `X-Amz-Date=${amzDate}&X-Amz-Expires=${expires}`,
    service: 's3',
    region: args.region,
    signQuery: true,
    headers,
    extraHeadersToInclude: include,
  }, { accessKeyId: keyId, secretAccessKey: creds.secret,
       ...(token !== null ? { sessionToken: token } : {}) });
  const eq = new URL(expected.path, 'http://proxy').searchParams;
  const signature = q.get('X-Amz-Signature') || '';
  if (eq.get('X-Amz-SignedHeaders') !== signedList
      || !/^[0-9a-f]{64}$/.test(signature)
      || !crypto.timingSafeEqual(Buffer.from(eq.get('X-Amz-Signature')),
                                 Buffer.from(signature)))
    throw new Reject('SignatureDoesNotMatch',
                     'The request signature we calculated does not match '
                     + 'the signature you provided.');
  return creds;
}

// Virtual-hosted requests name the bucket in front of ".localhost"; s3rver
// is asked path-style.
function upstreamPath(req) {
  const url = withoutQueryAuth(req.url);
  const host = (req.headers.host || '').replace(/:\d+$/, '');
  const vm = /^(.+)\.localhost$/.exec(host);
  if (!vm) return { style: 'path', path: url };
  const rest = url === '/' ? '' : url.startsWith('/?') ? url.slice(1) : url;
  return { style: 'vhost', path: '/' + vm[1] + rest };
}

function log(verdict, req, style) {
  const sm = /SignedHeaders=([a-z0-9;-]+)/.exec(req.headers.authorization || '');
  const token = isPresigned(req.url)
    && splitUrl(req.url).query.some(
      p => paramName(p) === 'X-Amz-Security-Token') ? 'token:query'
    : req.headers['x-amz-security-token'] === undefined ? 'token:none'
    : sm && sm[1].split(';').includes('x-amz-security-token') ? 'token:signed'
    : 'token:unsigned';
  fs.writeSync(logFd, [verdict, req.method, style, req.headers.host || '-',
                       req.url, token].join(' ') + '\n');
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', c => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const { style, path } = upstreamPath(req);
    try {
      const creds = isPresigned(req.url) ? verifyPresigned(req)
        : verify(req, body);
      authorize(creds, req.method, path);
    } catch (e) {
      if (!(e instanceof Reject)) throw e;
      log('rejected:' + e.code, req, style);
      const xml = errorXml(e.code, e.message);
      res.writeHead(e.status, { 'content-type': 'application/xml',
                                'content-length': Buffer.byteLength(xml) });
      res.end(req.method === 'HEAD' ? undefined : xml);
      return;
    }
    log('verified', req, style);
    const headers = { ...req.headers, host: upstream.host };
    delete headers.authorization;
    const up = http.request({
      host: upstream.hostname, port: upstream.port, method: req.method,
      path, headers, agent,
    }, upRes => {
      res.writeHead(upRes.statusCode, upRes.headers);
      upRes.pipe(res);
    });
    up.on('error', err => {
      const xml = errorXml('InternalError', 'upstream: ' + err.message);
      if (!res.headersSent)
        res.writeHead(502, { 'content-type': 'application/xml' });
      res.end(xml);
    });
    up.end(body);
  });
});
server.on('connect', (req, socket) => {
  fs.writeSync(logFd, `tunnel CONNECT - ${req.url} - token:none\n`);
  socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
});
server.keepAliveTimeout = 30000;
server.listen(Number(args.port), '127.0.0.1', () => {
  fs.writeFileSync(args.ready + '.tmp', String(server.address().port));
  fs.renameSync(args.ready + '.tmp', args.ready);
});
let sts = null;
if (args['sts-ready']) {
  for (const k of ['sts-role', 'sts-external-id', 'sts-log'])
    if (!args[k]) die(`--${k} is required with --sts-ready`);
  sts = startSts({
    aws4, role: args['sts-role'], externalId: args['sts-external-id'],
    base: { key: args.key, secret: args.secret,
            token: args['session-token'] || null },
    port: args['sts-port'], ready: args['sts-ready'], log: args['sts-log'],
  });
}
let r2 = null;
if (args['r2-ready']) {
  for (const k of ['r2-token', 'r2-account', 'r2-bucket', 'r2-log'])
    if (!args[k]) die(`--${k} is required with --r2-ready`);
  r2 = startR2({
    token: args['r2-token'], account: args['r2-account'],
    bucket: args['r2-bucket'], parentKey: args.key, port: args['r2-port'],
    ready: args['r2-ready'], log: args['r2-log'],
  });
}
const stop = () => {
  if (sts) sts.close(() => {});
  if (r2) r2.close(() => {});
  server.close(() => process.exit(0));
};
process.on('SIGTERM', () => { stop(); setTimeout(() => process.exit(0), 500); });
process.on('SIGINT', () => { stop(); setTimeout(() => process.exit(0), 500); });
