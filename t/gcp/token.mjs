// SPDX-License-Identifier: Apache-2.0
// A stand-in for Google's OAuth token endpoint and its STS, for the unit
// tests (we cannot reach Google): it checks what Google checks of a JWT
// bearer grant and of a Credential Access Boundary, and says whether a
// downscoped token would be let read, write or list a GCS name.
//
//   POST /token     grant_type=...jwt-bearer&assertion=JWT: verifies the
//                   RS256 signature with the account's public key, the
//                   header (alg, typ, kid) and claims (iss, aud = this URL,
//                   iat within 5 min of now, exp - iat <= 3600, scope); a
//                   token, or 400 {"error":"invalid_grant"}. The scope
//                   "hang" is never answered.
//   POST /v1/token  the token exchange with options={"accessBoundary":...}:
//                   a token limited to the boundary, or 400. It has the
//                   source's expiry and says none, unless the URL's query
//                   asks for ?expires_in=N.
//   GET /check?token=T&bucket=B&name=N&action=read|write|list
//                   200 when T may do that to object N (list: with prefix
//                   N), 403 when not, 401 for a token it did not make.
//
//
// And for Cloud Storage, the buckets under GCS_ROOT (a directory whose
// subdirectories, or links to directories, are buckets, read-only):
//   GET /storage/v1/b/B/o?prefix=P&delimiter=/&pageToken=T   the JSON API's
//                   listing, GCS_PAGE (default 7) names a page, for a
//                   token of this stand-in that may list P;
//   GET /storage/v1/b/B/o/NAME?alt=media   an object (Range: 206), for a
//                   token that may read it;
//   GET /B/NAME?X-Goog-Algorithm=...   a V4 signed URL (GOOG4-RSA-SHA256,
//                   SignedHeaders host), its signature checked with the
//                   account's public key: the object, or 403
//                   SignatureDoesNotMatch / ExpiredToken as Google says.
//
// Usage: node token.mjs PUBLIC_OR_PRIVATE_KEY.pem CLIENT_EMAIL KEY_ID
//        [GCS_ROOT]
// Prints "listening PORT" once it listens on a free loopback port.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const [keyFile, email, kid, gcsRoot] = process.argv.slice(2);
const GCS_PAGE = Number(process.env.GCS_PAGE || 7);
if (!kid) {
    console.error('usage: node token.mjs KEY.pem CLIENT_EMAIL KEY_ID');
    process.exit(2);
}
const publicKey = crypto.createPublicKey(fs.readFileSync(keyFile));
const SKEW = 300;
const LIFETIME = 3600;
const WRITE_SCOPES = [
    'https://www.googleapis.com/auth/devstorage.read_write',
    'https://www.googleapis.com/auth/devstorage.full_control',
    'https://www.googleapis.com/auth/cloud-platform',
];
const ROLES = {
    'inRole:roles/storage.objectViewer': ['read', 'list'],
    'inRole:roles/storage.objectAdmin': ['read', 'list', 'write'],
};
const tokens = new Map();   // token -> { scope, expires, rules? }
let tokenUrl;

class Refusal extends Error {
    constructor(status, error, description) {
        super(description);
        this.status = status;
        this.error = error;
    }
}

const refuse = (error, description) => {
    throw new Refusal(400, error, description);
};
const now = () => Math.floor(Date.now() / 1000);

// Strict base64url: the alphabet, no padding, nothing Buffer would skip.
function unbase64url(text, what) {
    const bytes = Buffer.from(text, 'base64url');
    if (!/^[A-Za-z0-9_-]*$/.test(text) || bytes.toString('base64url') !== text)
        refuse('invalid_grant', `${what} is not base64url`);
    return bytes;
}

function jsonPart(text, what) {
    try {
        const value = JSON.parse(unbase64url(text, what).toString('utf8'));
        if (value && typeof value === 'object' && !Array.isArray(value))
            return value;
    } catch (e) {
        if (e instanceof Refusal)
            throw e;
    }
    return refuse('invalid_grant', `${what} is not a JSON object`);
}

function checkAssertion(jwt) {
    const parts = (jwt || '').split('.');
    if (parts.length !== 3)
        refuse('invalid_grant', 'not a JWT');
    const header = jsonPart(parts[0], 'the header');
    const claims = jsonPart(parts[1], 'the claims');
    const signature = unbase64url(parts[2], 'the signature');
    if (!crypto.verify('sha256', Buffer.from(`${parts[0]}.${parts[1]}`),
                       publicKey, signature))
        refuse('invalid_grant', 'Invalid JWT Signature.');
    if (header.alg !== 'RS256' || header.typ !== 'JWT' || header.kid !== kid)
        refuse('invalid_grant', 'unexpected JWT header');
    if (claims.iss !== email)
        refuse('invalid_grant', 'unknown issuer');
    if (claims.aud !== tokenUrl)
        refuse('invalid_grant', 'Invalid JWT: wrong audience');
    const { iat, exp } = claims;
    if (!Number.isInteger(iat) || !Number.isInteger(exp) ||
        Math.abs(iat - now()) > SKEW || exp <= iat || exp - iat > LIFETIME ||
        exp <= now())
        refuse('invalid_grant', 'Invalid JWT: Token must be a short-lived ' +
               'token and in a reasonable timeframe.');
    if (typeof claims.scope !== 'string' || !claims.scope)
        refuse('invalid_scope', 'no scope');
    return claims;
}

function issue(entry) {
    const token = `ya29.${crypto.randomBytes(24).toString('base64url')}`;
    tokens.set(token, entry);
    return token;
}

// The CEL string literal at text[i] (single or double quoted, with CEL's
// escapes): its value and where it ends. An unescaped quote ends it.
function celString(text, i) {
    const quote = text[i];
    const escapes = { '\\': '\\', "'": "'", '"': '"', n: '\n', t: '\t',
                      r: '\r', '`': '`', '?': '?' };
    let value = '';
    if (quote !== "'" && quote !== '"')
        return null;
    for (i++; i < text.length; i++) {
        const c = text[i];
        if (c === quote)
            return { value, end: i + 1 };
        if (c === '\\') {
            const e = escapes[text[++i]];
            if (e === undefined)
                return null;
            value += e;
        } else {
            value += c;
        }
    }
    return null;
}

const NAME = 'resource.name.startsWith(';
const LIST_ATTR = "api.getAttribute(" +
    "'storage.googleapis.com/objectListPrefix', '').startsWith(";

// The expressions the boundary may hold: startsWith tests of the resource
// name or of the list prefix, joined by ||. A list of { on, prefix }, or
// null for anything else.
function parseCondition(expression) {
    const terms = [];
    let i = 0;
    const text = expression.trim();
    for (;;) {
        let on;
        if (text.startsWith(NAME, i)) {
            on = 'name';
            i += NAME.length;
        } else if (text.startsWith(LIST_ATTR, i)) {
            on = 'listPrefix';
            i += LIST_ATTR.length;
        } else {
            return null;
        }
        const literal = celString(text, i);
        if (!literal || text[literal.end] !== ')')
            return null;
        terms.push({ on, prefix: literal.value });
        i = literal.end + 1;
        while (text[i] === ' ')
            i++;
        if (i === text.length)
            return terms;
        if (!text.startsWith('||', i))
            return null;
        i += 2;
        while (text[i] === ' ')
            i++;
    }
}

const RESOURCE = new RegExp(
    '^//storage\\.googleapis\\.com/projects/_/buckets/' +
    '([a-z0-9][a-z0-9._-]{1,220}[a-z0-9])$');

function parseBoundary(text) {
    let options;
    try {
        options = JSON.parse(text || '');
    } catch {
        refuse('invalid_request', 'options is not JSON');
    }
    const rules = options?.accessBoundary?.accessBoundaryRules;
    if (!Array.isArray(rules) || rules.length < 1 || rules.length > 10 ||
        Object.keys(options).length !== 1)
        refuse('invalid_request', 'no accessBoundaryRules');
    return rules.map((rule) => {
        const match = RESOURCE.exec(rule?.availableResource || '');
        const permissions = rule?.availablePermissions;
        if (!match)
            refuse('invalid_request', 'bad availableResource');
        if (!Array.isArray(permissions) || permissions.length < 1 ||
            !permissions.every((p) => ROLES[p]))
            refuse('invalid_request', 'bad availablePermissions');
        let terms = null;
        if (rule.availabilityCondition !== undefined) {
            const expression = rule.availabilityCondition?.expression;
            terms = typeof expression === 'string'
                ? parseCondition(expression) : null;
            if (!terms)
                refuse('invalid_request', 'bad availabilityCondition');
        }
        return { bucket: match[1], permissions, terms };
    });
}

function checkExchange(form) {
    const type = 'urn:ietf:params:oauth:token-type:access_token';
    if (form.get('grant_type') !==
            'urn:ietf:params:oauth:grant-type:token-exchange' ||
        form.get('subject_token_type') !== type ||
        form.get('requested_token_type') !== type)
        refuse('invalid_request', 'not a token exchange');
    const source = tokens.get(form.get('subject_token'));
    if (!source || source.rules || source.expires <= now())
        refuse('invalid_grant', 'unknown subject token');
    const rules = parseBoundary(form.get('options'));
    return issue({ scope: source.scope, expires: source.expires, rules });
}

// Whether one rule lets `action` happen to `name` of `bucket`, as IAM
// evaluates a condition: an object's resource.name is its full name, a
// list's is the bucket's, with the list prefix an attribute.
function ruleAllows(rule, bucket, name, action) {
    if (rule.bucket !== bucket ||
        !rule.permissions.some((p) => ROLES[p].includes(action)))
        return false;
    if (!rule.terms)
        return true;
    const resource = action === 'list'
        ? `projects/_/buckets/${bucket}`
        : `projects/_/buckets/${bucket}/objects/${name}`;
    const listPrefix = action === 'list' ? name : '';
    return rule.terms.some((t) => (t.on === 'name' ? resource : listPrefix)
        .startsWith(t.prefix));
}

function check(query) {
    const entry = tokens.get(query.get('token'));
    const action = query.get('action');
    if (!entry || !entry.rules || entry.expires <= now())
        return 401;
    if (action === 'write' &&
        !entry.scope.split(' ').some((s) => WRITE_SCOPES.includes(s)))
        return 403;
    return entry.rules.some((r) => ruleAllows(r, query.get('bucket'),
                                              query.get('name') || '',
                                              action)) ? 200 : 403;
}

function answer(res, status, body) {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
}

function serveToken(form, res) {
    if (form.get('grant_type') !==
        'urn:ietf:params:oauth:grant-type:jwt-bearer')
        refuse('unsupported_grant_type', 'not a JWT bearer grant');
    const claims = checkAssertion(form.get('assertion'));
    if (claims.scope === 'hang')
        return;
    const token = issue({ scope: claims.scope, expires: now() + 3599 });
    answer(res, 200, { access_token: token, expires_in: 3599,
                       token_type: 'Bearer' });
}

// Google's STS gives the downscoped token the source's expiry and does not
// always say so: by default this one does not, so clients must inherit it.
function serveExchange(form, query, res) {
    const body = {
        access_token: checkExchange(form),
        issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        token_type: 'Bearer',
    };
    if (query.has('expires_in'))
        body.expires_in = Number(query.get('expires_in'));
    answer(res, 200, body);
}

// --- Cloud Storage -----------------------------------------------------------

// The file of object `name` of `bucket`, inside GCS_ROOT, or null.
function objectFile(bucket, name) {
    if (!gcsRoot || !/^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$/.test(bucket) ||
        !name || name.split('/').some((s) => s === '' || s === '.' ||
                                       s === '..'))
        return null;
    let root, file;
    try {
        root = fs.realpathSync(path.join(gcsRoot, bucket));
        file = fs.realpathSync(path.join(root, name));
    } catch {
        return null;
    }
    return file.startsWith(`${root}${path.sep}`) && fs.statSync(file).isFile()
        ? file : null;
}

// A token of this stand-in that may do `action` to `name`: a downscoped
// one by its rules, a plain one by its scope.
function tokenAllows(req, bucket, name, action) {
    const m = /^Bearer (\S+)$/.exec(req.headers.authorization || '');
    const entry = m && tokens.get(m[1]);
    if (!entry || entry.expires <= now())
        return 401;
    if (!entry.rules)
        return entry.scope ? 200 : 403;
    return entry.rules.some((r) => ruleAllows(r, bucket, name, action))
        ? 200 : 403;
}

function gcsError(res, status, message) {
    answer(res, status, { error: { code: status, message,
                                   errors: [{ message, reason: 'x' }] } });
}

// Every object under `prefix` of `bucket` not below another '/', with
// the subdirectories as prefixes, in name order.
function listing(bucket, prefix) {
    const dir = path.join(gcsRoot, bucket, prefix.slice(0, prefix.lastIndexOf('/') + 1));
    const base = prefix.slice(0, prefix.lastIndexOf('/') + 1);
    let names;
    try {
        names = fs.readdirSync(dir);
    } catch {
        return [];
    }
    return names.map((n) => base + n).filter((n) => n.startsWith(prefix))
        .sort().map((n) => {
            const st = fs.statSync(path.join(gcsRoot, bucket, n));
            return st.isDirectory() ? { prefix: `${n}/` }
                : { name: n, size: String(st.size),
                    updated: st.mtime.toISOString() };
        });
}

function serveList(req, res, bucket, query) {
    const prefix = query.get('prefix') || '';
    const status = tokenAllows(req, bucket, prefix, 'list');
    if (status !== 200)
        return gcsError(res, status, 'not allowed to list');
    if (query.get('delimiter') !== '/')
        return gcsError(res, 400, 'this stand-in lists with delimiter /');
    const all = listing(bucket, prefix);
    const from = Number(query.get('pageToken') || 0);
    const page = all.slice(from, from + GCS_PAGE);
    const body = { kind: 'storage#objects',
                   items: page.filter((e) => e.name),
                   prefixes: page.filter((e) => e.prefix).map((e) => e.prefix) };
    if (from + GCS_PAGE < all.length)
        body.nextPageToken = String(from + GCS_PAGE);
    answer(res, 200, body);
}

function serveBytes(req, res, file) {
    const size = fs.statSync(file).size;
    const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range || '');
    if (!m) {
        res.writeHead(200, { 'Content-Length': size });
        return fs.createReadStream(file).pipe(res);
    }
    const first = Number(m[1]);
    const last = Math.min(m[2] ? Number(m[2]) : size - 1, size - 1);
    if (first >= size) {
        res.writeHead(416, { 'Content-Range': `bytes */${size}` });
        return res.end();
    }
    res.writeHead(206, { 'Content-Length': last - first + 1,
                         'Content-Range': `bytes ${first}-${last}/${size}` });
    return fs.createReadStream(file, { start: first, end: last }).pipe(res);
}

function serveMedia(req, res, bucket, name) {
    const status = tokenAllows(req, bucket, name, 'read');
    if (status !== 200)
        return gcsError(res, status, 'not allowed to read');
    const file = objectFile(bucket, name);
    return file ? serveBytes(req, res, file)
        : gcsError(res, 404, `No such object: ${bucket}/${name}`);
}

function xmlError(res, status, code) {
    res.writeHead(status, { 'Content-Type': 'application/xml' });
    res.end(`<?xml version='1.0' encoding='UTF-8'?><Error><Code>${code}` +
            '</Code></Error>');
}

// RFC 3986 encoding as V4 canonical requests spell it.
const encode = (s, keepSlash) => encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%2F/g, keepSlash ? '/' : '%2F');

function serveSigned(req, res, url, bucket, name) {
    const q = url.searchParams;
    const credential = q.get('X-Goog-Credential') || '';
    const date = q.get('X-Goog-Date') || '';
    const expires = Number(q.get('X-Goog-Expires'));
    const scope = credential.split('/').slice(1).join('/');
    if (q.get('X-Goog-Algorithm') !== 'GOOG4-RSA-SHA256' ||
        credential.split('/')[0] !== email ||
        q.get('X-Goog-SignedHeaders') !== 'host' ||
        scope !== `${date.slice(0, 8)}/auto/storage/goog4_request` ||
        !/^\d{8}T\d{6}Z$/.test(date) || !(expires >= 1 && expires <= 604800))
        return xmlError(res, 400, 'AuthorizationQueryParametersError');
    const query = [...q.entries()].filter(([k]) => k !== 'X-Goog-Signature')
        .map(([k, v]) => [encode(k), encode(v)])
        .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
        .map(([k, v]) => `${k}=${v}`).join('&');
    const canonical = ['GET', `/${bucket}/${encode(name, true)}`, query,
                       `host:${req.headers.host.replace(/:\d+$/, '')}\n`,
                       'host', 'UNSIGNED-PAYLOAD'].join('\n');
    const toSign = ['GOOG4-RSA-SHA256', date, scope,
                    crypto.createHash('sha256').update(canonical)
                        .digest('hex')].join('\n');
    const signature = Buffer.from(q.get('X-Goog-Signature') || '', 'hex');
    if (!crypto.verify('sha256', Buffer.from(toSign), publicKey, signature))
        return xmlError(res, 403, 'SignatureDoesNotMatch');
    const start = Date.UTC(Number(date.slice(0, 4)), Number(date.slice(4, 6)) - 1,
                           Number(date.slice(6, 8)), Number(date.slice(9, 11)),
                           Number(date.slice(11, 13)), Number(date.slice(13, 15)));
    if (Date.now() > start + expires * 1000)
        return xmlError(res, 400, 'ExpiredToken');
    const file = objectFile(bucket, name);
    return file ? serveBytes(req, res, file) : xmlError(res, 404, 'NoSuchKey');
}

// The Cloud Storage requests; false when `url` is none.
function serveStorage(req, res, url) {
    let m;
    if (req.method !== 'GET' && req.method !== 'HEAD')
        return false;
    if ((m = /^\/storage\/v1\/b\/([^/]+)\/o$/.exec(url.pathname))) {
        serveList(req, res, decodeURIComponent(m[1]), url.searchParams);
        return true;
    }
    if ((m = /^\/storage\/v1\/b\/([^/]+)\/o\/([^/]+)$/.exec(url.pathname)) &&
        url.searchParams.get('alt') === 'media') {
        serveMedia(req, res, decodeURIComponent(m[1]), decodeURIComponent(m[2]));
        return true;
    }
    if ((m = /^\/([a-z0-9][a-z0-9._-]+)\/(.+)$/.exec(url.pathname)) &&
        url.searchParams.has('X-Goog-Signature')) {
        serveSigned(req, res, url, m[1], decodeURIComponent(m[2]));
        return true;
    }
    return false;
}

const server = http.createServer((req, res) => {
    const url = new URL(req.url, tokenUrl);
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
        size += c.length;
        if (size > 65536)
            req.destroy();
        else
            chunks.push(c);
    });
    req.on('end', () => {
        const form = new URLSearchParams(Buffer.concat(chunks).toString());
        try {
            if (req.method === 'POST' && url.pathname === '/token')
                serveToken(form, res);
            else if (req.method === 'POST' && url.pathname === '/v1/token')
                serveExchange(form, url.searchParams, res);
            else if (req.method === 'GET' && url.pathname === '/check')
                answer(res, check(url.searchParams), {});
            else if (serveStorage(req, res, url))
                return;
            else
                answer(res, 404, { error: 'not_found' });
        } catch (e) {
            if (!(e instanceof Refusal))
                throw e;
            answer(res, e.status, { error: e.error,
                                    error_description: e.message });
        }
    });
});

server.listen(0, '127.0.0.1', () => {
    const { port } = server.address();
    tokenUrl = `http://127.0.0.1:${port}/token`;
    console.log(`listening ${port}`);
});
