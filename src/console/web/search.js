// SPDX-License-Identifier: Apache-2.0
// Finding objects by part of their name in a catalog: tables and views,
// volumes, functions, registered models, agents and agent skills. The
// server matches the pattern across the catalog's schemas
// (GET /object-summaries) and answers a keyset page at a time, so the
// search stays fast in a catalog of 10^5 objects.
import { html, useState } from './vendor/preact-htm.js';
import { page } from './api.js';
import { href, kinds } from './kinds.js';
import { Paged } from './ui.js';

const FOUND = ['table', 'volume', 'function', 'model', 'agent', 'agent_skill'];

// What a user types, as a LIKE pattern: its own % and _ keep their
// meaning (the API has no escape for them).
const pattern = (text) => `%${text.trim().toLowerCase()}%`;

export function Search({ current }) {
  const [query, setQuery] = useState(null);
  const submit = (e) => {
    e.preventDefault();
    const form = new FormData(e.target);
    const text = (form.get('q') || '').trim();
    const catalog = (form.get('catalog') || '').trim();
    setQuery(text && catalog ? { text, catalog, kind: form.get('kind') } : null);
  };
  const load = (token) => page('/object-summaries', kinds[query.kind].key, {
    catalog_name: query.catalog, object_type: kinds[query.kind].securable, name_pattern: pattern(query.text),
  }, token);
  return html`<search class="find"><form onSubmit=${submit}>
      <label for="find-q">Find</label>
      <div class="row"><select id="find-kind" name="kind" aria-label="Kind of object">
        ${FOUND.map((k) => html`<option value=${k}>${kinds[k].plural}</option>`)}</select>
      <input id="find-q" name="q" type="search" autocomplete="off" placeholder="part of a name" aria-label="Part of a name" /></div>
      <label for="find-catalog">in catalog</label>
      <input id="find-catalog" name="catalog" autocomplete="off" value=${current ? current.split('.')[0] : ''} />
      <button type="submit">Find</button>
    </form>
    ${query ? html`<${Paged} load=${load} deps=${[query.text, query.catalog, query.kind]}
      empty=${`No ${kinds[query.kind].plural.toLowerCase()} match, or none you may see.`}
      render=${(items) => html`<ul class="found" aria-label="Found">${items.map((o) => html`
        <li><a href=${href(query.kind, o.full_name)}>${o.full_name}</a></li>`)}</ul>`} />` : null}
  </search>`;
}
