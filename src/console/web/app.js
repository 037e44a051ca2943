// SPDX-License-Identifier: Apache-2.0
// The console's frame: the address (#/kind/full-name/tab) decides the
// page; the tree stays beside it.
import { html, render, useEffect, useState } from './vendor/preact-htm.js';
import { loadConfig, server } from './api.js';
import { kinds, sections } from './kinds.js';
import { Home, ObjectPage, Tree } from './explorer.js';
import { SectionPage } from './sections.js';
import { OperationsPage } from './operations.js';
import { ErrorNote } from './ui.js';

function route() {
  const [kind, name, tab] = location.hash.replace(/^#\/?/, '').split('/');
  if (kinds[kind] && name) return { kind, full: decodeURIComponent(name), tab };
  if (sections[kind]) return { section: kind, tab: name };
  if (kind === 'operations') return { page: 'operations' };
  return {};
}

function Page({ where }) {
  if (where.kind) return html`<${ObjectPage} kind=${where.kind} full=${where.full} tab=${where.tab} />`;
  if (where.section) return html`<${SectionPage} section=${where.section} kind=${where.tab} />`;
  if (where.page === 'operations') return html`<${OperationsPage} />`;
  return html`<${Home} />`;
}

// The sections of the console; the current one marked for readers.
function Sections({ where }) {
  const at = where.page || where.section || (where.kind && kinds[where.kind].section) || 'explorer';
  const links = [['explorer', 'Catalogs', '#/']].concat(
    Object.entries(sections).map(([id, s]) => [id, s.label, `#/${id}`]),
    [['operations', 'Operations', '#/operations']]);
  return html`<nav class="sections" aria-label="Sections"><ul>${links.map(([id, label, to]) => html`
    <li><a href=${to} aria-current=${id === at ? 'page' : undefined}>${label}</a></li>`)}</ul></nav>`;
}

function Console() {
  const [where, setWhere] = useState(route());
  useEffect(() => {
    const changed = () => setWhere(route());
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  useEffect(() => {
    const what = where.full || (where.section && sections[where.section].label) || (where.page && 'Operations');
    document.title = what ? `${what} · Unity Catalog console` : 'Unity Catalog console';
  }, [where.kind, where.full, where.section, where.page]);
  return html`<a class="skip" href="#content" onClick=${(e) => { e.preventDefault(); document.getElementById('content').focus(); }}>Skip to the page</a>
    <header class="top">
      <a class="brand" href="#/">Unity Catalog</a>
      <${Sections} where=${where} />
      <span class="who">${server.user ? `Signed in as ${server.user}` : 'Not signed in'}</span>
    </header>
    <div class="frame">
      <${Tree} current=${where.kind && !kinds[where.kind].section ? where.full : null} />
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
