// SPDX-License-Identifier: Apache-2.0
// The console's small parts. Everything the API says is rendered as text
// by Preact (never as markup), so a name or comment holding HTML shows as
// what it is.
import { html, useEffect, useLayoutEffect, useRef, useState } from './vendor/preact-htm.js';

export function when(ms) {
  if (ms === null || ms === undefined || ms === '') return '';
  const d = new Date(Number(ms));
  return Number.isNaN(d.getTime()) ? String(ms) : d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

export function ErrorNote({ error }) {
  if (!error) return null;
  const why = error.status === 403 ? 'Not allowed: ' : error.status === 404 ? 'Not found: ' : '';
  return html`<p class="error" role="alert">${why}${error.message}</p>`;
}

// A definition list of the fields that have a value.
export function Fields({ rows }) {
  const shown = rows.filter(([, v]) => v !== null && v !== undefined && v !== '');
  return html`<dl class="fields">${shown.map(([k, v]) => html`
    <div><dt>${k}</dt><dd>${v}</dd></div>`)}</dl>`;
}

export function Properties({ properties }) {
  const entries = Object.entries(properties || {});
  if (!entries.length) return html`<p class="muted">No properties.</p>`;
  return html`<table class="grid"><caption class="visually-hidden">Properties</caption>
    <thead><tr><th scope="col">Key</th><th scope="col">Value</th></tr></thead>
    <tbody>${entries.map(([k, v]) => html`<tr><td>${k}</td><td>${String(v)}</td></tr>`)}</tbody>
  </table>`;
}

// Links to the tabs of a page; the current one is marked for readers.
export function Tabs({ tabs, current }) {
  return html`<nav class="tabs" aria-label="Views of this object"><ul>
    ${tabs.map(([id, label, to]) => html`<li>
      <a href=${to} aria-current=${id === current ? 'page' : undefined}>${label}</a></li>`)}
  </ul></nav>`;
}

// Keyset pages of a list: the first on mount, more on demand (never the
// whole list: catalogs of 10^5 objects stay fast).
export function Paged({ load, render, empty, deps }) {
  const [items, setItems] = useState([]);
  const [next, setNext] = useState(null);
  const [state, setState] = useState('loading');
  const [error, setError] = useState(null);
  const more = async (token) => {
    setState('loading');
    try {
      const p = await load(token);
      setItems((old) => (token ? old.concat(p.items) : p.items));
      setNext(p.next);
      setError(null);
    } catch (e) {
      setError(e);
    }
    setState('done');
  };
  // Asked as the list is put on the page, not a frame later.
  useLayoutEffect(() => { setItems([]); more(null); }, deps || []);
  return html`<div class="paged">
    ${render(items)}
    ${state === 'done' && !error && !items.length ? html`<p class="muted">${empty}</p>` : null}
    <${ErrorNote} error=${error} />
    ${state === 'loading' ? html`<p class="muted" aria-live="polite">Loading…</p>` : null}
    ${state === 'done' && next ? html`<button type="button" class="more" onClick=${() => more(next)}>Show more</button>` : null}</div>`;
}

// One call's answer for a page: [value, error, reload].
export function useAnswer(fetcher, deps) {
  const [value, setValue] = useState(null);
  const [error, setError] = useState(null);
  const [round, setRound] = useState(0);
  useLayoutEffect(() => {
    let live = true;
    setValue(null);
    setError(null);
    fetcher().then((v) => live && setValue(v), (e) => live && setError(e));
    return () => { live = false; };
  }, [...deps, round]);
  return [value, error, () => setRound((r) => r + 1)];
}

// A modal dialog (the platform's <dialog>: focus kept inside, Escape closes).
export function Dialog({ title, onClose, children }) {
  const ref = useRef(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    const cancel = (e) => { e.preventDefault(); onClose(); };
    d.addEventListener('cancel', cancel);
    return () => d.removeEventListener('cancel', cancel);
  }, []);
  return html`<dialog ref=${ref} aria-labelledby="dialog-title">
    <h2 id="dialog-title">${title}</h2>
    ${children}
  </dialog>`;
}

// A form that calls the API on submit, shows the refusal in words, and
// reports success to its owner.
export function ActionForm({ submit, onDone, onCancel, label, danger, children }) {
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const onSubmit = async (e) => {
    e.preventDefault();
    setBusy(true);
    try {
      const result = await submit(new FormData(e.target));
      setError(null);
      onDone(result);
    } catch (err) {
      setError(err);
    }
    setBusy(false);
  };
  return html`<form onSubmit=${onSubmit} novalidate>
    ${children}
    <${ErrorNote} error=${error} />
    <div class="actions">
      <button type="submit" class=${danger ? 'danger' : 'primary'} disabled=${busy}>${label}</button>
      <button type="button" onClick=${onCancel}>Cancel</button>
    </div>
  </form>`;
}

export function Field({ name, label, value, required, hint, multiline }) {
  const id = `field-${name}`;
  return html`<div class="field">
    <label for=${id}>${label}${required ? ' (required)' : ''}</label>
    ${multiline
      ? html`<textarea id=${id} name=${name} rows="3">${value || ''}</textarea>`
      : html`<input id=${id} name=${name} value=${value || ''} required=${required} autocomplete="off" />`}
    ${hint ? html`<small>${hint}</small>` : null}
  </div>`;
}
