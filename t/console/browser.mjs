// SPDX-License-Identifier: Apache-2.0
// The web console in a real browser: Debian's chromium, headless, driven
// by playwright-core, against a running server with the console mounted.
// Prints TAP lines ("ok N - what", "not ok N - what" with "# why"), which
// t/api/95_console.t passes on; exits non-zero when any failed.
//
//   UNICAT_CONSOLE_URL   the console, e.g. http://127.0.0.1:8529/console/
//   UNICAT_CONSOLE_API   the catalog API's URL of the same server
//   UNICAT_CONSOLE_NODE  the folder whose node_modules hold playwright-core
//                        and axe-core (t/console/package.json)
//   UNICAT_CONSOLE_SHOTS where the screenshots of every page go (optional)
//   CHROMIUM             the browser (default /usr/bin/chromium)
// Users admin (a metastore admin) and alice sign in with Basic
// credentials equal to their names, as the suite's htpasswd has them.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createRequire } from 'node:module';

const need = (name) => {
  if (!process.env[name]) {
    console.log(`Bail out! ${name} is not set`);
    process.exit(2);
  }
  return process.env[name];
};
const consoleUrl = need('UNICAT_CONSOLE_URL');
const apiUrl = need('UNICAT_CONSOLE_API');
const requireTool = createRequire(path.join(need('UNICAT_CONSOLE_NODE'), 'package.json'));
const { chromium } = requireTool('playwright-core');
const axeSource = fs.readFileSync(requireTool.resolve('axe-core/axe.min.js'), 'utf8');
const shots = process.env.UNICAT_CONSOLE_SHOTS;
const origin = new URL(consoleUrl).origin;
const p = `c95_${process.pid}`;

let count = 0;
let failed = 0;
function ok(cond, what, why) {
  count += 1;
  if (!cond) failed += 1;
  console.log(`${cond ? 'ok' : 'not ok'} ${count} - ${what}`);
  if (!cond && why) console.log(`# ${String(why).replace(/\n/g, '\n# ')}`);
  return cond;
}

// The API as a user, outside the browser: setting up and checking what
// the console did.
async function api(user, method, apiPath, body) {
  const response = await fetch(apiUrl + apiPath, {
    method,
    headers: {
      Authorization: 'Basic ' + Buffer.from(`${user}:${user}`).toString('base64'),
      'Content-Type': 'application/json',
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let json = null;
  try { json = JSON.parse(text); } catch (e) { json = null; }
  return { status: response.status, json };
}

// Every request the pages make, every dialog, every script error and CSP
// report: a console that leaks or runs what it shows fails here.
const seen = { offOrigin: [], dialogs: [], errors: [] };

async function open(user, options = {}) {
  const context = await browser.newContext({
    httpCredentials: { username: user, password: user },
    viewport: { width: 1280, height: 800 },
    ...options,
  });
  const page = await context.newPage();
  lastPage = page;
  page.on('request', (r) => {
    const url = r.url();
    if (!url.startsWith(origin + '/') && !url.startsWith('data:')) seen.offOrigin.push(url);
  });
  page.on('dialog', (d) => { seen.dialogs.push(d.message()); d.dismiss(); });
  page.on('pageerror', (e) => seen.errors.push(`${user}: ${e.message}`));
  // The browser logs every refused call (the tests make some on purpose):
  // what else it logs as an error (a CSP report among them) fails.
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) seen.errors.push(`${user}: ${m.text()}`);
  });
  return { context, page };
}

// axe-core in the page: no serious or critical violation.
async function accessible(page, name) {
  await page.evaluate(axeSource);
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  ok(bad.length === 0, `${name}: axe finds no serious or critical violation`,
    bad.map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')})`).join('\n'));
}

async function shoot(page, name) {
  if (!shots) return;
  fs.mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
}

async function visit(page, hash, heading) {
  await page.goto(consoleUrl + hash);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor({ timeout: 10000 });
}

async function settled(page) {
  await page.waitForLoadState('networkidle');
  await page.waitForFunction(() => !document.body.textContent.includes('Loading…'), null, { timeout: 10000 });
}

// A page done loading, checked by axe and kept as a screenshot.
async function looked(page, name, shot) {
  await settled(page);
  await accessible(page, name);
  await shoot(page, shot);
}

async function textOf(page) {
  return page.locator('main').innerText();
}

// A step that throws fails with the page as it was (a screenshot) and
// what it said.
let lastPage = null;
const step = async (what, fn) => {
  try {
    await fn();
  } catch (e) {
    ok(false, what, e.stack || e.message);
    if (lastPage) {
      await shoot(lastPage, `failed-${count}`).catch(() => {});
      const alerts = await lastPage.getByRole('alert').allInnerTexts().catch(() => []);
      if (alerts.length) console.log(`# the page said: ${alerts.join(' | ')}`);
    }
  }
};

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--disable-dev-shm-usage'],
});

const SECRET = `console-secret-${process.pid}-Zq8`;
const TABLE = 'events';
const scratch = fs.mkdtempSync(path.join(process.env.TMPDIR || '/tmp', 'unicat-console-'));
fs.chmodSync(scratch, 0o755);
const fixtures = new URL('../delta/fixtures/', import.meta.url).pathname;
const FIXTURE = 'delta-0.8.0-partitioned';
fs.cpSync(path.join(fixtures, FIXTURE), path.join(scratch, FIXTURE), { recursive: true });

// A provider's Delta Sharing server offering one share to the bearer of
// its token: what the catalog asks of providers' servers.
async function standInSharingServer(shareName) {
  const token = `stand-in-${process.pid}-token`;
  let asked = 0;
  const server = http.createServer((req, res) => {
    asked += 1;
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { 'Content-Type': 'application/json' });
      res.end('{"errorCode":"UNAUTHENTICATED","message":"no"}');
    } else if (req.url.startsWith('/delta-sharing/shares')) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ items: [{ name: shareName }] }));
    } else {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end('{"errorCode":"RESOURCE_DOES_NOT_EXIST","message":"no"}');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${server.address().port}/delta-sharing/`;
  return {
    profile: { shareCredentialsVersion: 1, endpoint, bearerToken: token },
    asked: () => asked,
    close: () => server.close(),
  };
}

const XSS = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">';
const XSS_PROPERTY = '"><svg onload=alert(1)><iframe src="javascript:alert(2)">';

await step('set-up through the API', async () => {
  const made = [
    await api('admin', 'POST', '/catalogs', { name: `${p}_hidden`, comment: 'alice may not see this' }),
    await api('admin', 'POST', '/catalogs', { name: `${p}_xss`, comment: XSS, properties: { '<b>key</b>': XSS_PROPERTY } }),
    await api('admin', 'POST', '/schemas', { catalog_name: `${p}_xss`, name: 'inner', comment: XSS_PROPERTY }),
    await api('admin', 'POST', '/catalogs', { name: `${p}_gone` }),
    await api('admin', 'POST', '/schemas', { catalog_name: `${p}_gone`, name: 'left' }),
  ];
  ok(made.every((m) => m.status === 200), 'the set-up objects are made', JSON.stringify(made.map((m) => m.status)));
});

const admin = await open('admin');
const page = admin.page;

await step('admin: home', async () => {
  await visit(page, '', 'Catalogs');
  await settled(page);
  ok((await textOf(page)).includes('Signed in as') && (await page.locator('header').innerText()).includes('admin'),
    'admin: the home page says who signed in');
  await accessible(page, 'home');
  await shoot(page, 'home');
});

await step('admin: creates a catalog', async () => {
  await page.getByRole('button', { name: 'Create catalog' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Name (required)').fill(`${p}_sales`);
  await dialog.getByLabel('Comment').fill('Sales, made in the console');
  await dialog.getByLabel('Properties').fill('team=finance\ntier=gold');
  await dialog.getByLabel('Storage root').fill(`file://${scratch}/managed`);
  await accessible(page, 'create catalog dialog');
  await shoot(page, 'create-catalog');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await page.getByRole('heading', { level: 1, name: `${p}_sales` }).waitFor();
  const c = await api('admin', 'GET', `/catalogs/${p}_sales`);
  ok(c.status === 200 && c.json.comment === 'Sales, made in the console' &&
     c.json.properties.team === 'finance' && c.json.properties.tier === 'gold' &&
     c.json.storage_root === `file://${scratch}/managed`,
  'admin: the catalog made in the console is in the API with its comment and properties', JSON.stringify(c));
  await looked(page, 'catalog page', 'catalog');
});

await step('admin: creates a schema', async () => {
  await page.getByRole('button', { name: 'Create schema' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Name (required)').fill('orders');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await page.getByRole('heading', { level: 1, name: 'orders' }).waitFor();
  const s = await api('admin', 'GET', `/schemas/${p}_sales.orders`);
  ok(s.status === 200 && s.json.owner === 'admin', 'admin: the schema made in the console is in the API', JSON.stringify(s));
  await page.getByRole('button', { name: 'Create table' }).click();
  const dialog2 = page.getByRole('dialog');
  await dialog2.getByLabel('Name (required)').fill(TABLE);
  await dialog2.getByLabel('Format').selectOption('DELTA');
  await dialog2.getByLabel('Storage location (required)').fill(`file://${scratch}/${FIXTURE}`);
  await accessible(page, 'create table dialog');
  await dialog2.getByRole('button', { name: 'Create' }).click();
  await page.getByRole('heading', { level: 1, name: TABLE }).waitFor();
  const t = await api('admin', 'GET', `/tables/${p}_sales.orders.${TABLE}`);
  ok(t.status === 200 && t.json.table_type === 'EXTERNAL' && t.json.data_source_format === 'DELTA' &&
     t.json.storage_location === `file://${scratch}/${FIXTURE}`,
  'admin: the external Delta table made in the console is in the API', JSON.stringify(t));
  await settled(page);
  await page.getByText('Add a tag').click();
  await page.getByLabel('Tag key (required)').fill('quality');
  await page.getByLabel('Tag value').fill('gold');
  await page.getByRole('button', { name: 'Add tag' }).click();
  await page.getByText('quality: gold').waitFor();
  const tags = await api('admin', 'GET', `/entity-tag-assignments/tables/${p}_sales.orders.${TABLE}/tags`);
  ok((tags.json.tag_assignments || []).some((x) => x.tag_key === 'quality' && x.tag_value === 'gold'),
    'admin: the tag added in the console is in the API', JSON.stringify(tags.json));
  await accessible(page, 'table page');
  await shoot(page, 'table');
  await page.getByRole('button', { name: 'Remove the tag quality' }).click();
  await page.getByText('No tags.').waitFor();
  const untagged = await api('admin', 'GET', `/entity-tag-assignments/tables/${p}_sales.orders.${TABLE}/tags`);
  ok((untagged.json.tag_assignments || []).length === 0, 'admin: the tag removed in the console is gone from the API');
  await page.getByLabel('Part of a name').fill('VEN');
  await page.getByLabel('in catalog').fill(`${p}_sales`);
  await page.getByRole('button', { name: 'Find' }).click();
  const found = page.getByRole('list', { name: 'Found' });
  await found.getByRole('link', { name: `${p}_sales.orders.${TABLE}` }).waitFor();
  ok((await found.getByRole('link').count()) === 1, 'admin: finding "VEN" in the catalog finds the one table whose name holds it');
  await visit(page, `#/table/${p}_sales.orders.${TABLE}/policies`, TABLE);
  await settled(page);
  await page.getByText('New policy').click();
  await page.getByLabel('Name (required)').fill('eu_only');
  await page.getByLabel('Function (required)').fill(`${p}_sales.orders.no_such_function`);
  await page.getByRole('button', { name: 'Create policy' }).click();
  const refused = await page.getByRole('alert').innerText();
  ok(/does not exist/.test(refused), 'admin: a policy over a missing function is refused in the server\'s words', refused);
  await accessible(page, 'policies tab');
  await visit(page, `#/schema/${p}_sales.orders`, 'orders');
  const crumbs = await page.getByRole('navigation', { name: 'Breadcrumbs' }).innerText();
  ok(crumbs.includes(`${p}_sales`) && crumbs.includes('orders'), 'admin: the breadcrumbs name the catalog and the schema', crumbs);
  await looked(page, 'schema page', 'schema');
});

await step('admin: edits the schema', async () => {
  await page.getByRole('button', { name: 'Edit' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Comment').fill('Orders of every region');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Orders of every region').waitFor();
  const s = await api('admin', 'GET', `/schemas/${p}_sales.orders`);
  ok(s.json && s.json.comment === 'Orders of every region', 'admin: the comment edited in the console is in the API', JSON.stringify(s.json));
});

await step('admin: grants alice', async () => {
  await visit(page, `#/catalog/${p}_sales/permissions`, `${p}_sales`);
  await settled(page);
  await page.getByLabel('User or group').fill('alice');
  for (const priv of ['USE CATALOG', 'USE SCHEMA', 'SELECT']) {
    await page.getByLabel(priv, { exact: true }).check();
  }
  await accessible(page, 'permissions tab');
  await page.getByRole('button', { name: 'Grant', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Granted' }).waitFor();
  const g = await api('admin', 'GET', `/permissions/catalog/${p}_sales`);
  const alice = (g.json.privilege_assignments || []).find((a) => a.principal === 'alice');
  ok(alice && ['USE CATALOG', 'USE SCHEMA', 'SELECT'].every((x) => alice.privileges.includes(x)) && alice.privileges.length === 3,
    'admin: the grants made in the console are in the API', JSON.stringify(g.json));
  await page.getByRole('table', { name: 'Grants' }).getByText('alice').waitFor();
  const effective = await page.getByRole('table', { name: 'Effective privileges' }).innerText();
  ok(/alice\s+SELECT\s+granted here/.test(effective), 'admin: the effective privileges show where each comes from', effective);
  await shoot(page, 'permissions');
  await visit(page, `#/schema/${p}_sales.orders/permissions`, 'orders');
  await settled(page);
  const inherited = await page.getByRole('table', { name: 'Effective privileges' }).innerText();
  ok(inherited.includes(`catalog ${p}_sales`), 'admin: on the schema, alice\'s privileges are inherited from the catalog', inherited);
});

await step('admin: revokes a privilege', async () => {
  await api('admin', 'PATCH', `/permissions/catalog/${p}_sales`, { changes: [{ principal: 'bob', add: ['BROWSE'] }] });
  await visit(page, `#/catalog/${p}_sales/permissions`, `${p}_sales`);
  await settled(page);
  await page.getByLabel('User or group').fill('bob');
  await page.getByLabel('BROWSE', { exact: true }).check();
  await page.getByRole('button', { name: 'Revoke', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Revoked' }).waitFor();
  const g = await api('admin', 'GET', `/permissions/catalog/${p}_sales`);
  ok(!(g.json.privilege_assignments || []).some((a) => a.principal === 'bob'), 'admin: a privilege revoked in the console is gone from the API', JSON.stringify(g.json));
});

await step('admin: a refused grant says why', async () => {
  for (const box of await page.getByRole('checkbox').all()) await box.uncheck();
  await page.getByLabel('User or group').fill('alice');
  await page.getByRole('button', { name: 'Grant', exact: true }).click();
  const note = await page.getByRole('alert').innerText();
  ok(note.includes('Choose at least one privilege'), 'admin: granting nothing is refused in words', note);
});

await step('admin: delete spells out force', async () => {
  await visit(page, `#/catalog/${p}_gone`, `${p}_gone`);
  await page.getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('dialog');
  const text = await dialog.innerText();
  ok(text.includes('force=true') && text.includes('refuses'), 'admin: the delete dialog says what force does before it happens', text);
  await shoot(page, 'delete');
  await dialog.getByRole('button', { name: 'Delete' }).click();
  const refusal = await dialog.getByRole('alert').innerText();
  ok(/not empty/i.test(refusal), 'admin: deleting a catalog with a schema, without force, shows the server\'s refusal', refusal);
  ok((await api('admin', 'GET', `/catalogs/${p}_gone`)).status === 200, 'admin: the refused delete left the catalog');
  await dialog.getByRole('checkbox').check();
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('heading', { level: 1, name: 'Catalogs' }).waitFor();
  ok((await api('admin', 'GET', `/catalogs/${p}_gone`)).status === 404, 'admin: the catalog deleted with force is gone from the API');
});

await step('admin: values are shown as text', async () => {
  await visit(page, `#/catalog/${p}_xss`, `${p}_xss`);
  await settled(page);
  await page.locator('main dl.fields').waitFor();
  const text = await textOf(page);
  ok(text.includes(XSS), 'xss: the comment holding markup shows as text', text);
  ok(text.includes('<b>key</b>') && text.includes(XSS_PROPERTY), 'xss: a property holding markup shows as text', text);
  const counts = await page.evaluate(() => ({
    pwned: window.__pwned,
    img: document.querySelectorAll('main img').length,
    svg: document.querySelectorAll('main svg').length,
    iframe: document.querySelectorAll('iframe').length,
    scripts: [...document.scripts].map((s) => s.src),
  }));
  ok(counts.pwned === undefined && counts.img === 0 && counts.svg === 0 && counts.iframe === 0 &&
     counts.scripts.length === 1 && counts.scripts[0].endsWith('/app.js'),
  'xss: nothing of the values became an element or ran', JSON.stringify(counts));
  await visit(page, `#/catalog/${p}_xss/schema`, `${p}_xss`);
  await settled(page);
  ok((await textOf(page)).includes(XSS_PROPERTY), 'xss: a schema\'s comment in a list shows as text');
  await shoot(page, 'xss');
});

// Without the Content-Security-Policy, the values must still render as
// text by themselves (the policy is the second line of defence, not the
// first).
await step('admin: values are text even without the CSP', async () => {
  const bare = await open('admin', { bypassCSP: true });
  await visit(bare.page, `#/catalog/${p}_xss`, `${p}_xss`);
  await settled(bare.page);
  await bare.page.locator('main dl.fields').waitFor();
  await visit(bare.page, `#/catalog/${p}_xss/schema`, `${p}_xss`);
  await settled(bare.page);
  const counts = await bare.page.evaluate(() => ({
    pwned: window.__pwned,
    elements: document.querySelectorAll('main img, main svg, main iframe, main script').length,
  }));
  ok(counts.pwned === undefined && counts.elements === 0 && seen.dialogs.length === 0,
    'xss: with the CSP bypassed, nothing of the values became an element or ran', JSON.stringify(counts));
  await bare.context.close();
  lastPage = page;
});

await step('admin: the tree pages through catalogs', async () => {
  await visit(page, `#/catalog/${p}_sales`, `${p}_sales`);
  const tree = page.getByRole('navigation', { name: 'Catalogs' });
  await tree.getByRole('link', { name: `${p}_sales`, exact: true }).waitFor({ timeout: 10000 }).catch(async () => {
    // More catalogs than a page: the tree shows more on demand.
    for (let i = 0; i < 40 && !(await tree.getByRole('link', { name: `${p}_sales`, exact: true }).count()); i++) {
      await tree.getByRole('button', { name: 'Show more' }).first().click();
      await settled(page);
    }
  });
  ok(await tree.getByRole('link', { name: `${p}_sales`, exact: true }).count() === 1, 'admin: the tree holds the new catalog');
  await tree.getByRole('button', { name: `Expand ${p}_sales` }).click();
  await tree.getByRole('link', { name: 'orders', exact: true }).waitFor();
  const branch = await tree.getByRole('button', { name: `Collapse ${p}_sales` }).getAttribute('aria-expanded');
  ok(branch === 'true' && await tree.getByRole('link', { name: 'orders', exact: true }).count() === 1,
    'admin: expanding a catalog in the tree shows its schemas, and says it is expanded');
});

// The fixture's one commit and its rows, as the Parquet files hold them
// (t/api/96_table_delta.t checks them against an independent reader).
const FIXTURE_ROWS = [
  ['1', '2020', '1', '1'], ['2', '2020', '2', '3'], ['3', '2020', '2', '5'], ['4', '2021', '4', '5'],
  ['5', '2021', '12', '4'], ['6', '2021', '12', '20'], ['7', '2021', '12', '20'],
].map((r) => r.join('\t')).sort();

await step('admin: the Delta tabs', async () => {
  await visit(page, `#/table/${p}_sales.orders.${TABLE}/delta`, TABLE);
  await page.getByRole('table', { name: 'History' }).waitFor();
  await settled(page);
  const fields = await page.locator('main dl.fields').innerText();
  ok(/Version\s+0\b/.test(fields) && /Files\s+6\b/.test(fields) && /Partitioned by\s+year, month, day/.test(fields),
    'admin: the Delta tab has the version, files and partitioning of the fixture', fields);
  const schema = await page.getByRole('table', { name: 'Schema' }).innerText();
  ok(/value\s+string\s+yes\s*\n/.test(schema) && /year\s+string\s+yes\s+yes/.test(schema), 'admin: and its schema with types and partition columns', schema);
  const history = await page.getByRole('table', { name: 'History' }).locator('tbody tr').allInnerTexts();
  ok(history.length === 1 && /^0\s.*WRITE/.test(history[0]) && history[0].includes('+6'),
    'admin: the history is the fixture\'s one commit, a WRITE of 6 files', history.join('\n'));
  await accessible(page, 'Delta tab');
  await shoot(page, 'delta');
  await page.getByRole('link', { name: 'Sample data' }).click();
  const sample = page.getByRole('table', { name: 'Sample data' });
  await sample.waitFor();
  const head = await sample.locator('thead th').allInnerTexts();
  const rows = (await sample.locator('tbody tr').allInnerTexts()).map((r) => r.trim().split(/\s+/).join('\t')).sort();
  ok(head.map((h) => h.split('\n')[0]).join(',') === 'value,year,month,day' &&
     JSON.stringify(rows) === JSON.stringify(FIXTURE_ROWS),
  'admin: the sample data are the fixture\'s rows', JSON.stringify({ head, rows }));
  await accessible(page, 'sample data');
  await shoot(page, 'sample');
});

await step('admin: a model and its versions', async () => {
  const model = await api('admin', 'POST', '/models', { catalog_name: `${p}_sales`, schema_name: 'orders', name: 'churn' });
  const version = await api('admin', 'POST', '/models/versions', {
    catalog_name: `${p}_sales`, schema_name: 'orders', model_name: 'churn', source: 'runs:/r1/model', run_id: 'r1',
  });
  ok(model.status === 200 && version.status === 200, 'set-up: a registered model with a version', JSON.stringify([model, version]));
  await page.getByLabel('Kind of object').selectOption('model');
  await page.getByLabel('Part of a name').fill('hur');
  await page.getByLabel('in catalog').fill(`${p}_sales`);
  await page.getByRole('button', { name: 'Find' }).click();
  await page.getByRole('list', { name: 'Found' }).getByRole('link', { name: `${p}_sales.orders.churn` }).click();
  await page.getByRole('heading', { level: 1, name: 'churn' }).waitFor();
  await page.getByRole('link', { name: 'Versions' }).click();
  const row = await page.getByRole('table', { name: 'Versions' }).innerText();
  ok(/\b1\b/.test(row) && row.includes('runs:/r1/model'), 'admin: the model\'s page lists its versions', row);
  await accessible(page, 'model versions');
});

await step('admin: storage governance', async () => {
  await visit(page, '#/governance/external_location', 'Storage governance');
  await settled(page);
  await accessible(page, 'storage governance');
  await page.getByRole('button', { name: 'New external location' }).click();
  let dialog = page.getByRole('dialog');
  await dialog.getByLabel('Name (required)').fill(`${p}_loc`);
  await dialog.getByLabel('URL (required)').fill(`file://${scratch}/loc`);
  await dialog.getByRole('button', { name: 'Create' }).click();
  await page.getByRole('heading', { level: 1, name: `${p}_loc` }).waitFor();
  const loc = await api('admin', 'GET', `/external-locations/${p}_loc`);
  ok(loc.status === 200 && loc.json.url === `file://${scratch}/loc`, 'admin: the external location made in the console is in the API', JSON.stringify(loc));
  await visit(page, '#/governance/external_location', 'Storage governance');
  await page.getByRole('button', { name: 'New external location' }).click();
  dialog = page.getByRole('dialog');
  await dialog.getByLabel('Name (required)').fill(`${p}_inner`);
  await dialog.getByLabel('URL (required)').fill(`file://${scratch}/loc/inner`);
  await dialog.getByRole('button', { name: 'Create' }).click();
  const overlap = await dialog.getByRole('alert').innerText();
  ok(/overlap/i.test(overlap) && (await api('admin', 'GET', `/external-locations/${p}_inner`)).status === 404,
    'admin: a location inside another is refused in the dialog, in the server\'s words', overlap);
  await shoot(page, 'overlap');
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  await visit(page, '#/governance/credential', 'Storage governance');
  await page.getByRole('button', { name: 'New credential' }).click();
  dialog = page.getByRole('dialog');
  await dialog.getByLabel('Name (required)').fill(`${p}_cred`);
  await dialog.getByLabel('Type').selectOption('aws_iam_role');
  await dialog.getByLabel('role_arn').fill('arn:aws:iam::123456789012:role/reader');
  await dialog.getByLabel('access_key_id (optional)').fill('AKIAIOSFODNN7EXAMPLE');
  await dialog.getByLabel('secret_access_key').fill(SECRET);
  await accessible(page, 'credential dialog');
  await shoot(page, 'credential');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await page.getByRole('heading', { level: 1, name: `${p}_cred` }).waitFor();
  await settled(page);
  const cred = await api('admin', 'GET', `/credentials/${p}_cred`);
  ok(cred.status === 200 && cred.json.aws_iam_role.role_arn === 'arn:aws:iam::123456789012:role/reader',
    'admin: the credential made in the console is in the API', JSON.stringify(cred));
  const shown = await page.content();
  ok(!shown.includes(SECRET) && !JSON.stringify(cred.json).includes(SECRET),
    'admin: the secret typed in is neither on the page nor in the API\'s answer');
});

await step('admin: sharing', async () => {
  await visit(page, '#/sharing/share', 'Sharing');
  await page.getByRole('button', { name: 'New share' }).click();
  let dialog = page.getByRole('dialog');
  await dialog.getByLabel('Name (required)').fill(`${p}_share`);
  await dialog.getByRole('button', { name: 'Create' }).click();
  await page.getByRole('heading', { level: 1, name: `${p}_share` }).waitFor();
  await visit(page, `#/share/${p}_share/objects`, `${p}_share`);
  await settled(page);
  await page.getByLabel('Full name (required)').fill(`${p}_sales.orders.${TABLE}`);
  await page.getByLabel('Shared as').fill('orders.events');
  await page.getByLabel('Share the history').check();
  await page.getByLabel('Partitions').fill('year=2021');
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await page.getByRole('table', { name: 'What the share holds' }).waitFor();
  await accessible(page, 'share objects');
  await shoot(page, 'share');
  const share = await api('admin', 'GET', `/shares/${p}_share?include_shared_data=true`);
  const object = ((share.json && share.json.objects) || [])[0] || {};
  ok(object.name === `${p}_sales.orders.${TABLE}` && object.shared_as === 'orders.events' &&
     object.history_data_sharing_status === 'ENABLED' &&
     JSON.stringify(object.partitions) === JSON.stringify([{ values: [{ name: 'year', op: 'EQUAL', value: '2021' }] }]),
  'admin: the table added in the console is in the share, with its history and partition', JSON.stringify(share.json));

  await visit(page, '#/sharing/recipient', 'Sharing');
  await page.getByRole('button', { name: 'New recipient' }).click();
  dialog = page.getByRole('dialog');
  await dialog.getByLabel('Name (required)').fill(`${p}_rcp`);
  await dialog.getByRole('button', { name: 'Create' }).click();
  const link = await dialog.getByRole('textbox', { name: 'Activation link' }).inputValue();
  ok(/\/public\/data_sharing_activation\/[A-Za-z0-9_-]{20,}$/.test(link), 'admin: the new recipient\'s activation link is shown', link);
  await accessible(page, 'activation link');
  await shoot(page, 'activation');
  await dialog.getByRole('button', { name: 'Done' }).click();
  await page.getByRole('heading', { level: 1, name: `${p}_rcp` }).waitFor();
  await settled(page);
  const nonce = link.split('/').pop();
  const storage = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
  ok(!(await page.content()).includes(nonce) && !storage.includes(nonce),
    'admin: once closed, the activation link is on no page and in no storage of the browser');

  await visit(page, `#/share/${p}_share/recipients`, `${p}_share`);
  await settled(page);
  await page.getByRole('textbox', { name: 'Recipient' }).fill(`${p}_rcp`);
  await page.getByRole('button', { name: 'Grant SELECT' }).click();
  await page.getByRole('table', { name: 'Recipients who may read it' }).getByText(`${p}_rcp`).waitFor();
  const perms = await api('admin', 'GET', `/shares/${p}_share/permissions`);
  ok((perms.json.privilege_assignments || []).some((a) => a.principal === `${p}_rcp` && a.privileges.includes('SELECT')),
    'admin: the recipient granted in the console may read the share', JSON.stringify(perms.json));

  await visit(page, `#/recipient/${p}_rcp/shares`, `${p}_rcp`);
  const mayRead = page.getByRole('table', { name: 'Shares it may read' });
  await mayRead.getByRole('link', { name: `${p}_share` }).waitFor();
  ok(await mayRead.locator('tbody tr').count() === 1, 'admin: the recipient\'s page lists the one share it may read');
  // The recipient activates the link as a client does, and reads the share.
  const info = await fetch(link.replace('/data_sharing_activation/', '/data_sharing_activation_info/'));
  const profile = await (await fetch(link)).json();
  // (The suite's profiles name a public endpoint of its configuration;
  // the sharing server itself is this one's /delta-sharing.)
  const shares = await fetch(`${origin}/delta-sharing/shares`, { headers: { Authorization: `Bearer ${profile.bearerToken}` } });
  const listed = await shares.json();
  ok(info.status === 200 && profile.bearerToken && (listed.items || []).some((s) => s.name === `${p}_share`),
    'a client activates the link copied from the console and reads the share', JSON.stringify({ status: info.status, listed }));

  // The other side: a provider's profile pasted in, its sharing server a
  // stand-in of this test's (this server calling itself would wait for a
  // child of its own under prefork).
  const provider = await standInSharingServer(`${p}_offered`);
  await visit(page, '#/sharing/provider', 'Sharing');
  await page.getByRole('button', { name: 'New provider' }).click();
  dialog = page.getByRole('dialog');
  await dialog.getByLabel('Name (required)').fill(`${p}_prov`);
  await dialog.getByLabel('Profile file (required)').fill(JSON.stringify(provider.profile));
  await dialog.getByRole('button', { name: 'Create' }).click();
  await page.getByRole('heading', { level: 1, name: `${p}_prov` }).waitFor();
  await settled(page);
  ok(!(await page.content()).includes(provider.profile.bearerToken), 'admin: the provider\'s page does not show the token of its profile');
  await page.getByRole('link', { name: 'Shares' }).click();
  await page.locator('main').getByText(`${p}_offered`).waitFor();
  ok(await page.locator('main li').filter({ hasText: `${p}_offered` }).count() === 1 && provider.asked() > 0,
    'admin: the provider made in the console lists the share its server offers');
  provider.close();
  await looked(page, 'provider shares', 'provider');
});

await step('admin: operations', async () => {
  await visit(page, '#/operations', 'Operations');
  await page.getByText('Requests by API and status').waitFor();
  await page.getByRole('img', { name: /Requests a second/ }).waitFor({ timeout: 15000 });
  const text = await textOf(page);
  const counted = /(\d+) requests answered since the server started/.exec(text);
  ok(counted && Number(counted[1]) > 0 && /catalog 2xx/.test(text) && /Cache hit rates/.test(text),
    'admin: the operations page charts the server\'s metrics', text.slice(0, 400));
  await accessible(page, 'operations');
  await shoot(page, 'operations');
});

await admin.context.close();

const alice = await open('alice');
await step('alice: sees what she was granted, and nothing hidden', async () => {
  const mine = await alice.page;
  await visit(mine, `#/catalog/${p}_sales`, `${p}_sales`);
  await settled(mine);
  ok((await textOf(mine)).includes('Sales, made in the console'), 'alice: opens the catalog she was granted');
  await visit(mine, `#/catalog/${p}_sales/schema`, `${p}_sales`);
  await settled(mine);
  ok((await textOf(mine)).includes('orders'), 'alice: sees its schema');
  await visit(mine, `#/catalog/${p}_sales/permissions`, `${p}_sales`);
  await settled(mine);
  ok(await mine.getByLabel('User or group').count() === 0 &&
     (await textOf(mine)).includes('Grants are changed by the owner'),
  'alice: no grant editor for a catalog she does not manage');
  await accessible(mine, 'permissions tab, as alice');
  await shoot(mine, 'alice-permissions');
  await mine.goto(consoleUrl + `#/catalog/${p}_hidden`);
  const hidden = await mine.getByRole('alert').innerText();
  await mine.goto(consoleUrl + `#/catalog/${p}_missing`);
  await mine.getByRole('alert').filter({ hasText: `${p}_missing` }).waitFor();
  const missing = await mine.getByRole('alert').innerText();
  ok(hidden.replace(`${p}_hidden`, 'X') === missing.replace(`${p}_missing`, 'X'),
    'alice: a hidden catalog reads exactly as a missing one', `${hidden} | ${missing}`);
  const listed = await api('alice', 'GET', '/catalogs?max_results=1000');
  const names = (listed.json.catalogs || []).map((c) => c.name);
  ok(names.includes(`${p}_sales`) && !names.includes(`${p}_hidden`), 'alice: the API lists the granted catalog and not the hidden one');
  await visit(mine, '', 'Catalogs');
  await settled(mine);
  for (let i = 0; i < 40 && (await mine.getByRole('button', { name: 'Show more' }).count()); i++) {
    await mine.locator('main').getByRole('button', { name: 'Show more' }).click();
    await settled(mine);
  }
  const home = await textOf(mine);
  ok(home.includes(`${p}_sales`) && !home.includes(`${p}_hidden`), 'alice: the home page lists the granted catalog and not the hidden one');
});
await step('alice: a sign-in that expired says so', async () => {
  const mine = alice.page;
  // An OpenID Connect module sends an expired session to its login page,
  // elsewhere; a Basic one answers 401.
  await mine.route('**/catalogs?*', (r) => r.fulfill({ status: 302, headers: { Location: 'https://login.example.test/authorize' } }));
  await visit(mine, '', 'Catalogs');
  const redirected = await mine.getByRole('alert').first().innerText();
  await mine.unroute('**/catalogs?*');
  await mine.route('**/metastore_summary', (r) => r.fulfill({ status: 401, body: '' }));
  await mine.reload();
  const refused = await mine.getByRole('alert').first().innerText();
  ok(/sign-in has expired/.test(redirected) && /sign-in has expired/.test(refused),
    'alice: a call sent to a login page, or refused with 401, says the sign-in expired', `${redirected} | ${refused}`);
  await mine.unroute('**/metastore_summary');
});
await alice.context.close();
await browser.close();

ok(seen.offOrigin.length === 0, 'no request left the origin', seen.offOrigin.join('\n'));
ok(seen.dialogs.length === 0, 'no dialog was opened by a value', seen.dialogs.join('\n'));
ok(seen.errors.length === 0, 'no script error and no Content-Security-Policy report', seen.errors.join('\n'));

for (const name of [`${p}_hidden`, `${p}_xss`, `${p}_sales`]) {
  await api('admin', 'DELETE', `/catalogs/${name}?force=true`);
}
for (const where of [`/providers/${p}_prov`, `/shares/${p}_share`, `/recipients/${p}_rcp`, `/external-locations/${p}_loc`, `/credentials/${p}_cred`]) {
  await api('admin', 'DELETE', where);
}
fs.rmSync(scratch, { recursive: true, force: true });
console.log(`1..${count}`);
process.exit(failed ? 1 : 0);
