// SPDX-License-Identifier: Apache-2.0
// The permissions tab of a securable: its grants, the effective
// privileges with where each comes from, and for its owner or a holder of
// MANAGE an editor over the privileges its type takes.
import { html, useState } from './vendor/preact-htm.js';
import { call, get, path, server } from './api.js';
import { href, kinds } from './kinds.js';
import { ErrorNote, useAnswer } from './ui.js';

function Grants({ grants }) {
  if (!grants.length) return html`<p class="muted">No grants on it.</p>`;
  return html`<table class="grid"><caption>Grants</caption>
    <thead><tr><th scope="col">Principal</th><th scope="col">Privileges</th></tr></thead>
    <tbody>${grants.map((g) => html`<tr><td>${g.principal}</td><td>${g.privileges.join(', ')}</td></tr>`)}</tbody>
  </table>`;
}

const kindOfSecurable = Object.fromEntries(Object.entries(kinds).map(([k, v]) => [v.securable, k]));

function From({ p }) {
  if (!p.inherited_from_type) return 'granted here';
  const kind = kindOfSecurable[p.inherited_from_type];
  const name = p.inherited_from_name;
  return kind ? html`<a href=${href(kind, name)}>${p.inherited_from_type} ${name}</a>` : `${p.inherited_from_type} ${name || ''}`;
}

function Effective({ assignments }) {
  const rows = assignments.flatMap((a) => a.privileges.map((p) => [a.principal, p]));
  if (!rows.length) return html`<p class="muted">Nobody holds a privilege on it (owners and metastore admins need none).</p>`;
  return html`<table class="grid"><caption>Effective privileges</caption>
    <thead><tr><th scope="col">Principal</th><th scope="col">Privilege</th><th scope="col">From</th></tr></thead>
    <tbody>${rows.map(([who, p]) => html`<tr><td>${who}</td><td>${p.privilege}</td><td><${From} p=${p} /></td></tr>`)}</tbody>
  </table>`;
}

function Editor({ securable, full, onChanged }) {
  const [error, setError] = useState(null);
  const [done, setDone] = useState('');
  const choices = server.privileges[securable] || [];
  const apply = async (e, verb) => {
    e.preventDefault();
    const form = new FormData(e.target.form);
    const principal = (form.get('principal') || '').trim();
    const privileges = form.getAll('privilege');
    setDone('');
    try {
      if (!principal) throw new Error('Name the user or group first.');
      if (!privileges.length) throw new Error('Choose at least one privilege.');
      await call('PATCH', path('permissions', securable, full),
        { body: { changes: [{ principal, [verb]: privileges }] } });
      setError(null);
      setDone(`${verb === 'add' ? 'Granted' : 'Revoked'} ${privileges.join(', ')} ${verb === 'add' ? 'to' : 'from'} ${principal}.`);
      onChanged();
    } catch (err) {
      setError(err);
    }
  };
  return html`<form class="editor" onSubmit=${(e) => e.preventDefault()}>
    <h3>Grant or revoke</h3>
    <div class="field"><label for="grant-principal">User or group</label>
      <input id="grant-principal" name="principal" autocomplete="off" /></div>
    <fieldset><legend>Privileges on this ${securable.replace('_', ' ')}</legend>
      ${choices.map((p) => html`<div class="check">
        <input type="checkbox" name="privilege" value=${p} id=${`priv-${p}`} />
        <label for=${`priv-${p}`}>${p}</label></div>`)}
    </fieldset>
    <${ErrorNote} error=${error} />
    ${done ? html`<p class="ok" role="status">${done}</p>` : null}
    <div class="actions">
      <button type="submit" class="primary" onClick=${(e) => apply(e, 'add')}>Grant</button>
      <button type="submit" onClick=${(e) => apply(e, 'remove')}>Revoke</button>
    </div>
  </form>`;
}

export function PermissionsTab({ kind, full, object }) {
  const securable = kinds[kind].securable;
  const [grants, grantsError, reloadGrants] = useAnswer(() => get(path('permissions', securable, full)), [full]);
  const [effective, effectiveError, reloadEffective] = useAnswer(() => get(path('effective-permissions', securable, full)), [full]);
  const [forced, setForced] = useState(false);
  const mine = (effective?.privilege_assignments || []).find((a) => a.principal === server.user);
  const manages = object.owner === server.user ||
    (mine && mine.privileges.some((p) => p.privilege === 'MANAGE' || p.privilege === 'ALL PRIVILEGES'));
  const reload = () => { reloadGrants(); reloadEffective(); };
  return html`<section aria-label="Permissions">
    <${ErrorNote} error=${grantsError || effectiveError} />
    ${grants ? html`<${Grants} grants=${grants.privilege_assignments || []} />` : null}
    ${effective ? html`<${Effective} assignments=${effective.privilege_assignments || []} />` : null}
    ${manages || forced
      ? html`<${Editor} securable=${securable} full=${full} onChanged=${reload} />`
      : html`<p class="muted">Grants are changed by the owner (${object.owner}), a holder of MANAGE or a
          metastore admin. <button type="button" class="link" onClick=${() => setForced(true)}>I am a metastore admin</button></p>`}
  </section>`;
}
