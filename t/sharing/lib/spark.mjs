// SPDX-License-Identifier: Apache-2.0
// The requests of the official Spark client (DeltaSharingClient.scala),
// configured as a Delta Spark reader runs it: responseformat=delta with
// its reader features, pagination (maxFiles), endStreamAction asked for,
// refresh tokens for the latest snapshot; and, in its async
// configuration, asyncquery=true with an idempotency_key, polling
// /queries/{queryId} while the server answers a queryStatus line (a
// server that answers at once is compliant). Its checks are the
// client's: every answer 200 with Delta-Table-Version, the format one it
// asked for, exactly two metadata lines, the endStreamAction last when
// echoed, every page repeating the first's version, protocol and
// metaData byte for byte.
import { randomUUID } from 'node:crypto'
import { capability, changeFiles, respondedFormat, snapshotFiles } from './answers.mjs'
import { linesOf, parsed, refusal, request } from './http.mjs'

const READER_FEATURES = 'deletionVectors,columnMapping,timestampNtz,typeWidening-preview,typeWidening,'
  + 'variantType-preview,variantType,variantShredding-preview'
const POLL_MS = 100
const POLL_LIMIT_MS = 60000

// URLEncoder.encode: form encoding.
function javaEncode(s) {
  return encodeURIComponent(s).replace(/[!'()~]/g, c => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+')
}

class Refused extends Error {}

export class SparkClient {
  constructor(profile, { maxFiles, async = false }) {
    this.endpoint = profile.endpoint.replace(/\/$/, '')
    this.token = profile.bearerToken
    this.maxFiles = maxFiles
    this.async = async
  }

  capabilities(setIncludeEndStreamAction) {
    return ['responseformat=delta', `readerfeatures=${READER_FEATURES}`,
      ...this.async ? ['asyncquery=true'] : [],
      ...setIncludeEndStreamAction ? ['includeendstreamaction=true'] : []].join(';')
  }

  // getResponse: the request with the client's headers; a refusal unless
  // 200; the endStreamAction check when it asked for one.
  async send(method, target, body, setIncludeEndStreamAction) {
    const headers = {
      'User-Agent': `Delta-Sharing-Spark/1.3.6 Spark/3.5.3 QueryId-${randomUUID().split('-')[0]} Hadoop/3.3.4 `
        + 'Linux/6.1.0 java/17.0.13 scala/2.12.18',
      Authorization: `Bearer ${this.token}`,
      'delta-sharing-capabilities': this.capabilities(setIncludeEndStreamAction),
      ...body === undefined ? {} : { 'Content-type': 'application/json' },
    }
    const res = await request(method, `${this.endpoint}${target}`, { headers, body })
    if (res.status !== 200) throw new Refused(`${method} ${target.replace(/\?.*/, '')}: ${refusal(res)}`)
    const lines = linesOf(res.text)
    if (setIncludeEndStreamAction && capability(res, 'includeendstreamaction') === 'true') {
      const end = parsed(lines.at(-1))?.endStreamAction
      if (!end) throw new Refused(`${target}: includeendstreamaction=true echoed, the last line is no endStreamAction`)
      if (end.errorMessage) throw new Refused(`${target}: endStreamAction.errorMessage ${end.errorMessage}`)
    }
    const version = res.headers.get('delta-table-version')
    return { version: version === null ? undefined : Number(version), lines, format: respondedFormat(res), target }
  }

  // checkRespondedFormat: an answer of metadata, files or changes is in
  // the format asked for.
  static asked(r) {
    if (r.format !== 'delta') throw new Refused(`${r.target}: answered in ${r.format}, asked for delta`)
    return r
  }

  tablePath(table) {
    return `/shares/${javaEncode(table.share)}/schemas/${javaEncode(table.schema)}/tables/${javaEncode(table.name)}`
  }

  // listShares / listAllTablesInShare: no maxResults, until no token.
  async walk(target) {
    const names = []
    let token = ''
    do {
      const res = await request('GET', `${this.endpoint}${target}${token ? `?pageToken=${javaEncode(token)}` : ''}`, {
        headers: { Authorization: `Bearer ${this.token}` },
      })
      const page = res.status === 200 ? parsed(res.text.trim()) : undefined
      if (!page) throw new Refused(`GET ${target}: ${refusal(res)}`)
      names.push(...(page.items || []).map(i => i.schema ? `${i.schema}.${i.name}` : i.name))
      token = page.nextPageToken || ''
    } while (token)
    return names
  }

  // getTableVersion, as a snapshot of the latest version starts.
  async tableVersion(table, problems) {
    try {
      return (await this.send('GET', `${this.tablePath(table)}/version`)).version
    } catch (e) {
      if (!(e instanceof Refused)) throw e
      problems.push(e.message)
      return undefined
    }
  }

  async metadata(table, version) {
    const query = version === undefined ? '' : `?version=${version}`
    const r = SparkClient.asked(await this.send('GET', `${this.tablePath(table)}/metadata${query}`))
    if (r.version === undefined) throw new Refused('metadata: no Delta-Table-Version')
    if (r.lines.length !== 2) throw new Refused(`metadata: ${r.lines.length} lines, not 2`)
    return r
  }

  // The body of a snapshot query, members in QueryTableRequest's order,
  // absent options left out (Jackson's NON_ABSENT).
  queryBody({ version, pageToken, includeRefreshToken, refreshToken, key }) {
    const body = { predicateHints: [] }
    if (version !== undefined) body.version = version
    body.maxFiles = this.maxFiles
    if (pageToken !== undefined) body.pageToken = pageToken
    if (includeRefreshToken !== undefined) body.includeRefreshToken = includeRefreshToken
    if (refreshToken !== undefined) body.refreshToken = refreshToken
    if (key !== undefined) body.idempotency_key = key
    return body
  }

  // getNDJsonWithAsync: while the first line is a queryStatus, poll its
  // query; the result is then answered like a /query. Every answer, a
  // pending one too, has its Delta-Table-Version (getNDJsonPost).
  async untilDone(table, first) {
    let r = first
    let queryId
    for (const start = Date.now(); parsed(r.lines[0])?.queryStatus;) {
      if (r.version === undefined) throw new Refused(`${r.target}: a queryStatus without Delta-Table-Version`)
      const status = parsed(r.lines[0]).queryStatus
      if (!status.queryId || (queryId && status.queryId !== queryId))
        throw new Refused('queryStatus without its queryId, or with another')
      queryId = status.queryId
      if (Date.now() - start > POLL_LIMIT_MS)
        throw new Refused(`query ${queryId} still pending after ${POLL_LIMIT_MS} ms`)
      await new Promise(done => setTimeout(done, POLL_MS))
      r = await this.send('POST', `${this.tablePath(table)}/queries/${javaEncode(queryId)}`,
        JSON.stringify({ queryId, maxFiles: this.maxFiles }), false)
    }
    return { ...r, queryId }
  }

  // getFiles + getFilesByPage: every page fetched, checked against the
  // first, the endStreamAction stripped; the refresh token of page one.
  async files(table, { version, refreshToken } = {}, problems) {
    const options = {
      version, refreshToken, includeRefreshToken: version === undefined,
      key: this.async ? randomUUID() : undefined,
    }
    const target = `${this.tablePath(table)}/query`
    let r = await this.send('POST', target, JSON.stringify(this.queryBody(options)), !this.async)
    if (this.async) r = await this.untilDone(table, r)
    if (r.version === undefined) throw new Refused('query: no Delta-Table-Version')
    const first = SparkClient.asked(r)
    const all = []
    let pages = 0
    for (;;) {
      const end = parsed(r.lines.at(-1))?.endStreamAction
      if (!end) problems.push(`page ${pages + 1} of ${target} (maxFiles ${this.maxFiles}) ends without endStreamAction`)
      all.push(...(pages ? r.lines.slice(2) : r.lines).slice(0, end ? -1 : undefined))
      pages++
      if (!end?.nextPageToken) return { version: first.version, lines: all, pages,
                                         refreshToken: parsed(first.lines.at(-1))?.endStreamAction?.refreshToken }
      r = await this.nextPage(table, target, options, first, end.nextPageToken)
    }
  }

  async nextPage(table, target, options, first, pageToken) {
    const r = first.queryId
      ? await this.send('POST', `${this.tablePath(table)}/queries/${javaEncode(first.queryId)}`,
        JSON.stringify({ queryId: first.queryId, maxFiles: this.maxFiles, pageToken }), false)
      : await this.send('POST', target, JSON.stringify(this.queryBody({
        version: options.version, pageToken, key: options.key })), !this.async)
    samePage(r, first)
    return r
  }

  // getCDFFiles + getCDFFilesByPage: maxFiles and the raw page token
  // appended to the URL.
  async changes(table, startingVersion, problems) {
    const target = `${this.tablePath(table)}/changes?startingVersion=${startingVersion}`
    const first = SparkClient.asked(await this.send('GET', `${target}&maxFiles=${this.maxFiles}`, undefined, true))
    const all = []
    let r = first
    for (let pages = 0; ; pages++) {
      const end = parsed(r.lines.at(-1))?.endStreamAction
      if (!end) problems.push(`page ${pages + 1} of ${target} ends without endStreamAction`)
      all.push(...(pages ? r.lines.slice(2) : r.lines).slice(0, end ? -1 : undefined))
      if (!end?.nextPageToken) return { version: first.version ?? 0, lines: all }
      r = await this.send('GET', `${target}&maxFiles=${this.maxFiles}&pageToken=${end.nextPageToken}`, undefined, true)
      samePage(r, first)
    }
  }

  // A snapshot's files as the caller reads them.
  async snapshot(table, options, problems) {
    try {
      if (options.version !== undefined) await this.metadata(table, options.version)
      const r = await this.files(table, options, problems)
      const { meta, files } = snapshotFiles(r.lines, 'delta', problems)
      return { format: 'delta', version: r.version, meta, files, refreshToken: r.refreshToken, pages: r.pages }
    } catch (e) {
      if (!(e instanceof Refused)) throw e
      problems.push(e.message)
      return null
    }
  }

  async changeSet(table, startingVersion, problems) {
    try {
      const r = await this.changes(table, startingVersion, problems)
      const { meta, files } = changeFiles(r.lines, 'delta', problems)
      return { format: 'delta', version: r.version, meta, files }
    } catch (e) {
      if (!(e instanceof Refused)) throw e
      problems.push(e.message)
      return null
    }
  }
}

// fetchNextPageFiles: a later page must repeat the first's version,
// format, protocol and metaData lines exactly.
function samePage(r, first) {
  if (r.version !== first.version || r.format !== first.format || r.lines[0] !== first.lines[0]
      || r.lines[1] !== first.lines[1])
    throw new Refused(`a later page differs from the first in its version (${r.version}, ${first.version}), `
                      + 'format, protocol or metaData')
}
