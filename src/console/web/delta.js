// SPDX-License-Identifier: Apache-2.0
// A Delta table as the server's own Delta reader sees it: the current
// version, protocol and features, schema, partitioning, files, the
// history of commits, and the first rows (for callers with SELECT).
import { html } from './vendor/preact-htm.js';
import { get, page, path } from './api.js';
import { ErrorNote, Fields, Paged, Properties, useAnswer, when } from './ui.js';

export function bytes(n) {
  if (n === null || n === undefined) return '';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = Number(n);
  let u = 0;
  while (v >= 1024 && u < units.length - 1) { v /= 1024; u += 1; }
  return `${u ? v.toFixed(1) : v} ${units[u]}`;
}

// A type of the schema as Delta writes it: a name, or a nested type.
function typeText(type) {
  if (typeof type === 'string') return type;
  if (!type || typeof type !== 'object') return String(type);
  if (type.type === 'array') return `array<${typeText(type.elementType)}>`;
  if (type.type === 'map') return `map<${typeText(type.keyType)}, ${typeText(type.valueType)}>`;
  if (type.type === 'struct') return `struct<${(type.fields || []).map((f) => `${f.name}: ${typeText(f.type)}`).join(', ')}>`;
  return JSON.stringify(type);
}

function schemaOf(metadata) {
  try {
    return JSON.parse(metadata.schemaString).fields || [];
  } catch (e) {
    return [];
  }
}

function Schema({ metadata }) {
  const fields = schemaOf(metadata);
  const partitions = metadata.partitionColumns || [];
  return html`<table class="grid"><caption>Schema</caption>
    <thead><tr><th scope="col">Column</th><th scope="col">Type</th><th scope="col">Nullable</th><th scope="col">Partition</th></tr></thead>
    <tbody>${fields.map((f) => html`<tr><td>${f.name}</td><td>${typeText(f.type)}</td>
      <td>${f.nullable === false ? 'no' : 'yes'}</td><td>${partitions.includes(f.name) ? 'yes' : ''}</td></tr>`)}</tbody>
  </table>`;
}

function features(protocol) {
  const all = [...(protocol.readerFeatures || []), ...(protocol.writerFeatures || [])];
  return [...new Set(all)].join(', ');
}

// What a commit says it did, in a few words.
function metrics(info) {
  const m = (info && info.operationMetrics) || {};
  const said = [
    ['numOutputRows', 'rows written'], ['numDeletedRows', 'rows deleted'],
    ['numUpdatedRows', 'rows updated'], ['numCopiedRows', 'rows copied'],
    ['numOutputBytes', 'bytes written'],
  ].filter(([k]) => m[k] !== undefined).map(([k, label]) => `${m[k]} ${label}`);
  return said.join(', ');
}

function History({ full }) {
  const load = (token) => page(path('tables', full, 'delta', 'history'), 'commits', {}, token);
  return html`<${Paged} load=${load} deps=${[full]} empty="The log holds no commits."
    render=${(commits) => (commits.length ? html`<table class="grid"><caption class="visually-hidden">History</caption>
      <thead><tr><th scope="col">Version</th><th scope="col">Time</th><th scope="col">Operation</th>
        <th scope="col">By</th><th scope="col">Files</th><th scope="col">Metrics</th></tr></thead>
      <tbody>${commits.map((c) => {
        const info = c.commit_info || {};
        return html`<tr><td>${c.version}</td><td>${when(c.timestamp)}</td><td>${info.operation || ''}</td>
          <td>${info.userName || info.userId || info.engineInfo || info.clientVersion || ''}</td>
          <td>+${c.num_added_files} −${c.num_removed_files}</td><td>${metrics(info)}</td></tr>`;
      })}</tbody></table>` : null)} />`;
}

export function DeltaTab({ full }) {
  const [summary, error] = useAnswer(() => get(path('tables', full, 'delta')), [full]);
  if (error) return html`<${ErrorNote} error=${error} />`;
  if (!summary) return html`<p class="muted" aria-live="polite">Loading…</p>`;
  const { protocol = {}, metadata = {} } = summary;
  return html`<section aria-label="Delta table">
    <${Fields} rows=${[
      ['Version', summary.version], ['Committed', when(summary.timestamp)],
      ['Last checkpoint', summary.checkpoint_version],
      ['Files', summary.num_files], ['Size', bytes(summary.size_in_bytes)],
      ['Protocol', `reader ${protocol.minReaderVersion}, writer ${protocol.minWriterVersion}`],
      ['Table features', features(protocol)],
      ['Partitioned by', (metadata.partitionColumns || []).join(', ')],
      ['Table id', metadata.id],
    ]} />
    <${Schema} metadata=${metadata} />
    <h2>Configuration</h2><${Properties} properties=${metadata.configuration} />
    <h2>History</h2><${History} full=${full} />
  </section>`;
}

function cell(value) {
  if (value === null || value === undefined) return html`<span class="muted">null</span>`;
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

export function PreviewTab({ full }) {
  const [preview, error] = useAnswer(() => get(path('tables', full, 'delta', 'preview'), { max_rows: 50 }), [full]);
  if (error) return html`<${ErrorNote} error=${error} />`;
  if (!preview) return html`<p class="muted" aria-live="polite">Loading…</p>`;
  const skipped = preview.files_skipped
    ? ` ${preview.files_skipped} file(s) were not read (too large, or with deleted rows).` : '';
  return html`<section aria-label="Sample data">
    <p class="muted">The first ${preview.rows.length} rows of version ${preview.version}, from ${preview.files_read} file(s),
      decoded by the server.${preview.truncated ? ' The table has more.' : ''}${skipped}</p>
    <div class="wide"><table class="grid"><caption>Sample data</caption>
      <thead><tr>${preview.columns.map((c) => html`<th scope="col">${c.name}<br /><small>${typeText(c.type)}</small></th>`)}</tr></thead>
      <tbody>${preview.rows.map((r) => html`<tr>${r.map((v) => html`<td>${cell(v)}</td>`)}</tr>`)}</tbody>
    </table></div>
  </section>`;
}
