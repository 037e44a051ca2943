// SPDX-License-Identifier: Apache-2.0
// Storage governance: credentials (their secret fields are sent once and
// never shown again), external locations (the server's overlap refusals
// shown in place) and tag policies.
import { html, useState } from './vendor/preact-htm.js';
import { call, server } from './api.js';
import { ActionForm, Dialog, Field } from './ui.js';

const optional = (form, name) => {
  const v = (form.get(name) || '').trim();
  return v === '' ? undefined : v;
};

function TypeFields({ type }) {
  const spec = server.credential_types[type];
  if (!spec) return null;
  return html`<fieldset class="stack"><legend>${type} (${spec.cloud})</legend>
    ${spec.fields.map((f) => (f.secret
      ? html`<div class="field"><label for=${`cred-${f.name}`}>${f.name}${f.required ? ' (required)' : ''}</label>
          <input id=${`cred-${f.name}`} name=${`cred.${f.name}`} type="password" autocomplete="new-password" />
          <small>Secret: sealed by the server, never shown again.</small></div>`
      : html`<${Field} name=${`cred.${f.name}`} label=${`${f.name}${f.required ? '' : ' (optional)'}`} />`))}
  </fieldset>`;
}

export function CreateCredentialDialog({ onClose, onDone }) {
  const types = Object.keys(server.credential_types || {});
  const [type, setType] = useState(types[0]);
  const submit = (form) => {
    const details = {};
    for (const [k, v] of form.entries()) {
      if (k.startsWith('cred.') && String(v).trim() !== '') details[k.slice(5)] = String(v).trim();
    }
    return call('POST', '/credentials', {
      body: { name: optional(form, 'name'), comment: optional(form, 'comment'), purpose: 'STORAGE', [type]: details },
    });
  };
  return html`<${Dialog} title="New storage credential" onClose=${onClose}>
    <${ActionForm} submit=${submit} onDone=${onDone} onCancel=${onClose} label="Create">
      <${Field} name="name" label="Name" required />
      <div class="field"><label for="cred-type">Type</label>
        <select id="cred-type" value=${type} onChange=${(e) => setType(e.target.value)}>
          ${types.map((t) => html`<option value=${t}>${t} (${server.credential_types[t].cloud})</option>`)}</select></div>
      <${TypeFields} type=${type} />
      <${Field} name="comment" label="Comment" multiline />
    <//>
  <//>`;
}

export function CreateLocationDialog({ onClose, onDone }) {
  const submit = (form) => call('POST', '/external-locations', {
    body: {
      name: optional(form, 'name'), url: optional(form, 'url'), credential_name: optional(form, 'credential_name'),
      comment: optional(form, 'comment'), read_only: Boolean(form.get('read_only')),
    },
  });
  return html`<${Dialog} title="New external location" onClose=${onClose}>
    <${ActionForm} submit=${submit} onDone=${onDone} onCancel=${onClose} label="Create">
      <${Field} name="name" label="Name" required />
      <${Field} name="url" label="URL" required hint="s3://bucket/path, abfss://container@account/path, gs://bucket/path, or a local path" />
      <${Field} name="credential_name" label="Credential" hint="The storage credential that reaches it; none for local paths." />
      <div class="check"><input type="checkbox" id="read_only" name="read_only" value="1" />
        <label for="read_only">Read only</label></div>
      <${Field} name="comment" label="Comment" multiline />
    <//>
  <//>`;
}

export function CreateTagPolicyDialog({ onClose, onDone }) {
  const submit = (form) => {
    const values = (form.get('values') || '').split(',').map((v) => v.trim()).filter(Boolean);
    return call('POST', '/tag-policies', {
      body: { tag_key: optional(form, 'tag_key'), description: optional(form, 'description'), values: values.map((name) => ({ name })) },
    });
  };
  return html`<${Dialog} title="New tag policy" onClose=${onClose}>
    <${ActionForm} submit=${submit} onDone=${onDone} onCancel=${onClose} label="Create">
      <${Field} name="tag_key" label="Tag key" required />
      <${Field} name="description" label="Description" multiline />
      <${Field} name="values" label="Allowed values" hint="Separated by commas; none: any value." />
    <//>
  <//>`;
}
