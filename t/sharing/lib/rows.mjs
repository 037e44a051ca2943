// SPDX-License-Identifier: Apache-2.0
// The rows of files as a reader of the table gets them: the Parquet file
// decoded (hyparquet), the rows its deletion vector deletes dropped, the
// columns named as the table's schema names them (column mapping: the
// file and the partition values use physical names), the partition
// columns added from the partition values, and each row as canonical
// JSON so that two readings compare as multisets of strings.
import { compressors, parquetReadObjects } from './tools.mjs'
import { framedPositions, framedRange, inlinePositions } from './dv.mjs'
import { HttpError } from './http.mjs'

// A small first read: the footer alone, then the column chunks by range.
const FOOTER_READ = 4096
const PARALLEL_FILES = 4

// The table's columns from a metaData action: each with the name a
// reader shows, the name files and partition values use, and its type.
export function tableColumns(meta) {
  const schema = JSON.parse(meta.schemaString)
  const mode = (meta.configuration || {})['delta.columnMapping.mode'] || 'none'
  const partitions = new Set(meta.partitionColumns || [])
  return schema.fields.map(f => ({
    name: f.name,
    physical: mode === 'none' ? f.name : f.metadata?.['delta.columnMapping.physicalName'] ?? f.name,
    type: f.type,
    partition: partitions.has(f.name),
  }))
}

// A partition value as PROTOCOL.md serializes it, typed by its column
// ("" and null are null); the text itself when it does not parse.
function partitionValue(text, type) {
  if (text === null || text === undefined || text === '') return null
  try {
    switch (type) {
      case 'byte': case 'short': case 'integer': case 'float': case 'double': return Number(text)
      case 'long': return BigInt(text)
      case 'boolean': return text === 'true'
      case 'date': return new Date(`${text}T00:00:00Z`)
      case 'timestamp': case 'timestamp_ntz':
        return new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text.replace(' ', 'T')}Z`)
      default: return text
    }
  } catch {
    return text
  }
}

export function canonicalJson(v) {
  if (v === null || v === undefined) return 'null'
  if (typeof v === 'bigint') return v.toString()
  if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : `"${v}"`
  if (v instanceof Date) return JSON.stringify(Number.isNaN(v.getTime()) ? 'Invalid Date' : v.toISOString())
  if (v instanceof Uint8Array) return JSON.stringify(`b64:${Buffer.from(v).toString('base64')}`)
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`
  if (typeof v === 'object')
    return `{${Object.keys(v).sort().map(k => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(',')}}`
  return JSON.stringify(v)
}

// A decoded row of a file as the table's row: its columns by the
// physical name (else, as Python's reader does, the same name in another
// case), partition columns from the values keyed by `key` ('physical' in
// the delta format and the log, 'name' in the parquet format).
function tableRow(raw, columns, partitionValues, key, extra) {
  const lower = new Map(Object.keys(raw).map(k => [k.toLowerCase(), k]))
  const row = {}
  for (const c of columns) {
    if (c.partition && !(c.physical in raw)) {
      row[c.name] = partitionValue(partitionValues?.[c[key]], c.type)
      continue
    }
    const k = c.physical in raw ? c.physical : lower.get(c.physical.toLowerCase())
    row[c.name] = k === undefined ? null : raw[k]
  }
  for (const [name, value] of Object.entries(extra)) row[name] = value ?? raw[name] ?? null
  return row
}

// The positions a file's deletion vector deletes, read through `source`.
async function deletedPositions(dv, source) {
  if (!dv) return new Set()
  let positions
  if (dv.storageType === 'i') positions = inlinePositions(dv)
  else positions = framedPositions(new Uint8Array(await source.dvBytes(dv, ...framedRange(dv))), dv)
  if (dv.cardinality !== undefined && positions.size !== dv.cardinality)
    throw new Error(`its deletion vector holds ${positions.size} rows, its cardinality says ${dv.cardinality}`)
  return positions
}

// The canonical rows of one file action ({ url or path, size,
// partitionValues, dv, extra: columns a change adds }); a file the
// source does not have counts as one row that says so, by its size and
// partition values.
async function rowsOfFile(file, columns, key, source, tally) {
  let raw
  try {
    raw = await source.decoded(file, async () => parquetReadObjects({
      file: await source.data(file), compressors, initialFetchSize: FOOTER_READ,
    }))
  } catch (e) {
    if (!(e instanceof HttpError && e.status === 404) && e.code !== 'ENOENT') throw e
    return [canonicalJson({ missingFile: { size: file.size, partitionValues: file.partitionValues } })]
  }
  const deleted = await deletedPositions(file.dv, source)
  tally.files++
  tally.deleted += deleted.size
  return raw.filter((_, i) => !deleted.has(i))
    .map(r => canonicalJson(tableRow(r, columns, file.partitionValues, key, file.extra || {})))
}

// The canonical rows of files, sorted; what went wrong with any file is
// pushed to `problems` (naming it by `describe`).
export async function rowsOfFiles(files, columns, key, source, problems, tally) {
  const rows = []
  for (let i = 0; i < files.length; i += PARALLEL_FILES) {
    const batch = files.slice(i, i + PARALLEL_FILES)
    const results = await Promise.allSettled(batch.map(f => rowsOfFile(f, columns, key, source, tally)))
    results.forEach((r, j) => {
      if (r.status === 'fulfilled') rows.push(...r.value)
      else problems.push(`${source.describe(batch[j])}: ${r.reason?.message ?? r.reason}`)
    })
  }
  return rows.sort()
}

// Two multisets of rows: what is missing and what is extra, briefly.
export function rowDifferences(want, got) {
  const count = new Map()
  for (const r of want) count.set(r, (count.get(r) || 0) + 1)
  const extra = []
  for (const r of got) {
    if (count.get(r)) count.set(r, count.get(r) - 1)
    else extra.push(r)
  }
  const missing = [...count].flatMap(([r, n]) => Array(n).fill(r))
  const out = []
  if (missing.length) out.push(`${missing.length} rows missing, e.g. ${missing.slice(0, 2).join(' ')}`)
  if (extra.length) out.push(`${extra.length} rows extra, e.g. ${extra.slice(0, 2).join(' ')}`)
  return out
}
