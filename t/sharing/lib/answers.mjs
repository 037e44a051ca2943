// SPDX-License-Identifier: Apache-2.0
// The lines of a /query or /changes answer as the clients take them
// apart: protocol, metaData, then only the line types the clients accept
// (anything else is a problem: Python raises KeyError, Spark "Unexpected
// Line"), each file with the members its reader needs; and the file
// actions they carry, alike for both formats.
import { parsed } from './http.mjs'

const PARQUET_FILE = ['url', 'id', 'partitionValues', 'size']
const DELTA_ADD = ['path', 'partitionValues', 'size', 'modificationTime', 'dataChange']

function lacking(object, keys) {
  return keys.filter(k => object?.[k] === undefined)
}

// Line 1 and 2: the protocol and the metaData action (in the delta format
// inside their wrappers), or a problem.
function head(lines, format, problems) {
  const protocol = parsed(lines[0])?.protocol
  const meta = parsed(lines[1])?.metaData
  if (format === 'delta') {
    if (!protocol?.deltaProtocol || !meta?.deltaMetadata)
      problems.push('delta format: the first lines are not protocol.deltaProtocol and metaData.deltaMetadata: '
                    + lines.slice(0, 2).join(' ').slice(0, 200))
    return meta?.deltaMetadata
  }
  if (!protocol || !(protocol.minReaderVersion <= 3))
    problems.push(`parquet format: line 1 is no protocol a client reads: ${String(lines[0]).slice(0, 100)}`)
  const missing = lacking(meta, ['id', 'format', 'schemaString', 'partitionColumns'])
  if (missing.length) problems.push(`parquet format: line 2's metaData lacks ${missing.join(', ')}`)
  return meta
}

function fileOf(kind, body, id, version, timestamp, url) {
  return {
    kind, url, id, size: body.size, partitionValues: body.partitionValues,
    dv: body.deletionVector || null, version, timestamp,
  }
}

// A delta-format `file` line: the action it wraps, with its URL.
function deltaFile(file, problems, n) {
  const single = file.deltaSingleAction || {}
  const kinds = ['add', 'remove', 'cdc'].filter(k => single[k])
  if (kinds.length !== 1 || !file.id) {
    problems.push(`line ${n}: a file line without an id or one add, remove or cdc`)
    return null
  }
  const body = single[kinds[0]]
  const missing = lacking(body, kinds[0] === 'add' ? DELTA_ADD : ['path', 'partitionValues', 'size'])
  if (missing.length) problems.push(`line ${n}: its ${kinds[0]} lacks ${missing.join(', ')}`)
  return fileOf(kinds[0], body, file.id, file.version, file.timestamp, body.path)
}

// The files of a snapshot answer (lines without the endStreamAction).
export function snapshotFiles(lines, format, problems) {
  const meta = head(lines, format, problems)
  const files = []
  lines.slice(2).forEach((text, i) => {
    const file = parsed(text)?.file
    if (!file) return problems.push(`line ${i + 3}: not a file line: ${text.slice(0, 100)}`)
    if (format === 'delta') {
      const f = deltaFile(file, problems, i + 3)
      if (f && f.kind !== 'add') problems.push(`line ${i + 3}: a snapshot's file is a ${f.kind}`)
      return f && files.push(f)
    }
    const missing = lacking(file, PARQUET_FILE)
    if (missing.length) problems.push(`line ${i + 3}: its file lacks ${missing.join(', ')}`)
    files.push(fileOf('add', file, file.id, file.version, file.timestamp, file.url))
  })
  return { meta, files }
}

// The files of a change data feed answer, each with its version and
// timestamp (both clients require them).
export function changeFiles(lines, format, problems) {
  const meta = head(lines, format, problems)
  const files = []
  lines.slice(2).forEach((text, i) => {
    const line = parsed(text) || {}
    let f = null
    if (format === 'delta' && line.file) f = deltaFile(line.file, problems, i + 3)
    else if (format === 'delta' && Number.isInteger(line.metaData?.version)) return
    else if (format !== 'delta') {
      const kind = ['add', 'cdf', 'remove'].find(k => line[k])
      const body = line[kind]
      if (kind) f = fileOf(kind === 'cdf' ? 'cdc' : kind, body, body.id, body.version, body.timestamp, body.url)
    }
    if (!f) return problems.push(`line ${i + 3}: no change a client reads: ${text.slice(0, 100)}`)
    if (!Number.isInteger(f.version) || !Number.isInteger(f.timestamp))
      problems.push(`line ${i + 3}: a change without its version and timestamp`)
    files.push(f)
  })
  return { meta, files }
}

// The columns a change adds to its file's rows.
export function changeExtra(file) {
  return {
    _change_type: file.kind === 'cdc' ? undefined : file.kind === 'add' ? 'insert' : 'delete',
    _commit_version: file.version,
    _commit_timestamp: file.timestamp,
  }
}

// The responded format as clients read the capabilities header: absent,
// parquet; Python takes any mention of responseformat=delta as delta.
export function respondedFormat(res) {
  const caps = (res.headers.get('delta-sharing-capabilities') || '').toLowerCase()
  const m = /(?:^|;)responseformat=([^;]*)/.exec(caps)
  return m ? m[1] : 'parquet'
}

export function capability(res, key) {
  const caps = (res.headers.get('delta-sharing-capabilities') || '').toLowerCase()
  return new RegExp(`(?:^|;)${key}=([^;]*)`).exec(caps)?.[1]
}
