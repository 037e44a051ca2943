// SPDX-License-Identifier: Apache-2.0
// What is attached to a securable besides its grants: governed tags
// (assigned and removed here; a tag policy may restrict who and which
// values) and ABAC policies (row filters and column masks the query
// engine enforces).
import { html, useState } from './vendor/preact-htm.js';
import { call, get, path } from './api.js';
import { kinds } from './kinds.js';
import { ActionForm, ErrorNote, Field, useAnswer } from './ui.js';

export function Tags({ kind, full }) {
  const entity = kinds[kind].tags;
  const [tags, error, reload] = useAnswer(() => get(path('entity-tag-assignments', entity, full, 'tags')), [full]);
  const [problem, setProblem] = useState(null);
  const [round, setRound] = useState(0);
  const remove = async (key) => {
    try {
      await call('DELETE', path('entity-tag-assignments', entity, full, 'tags', key));
      setProblem(null);
      reload();
    } catch (e) {
      setProblem(e);
    }
  };
  const add = (form) => call('POST', '/entity-tag-assignments', {
    body: {
      entity_type: entity, entity_name: full, tag_key: (form.get('tag_key') || '').trim(),
      tag_value: (form.get('tag_value') || '').trim() || undefined,
    },
  });
  const list = tags ? tags.tag_assignments || [] : [];
  return html`<div class="tags-of"><h2>Tags</h2>
    <${ErrorNote} error=${error || problem} />
    ${list.length ? html`<ul class="tags">${list.map((t) => html`<li><span class="tag">${t.tag_key}${t.tag_value ? `: ${t.tag_value}` : ''}
      <button type="button" class="link" aria-label=${`Remove the tag ${t.tag_key}`} onClick=${() => remove(t.tag_key)}>×</button></span></li>`)}</ul>`
      : html`<p class="muted">No tags.</p>`}
    <details class="inline" key=${round}><summary>Add a tag</summary>
      <${ActionForm} submit=${add} onDone=${() => { setRound(round + 1); reload(); }} onCancel=${() => setRound(round + 1)} label="Add tag">
        <${Field} name="tag_key" label="Tag key" required />
        <${Field} name="tag_value" label="Tag value" hint="Optional; a governed tag may allow only some." />
      <//>
    </details></div>`;
}

// The API's plural of a securable that policies may be defined on.
const policyScope = { catalog: 'catalogs', schema: 'schemas', table: 'tables' };
export const takesPolicies = (kind) => Boolean(policyScope[kind]);

const list = (text) => (text || '').split(',').map((v) => v.trim()).filter(Boolean);

function PolicyForm({ kind, full, onDone }) {
  const submit = (form) => {
    const type = form.get('policy_type');
    const fn = { function_name: (form.get('function_name') || '').trim(), using: list(form.get('using')).map((alias) => ({ alias })) };
    const match = (form.get('match_columns') || '').split('\n').filter((l) => l.includes(':')).map((l) => {
      const at = l.indexOf(':');
      return { alias: l.slice(0, at).trim(), condition: l.slice(at + 1).trim() };
    });
    const body = {
      name: (form.get('name') || '').trim(), policy_type: type, comment: form.get('comment') || undefined,
      to_principals: list(form.get('to_principals')), except_principals: list(form.get('except_principals')),
      when_condition: (form.get('when_condition') || '').trim() || undefined,
      match_columns: match,
      [type === 'POLICY_TYPE_ROW_FILTER' ? 'row_filter' : 'column_mask']: fn,
    };
    return call('POST', path('policies', policyScope[kind], full), { body });
  };
  return html`<details class="inline"><summary>New policy</summary>
    <${ActionForm} submit=${submit} onDone=${onDone} onCancel=${onDone} label="Create policy">
      <${Field} name="name" label="Name" required />
      <div class="field"><label for="policy_type">Type</label><select id="policy_type" name="policy_type">
        <option value="POLICY_TYPE_ROW_FILTER">Row filter</option><option value="POLICY_TYPE_COLUMN_MASK">Column mask</option></select></div>
      <${Field} name="function_name" label="Function" required hint="catalog.schema.function, of this catalog" />
      <${Field} name="using" label="Arguments" hint="Aliases bound below, separated by commas." />
      <${Field} name="match_columns" label="Columns" multiline hint="alias: condition, one a line, e.g. region: hasTag(&quot;region&quot;)" />
      <${Field} name="to_principals" label="Applies to" hint="Users and groups, separated by commas; none: everyone." />
      <${Field} name="except_principals" label="Except" hint="Users and groups, separated by commas." />
      <${Field} name="when_condition" label="When" hint="Optional condition, kept as written." />
      <${Field} name="comment" label="Comment" multiline />
    <//>
  </details>`;
}

export function PoliciesTab({ kind, full }) {
  const base = path('policies', policyScope[kind], full);
  const [answer, error, reload] = useAnswer(() => get(base, { include_inherited: kind === 'table' ? true : undefined }), [full]);
  const [problem, setProblem] = useState(null);
  const [round, setRound] = useState(0);
  const remove = async (name) => {
    try {
      await call('DELETE', `${base}/${encodeURIComponent(name)}`);
      setProblem(null);
      reload();
    } catch (e) {
      setProblem(e);
    }
  };
  const policies = answer ? answer.policies || [] : [];
  const fn = (p) => (p.row_filter || p.column_mask || {}).function_name || '';
  return html`<section aria-label="Policies">
    <${ErrorNote} error=${error || problem} />
    ${policies.length ? html`<table class="grid"><caption>ABAC policies</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Function</th><th scope="col">Applies to</th>
        <th scope="col">Defined on</th><th scope="col">Action</th></tr></thead>
      <tbody>${policies.map((p) => html`<tr><td>${p.name}</td><td>${p.policy_type === 'POLICY_TYPE_ROW_FILTER' ? 'row filter' : 'column mask'}</td>
        <td>${fn(p)}</td><td>${(p.to_principals || []).join(', ') || 'everyone'}${(p.except_principals || []).length ? ` except ${p.except_principals.join(', ')}` : ''}</td>
        <td>${p.on_securable_fullname || full}</td>
        <td>${(p.on_securable_fullname || full) === full ? html`<button type="button" class="danger" aria-label=${`Delete the policy ${p.name}`} onClick=${() => remove(p.name)}>Delete</button>` : ''}</td></tr>`)}</tbody></table>`
      : html`<p class="muted">No policy governs it.</p>`}
    <${PolicyForm} kind=${kind} full=${full} key=${round} onDone=${() => { setRound(round + 1); reload(); }} />
  </section>`;
}
