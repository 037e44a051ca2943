// SPDX-License-Identifier: Apache-2.0
// The requests of the official Python client (delta_sharing 1.1.0,
// rest_client.py, delta_sharing.py, reader.py), as it sends them and as
// strictly as it reads the answers: SharingClient's lists, a
// DeltaSharingReader's autoresolved snapshot (GET /metadata asking for
// delta or parquet, then POST /query in the format answered), and
// table_changes. The caller turns the files into rows.
import { changeFiles, respondedFormat, snapshotFiles } from './answers.mjs'
import { linesOf, parsed, refusal, request } from './http.mjs'

const USER_AGENT = 'Delta-Sharing-Python/1.1.0 pandas/2.2.3 PyArrow/18.1.0 Python/3.11.2 '
  + 'System/Linux-6.1.0-x86_64-with-glibc2.36'
const SNAPSHOT_FEATURES = 'readerfeatures=deletionvectors,columnmapping,timestampntz'
const CDF_FEATURES = 'readerfeatures=deletionvectors,columnmapping'

// What the client raises on: an HTTP error, or no Delta-Table-Version
// (LookupError); null for an answer it reads.
function raised(res) {
  if (res.status !== 200) return refusal(res)
  return res.headers.has('delta-table-version') ? null : 'no Delta-Table-Version (LookupError)'
}

// json.dumps as requests calls it: ", " and ": " between members.
function pythonJson(data) {
  return `{${Object.entries(data).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(', ')}}`
}

export class PythonClient {
  constructor(profile) {
    this.endpoint = profile.endpoint.replace(/\/$/, '')
    this.token = profile.bearerToken
  }

  headers(extra = {}) {
    return { 'User-Agent': USER_AGENT, Authorization: `Bearer ${this.token}`, ...extra }
  }

  get(target, params = {}, extra) {
    const query = new URLSearchParams(params).toString()
    return request('GET', `${this.endpoint}${target}${query ? `?${query}` : ''}`, { headers: this.headers(extra) })
  }

  // One page of a list: the first line is the whole JSON document.
  async listPage(target, params, problems) {
    const res = await this.get(target, params)
    const page = res.status === 200 ? parsed(linesOf(res.text)[0]) : undefined
    if (!page) problems.push(`GET ${target}: ${refusal(res)}`)
    return page || {}
  }

  // A list walked as SharingClient walks it: until the token is missing
  // or "" (maxResults only when the caller of rest_client gives one).
  async walk(target, problems, maxResults) {
    const names = []
    let token
    for (let pages = 0; pages < 1000; pages++) {
      const params = {}
      if (maxResults !== undefined) params.maxResults = maxResults
      if (token !== undefined) params.pageToken = token
      const page = await this.listPage(target, params, problems)
      names.push(...(page.items || []).map(i => i.schema ? `${i.schema}.${i.name}` : i.name))
      token = page.nextPageToken
      if (token === undefined || token === null || token === '') return names
    }
    problems.push(`GET ${target}: no last page`)
    return names
  }

  tablePath(table) {
    return `/shares/${table.share}/schemas/${table.schema}/tables/${table.name}`
  }

  // autoresolve_query_format: GET /metadata (no version) asking for both.
  async autoresolve(table, problems) {
    const res = await this.get(`${this.tablePath(table)}/metadata`, {}, {
      'delta-sharing-capabilities': `responseformat=delta,parquet;${SNAPSHOT_FEATURES}`,
    })
    if (raised(res)) {
      problems.push(`autoresolve: ${raised(res)}`)
      return null
    }
    return (res.headers.get('delta-sharing-capabilities') || '').includes('delta') ? 'delta' : 'parquet'
  }

  // DeltaSharingReader(version=…, timestamp=…).to_pandas(): the files of
  // a snapshot; `at` holds the options given ({} for the latest).
  async snapshot(table, at, problems) {
    const format = await this.autoresolve(table, problems)
    if (!format) return null
    const res = await request('POST', `${this.endpoint}${this.tablePath(table)}/query`, {
      headers: this.headers({
        'Content-Type': 'application/json',
        ...format === 'delta' ? { 'delta-sharing-capabilities': `responseformat=delta;${SNAPSHOT_FEATURES}` } : {},
      }),
      body: pythonJson(at),
    })
    return this.answer(res, format, snapshotFiles, problems)
  }

  // table_changes(startingVersion) in the format a reader must ask for.
  async changes(table, startingVersion, format, problems) {
    const res = await this.get(`${this.tablePath(table)}/changes`, { startingVersion }, format === 'delta'
      ? { 'delta-sharing-capabilities': `responseformat=delta;${CDF_FEATURES}` } : {})
    return this.answer(res, format, changeFiles, problems)
  }

  answer(res, format, filesOf, problems) {
    if (raised(res)) {
      problems.push(`${res.url.replace(this.endpoint, '')}: ${raised(res)}`)
      return null
    }
    const answered = respondedFormat(res) === 'delta' ? 'delta' : 'parquet'
    if (answered !== format) problems.push(`asked for ${format}, answered in ${answered}`)
    const { meta, files } = filesOf(linesOf(res.text), answered, problems)
    return { format: answered, version: Number(res.headers.get('delta-table-version')), meta, files }
  }
}
