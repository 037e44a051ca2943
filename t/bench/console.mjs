// SPDX-License-Identifier: Apache-2.0
// `make bench` (fourth part): the web console on a catalog of
// BENCH_CONSOLE_TABLES (100,000) tables in one schema, in Debian's
// chromium. Measures, as medians of BENCH_ROUNDS (5) fresh page loads:
//   1. the schema's page of tables: from the navigation to its first rows
//      on screen, against the time of the API calls the page made (their
//      requests' start to their answers' end, as the browser timed them);
//   2. a search by part of a name: from the click to the first result,
//      against the time of its call of table-summaries;
//   3. the tree: from expanding the schema's tables to the first of them.
// What the page adds to its calls (the difference) is what the console
// costs. Prints a table; fails only when the harness breaks.
//   UNICAT_CONSOLE_URL, UNICAT_CONSOLE_API, UNICAT_CONSOLE_NODE as for
//   t/console/browser.mjs; the user is admin (password admin).
import path from 'node:path';
import { createRequire } from 'node:module';

const consoleUrl = process.env.UNICAT_CONSOLE_URL;
const apiUrl = process.env.UNICAT_CONSOLE_API;
const requireTool = createRequire(path.join(process.env.UNICAT_CONSOLE_NODE, 'package.json'));
const { chromium } = requireTool('playwright-core');
const TABLES = Number(process.env.BENCH_CONSOLE_TABLES || 100000);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 5);
const WORKERS = 16;
const auth = 'Basic ' + Buffer.from('admin:admin').toString('base64');

async function api(method, apiPath, body) {
  const r = await fetch(apiUrl + apiPath, {
    method, headers: { Authorization: auth, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (r.status !== 200 && r.status !== 409) throw new Error(`${method} ${apiPath}: ${r.status} ${await r.text()}`);
  return r.json();
}

// The catalog, made once: tables t000000 … in bench_console.big.
async function populate() {
  await api('POST', '/catalogs', { name: 'bench_console' });
  await api('POST', '/schemas', { catalog_name: 'bench_console', name: 'big' });
  const have = await api('GET', '/tables?catalog_name=bench_console&schema_name=big&max_results=1&page_token=');
  let next = 0;
  const started = Date.now();
  const worker = async () => {
    while (next < TABLES) {
      const i = next++;
      const name = `t${String(i).padStart(6, '0')}`;
      await api('POST', '/tables', {
        catalog_name: 'bench_console', schema_name: 'big', name, table_type: 'EXTERNAL',
        data_source_format: 'DELTA', columns: [], storage_location: `file:///tmp/bench-console/${name}`,
      });
    }
  };
  if (!(have.tables || []).length || process.env.BENCH_CONSOLE_REFILL) {
    await Promise.all(Array.from({ length: WORKERS }, worker));
    console.log(`# made ${TABLES} tables in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// The API calls of the page that match, timed by the browser.
function calls(page, match) {
  const seen = [];
  page.on('requestfinished', (r) => {
    if (!match.test(r.url())) return;
    const t = r.timing();
    seen.push(t.responseEnd - t.requestStart);
  });
  return seen;
}

// Times taken in the page itself (performance.now(), from the navigation's
// start), not through the driver, whose own round trips would count.
const WATCH = `window.__seen = {};
  new MutationObserver(() => {
    for (const [name, selector] of Object.entries(window.__watch || {})) {
      if (!window.__seen[name] && document.querySelector(selector)) window.__seen[name] = performance.now();
    }
  }).observe(document, { childList: true, subtree: true });
  window.__watch = { rows: 'main table.grid a' };`;

// Clicks `button` (a selector) in the page and waits until `selector`
// shows: the time between, in the page.
function clickUntil(page, button, selector) {
  return page.evaluate(([b, sel]) => new Promise((resolve) => {
    const t0 = performance.now();
    const seen = () => document.querySelector(sel);
    const obs = new MutationObserver(() => { if (seen()) { obs.disconnect(); resolve(performance.now() - t0); } });
    obs.observe(document, { childList: true, subtree: true });
    document.querySelector(b).click();
  }), [button, selector]);
}

async function round(browser) {
  const context = await browser.newContext({ httpCredentials: { username: 'admin', password: 'admin' } });
  await context.addInitScript(WATCH);
  const page = await context.newPage();
  const listCalls = calls(page, /\/tables\?/);
  await page.goto(`${consoleUrl}#/schema/bench_console.big/table`);
  await page.locator('main table.grid a').first().waitFor({ timeout: 60000 });
  const schemaPage = await page.evaluate(() => window.__seen.rows);
  const schemaApi = listCalls.reduce((a, b) => a + b, 0);

  const searchCalls = calls(page, /object-summaries/);
  // The last table by name: the pattern has to be matched against all.
  await page.getByLabel('Part of a name').fill(String(TABLES - 1).padStart(6, '0'));
  await page.getByLabel('in catalog').fill('bench_console');
  const search = await clickUntil(page, '.find button[type=submit]', '[aria-label="Found"] a');
  const searchApi = searchCalls.reduce((a, b) => a + b, 0);

  const tree = page.getByRole('navigation', { name: 'Catalogs' });
  await tree.getByRole('button', { name: 'Expand big' }).click();
  await tree.getByRole('button', { name: 'Tables' }).waitFor();
  const treeCalls = calls(page, /\/tables\?/);
  const treeOpen = await clickUntil(page, '.tree .group > .toggle', '.tree .group a.node');
  const treeApi = treeCalls.reduce((a, b) => a + b, 0);
  await context.close();
  return { schemaPage, schemaApi, search, searchApi, treeOpen, treeApi };
}

await populate();
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
});
const rounds = [];
for (let i = 0; i < ROUNDS; i++) rounds.push(await round(browser));
await browser.close();
const m = (k) => median(rounds.map((r) => r[k]));
const row = (what, page, api) => `| ${what} | ${page.toFixed(0)} ms | ${api.toFixed(1)} ms | ${(page - api).toFixed(0)} ms |`;
console.log(`Console on ${TABLES} tables, medians of ${ROUNDS} fresh page loads:`);
console.log('| figure | on screen | its API calls | the console adds |');
console.log('|---|---|---|---|');
console.log(row('12. schema page, first 50 tables (from navigation)', m('schemaPage'), m('schemaApi')));
console.log(row('13. search by part of a name, first result', m('search'), m('searchApi')));
console.log(row('14. tree, a schema\'s tables expanded', m('treeOpen'), m('treeApi')));
