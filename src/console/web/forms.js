// SPDX-License-Identifier: Apache-2.0
// Create, edit and delete, each through the catalog API as the caller;
// what the server refuses is shown in its words.
import { html } from './vendor/preact-htm.js';
import { call, path } from './api.js';
import { kinds } from './kinds.js';
import { ActionForm, Dialog, Field } from './ui.js';

// "key=value" lines, as the properties field takes them.
export function parseProperties(text) {
  const properties = {};
  for (const line of (text || '').split('\n')) {
    if (!line.trim()) continue;
    const at = line.indexOf('=');
    if (at < 1) throw new Error(`"${line}" is not key=value.`);
    properties[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return properties;
}

const showProperties = (p) => Object.entries(p || {}).map(([k, v]) => `${k}=${v}`).join('\n');

function optional(form, name) {
  const v = (form.get(name) || '').trim();
  return v === '' ? undefined : v;
}

// A catalog (parent null), a schema of the catalog `parent`, or a share.
export function CreateDialog({ kind, parent, onClose, onDone }) {
  const k = kinds[kind];
  const submit = (form) => {
    const body = { name: optional(form, 'name'), comment: optional(form, 'comment') };
    if (kind !== 'share') {
      body.storage_root = optional(form, 'storage_root');
      body.properties = parseProperties(form.get('properties'));
    }
    if (kind === 'schema') body.catalog_name = parent;
    return call('POST', `/${k.api}`, { body });
  };
  const inCatalog = kind === 'catalog' || kind === 'schema';
  return html`<${Dialog} title=${parent ? `New ${k.label.toLowerCase()} in ${parent}` : `New ${k.label.toLowerCase()}`} onClose=${onClose}>
    <${ActionForm} submit=${submit} onDone=${onDone} onCancel=${onClose} label="Create">
      <${Field} name="name" label="Name" required />
      <${Field} name="comment" label="Comment" multiline />
      ${inCatalog ? html`<${Field} name="storage_root" label="Storage root" hint="Where its managed tables and volumes go; optional." />
      <${Field} name="properties" label="Properties" multiline hint="One key=value a line." />` : null}
    <//>
  <//>`;
}

// An external table (its data where it already is) or a volume of the
// schema `parent`.
export function CreateInSchemaDialog({ kind, parent, onClose, onDone }) {
  const k = kinds[kind];
  const [catalog_name, schema_name] = parent.split('.');
  const submit = (form) => {
    const body = {
      catalog_name, schema_name, name: optional(form, 'name'), comment: optional(form, 'comment'),
      storage_location: optional(form, 'storage_location'),
    };
    if (kind === 'table') {
      Object.assign(body, { table_type: 'EXTERNAL', data_source_format: form.get('format'), columns: [] });
    } else {
      body.volume_type = body.storage_location ? 'EXTERNAL' : 'MANAGED';
    }
    return call('POST', `/${k.api}`, { body });
  };
  return html`<${Dialog} title=${`New ${kind === 'table' ? 'external table' : 'volume'} in ${parent}`} onClose=${onClose}>
    <${ActionForm} submit=${submit} onDone=${onDone} onCancel=${onClose} label="Create">
      <${Field} name="name" label="Name" required />
      ${kind === 'table' ? html`<div class="field"><label for="format">Format</label><select id="format" name="format">
        ${['DELTA', 'PARQUET', 'CSV', 'JSON', 'AVRO', 'ORC', 'TEXT'].map((f) => html`<option value=${f}>${f}</option>`)}</select>
        <small>A Delta table's columns come from its log.</small></div>` : null}
      <${Field} name="storage_location" label=${kind === 'table' ? 'Storage location' : 'Storage location (external volumes)'}
        required=${kind === 'table'} hint=${kind === 'table' ? 'Where its data is: s3://…, abfss://…, gs://… or a local path.' : 'Empty: a managed volume in the schema\'s storage.'} />
      <${Field} name="comment" label="Comment" multiline />
    <//>
  <//>`;
}

const editLabels = {
  new_name: ['Name', 'Renaming changes the full names of everything inside.'],
  comment: ['Comment'],
  owner: ['Owner', 'A user or group name.'],
  properties: ['Properties', 'One key=value a line; the set replaces the current one.'],
};

export function EditDialog({ kind, full, object, onClose, onDone }) {
  const k = kinds[kind];
  const submit = (form) => {
    const body = {};
    for (const name of k.edit) {
      const raw = form.get(name);
      if (name === 'properties') {
        const next = parseProperties(raw);
        if (showProperties(next) !== showProperties(object.properties)) body.properties = next;
      } else if (name === 'new_name') {
        if (raw.trim() && raw.trim() !== object.name) body.new_name = raw.trim();
      } else if ((raw || '') !== (object[name] || '')) {
        body[name] = raw;
      }
    }
    return call('PATCH', path(k.api, full), { body });
  };
  return html`<${Dialog} title=${`Edit ${k.label.toLowerCase()} ${full}`} onClose=${onClose}>
    <${ActionForm} submit=${submit} onDone=${onDone} onCancel=${onClose} label="Save">
      ${k.edit.map((name) => html`<${Field} name=${name} label=${editLabels[name][0]}
        hint=${editLabels[name][1]} multiline=${name === 'comment' || name === 'properties'}
        value=${name === 'new_name' ? object.name : name === 'properties' ? showProperties(object.properties) : object[name]} />`)}
    <//>
  <//>`;
}

// What deleting does, said before it happens (the API's `force`).
const forceText = {
  catalog: 'Also delete every schema and every table, volume, function and model in them (force=true). Without it, the server refuses to delete a catalog that still holds schemas.',
  schema: 'Also delete every table, volume, function and model in it (force=true). Without it, the server refuses to delete a schema that is not empty.',
};

export function DeleteDialog({ kind, full, onClose, onDone }) {
  const k = kinds[kind];
  const submit = (form) => call('DELETE', path(k.api, full),
    { query: { force: form.get('force') ? 'true' : undefined } });
  return html`<${Dialog} title=${`Delete ${k.label.toLowerCase()} ${full}?`} onClose=${onClose}>
    <${ActionForm} submit=${submit} onDone=${onDone} onCancel=${onClose} label="Delete" danger>
      <p>The catalog forgets it and its grants and tags. The data files of external tables and
      volumes stay where they are in storage.</p>
      ${forceText[kind] ? html`<div class="check"><input type="checkbox" id="force" name="force" value="1" />
        <label for="force">${forceText[kind]}</label></div>` : null}
    <//>
  <//>`;
}
