// SPDX-License-Identifier: Apache-2.0
// The explorer: a tree of catalogs, schemas and what they hold, read a
// keyset page at a time, and a page for every object with its fields,
// tags, contents and permissions.
import { html, useEffect, useState } from './vendor/preact-htm.js';
import { get, page, path, server } from './api.js';
import { fullName, href, kinds, lineage, sections } from './kinds.js';
import { CreateDialog, CreateInSchemaDialog, DeleteDialog, EditDialog } from './forms.js';
import { PoliciesTab, Tags, takesPolicies } from './attached.js';
import { Search } from './search.js';
import { PermissionsTab } from './permissions.js';
import { DeltaTab, PreviewTab } from './delta.js';
import {
  ProviderShares, RecipientShares, RecipientTokens, RotateDialog, SharedObjects, ShareRecipients,
} from './sharing.js';
import { ErrorNote, Fields, Paged, Properties, Tabs, useAnswer, when } from './ui.js';

const listOf = (kind, parent) => (token) =>
  page(`/${kinds[kind].api}`, kinds[kind].key, kinds[kind].listQuery(parent), token);

// --- the tree -----------------------------------------------------------

function TreeItems({ kind, parent, current, revision }) {
  return html`<${Paged} load=${listOf(kind, parent)} deps=${[kind, parent, revision]}
    empty=${`No ${kinds[kind].plural.toLowerCase()}.`}
    render=${(items) => html`<ul>${items.map((item) => html`
      <${TreeNode} kind=${kind} full=${fullName(kind, item)} label=${item.name} current=${current}
        revision=${revision} />`)}</ul>`} />`;
}

function TreeGroup({ kind, parent, current, revision }) {
  const [open, setOpen] = useState(false);
  return html`<li class="group">
    <button type="button" class="toggle" aria-expanded=${open} onClick=${() => setOpen(!open)}>
      ${kinds[kind].plural}</button>
    ${open ? html`<${TreeItems} kind=${kind} parent=${parent} current=${current} revision=${revision} />` : null}
  </li>`;
}

function TreeNode({ kind, full, label, current, revision }) {
  const inPath = current && (current === full || current.startsWith(full + '.'));
  const [open, setOpen] = useState(Boolean(inPath && current !== full));
  const children = kinds[kind].children;
  return html`<li>
    ${children ? html`<button type="button" class="toggle" aria-expanded=${open}
        aria-label=${`${open ? 'Collapse' : 'Expand'} ${label}`} onClick=${() => setOpen(!open)}></button>` : null}
    <a href=${href(kind, full)} class=${`node ${kind}`} aria-current=${current === full ? 'page' : undefined}>${label}</a>
    ${open && children ? (children.length === 1
      ? html`<${TreeItems} kind=${children[0]} parent=${full} current=${current} revision=${revision} />`
      : html`<ul>${children.map((c) => html`<${TreeGroup} kind=${c} parent=${full} current=${current}
          revision=${revision} />`)}</ul>`) : null}
  </li>`;
}

// Read again, expansions kept, whenever the console changed something.
export function Tree({ current }) {
  const [revision, setRevision] = useState(0);
  useEffect(() => {
    const changed = () => setRevision((r) => r + 1);
    addEventListener('unicat-changed', changed);
    return () => removeEventListener('unicat-changed', changed);
  }, []);
  return html`<nav class="tree" aria-label="Catalogs">
    <${Search} current=${current} />
    <h2 class="visually-hidden">Catalogs</h2>
    <${TreeItems} kind="catalog" parent=${null} current=${current} revision=${revision} />
  </nav>`;
}

// --- lists of objects -----------------------------------------------------

export function ObjectTable({ kind, parent }) {
  return html`<${Paged} load=${listOf(kind, parent)} deps=${[kind, parent]}
    empty=${`No ${kinds[kind].plural.toLowerCase()} here, or none you may see.`}
    render=${(items) => items.length ? html`<table class="grid"><caption>${kinds[kind].plural}</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Owner</th><th scope="col">Comment</th><th scope="col">Changed</th></tr></thead>
      <tbody>${items.map((item) => html`<tr>
        <td><a href=${href(kind, fullName(kind, item))}>${fullName(kind, item).split('.').pop()}</a></td>
        <td>${item.owner}</td><td>${item.comment ?? item.description}</td><td>${when(item.updated_at || item.created_at)}</td>
      </tr>`)}</tbody></table>` : null} />`;
}

export function Breadcrumbs({ kind, full }) {
  const chain = full ? lineage(kind, full) : [];
  const section = kind && kinds[kind].section;
  return html`<nav class="crumbs" aria-label="Breadcrumbs"><ol>
    ${section ? html`<li><a href=${`#/${section}/${kind}`}>${sections[section].label}</a></li>`
      : html`<li><a href="#/">Catalogs</a></li>`}
    ${chain.map(([k, name], i) => html`<li>
      <a href=${href(k, name)} aria-current=${i === chain.length - 1 ? 'page' : undefined}>${name.split('.').pop()}</a></li>`)}
  </ol></nav>`;
}

// --- pages ---------------------------------------------------------------

export function Home() {
  const [summary, error] = useAnswer(() => get('/metastore_summary'), []);
  const [dialog, setDialog] = useState(false);
  const [round, setRound] = useState(0);
  return html`<div class="page"><${Breadcrumbs} />
    <div class="title"><h1>Catalogs</h1>
      <button type="button" class="primary" onClick=${() => setDialog(true)}>Create catalog</button></div>
    <${ErrorNote} error=${error} />
    ${summary ? html`<${Fields} rows=${[['Signed in as', server.user], ['Metastore', summary.metastore_id], ['Metastore name', summary.name]]} />` : null}
    <${ObjectTable} kind="catalog" parent=${null} key=${round} />
    ${dialog ? html`<${CreateDialog} kind="catalog" onClose=${() => setDialog(false)}
      onDone=${(c) => { setDialog(false); setRound(round + 1); location.hash = href('catalog', c.name); }} />` : null}</div>`;
}

const shown = new Set(['name', 'full_name', 'owner', 'comment', 'table_type', 'volume_type', 'catalog_type',
  'data_source_format', 'storage_root', 'storage_location', 'created_at', 'created_by', 'updated_at',
  'updated_by', 'id', 'schema_id', 'table_id', 'volume_id', 'function_id', 'properties', 'columns',
  'objects', 'tokens', 'browse_only', 'catalog_name', 'schema_name', 'metastore_id']);

// The fields of an object that the curated rows leave out, nested objects
// one level deep ("aws_iam_role.role_arn").
function otherRows(o) {
  const rows = [];
  for (const [k, v] of Object.entries(o)) {
    if (shown.has(k) || v === null || v === undefined || Array.isArray(v)) continue;
    if (typeof v === 'object') {
      for (const [k2, v2] of Object.entries(v)) {
        if (v2 !== null && typeof v2 !== 'object') rows.push([`${k}.${k2}`, String(v2)]);
      }
    } else {
      rows.push([k, String(v)]);
    }
  }
  return rows;
}

function overviewRows(o) {
  return [
    ['Full name', o.full_name || o.name], ['Owner', o.owner], ['Comment', o.comment],
    ['Type', o.table_type || o.volume_type || o.catalog_type], ['Format', o.data_source_format],
    ['Storage root', o.storage_root], ['Storage location', o.storage_location],
    ['Created', o.created_at ? `${when(o.created_at)} by ${o.created_by || 'unknown'}` : null],
    ['Changed', o.updated_at ? `${when(o.updated_at)} by ${o.updated_by || 'unknown'}` : null],
    ['Id', o.id || o.schema_id || o.table_id || o.volume_id || o.function_id],
  ].concat(otherRows(o));
}

function Columns({ columns }) {
  if (!columns || !columns.length) return null;
  return html`<table class="grid"><caption>Columns</caption>
    <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Nullable</th><th scope="col">Partition</th><th scope="col">Comment</th></tr></thead>
    <tbody>${columns.map((c) => html`<tr><td>${c.name}</td><td>${c.type_text}</td>
      <td>${c.nullable === false ? 'no' : 'yes'}</td><td>${c.partition_index ?? ''}</td><td>${c.comment}</td></tr>`)}</tbody>
  </table>`;
}

function Overview({ kind, full, object }) {
  return html`<${Fields} rows=${overviewRows(object)} />
    <${Columns} columns=${object.columns} />
    ${kind === 'recipient' ? html`<${RecipientTokens} object=${object} />` : null}
    <h2>Properties</h2><${Properties} properties=${object.properties} />
    ${kinds[kind].tags ? html`<${Tags} kind=${kind} full=${full} />` : null}`;
}

// Tables in Delta format have the reader's views of them too.
const isDelta = (kind, object) => kind === 'table' && object.data_source_format === 'DELTA' && object.storage_location;

// The views a kind has beyond its overview, contents and permissions.
const extraTabs = {
  share: [['objects', 'Objects', SharedObjects], ['recipients', 'Recipients', ShareRecipients]],
  provider: [['shares', 'Shares', ProviderShares]],
  recipient: [['shares', 'Shares', RecipientShares]],
  model: [['versions', 'Versions', ModelVersions]],
};

// A registered model's versions, newest first as the API pages them.
function ModelVersions({ full }) {
  const load = (token) => page(path('models', full, 'versions'), 'model_versions', {}, token);
  return html`<${Paged} load=${load} deps=${[full]} empty="No versions."
    render=${(items) => (items.length ? html`<table class="grid"><caption>Versions</caption>
      <thead><tr><th scope="col">Version</th><th scope="col">Status</th><th scope="col">Source</th>
        <th scope="col">Run</th><th scope="col">Comment</th><th scope="col">Made</th></tr></thead>
      <tbody>${items.map((v) => html`<tr><td>${v.version}</td><td>${v.status}</td><td>${v.source}</td>
        <td>${v.run_id}</td><td>${v.comment}</td><td>${when(v.created_at)} ${v.created_by ? `by ${v.created_by}` : ''}</td></tr>`)}</tbody>
    </table>` : null)} />`;
}

function tabsOf(kind, full, object) {
  const k = kinds[kind];
  const delta = isDelta(kind, object)
    ? [['delta', 'Delta', href(kind, full, 'delta')], ['preview', 'Sample data', href(kind, full, 'preview')]]
    : (extraTabs[kind] || []).map(([id, label]) => [id, label, href(kind, full, id)]);
  return [['overview', 'Overview', href(kind, full)]]
    .concat((k.children || []).map((c) => [c, kinds[c].plural, href(kind, full, c)]))
    .concat(delta)
    .concat(takesPolicies(kind) ? [['policies', 'Policies', href(kind, full, 'policies')]] : [])
    .concat([['permissions', 'Permissions', href(kind, full, 'permissions')]]);
}

// Where the console goes once an object is deleted: up one level.
function afterDelete(kind, full, parent) {
  if (kinds[kind].section) return `#/${kinds[kind].section}/${kind}`;
  return kind === 'catalog' || parent[1] === full ? '#/' : href(parent[0], parent[1]);
}

function Actions({ kind, full, object, onChanged }) {
  const [dialog, setDialog] = useState(null);
  const k = kinds[kind];
  const close = () => setDialog(null);
  const parent = lineage(kind, full).slice(-2)[0];
  return html`<div class="buttons">
      ${kind === 'catalog' ? html`<button type="button" onClick=${() => setDialog('create')}>Create schema</button>` : null}
      ${kind === 'schema' ? html`<button type="button" onClick=${() => setDialog('table')}>Create table</button>
        <button type="button" onClick=${() => setDialog('volume')}>Create volume</button>` : null}
      ${kind === 'recipient' ? html`<button type="button" onClick=${() => setDialog('rotate')}>Rotate token</button>` : null}
      ${k.edit.length ? html`<button type="button" onClick=${() => setDialog('edit')}>Edit</button>` : null}
      <button type="button" class="danger" onClick=${() => setDialog('delete')}>Delete</button>
    </div>
    ${dialog === 'create' ? html`<${CreateDialog} kind="schema" parent=${full} onClose=${close}
      onDone=${(s) => { close(); location.hash = href('schema', s.full_name); }} />` : null}
    ${dialog === 'table' || dialog === 'volume' ? html`<${CreateInSchemaDialog} kind=${dialog} parent=${full} onClose=${close}
      onDone=${(o) => { close(); location.hash = href(dialog, fullName(dialog, o)); }} />` : null}
    ${dialog === 'edit' ? html`<${EditDialog} kind=${kind} full=${full} object=${object} onClose=${close}
      onDone=${(o) => { close(); onChanged(fullName(kind, o)); }} />` : null}
    ${dialog === 'rotate' ? html`<${RotateDialog} full=${full} onClose=${close}
      onDone=${() => { close(); onChanged(full); }} />` : null}
    ${dialog === 'delete' ? html`<${DeleteDialog} kind=${kind} full=${full} onClose=${close}
      onDone=${() => { close(); location.hash = afterDelete(kind, full, parent); }} />` : null}`;
}

export function ObjectPage({ kind, full, tab }) {
  const k = kinds[kind];
  const [object, error, reload] = useAnswer(() => get(path(k.api, full)), [kind, full]);
  const changed = (newFull) => (newFull !== full ? (location.hash = href(kind, newFull)) : reload());
  const current = tab || 'overview';
  return html`<div class="page"><${Breadcrumbs} kind=${kind} full=${full} />
    <div class="title"><h1><span class="kind">${k.label}</span> ${full.split('.').pop()}</h1>
      ${object ? html`<${Actions} kind=${kind} full=${full} object=${object} onChanged=${changed} />` : null}</div>
    <${ErrorNote} error=${error} />
    ${!object && !error ? html`<p class="muted" aria-live="polite">Loading…</p>` : null}
    ${object ? html`<${Tabs} tabs=${tabsOf(kind, full, object)} current=${current} />
      ${current === 'overview' ? html`<${Overview} kind=${kind} full=${full} object=${object} />` : null}
      ${current === 'permissions' ? html`<${PermissionsTab} kind=${kind} full=${full} object=${object} />` : null}
      ${current === 'policies' && takesPolicies(kind) ? html`<${PoliciesTab} kind=${kind} full=${full} />` : null}
      ${current === 'delta' && isDelta(kind, object) ? html`<${DeltaTab} full=${full} />` : null}
      ${current === 'preview' && isDelta(kind, object) ? html`<${PreviewTab} full=${full} />` : null}
      ${(extraTabs[kind] || []).filter(([id]) => id === current).map(([, , View]) => html`<${View} full=${full} />`)}
      ${kinds[current] ? html`<${ObjectTable} kind=${current} parent=${full} />` : null}` : null}</div>`;
}
