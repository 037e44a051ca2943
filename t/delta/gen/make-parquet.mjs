// SPDX-License-Identifier: Apache-2.0
// make-parquet.mjs -- Delta-checkpoint-shaped Parquet test files for the C Parquet reader.
//
//   t/delta/gen/run.sh make-parquet.mjs OUTDIR
//
// Writes, for each variant NAME below, OUTDIR/NAME.parquet and OUTDIR/NAME.expected.jsonl (one
// line per row: the Delta JSON commit line of the row's action, conventions in
// dump-parquet.mjs/lib/json.mjs; int64 values span the full int64 range and are written as exact
// integer literals), plus OUTDIR/manifest.json: per file the writer, the requested settings and
// what the file really contains (codecs, page types, data-page encodings and, per column, the
// "PAGE_TYPE:ENCODING" pairs and page count, read back from the page headers), rows, row groups.
//
// Every file holds the same 5000 seeded rows (exactly one action column non-null per row; the
// same content in every variant, so a failure points at an encoding, not at data): several
// protocol/metaData rows, runs of add/remove, txn, domainMetadata; null vs empty maps, null map
// values, null and empty lists, null list elements, structs present with every field null,
// unicode/escape-heavy strings, one 90 KB value (larger than a page), int64/int32 extremes and
// negative numbers (adjacent INT64_MIN / INT64_MAX values exercise DELTA_BINARY_PACKED
// wrap-around). These are Parquet-reader test files, not consistent table snapshots.
//
// Variants (writer parquet-wasm unless noted; 2 KiB data pages checked every 32 rows, 2 KiB
// dictionary limit so that big chunks fall back from the dictionary mid-chunk, row groups of
// 1500 rows, the last one shorter):
// * CODEC-vPAGEVERSION-dict for each codec UNCOMPRESSED SNAPPY GZIP ZSTD LZ4_RAW BROTLI and
//   page version 1 and 2;
// * plain-v1-nodict-*: PLAIN everywhere; delta-v2-nodict-*: DELTA_BINARY_PACKED (ints),
//   DELTA_BYTE_ARRAY (strings), RLE (booleans);
// * required-*: the REQUIRED leaves of lib/checkpoint-schema.mjs (as parquet-mr 1.8 / delta-rs);
// * duckdb-v1-nodict-CODEC (every codec) and duckdb-v1-dict-snappy: DuckDB re-encoding of
//   uncompressed-v1-dict.parquet: DELTA_LENGTH_BYTE_ARRAY and DELTA_BINARY_PACKED in v1 DATA_PAGEs
//   (the dict variant mixes in RLE_DICTIONARY), `key_value` map groups, one page per chunk,
//   2048-row row groups.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { CHECKPOINT, REQUIRED_LEAVES, checkpointTable } from './lib/checkpoint-schema.mjs'
import { reencodeWithDuckdb } from './lib/duckdb.mjs'
import { describeParquet } from './lib/inspect.mjs'
import { renderJson } from './lib/json.mjs'
import { Random } from './lib/random.mjs'
import { CODECS, writeParquet } from './lib/write-parquet.mjs'

const ROWS = 5000
const SEED = 20240601
// DuckDB re-encodes the first variant's file (PARQUET_VERSION v2 encodings, always v1 pages).
const DUCKDB = { duckdbFrom: 'uncompressed-v1-dict', pageVersion: 1, rowGroupRows: 2048 }
const SMALL_PAGES = { dataPageBytes: 2048, dictionaryPageBytes: 2048, writeBatchRows: 32, rowGroupRows: 1500 }

const VARIANTS = [
  ...CODECS.flatMap(codec => [1, 2].map(pageVersion =>
    ({ name: `${codec.toLowerCase()}-v${pageVersion}-dict`, codec, pageVersion, dictionary: true }))),
  { name: 'plain-v1-nodict-snappy', codec: 'SNAPPY', pageVersion: 1, dictionary: false },
  { name: 'plain-v1-nodict-zstd', codec: 'ZSTD', pageVersion: 1, dictionary: false },
  { name: 'delta-v2-nodict-uncompressed', codec: 'UNCOMPRESSED', pageVersion: 2, dictionary: false },
  { name: 'delta-v2-nodict-snappy', codec: 'SNAPPY', pageVersion: 2, dictionary: false },
  { name: 'delta-v2-nodict-zstd', codec: 'ZSTD', pageVersion: 2, dictionary: false },
  { name: 'required-v1-dict-snappy', codec: 'SNAPPY', pageVersion: 1, dictionary: true, required: true },
  { name: 'required-v2-nodict-gzip', codec: 'GZIP', pageVersion: 2, dictionary: false, required: true },
  ...CODECS.map(codec => ({ name: `duckdb-v1-nodict-${codec.toLowerCase()}`, codec, dictionary: false, ...DUCKDB })),
  { name: 'duckdb-v1-dict-snappy', codec: 'SNAPPY', dictionary: true, ...DUCKDB },
]

// --- values ----------------------------------------------------------------------------------

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const INT64_EDGES = [INT64_MIN, INT64_MAX, INT64_MIN + 1n, INT64_MAX - 1n, -1n, 0n, 1n,
  2n ** 53n + 1n, -(2n ** 53n) - 1n, 2n ** 32n, -(2n ** 31n) - 1n, 2n ** 62n]
const INT32_EDGES = [-(2 ** 31), 2 ** 31 - 1, -1, 0, 1, -128, 65535]
const TEXTS = ['', 'plain ascii', 'Zürich Straße', 'naïve café', '日本語のテキスト', '한국어', 'עברית ← rtl',
  'emoji 🚀🧪👩‍👩‍👧', 'combining e\u0301 a\u0308', 'quote " backslash \\ slash /', 'tab\tnewline\ncr\r',
  'control \u0001\u001f\u007f', 'json {"a":[1,2]}', 'long '.repeat(60)]
const MAP_KEYS = ['p', 'part', 'year', 'städte', '日付', 'key with spaces', 'k=v/%2F', 'x'.repeat(40), '']
const Z85 = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#'

const long = (r, typical) => r.chance(0.04) ? r.pick(INT64_EDGES) : BigInt(typical)
const int = (r, typical) => r.chance(0.04) ? r.pick(INT32_EDGES) : typical
const maybe = (r, p, make) => r.chance(p) ? make() : undefined
const text = r => r.chance(0.7) ? `${r.pick(['a', 'b', 'c', 'dir/sub'])}-${r.hex(r.int(1, 12))}` : r.pick(TEXTS)
const z85 = (r, length) => Array.from({ length }, () => r.pick(Z85)).join('')

function stringMap(r) {
  const roll = r.next()
  if (roll < 0.15) return undefined
  if (roll < 0.3) return {}
  const map = {}
  for (let n = r.int(1, 4); n > 0; n--) map[r.pick(MAP_KEYS)] = r.chance(0.12) ? null : text(r)
  return map
}

function stringList(r, words) {
  const roll = r.next()
  if (roll < 0.15) return undefined
  if (roll < 0.3) return []
  return Array.from({ length: r.int(1, 5) }, () => r.chance(0.1) ? null : r.pick(words))
}

function filePath(r) {
  const dir = r.pick(['', '', 'p=1/', 'p=__HIVE_DEFAULT_PARTITION__/', 'städte=Zürich/', 'x=A%252FA/',
    'date=2024-01-01/h=07/'])
  return `${dir}part-${String(r.int(0, 99999)).padStart(5, '0')}-${r.uuid()}-c000.snappy.parquet`
}

function statsJson(r) {
  const count = r.int(1, 100000)
  const wide = r.chance(0.1) ? `,"comment":${JSON.stringify(r.pick(TEXTS))}` : ''
  return `{"numRecords":${count},"minValues":{"id":${r.int(-1e6, 0)},"value":"${r.hex(6)}"}` +
    `,"maxValues":{"id":${r.int(0, 1e6)},"value":"${r.hex(6)}"},"nullCount":{"id":0,"value":${r.int(0, count)}}${wide}}`
}

function deletionVector(r) {
  const storageType = r.pick(['u', 'u', 'i', 'p'])
  const pathOrInlineDv = { u: () => `${r.hex(2)}${z85(r, 20)}`, i: () => z85(r, r.int(10, 60)),
    p: () => `file:///data/table/deletion_vector_${r.uuid()}.bin` }[storageType]()
  return {
    storageType,
    pathOrInlineDv,
    offset: storageType === 'i' ? undefined : int(r, r.int(1, 1 << 20)),
    sizeInBytes: int(r, r.int(30, 4000)),
    cardinality: long(r, r.int(1, 100000)),
  }
}

// --- actions ---------------------------------------------------------------------------------

const ACTIONS = {
  add: (r, i) => ({
    path: filePath(r),
    partitionValues: stringMap(r),
    size: long(r, r.int(400, 2 ** 40)),
    modificationTime: long(r, 1700000000000 + i * 997),
    dataChange: r.chance(0.5),
    stats: maybe(r, 0.8, () => statsJson(r)),
    tags: stringMap(r),
    deletionVector: maybe(r, 0.2, () => deletionVector(r)),
    baseRowId: maybe(r, 0.3, () => long(r, r.int(0, 2 ** 40))),
    defaultRowCommitVersion: maybe(r, 0.3, () => long(r, r.int(0, 5000))),
  }),
  remove: (r, i) => ({
    path: filePath(r),
    deletionTimestamp: maybe(r, 0.9, () => long(r, 1700000000000 + i * 1009)),
    dataChange: r.chance(0.7),
    extendedFileMetadata: maybe(r, 0.7, () => r.chance(0.5)),
    partitionValues: stringMap(r),
    size: maybe(r, 0.7, () => long(r, r.int(400, 2 ** 40))),
    deletionVector: maybe(r, 0.1, () => deletionVector(r)),
  }),
  txn: r => ({
    appId: r.chance(0.7) ? r.uuid() : r.pick(TEXTS),
    version: long(r, r.int(0, 1e9)),
    lastUpdated: maybe(r, 0.7, () => long(r, 1700000000000 + r.int(0, 1e9))),
  }),
  metaData: r => ({
    id: maybe(r, 0.9, () => r.uuid()),
    name: maybe(r, 0.6, () => r.pick(TEXTS)),
    description: maybe(r, 0.4, () => r.pick(TEXTS)),
    format: maybe(r, 0.9, () => ({ provider: maybe(r, 0.9, () => 'parquet'), options: stringMap(r) })),
    schemaString: maybe(r, 0.9, () => schemaString(r)),
    partitionColumns: stringList(r, MAP_KEYS),
    configuration: stringMap(r),
    createdTime: maybe(r, 0.8, () => long(r, 1600000000000 + r.int(0, 1e11))),
  }),
  protocol: r => ({
    minReaderVersion: int(r, r.int(1, 3)),
    minWriterVersion: int(r, r.int(2, 7)),
    readerFeatures: stringList(r, ['deletionVectors', 'columnMapping', 'v2Checkpoint', 'timestampNtz']),
    writerFeatures: stringList(r, ['deletionVectors', 'domainMetadata', 'rowTracking', 'inCommitTimestamp']),
  }),
  domainMetadata: r => ({
    domain: maybe(r, 0.95, () => r.pick(['delta.clustering', 'delta.rowTracking', 'app.ü', text(r)])),
    configuration: maybe(r, 0.9, () => JSON.stringify({ clusteringColumns: [[r.pick(MAP_KEYS)]], note: r.pick(TEXTS) })),
    removed: maybe(r, 0.9, () => r.chance(0.3)),
  }),
}

const KIND_WEIGHTS = [['add', 0.55], ['remove', 0.25], ['txn', 0.06], ['domainMetadata', 0.05],
  ['metaData', 0.04], ['protocol', 0.05]]

function schemaString(r) {
  const fields = ['id', 'value', r.pick(MAP_KEYS)].map((name, i) =>
    ({ name, type: ['long', 'string', 'integer'][i], nullable: r.chance(0.5), metadata: {} }))
  return JSON.stringify({ type: 'struct', fields })
}

/** Hand-picked rows first (the edge cases must be present whatever the seed), then seeded runs. */
function fixedRows() {
  return [
    { protocol: { minReaderVersion: 3, minWriterVersion: 7, readerFeatures: ['deletionVectors', 'v2Checkpoint'],
      writerFeatures: ['deletionVectors', 'domainMetadata', 'rowTracking'] } },
    { metaData: {
      id: 'f0e1d2c3-b4a5-4697-8877-665544332211',
      name: 'tëst table',
      format: { provider: 'parquet', options: {} },
      schemaString: '{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]}',
      partitionColumns: [],
      configuration: { 'delta.enableDeletionVectors': 'true', 'delta.x': null },
      createdTime: 1700000000000n,
    } },
    ...[INT64_MAX, INT64_MIN, INT64_MAX, INT64_MIN, 0n, -1n].map((size, i) => ({ add: {
      path: `extreme-${i}.parquet`, size, modificationTime: -size - 1n, dataChange: i % 2 === 0 } })),
    { metaData: {} },
    { metaData: { format: {}, partitionColumns: [null], configuration: { k: null } } },
    { protocol: { minReaderVersion: INT32_EDGES[0], minWriterVersion: INT32_EDGES[1], readerFeatures: [],
      writerFeatures: [null, 'x', null] } },
    { txn: { appId: '', version: INT64_MIN } },
    { domainMetadata: {} },
    { add: { path: 'maps-empty.parquet', partitionValues: {}, size: 1n, modificationTime: 1n, dataChange: true,
      tags: {} } },
    { add: { path: 'maps-null-values.parquet', partitionValues: { p: null, q: '' }, size: 2n, modificationTime: 2n,
      dataChange: false, tags: { a: null } } },
    { remove: { path: 'remove-minimal.parquet', dataChange: false } },
    { add: { path: 'huge-stats.parquet', size: 3n, modificationTime: 3n, dataChange: true,
      stats: `{"numRecords":1,"comment":"${'Ω€𝄞'.repeat(10000)}"}` } },
  ]
}

function generateRows(count, seed) {
  const r = new Random(seed)
  const rows = fixedRows()
  while (rows.length < count) {
    const kind = weightedKind(r)
    for (let run = r.int(1, r.chance(0.2) ? 120 : 12); run > 0 && rows.length < count; run--) {
      rows.push({ [kind]: ACTIONS[kind](r, rows.length) })
    }
  }
  return rows
}

function weightedKind(r) {
  let roll = r.next()
  for (const [kind, weight] of KIND_WEIGHTS) {
    roll -= weight
    if (roll < 0) return kind
  }
  return KIND_WEIGHTS[0][0]
}

// --- files -----------------------------------------------------------------------------------

async function writeVariant(outDir, variant, rows) {
  const { name, ...requested } = variant.duckdbFrom ? variant : { ...SMALL_PAGES, ...variant }
  const file = path.join(outDir, `${name}.parquet`)
  if (requested.duckdbFrom) {
    await reencodeWithDuckdb(path.join(outDir, `${requested.duckdbFrom}.parquet`), file, requested)
  } else {
    const table = checkpointTable(rows, requested.required ? REQUIRED_LEAVES : new Set())
    writeFileSync(file, writeParquet(table, requested))
  }
  const expected = rows.map(row => `${renderJson(CHECKPOINT, row)}\n`).join('')
  writeFileSync(path.join(outDir, `${name}.expected.jsonl`), expected)
  const bytes = readFileSync(file)
  return { file: `${name}.parquet`, expected: `${name}.expected.jsonl`, bytes: bytes.length, requested,
    ...describeParquet(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)) }
}

async function main(args) {
  if (args.length !== 1) throw new Error('usage: make-parquet.mjs OUTDIR')
  const outDir = args[0]
  mkdirSync(outDir, { recursive: true })
  const rows = generateRows(ROWS, SEED)
  const files = []
  for (const variant of VARIANTS) files.push(await writeVariant(outDir, variant, rows))
  writeFileSync(path.join(outDir, 'manifest.json'), `${JSON.stringify({ rows: ROWS, seed: SEED, files }, null, 1)}\n`)
  process.stderr.write(`make-parquet: ${files.length} files in ${outDir}\n`)
}

main(process.argv.slice(2)).catch(err => {
  process.stderr.write(`make-parquet: ${err.stack ?? err}\n`)
  process.exit(1)
})
