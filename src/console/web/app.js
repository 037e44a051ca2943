// SPDX-License-Identifier: Apache-2.0
// The console's frame: the address (#/kind/full-name/tab) decides the
// page; the tree stays beside it.
import { html, render, useEffect, useState } from './vendor/preact-htm.js';
import { loadConfig, server } from './api.js';
import { kinds } from './kinds.js';
import { Home, ObjectPage, Tree } from './explorer.js';
import { ErrorNote } from './ui.js';

function route() {
  const [kind, name, tab] = location.hash.replace(/^#\/?/, '').split('/');
  if (kinds[kind] && name) return { kind, full: decodeURIComponent(name), tab };
  return { kind: null };
}

function Page({ where }) {
  if (where.kind) return html`<${ObjectPage} kind=${where.kind} full=${where.full} tab=${where.tab} />`;
  return html`<${Home} />`;
}

function Console() {
  const [where, setWhere] = useState(route());
  useEffect(() => {
    const changed = () => setWhere(route());
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  useEffect(() => {
    document.title = where.kind ? `${where.full} · Unity Catalog console` : 'Unity Catalog console';
  }, [where.kind, where.full]);
  return html`<a class="skip" href="#content" onClick=${(e) => { e.preventDefault(); document.getElementById('content').focus(); }}>Skip to the page</a>
    <header class="top">
      <a class="brand" href="#/">Unity Catalog</a>
      <span class="who">${server.user ? `Signed in as ${server.user}` : 'Not signed in'}</span>
    </header>
    <div class="frame">
      <${Tree} current=${where.full} />
      <main id="content" tabindex="-1"><${Page} where=${where} /></main>
    </div>`;
}

async function start() {
  const root = document.getElementById('app');
  try {
    await loadConfig();
    root.textContent = '';
    render(html`<${Console} />`, root);
  } catch (error) {
    root.textContent = '';
    render(html`<main><h1>Unity Catalog console</h1><${ErrorNote} error=${error} /></main>`, root);
  }
}

start();
