// SPDX-License-Identifier: Apache-2.0
// Operations: the metastore, and the server's metrics (unicat-status,
// where UnicatConsoleMetrics says and the user may read them) as a few
// plain charts: requests a second, by API and status, latency, and the
// caches' hit rates. The metrics are read every 5 seconds while the page
// is open; nothing is kept once it closes.
import { html, useEffect, useState } from './vendor/preact-htm.js';
import { get, server } from './api.js';
import { ErrorNote, Fields, useAnswer } from './ui.js';

const EVERY_MS = 5000;
const KEPT = 60;

// Prometheus' text format: [name, labels, value] for every sample.
export function parseMetrics(text) {
  const samples = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels = {};
    for (const [, k, v] of (m[2] || '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[k] = v;
    samples.push([m[1], labels, Number(m[3])]);
  }
  return samples;
}

const total = (samples, name, pick = () => true) =>
  samples.filter(([n, l]) => n === name && pick(l)).reduce((a, [, , v]) => a + v, 0);

function summarize(samples) {
  const byApi = {};
  for (const [n, l, v] of samples) {
    if (n !== 'unicat_requests_total') continue;
    byApi[l.api] = byApi[l.api] || {};
    byApi[l.api][l.code] = (byApi[l.api][l.code] || 0) + v;
  }
  const buckets = {};
  for (const [n, l, v] of samples) {
    if (n === 'unicat_request_duration_seconds_bucket') buckets[l.le] = (buckets[l.le] || 0) + v;
  }
  const rate = (hits, all) => (all ? hits / all : null);
  const snapHits = total(samples, 'unicat_delta_snapshot_cache_hits_total');
  const snapAll = snapHits + total(samples, 'unicat_delta_snapshot_cache_advances_total') +
    total(samples, 'unicat_delta_snapshot_cache_misses_total');
  const vendHits = total(samples, 'unicat_vended_credential_cache_hits_total');
  return {
    requests: total(samples, 'unicat_requests_total'),
    byApi,
    buckets: Object.entries(buckets).sort((a, b) => Number(a[0]) - Number(b[0])),
    caches: [
      ['Delta snapshots', rate(snapHits, snapAll)],
      ['Vended credentials', rate(vendHits, vendHits + total(samples, 'unicat_vended_credential_cache_misses_total'))],
    ],
  };
}

// Horizontal bars, with the numbers beside them for every reader.
function Bars({ title, rows, format = String }) {
  const max = Math.max(1, ...rows.map(([, v]) => v || 0));
  return html`<figure class="chart"><figcaption>${title}</figcaption>
    <table class="bars"><tbody>${rows.map(([label, v]) => html`<tr><th scope="row">${label}</th>
      <td><span class="bar" style=${{ width: `${Math.round(((v || 0) / max) * 100)}%` }}></span></td>
      <td class="num">${v === null ? 'no use yet' : format(v)}</td></tr>`)}</tbody></table></figure>`;
}

function Sparkline({ points }) {
  if (points.length < 2) return html`<p class="muted">Measuring: a rate needs two readings, 5 seconds apart.</p>`;
  const peak = Math.max(...points);
  const scale = Math.max(1, peak);
  const d = points.map((v, i) => `${(i / (KEPT - 1)) * 300},${60 - (v / scale) * 56}`).join(' ');
  const last = points[points.length - 1];
  return html`<figure class="chart"><figcaption>Requests a second, last ${Math.round((points.length * EVERY_MS) / 1000)} s: now ${last.toFixed(1)}, peak ${peak.toFixed(1)}</figcaption>
    <svg viewBox="0 0 300 60" width="300" height="60" role="img" aria-label=${`Requests a second: now ${last.toFixed(1)}`}>
      <polyline points=${d} fill="none" stroke="currentColor" stroke-width="2" /></svg></figure>`;
}

function useMetrics() {
  const [state, setState] = useState({ samples: null, error: null, rates: [] });
  useEffect(() => {
    let last = null;
    let live = true;
    const read = async () => {
      try {
        const r = await fetch(server.metrics, { credentials: 'same-origin', cache: 'no-store' });
        if (!r.ok) throw new Error(`The metrics answered ${r.status}: the server's configuration does not let you read them.`);
        const samples = parseMetrics(await r.text());
        const now = { at: Date.now(), requests: total(samples, 'unicat_requests_total') };
        if (!live) return;
        setState((s) => ({
          samples, error: null,
          rates: last ? s.rates.concat([(now.requests - last.requests) / ((now.at - last.at) / 1000)]).slice(-KEPT) : s.rates,
        }));
        last = now;
      } catch (e) {
        if (live) setState((s) => ({ ...s, error: e }));
      }
    };
    read();
    const timer = setInterval(read, EVERY_MS);
    return () => { live = false; clearInterval(timer); };
  }, []);
  return state;
}

function Metrics() {
  const { samples, error, rates } = useMetrics();
  if (error) return html`<${ErrorNote} error=${error} />`;
  if (!samples) return html`<p class="muted" aria-live="polite">Loading…</p>`;
  const s = summarize(samples);
  const count = s.requests;
  const under = (le) => (s.buckets.find(([b]) => b === le) || [0, 0])[1];
  const share = (n) => `${count ? Math.round((n / count) * 100) : 0}%`;
  return html`<div><p>${count} requests answered since the server started.</p>
    <${Sparkline} points=${rates} />
    <${Bars} title="Requests by API and status" rows=${Object.entries(s.byApi).flatMap(([api, codes]) =>
      Object.entries(codes).sort().map(([code, v]) => [`${api} ${code}`, v]))} />
    <${Bars} title="Answered within" format=${share}
      rows=${['0.001', '0.005', '0.01', '0.05', '0.1', '1'].map((le) => [`${Number(le) * 1000} ms`, under(le)])} />
    <${Bars} title="Cache hit rates" format=${(v) => `${Math.round(v * 100)}%`} rows=${s.caches} /></div>`;
}

export function OperationsPage() {
  const [summary, error] = useAnswer(() => get('/metastore_summary'), []);
  return html`<div class="page"><div class="title"><h1>Operations</h1></div>
    <${ErrorNote} error=${error} />
    <h2>Metastore</h2>
    ${summary ? html`<${Fields} rows=${Object.entries(summary).filter(([, v]) => typeof v !== 'object').map(([k, v]) => [k, String(v)])} />` : null}
    <h2>Metrics</h2>
    ${server.metrics ? html`<${Metrics} />`
      : html`<p class="muted">The metrics are not shown here: set UnicatConsoleMetrics to the path of unicat-status.</p>`}</div>`;
}
