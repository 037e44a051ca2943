// SPDX-License-Identifier: Apache-2.0
// A stand-in for Azure AD's token endpoint (the real one cannot be reached
// from a test): the client-credentials grant of one application, over
// HTTPS, answering as AAD does. Its access tokens are JWTs that azurite's
// `--oauth basic` accepts: AAD's v1 issuer for the tenant, the storage
// audience, a lifetime, and the tid/oid claims azurite puts in the user
// delegation keys it hands out. Only node's own modules are used.
//   node aad.mjs CERT KEY
// with UNICAT_AZURE_TENANT_ID, _CLIENT_ID, _CLIENT_SECRET and _OBJECT_ID
// in the environment; prints "listening PORT" once it serves.
import { createServer } from 'node:https';
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';

const [certFile, keyFile] = process.argv.slice(2);
const tenant = process.env.UNICAT_AZURE_TENANT_ID;
const clientId = process.env.UNICAT_AZURE_CLIENT_ID;
const clientSecret = process.env.UNICAT_AZURE_CLIENT_SECRET;
const objectId = process.env.UNICAT_AZURE_OBJECT_ID;
const LIFETIME = 3599;

// AAD signs with RS256; azurite does not check the signature, but a token
// shaped like the real one keeps the client honest about what it parses.
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

const b64url = (data) => Buffer.from(data).toString('base64url');

function accessToken(audience) {
  const now = Math.floor(Date.now() / 1000);
  const header = { typ: 'JWT', alg: 'RS256', kid: 'unicat-test' };
  const claims = {
    aud: audience, iss: `https://sts.windows.net/${tenant}/`,
    iat: now - 5, nbf: now - 5, exp: now + LIFETIME,
    appid: clientId, appidacr: '1', idtyp: 'app',
    oid: objectId, sub: objectId, tid: tenant, ver: '1.0',
  };
  const signed = `${b64url(JSON.stringify(header))}.` +
    b64url(JSON.stringify(claims));
  const signature = sign('sha256', Buffer.from(signed), privateKey);
  return `${signed}.${b64url(signature)}`;
}

// AAD's error shape. The description quotes what was presented, the worst
// an identity service may do, so that a client echoing it is caught.
function refuse(res, status, error, code, description) {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({
    error, error_description: `AADSTS${code}: ${description}`,
    error_codes: [code], timestamp: new Date().toISOString(),
    trace_id: randomUUID(), correlation_id: randomUUID(),
    error_uri: `https://login.microsoftonline.com/error?code=${code}`,
  }));
}

function grant(res, form) {
  const scope = form.get('scope') || '';
  if (form.get('grant_type') !== 'client_credentials')
    return refuse(res, 400, 'unsupported_grant_type', 70003,
                  `The grant type '${form.get('grant_type')}' is not ` +
                  'supported.');
  if (form.get('client_id') !== clientId)
    return refuse(res, 400, 'unauthorized_client', 700016,
                  `Application '${form.get('client_id')}' was not found ` +
                  `in the directory '${tenant}'.`);
  if (form.get('client_secret') !== clientSecret)
    return refuse(res, 401, 'invalid_client', 7000215,
                  'Invalid client secret provided: ' +
                  `'${form.get('client_secret')}'.`);
  if (!scope.endsWith('/.default'))
    return refuse(res, 400, 'invalid_scope', 1002012,
                  `The provided value for scope ${scope} is not valid.`);
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({
    token_type: 'Bearer', expires_in: LIFETIME, ext_expires_in: LIFETIME,
    access_token: accessToken(scope.slice(0, -'/.default'.length)),
  }));
}

function serve(req, res, body) {
  const path = new URL(req.url, 'https://localhost').pathname;
  const type = req.headers['content-type'] || '';
  if (req.method !== 'POST' || path !== `/${tenant}/oauth2/v2.0/token`) {
    if (path.endsWith('/oauth2/v2.0/token'))
      return refuse(res, 400, 'invalid_request', 90002,
                    `Tenant '${path.split('/')[1]}' not found.`);
    res.writeHead(404);
    return res.end();
  }
  if (!type.startsWith('application/x-www-form-urlencoded'))
    return refuse(res, 400, 'invalid_request', 900144,
                  "The request body must contain the parameter " +
                  "'grant_type'.");
  grant(res, new URLSearchParams(body));
}

const server = createServer(
  { cert: readFileSync(certFile), key: readFileSync(keyFile) },
  (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => serve(req, res, body));
  });
server.listen(0, '127.0.0.1', () => {
  console.log(`listening ${server.address().port}`);
});
