// SPDX-License-Identifier: Apache-2.0
// Sharing: what a share holds (add and remove tables, schemas and
// volumes), which recipients may read it, recipients with their tokens
// (the activation link shown once, rotation with a grace period), and
// providers with their shares.
import { html, useState } from './vendor/preact-htm.js';
import { call, get, page, path } from './api.js';
import { href } from './kinds.js';
import { ActionForm, Dialog, ErrorNote, Field, Paged, useAnswer, when } from './ui.js';

function ObjectRow({ share, o, onChanged }) {
  const [error, setError] = useState(null);
  const remove = async () => {
    try {
      await call('PATCH', path('shares', share), { body: { updates: [{ action: 'REMOVE', data_object: { name: o.name, data_object_type: o.data_object_type } }] } });
      onChanged();
    } catch (e) {
      setError(e);
    }
  };
  return html`<tr><td>${o.name}</td><td>${o.data_object_type}</td><td>${o.shared_as || ''}</td>
    <td>${o.history_data_sharing_status === 'ENABLED' ? 'yes' : 'no'}</td><td>${o.enable_cdf ? 'yes' : 'no'}</td>
    <td>${o.start_version ?? ''}</td><td>${(o.partitions || []).map((p) => JSON.stringify(p.values || p)).join(' ')}</td>
    <td><button type="button" class="danger" aria-label=${`Remove ${o.name}`} onClick=${remove}>Remove</button>
      <${ErrorNote} error=${error} /></td></tr>`;
}

const OBJECT_TYPES = ['TABLE', 'SCHEMA', 'VOLUME', 'AGENT_SKILL'];

// "region=EU, year=2024" a line: each line one partition the share
// exposes, its columns equal to the values.
function partitionsOf(text) {
  return (text || '').split('\n').map((l) => l.trim()).filter(Boolean).map((line) => ({
    values: line.split(',').map((pair) => {
      const at = pair.indexOf('=');
      return { name: pair.slice(0, at).trim(), op: 'EQUAL', value: pair.slice(at + 1).trim() };
    }),
  }));
}

function AddObject({ share, onChanged }) {
  const submit = (form) => {
    const o = {
      name: (form.get('object_name') || '').trim(),
      data_object_type: form.get('object_type'),
    };
    const sharedAs = (form.get('shared_as') || '').trim();
    if (sharedAs) o.shared_as = sharedAs;
    if (o.data_object_type === 'TABLE') {
      o.history_data_sharing_status = form.get('history') ? 'ENABLED' : 'DISABLED';
      if (form.get('cdf')) o.enable_cdf = true;
      const start = (form.get('start_version') || '').trim();
      if (start) o.start_version = Number(start);
      const partitions = partitionsOf(form.get('partitions'));
      if (partitions.length) o.partitions = partitions;
    }
    return call('PATCH', path('shares', share), { body: { updates: [{ action: 'ADD', data_object: o }] } });
  };
  const [key, setKey] = useState(0);
  return html`<div class="editor" key=${key}><h3>Add to the share</h3>
    <${ActionForm} submit=${submit} onDone=${() => { setKey(key + 1); onChanged(); }} onCancel=${() => setKey(key + 1)} label="Add">
      <div class="field"><label for="object_type">Type</label>
        <select id="object_type" name="object_type">${OBJECT_TYPES.map((t) => html`<option value=${t}>${t}</option>`)}</select></div>
      <${Field} name="object_name" label="Full name" required hint="catalog.schema.table, catalog.schema or catalog.schema.volume" />
      <${Field} name="shared_as" label="Shared as" hint="schema.table as recipients see it; optional." />
      <div class="check"><input type="checkbox" id="history" name="history" value="1" />
        <label for="history">Share the history (time travel and the change data feed)</label></div>
      <div class="check"><input type="checkbox" id="cdf" name="cdf" value="1" />
        <label for="cdf">Share the change data feed</label></div>
      <${Field} name="start_version" label="Start version" hint="The first version recipients may read; optional." />
      <${Field} name="partitions" label="Partitions" multiline hint="Only these partitions are shared: column=value, column=value a line; empty: all." />
    <//>
  </div>`;
}

export function SharedObjects({ full }) {
  const [share, error, reload] = useAnswer(() => get(path('shares', full), { include_shared_data: true }), [full]);
  if (error) return html`<${ErrorNote} error=${error} />`;
  if (!share) return html`<p class="muted" aria-live="polite">Loading…</p>`;
  const objects = share.objects || [];
  return html`<section aria-label="Shared objects">
    ${objects.length ? html`<table class="grid"><caption>What the share holds</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Shared as</th><th scope="col">History</th>
        <th scope="col">CDF</th><th scope="col">Start version</th><th scope="col">Partitions</th><th scope="col">Action</th></tr></thead>
      <tbody>${objects.map((o) => html`<${ObjectRow} share=${full} o=${o} onChanged=${reload} />`)}</tbody></table>`
      : html`<p class="muted">The share holds nothing yet.</p>`}
    <${AddObject} share=${full} onChanged=${reload} />
  </section>`;
}

export function ShareRecipients({ full }) {
  const [perms, error, reload] = useAnswer(() => get(path('shares', full, 'permissions')), [full]);
  const [note, setNote] = useState(null);
  const change = async (e, verb) => {
    e.preventDefault();
    const recipient = (new FormData(e.target.form).get('recipient') || '').trim();
    try {
      await call('PATCH', path('shares', full, 'permissions'), { body: { changes: [{ principal: recipient, [verb]: ['SELECT'] }] } });
      setNote(null);
      reload();
    } catch (err) {
      setNote(err);
    }
  };
  const list = perms ? perms.privilege_assignments || [] : [];
  return html`<section aria-label="Recipients of the share">
    <${ErrorNote} error=${error} />
    ${list.length ? html`<table class="grid"><caption>Recipients who may read it</caption>
      <thead><tr><th scope="col">Recipient</th><th scope="col">Privileges</th></tr></thead>
      <tbody>${list.map((a) => html`<tr><td>${a.principal}</td><td>${a.privileges.join(', ')}</td></tr>`)}</tbody></table>`
      : html`<p class="muted">No recipient may read it.</p>`}
    <form class="editor" onSubmit=${(e) => e.preventDefault()}><h3>Grant or revoke a recipient</h3>
      <div class="field"><label for="share-recipient">Recipient</label><input id="share-recipient" name="recipient" autocomplete="off" /></div>
      <${ErrorNote} error=${note} />
      <div class="actions"><button type="submit" class="primary" onClick=${(e) => change(e, 'add')}>Grant SELECT</button>
        <button type="submit" onClick=${(e) => change(e, 'remove')}>Revoke</button></div>
    </form>
  </section>`;
}

// A recipient's activation link, shown once: the server shows it only in
// the answer that made the token, and the console keeps it nowhere else.
export function ActivationLink({ url }) {
  const [copied, setCopied] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(url);
      setCopied('Copied.');
    } catch (e) {
      setCopied('Copying is not allowed here: select the link and copy it.');
    }
  };
  return html`<div class="secret" role="region" aria-label="Activation link">
    <p><strong>The activation link, shown this once.</strong> Send it to the recipient over a channel you
      trust: whoever opens it first gets the recipient's credentials.</p>
    <input aria-label="Activation link" readonly value=${url} onFocus=${(e) => e.target.select()} />
    <div class="actions"><button type="button" class="primary" onClick=${copy}>Copy the link</button>
      <span role="status">${copied}</span></div>
  </div>`;
}

export function CreateRecipientDialog({ onClose, onDone }) {
  const [made, setMade] = useState(null);
  const submit = (form) => call('POST', '/recipients', {
    body: { name: (form.get('name') || '').trim(), comment: form.get('comment') || undefined, authentication_type: 'TOKEN' },
  });
  if (made) {
    const url = (made.tokens || []).map((t) => t.activation_url).find(Boolean);
    return html`<${Dialog} title=${`Recipient ${made.name} made`} onClose=${() => onDone(made)}>
      ${url ? html`<${ActivationLink} url=${url} />` : html`<p>The server gave no activation link.</p>`}
      <div class="actions"><button type="button" onClick=${() => onDone(made)}>Done</button></div>
    <//>`;
  }
  return html`<${Dialog} title="New recipient" onClose=${onClose}>
    <${ActionForm} submit=${submit} onDone=${setMade} onCancel=${onClose} label="Create">
      <${Field} name="name" label="Name" required />
      <${Field} name="comment" label="Comment" multiline />
    <//>
  <//>`;
}

// A provider from the profile file it sent: the file is a secret (it
// holds the bearer token), sealed by the server and never shown again.
export function CreateProviderDialog({ onClose, onDone }) {
  const submit = (form) => call('POST', '/providers', {
    body: {
      name: (form.get('name') || '').trim(), comment: form.get('comment') || undefined,
      authentication_type: 'TOKEN', recipient_profile_str: form.get('profile') || '',
    },
  });
  return html`<${Dialog} title="New provider" onClose=${onClose}>
    <${ActionForm} submit=${submit} onDone=${onDone} onCancel=${onClose} label="Create">
      <${Field} name="name" label="Name" required />
      <div class="field"><label for="provider-profile">Profile file (required)</label>
        <textarea id="provider-profile" name="profile" rows="5" autocomplete="off" spellcheck="false"></textarea>
        <small>The JSON the provider sent. It holds a secret: the server seals it and never shows it again.</small></div>
      <${Field} name="comment" label="Comment" multiline />
    <//>
  <//>`;
}

export function RotateDialog({ full, onClose, onDone }) {
  const [made, setMade] = useState(null);
  const submit = (form) => call('POST', path('recipients', full, 'rotate-token'), {
    body: { existing_token_expire_in_seconds: Number(form.get('grace') || 0) },
  });
  if (made) {
    const url = (made.tokens || []).map((t) => t.activation_url).find(Boolean);
    return html`<${Dialog} title=${`New token for ${full}`} onClose=${() => onDone(made)}>
      ${url ? html`<${ActivationLink} url=${url} />` : null}
      <div class="actions"><button type="button" onClick=${() => onDone(made)}>Done</button></div>
    <//>`;
  }
  return html`<${Dialog} title=${`Rotate the token of ${full}`} onClose=${onClose}>
    <${ActionForm} submit=${submit} onDone=${setMade} onCancel=${onClose} label="Rotate">
      <p>A new token is made, with a new activation link. The current token keeps working for the grace
        period you give (0: it stops at once).</p>
      <${Field} name="grace" label="Grace period in seconds" value="3600" />
    <//>
  <//>`;
}

export function RecipientTokens({ object }) {
  const tokens = object.tokens || [];
  return html`<table class="grid"><caption>Tokens</caption>
    <thead><tr><th scope="col">Token</th><th scope="col">Made</th><th scope="col">Expires</th></tr></thead>
    <tbody>${tokens.map((t) => html`<tr><td>${t.id}</td><td>${when(t.created_at)}</td>
      <td>${t.expiration_time ? when(t.expiration_time) : 'never'}</td></tr>`)}</tbody></table>`;
}

export function ProviderShares({ full }) {
  const [shares, error] = useAnswer(() => get(path('providers', full, 'shares')), [full]);
  if (error) return html`<${ErrorNote} error=${error} />`;
  if (!shares) return html`<p class="muted" aria-live="polite">Loading…</p>`;
  const list = shares.shares || [];
  return list.length ? html`<ul>${list.map((s) => html`<li>${s.name}</li>`)}</ul>`
    : html`<p class="muted">The provider shares nothing with this metastore.</p>`;
}

// The shares a recipient may read (those the caller may see).
export function RecipientShares({ full }) {
  const load = (token) => page(path('recipients', full, 'share-permissions'), 'permissions_out', {}, token);
  return html`<${Paged} load=${load} deps=${[full]} empty="It may read no share (that you may see)."
    render=${(items) => (items.length ? html`<table class="grid"><caption>Shares it may read</caption>
      <thead><tr><th scope="col">Share</th><th scope="col">Privileges</th></tr></thead>
      <tbody>${items.map((s) => html`<tr><td><a href=${href('share', s.share_name)}>${s.share_name}</a></td>
        <td>${s.privilege_assignments.flatMap((a) => a.privileges).join(', ')}</td></tr>`)}</tbody></table>` : null)} />`;
}
