// SPDX-License-Identifier: Apache-2.0
// The catalog API, called as the signed-in user: same origin, with the
// browser's credentials for it (Basic, a session cookie of the
// administrator's authentication module, ...). Nothing is kept in the
// page's storage.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

// What config.json said: the API's path, who signed in, and what each
// securable type may be granted.
export const server = { api: '', user: null, privileges: {} };

// A sign-in that has expired: the authentication module redirects the
// call to its login page (not followed: another origin) or refuses it.
const signedOut = () => new ApiError(401, 'SIGNED_OUT',
  'Your sign-in has expired or was refused: reload the page to sign in again.');

async function answer(response) {
  if (response.type === 'opaqueredirect' || response.status === 401) throw signedOut();
  const text = await response.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : {};
  } catch (e) {
    json = null;
  }
  if (!response.ok) {
    const message = json && typeof json.message === 'string'
      ? json.message : `The server answered ${response.status}.`;
    throw new ApiError(response.status,
      (json && json.error_code) || `HTTP_${response.status}`, message);
  }
  if (json === null) {
    throw new ApiError(response.status, 'NOT_JSON', 'The server did not answer in JSON.');
  }
  return json;
}

async function send(url, init) {
  let response;
  try {
    response = await fetch(url, { credentials: 'same-origin', cache: 'no-store', redirect: 'manual', ...init });
  } catch (e) {
    throw new ApiError(0, 'NETWORK', 'The server could not be reached.');
  }
  return answer(response);
}

export async function loadConfig() {
  Object.assign(server, await send('config.json', {}));
}

// A path of the API from its segments, each percent-encoded.
export function path(...segments) {
  return '/' + segments.map((s) => encodeURIComponent(s)).join('/');
}

export function call(method, apiPath, { query, body } = {}) {
  let url = server.api + apiPath;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query || {})) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  if ([...params].length) url += '?' + params.toString();
  const init = { method, headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers['Content-Type'] = 'application/json';
  }
  const sent = send(url, init);
  // The tree and the lists read again after any change.
  if (method !== 'GET') sent.then(() => dispatchEvent(new Event('unicat-changed')), () => {});
  return sent;
}

export const get = (apiPath, query) => call('GET', apiPath, { query });

// One keyset page of a list: its items (under `key`) and the token of the
// next page, or null at the end.
export async function page(apiPath, key, query, token) {
  const a = await get(apiPath, { max_results: 50, ...query, page_token: token });
  return { items: a[key] || [], next: a.next_page_token || null };
}
