// SPDX-License-Identifier: Apache-2.0
// Finding tables by name in a catalog: the server matches the pattern
// (table-summaries) and answers a keyset page at a time, so the search
// stays fast in a catalog of 10^5 tables.
import { html, useState } from './vendor/preact-htm.js';
import { page } from './api.js';
import { href } from './kinds.js';
import { Paged } from './ui.js';

// What a user types, as a LIKE pattern: its own % and _ taken literally
// would need escapes the API does not have, so they keep their meaning.
const pattern = (text) => `%${text.trim().toLowerCase()}%`;

export function Search({ current }) {
  const [query, setQuery] = useState(null);
  const submit = (e) => {
    e.preventDefault();
    const form = new FormData(e.target);
    const text = (form.get('q') || '').trim();
    const catalog = (form.get('catalog') || '').trim();
    setQuery(text && catalog ? { text, catalog } : null);
  };
  const load = (token) => page('/table-summaries', 'tables',
    { catalog_name: query.catalog, table_name_pattern: pattern(query.text) }, token);
  return html`<search class="find"><form onSubmit=${submit}>
      <label for="find-q">Find tables</label>
      <input id="find-q" name="q" type="search" autocomplete="off" placeholder="part of a name" />
      <label for="find-catalog">in catalog</label>
      <input id="find-catalog" name="catalog" autocomplete="off" value=${current ? current.split('.')[0] : ''} />
      <button type="submit">Find</button>
    </form>
    ${query ? html`<${Paged} load=${load} deps=${[query.text, query.catalog]} empty="No table matches, or none you may see."
      render=${(items) => html`<ul class="found" aria-label="Tables found">${items.map((t) => html`
        <li><a href=${href('table', t.full_name)}>${t.full_name}</a></li>`)}</ul>`} />` : null}
  </search>`;
}
