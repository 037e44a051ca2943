// SPDX-License-Identifier: Apache-2.0
// A stand-in for AWS STS's AssumeRole, run by sigv4-proxy.mjs on a port of
// its own, and the session policies of the credentials it vends, which the
// proxy enforces on every S3 request signed with them. Like the proxy, it
// recomputes each request's SigV4 signature with aws4 (service sts, the
// region of the request's scope) from the base credentials the harness
// knows, and answers refusals with STS-shaped XML errors.
//
// AssumeRole knows one role, which demands one external id. Durations are
// 900 to 43200 s (3600 when absent); a Policy must be JSON of at most 2048
// characters using what policyAllows() evaluates. Three session names make
// it misbehave on purpose, after the signature and role checks passed:
//   uc-hang            never answered (a client's timeout is tested)
//   uc-no-credentials  200 with Credentials lacking a SessionToken
//   uc-not-xml         200 with a body that is not XML
import crypto from 'node:crypto';
import fs from 'node:fs';
import { serveLoopback } from './lib.mjs';

const MAX_SKEW_MS = 15 * 60 * 1000;
const MAX_POLICY_CHARS = 2048;
const NS = 'https://sts.amazonaws.com/doc/2011-06-15/';
const sha256 = buf => crypto.createHash('sha256').update(buf).digest('hex');
const esc = s => String(s).replace(/[<>&"']/g, c => ({
  '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;',
})[c]);

class StsReject extends Error {
  constructor(code, message, status = 400) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

function errorResponse(e) {
  return `<ErrorResponse xmlns="${NS}"><Error><Type>Sender</Type>`
    + `<Code>${esc(e.code)}</Code><Message>${esc(e.message)}</Message>`
    + `</Error><RequestId>${crypto.randomUUID()}</RequestId></ErrorResponse>`;
}

// --- session policies ------------------------------------------------------

// An IAM pattern: '*' any run, '?' one character; in resources and
// condition values ${*}, ${?} and ${$} are the literal characters.
function patternRegExp(pattern, { ignoreCase = false, variables = false }) {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const lit = variables && /^\$\{[*?$]\}/.exec(pattern.slice(i));
    if (lit) {
      re += '\\' + lit[0][2];
      i += 3;
    } else if (pattern[i] === '*') re += '.*';
    else if (pattern[i] === '?') re += '.';
    else re += pattern[i].replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp('^' + re + '$', ignoreCase ? 'is' : 's');
}

const asList = v => (Array.isArray(v) ? v : [v]);
const CONDITIONS = {
  StringLike: (value, pattern) =>
    patternRegExp(pattern, { variables: true }).test(value),
  StringEquals: (value, expected) => value === expected,
};

// Throws a StsReject unless `text` is a policy policyAllows() can judge:
// the stand-in refuses what it cannot evaluate instead of guessing.
function parsePolicy(text) {
  const bad = why => new StsReject('ValidationError', why);
  if (text.length > MAX_POLICY_CHARS)
    throw bad(`Policy is longer than ${MAX_POLICY_CHARS} characters.`);
  let policy;
  try {
    policy = JSON.parse(text);
  } catch {
    throw bad('Policy is not valid JSON.');
  }
  if (!policy || typeof policy !== 'object' || !policy.Statement)
    throw bad('Policy has no Statement.');
  for (const s of asList(policy.Statement)) {
    if (!['Allow', 'Deny'].includes(s.Effect) || !s.Action || !s.Resource)
      throw bad('Each statement needs Effect, Action and Resource.');
    for (const op of Object.keys(s.Condition || {}))
      if (!CONDITIONS[op])
        throw bad(`Condition operator ${op} is not supported here.`);
  }
  return policy;
}

function conditionsHold(condition, context) {
  return Object.entries(condition || {}).every(([op, tests]) =>
    Object.entries(tests).every(([key, wanted]) =>
      context[key] !== undefined
      && asList(wanted).some(w => CONDITIONS[op](context[key], w))));
}

function statementMatches(s, action, resource, context) {
  return asList(s.Action).some(
    a => patternRegExp(a, { ignoreCase: true }).test(action))
    && asList(s.Resource).some(
      r => patternRegExp(r, { variables: true }).test(resource))
    && conditionsHold(s.Condition, context);
}

// IAM's rule: an explicit Deny wins, else some Allow must match.
export function policyAllows(policy, action, resource, context = {}) {
  const matching = asList(policy.Statement).filter(
    s => statementMatches(s, action, resource, context));
  return matching.some(s => s.Effect === 'Allow')
    && !matching.some(s => s.Effect === 'Deny');
}

// The IAM action, resource and condition keys of an S3 request in path
// style ("/bucket/key?query", the key still percent-encoded).
export function s3Access(method, path) {
  const url = new URL(path, 'http://s3');
  const q = url.searchParams;
  const [, bucket = '', ...rest] = url.pathname.split('/');
  const key = decodeURIComponent(rest.join('/'));
  if (!bucket)
    return { action: 's3:ListAllMyBuckets', resource: '*', context: {} };
  if (!key) {
    const context = q.has('prefix') ? { 's3:prefix': q.get('prefix') } : {};
    const action = q.has('location') ? 's3:GetBucketLocation'
      : method === 'GET' || method === 'HEAD' ? 's3:ListBucket'
      : method === 'PUT' ? 's3:CreateBucket'
      : method === 'DELETE' ? 's3:DeleteBucket' : 's3:Unsupported';
    return { action, resource: `arn:aws:s3:::${bucket}`, context };
  }
  const action = method === 'GET' || method === 'HEAD'
    ? (q.has('uploadId') ? 's3:ListMultipartUploadParts' : 's3:GetObject')
    : method === 'PUT' || method === 'POST' ? 's3:PutObject'
    : method === 'DELETE'
      ? (q.has('uploadId') ? 's3:AbortMultipartUpload' : 's3:DeleteObject')
      : 's3:Unsupported';
  return { action, resource: `arn:aws:s3:::${bucket}/${key}`, context: {} };
}

// --- AssumeRole ------------------------------------------------------------

// Random text of `n` characters from `alphabet`.
function randomText(n, alphabet) {
  const bytes = crypto.randomBytes(n);
  return Array.from(bytes, b => alphabet[b % alphabet.length]).join('');
}
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

// Key id, date, region, service, signed headers, signature.
const AUTHORIZATION = new RegExp(
  '^AWS4-HMAC-SHA256 Credential=([^/,\\s]+)/(\\d{8})/([a-z0-9-]+)/'
  + '([^/,\\s]+)/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?'
  + 'Signature=([0-9a-f]{64})$');

// Throws a StsReject unless the request is signed by the base credentials
// (and their session token, when one is sent) over its method, path,
// signed headers and body.
function verify(req, body, aws4, base) {
  const h = req.headers;
  const m = AUTHORIZATION.exec(h.authorization || '');
  if (!m)
    throw new StsReject('MissingAuthenticationToken',
                        'Request is missing a valid Authentication Token.',
                        403);
  const [, keyId, date, region, service, signedList, signature] = m;
  if (keyId !== base.key)
    throw new StsReject('InvalidClientTokenId',
                        'The security token included in the request is '
                        + 'invalid.', 403);
  if (service !== 'sts')
    throw new StsReject('SignatureDoesNotMatch',
                        'Credential should be scoped to correct service: '
                        + "'sts'.", 403);
  const amzDate = h['x-amz-date'] || '';
  const dm = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!dm || amzDate.slice(0, 8) !== date)
    throw new StsReject('IncompleteSignature',
                        'X-Amz-Date is missing or does not match the '
                        + 'credential scope.', 403);
  const when = Date.UTC(+dm[1], +dm[2] - 1, +dm[3], +dm[4], +dm[5], +dm[6]);
  if (Math.abs(Date.now() - when) > MAX_SKEW_MS)
    throw new StsReject('SignatureDoesNotMatch',
                        'Signature expired: the request time is skewed.',
                        403);
  const signed = signedList.split(';');
  for (const name of ['host', 'x-amz-date'])
    if (!signed.includes(name))
      throw new StsReject('IncompleteSignature',
                          `The header ${name} is not signed.`, 403);
  for (const name of Object.keys(h))
    if (name.startsWith('x-amz-') && !signed.includes(name))
      throw new StsReject('IncompleteSignature',
                          `The header ${name} is present but not signed.`,
                          403);
  const token = h['x-amz-security-token'];
  if (token !== undefined && token !== base.token)
    throw new StsReject('InvalidClientTokenId',
                        'The security token included in the request is '
                        + 'invalid.', 403);
  if (h['x-amz-content-sha256'] !== undefined
      && h['x-amz-content-sha256'] !== sha256(body))
    throw new StsReject('SignatureDoesNotMatch',
                        'x-amz-content-sha256 does not match the body.', 403);

  // aws4 signs exactly the signed headers: it would add a content type of
  // its own, so one that was not signed is kept out.
  const headers = {};
  const include = {};
  for (const name of signed) {
    if (h[name] === undefined)
      throw new StsReject('IncompleteSignature',
                          `The signed header ${name} is absent.`, 403);
    headers[name] = h[name];
    include[name] = true;
  }
  const ignore = {};
  for (const name of ['content-type', 'content-length'])
    if (!signed.includes(name)) ignore[name] = true;
  const expected = aws4.sign({
    method: req.method, host: h.host, path: req.url, service: 'sts', region,
    headers, body, extraHeadersToInclude: include,
    extraHeadersToIgnore: ignore,
  }, { accessKeyId: base.key, secretAccessKey: base.secret });
  const em = /SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
    expected.headers.Authorization);
  if (!em || em[1] !== signedList
      || !crypto.timingSafeEqual(Buffer.from(em[2]), Buffer.from(signature)))
    throw new StsReject('SignatureDoesNotMatch',
                        'The request signature we calculated does not match '
                        + 'the signature you provided. Check your AWS Secret '
                        + 'Access Key and signing method.', 403);
}

function durationOf(text) {
  if (text === null) return 3600;
  if (!/^\d{1,6}$/.test(text) || +text < 900 || +text > 43200)
    throw new StsReject('ValidationError',
                        "1 validation error detected: Value at "
                        + "'durationSeconds' failed to satisfy constraint: "
                        + 'Member must have value between 900 and 43200');
  return +text;
}

// Checks the parameters of an AssumeRole; returns what to vend. The role
// trusts the external ids in `trusted`.
function readAssumeRole(form, role, trusted) {
  if (form.get('Action') !== 'AssumeRole'
      || form.get('Version') !== '2011-06-15')
    throw new StsReject('InvalidAction',
                        'Only AssumeRole of version 2011-06-15 is served.');
  const name = form.get('RoleSessionName') || '';
  if (!/^[\w+=,.@-]{2,64}$/.test(name))
    throw new StsReject('ValidationError',
                        "Value at 'roleSessionName' failed to satisfy "
                        + 'constraint.');
  const duration = durationOf(form.get('DurationSeconds'));
  const policyText = form.get('Policy');
  const policy = policyText === null ? null : parsePolicy(policyText);
  if (form.get('RoleArn') !== role || !trusted.has(form.get('ExternalId')))
    throw new StsReject('AccessDenied',
                        'User: arn:aws:iam::123456789012:user/unicat-base '
                        + 'is not authorized to perform: sts:AssumeRole on '
                        + `resource: ${form.get('RoleArn')}`, 403);
  return { name, duration, policy };
}

function assumeRoleResponse(creds, role, name, withToken) {
  const [, account, roleName] = /^arn:aws:iam::(\d+):role\/(?:.*\/)?([^/]+)$/
    .exec(role);
  return `<AssumeRoleResponse xmlns="${NS}"><AssumeRoleResult>`
    + '<AssumedRoleUser>'
    + `<AssumedRoleId>AROAUNICATTEST:${esc(name)}</AssumedRoleId>`
    + `<Arn>arn:aws:sts::${account}:assumed-role/${esc(roleName)}/`
    + `${esc(name)}</Arn></AssumedRoleUser><Credentials>`
    + `<AccessKeyId>${creds.key}</AccessKeyId>`
    + `<SecretAccessKey>${esc(creds.secret)}</SecretAccessKey>`
    + (withToken ? `<SessionToken>${esc(creds.token)}</SessionToken>` : '')
    + `<Expiration>${new Date(creds.expires).toISOString()}</Expiration>`
    + '</Credentials><PackedPolicySize>7</PackedPolicySize>'
    + '</AssumeRoleResult><ResponseMetadata>'
    + `<RequestId>${crypto.randomUUID()}</RequestId>`
    + '</ResponseMetadata></AssumeRoleResponse>';
}

// Credentials vended, by access key id: { secret, token, policy, expires }.
export const sessions = new Map();

// New temporary credentials living `seconds`, registered for the proxy to
// accept within `policy` (null: anything the base identity may do).
export function vendSession(seconds, policy) {
  const creds = {
    key: 'ASIA' + randomText(16, UPPER),
    secret: randomText(40, B64),
    token: 'IQoJb3JpZ2luX2VjE' + randomText(300, B64) + '==',
    expires: Date.now() + 1000 * seconds,
  };
  sessions.set(creds.key, { ...creds, policy });
  return creds;
}

// Serves AssumeRole on 127.0.0.1:`port` (0: any free one) and writes the
// port to `ready`. One log line per request: VERDICT SESSION-NAME.
export function startSts({ aws4, base, role, externalId, port, ready,
                           log }) {
  const logFd = fs.openSync(log, 'a');
  const trusted = new Set([externalId]);
  const answer = (res, status, xml) => {
    res.writeHead(status, { 'content-type': 'text/xml',
                            'content-length': Buffer.byteLength(xml) });
    res.end(xml);
  };
  const handle = (req, res, body, hold) => {
    const form = new URLSearchParams(body.toString());
    const name = form.get('RoleSessionName') || '-';
    try {
      if (req.method !== 'POST' || req.url !== '/')
        throw new StsReject('InvalidAction', 'Send POST / with a form.');
      verify(req, body, aws4, base);
      // What an administrator does in IAM once a credential shows its
      // external_id: the role's trust policy names it too (a test action,
      // signed with the base keys like every call).
      if (form.get('Action') === 'TrustExternalId'
          && form.get('RoleArn') === role && form.get('ExternalId')) {
        trusted.add(form.get('ExternalId'));
        fs.writeSync(logFd, `trusted ${form.get('ExternalId')}\n`);
        return answer(res, 200, '<TrustExternalIdResponse/>');
      }
      const call = readAssumeRole(form, role, trusted);
      fs.writeSync(logFd, `verified ${name}\n`);
      if (call.name === 'uc-hang')
        return hold(res);
      if (call.name === 'uc-not-xml')
        return answer(res, 200, 'Credentials: none today\n');
      const creds = vendSession(call.duration, call.policy);
      answer(res, 200, assumeRoleResponse(creds, role, call.name,
                                          call.name !== 'uc-no-credentials'));
    } catch (e) {
      if (!(e instanceof StsReject)) throw e;
      fs.writeSync(logFd, `rejected:${e.code} ${name}\n`);
      answer(res, e.status, errorResponse(e));
    }
  };
  return serveLoopback(port, ready, handle);
}
