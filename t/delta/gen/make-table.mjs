// SPDX-License-Identifier: Apache-2.0
// make-table.mjs -- a synthetic Delta table (log only, no data files) with a known snapshot at
// every version from the checkpoint on; also the performance-benchmark table.
//
//   t/delta/gen/run.sh make-table.mjs OUTDIR --files N --commits K
//       [--checkpoint classic|multipart:P|none] [--codec C] [--page-version 1|2] [--partitions]
//       [--partition-values N] [--seed S]
//
// Layout of OUTDIR/_delta_log (V = min(10, N) - 1):
// * commits 0..V add the N files in equal batches: 0 = commitInfo, protocol 1/2, metaData
//   (schemaString with id long, value string [, p integer], partitionColumns [] or ["p"]) and
//   the first batch; 1..V each remove ~3% of the live files (at least one) and add a batch;
// * a checkpoint at V (default classic `<V>.checkpoint.parquet`; multipart:P writes
//   `<V>.checkpoint.<i>.<P>.parquet`, i = 1..P, consecutive row ranges, each part with the full
//   schema; none writes no checkpoint) holding the reconciled state at V: protocol, metaData,
//   the live adds (dataChange false) and every remove so far as tombstones. Written with
//   parquet-wasm, codec --codec (UNCOMPRESSED SNAPPY GZIP ZSTD LZ4_RAW BROTLI, default SNAPPY),
//   --page-version 1|2 (default 1), dictionary on, default page/row-group limits;
// * `_last_checkpoint` {"version":V,"size":<checkpoint rows>[,"parts":P]} (absent with none);
// * K further commits V+1..V+K, each adding 1-10 files and removing 1-5 live ones; V+2 also
//   carries a new metaData (configuration changed) when K >= 2.
// Every commit starts with a commitInfo (never part of the state). Commit v has the mtime
// 1700000000000 + v * 60000 ms, the same as its commitInfo.timestamp and its adds'
// modificationTime. Paths: [p=<0..N-1>/ (N = --partition-values, default 10) or
// p=__HIVE_DEFAULT_PARTITION__/ with --partitions]
// part-<5 digits>-<uuid>-c000.snappy.parquet; each add carries a size and a stats JSON string.
// All numbers stay below 2^53. Output is a function of the arguments and --seed (default 1).
//
// OUTDIR/expected.json, computed by the generator while generating (not by reading the files):
//   { "latestVersion": V+K,
//     "checkpoint": { "version": V, "kind": "classic"|"multipart", "parts": P, "rows": n, "files": [...] } | null,
//     "versions": [ { "version", "timestamp", "numFiles", "numTombstones", "livePathsSha256",
//                     "addedPaths", "removedPaths", "protocol", "metaData" }, ... V..V+K ] }
// Paths are sorted (byte order; they are ASCII). live(v) = live(v-1) + addedPaths - removedPaths,
// starting from the empty set before the first entry, so the first entry's addedPaths is the
// full live list at V (with --checkpoint none the same versions V..V+K are listed). Full lists
// for every version would be ~130 MB for the 100,000-file table; instead each entry also has
// livePathsSha256 = hex SHA-256 of the sorted live paths, each followed by "\n".
// numTombstones counts all removes up to v (the checkpoint keeps them all).
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { CHECKPOINT, checkpointTable } from './lib/checkpoint-schema.mjs'
import { renderJson } from './lib/json.mjs'
import { Random } from './lib/random.mjs'
import { parseCodec, writeParquet } from './lib/write-parquet.mjs'

const FIRST_TIMESTAMP = 1700000000000
const COMMIT_INTERVAL = 60000
const MAX_CHECKPOINT_COMMITS = 10

const pad = (n, width) => String(n).padStart(width, '0')
const commitTimestamp = version => FIRST_TIMESTAMP + version * COMMIT_INTERVAL

// --- options ---------------------------------------------------------------------------------

function parseOptions(argv) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      files: { type: 'string' },
      commits: { type: 'string' },
      checkpoint: { type: 'string', default: 'classic' },
      codec: { type: 'string', default: 'SNAPPY' },
      'page-version': { type: 'string', default: '1' },
      partitions: { type: 'boolean', default: false },
      'partition-values': { type: 'string', default: '10' },
      seed: { type: 'string', default: '1' },
    },
  })
  if (positionals.length !== 1 || values.files === undefined || values.commits === undefined) {
    throw new Error('usage: make-table.mjs OUTDIR --files N --commits K [--checkpoint classic|multipart:P|none] ' +
      '[--codec C] [--page-version 1|2] [--partitions] [--partition-values N] [--seed S]')
  }
  const options = {
    outDir: positionals[0],
    files: count(values.files, '--files', 1),
    commits: count(values.commits, '--commits', 0),
    checkpoint: parseCheckpoint(values.checkpoint),
    codec: parseCodec(values.codec),
    pageVersion: Number(values['page-version']),
    partitions: values.partitions,
    partitionValues: count(values['partition-values'], '--partition-values', 1),
    seed: count(values.seed, '--seed', 0),
  }
  if (![1, 2].includes(options.pageVersion)) throw new Error('--page-version must be 1 or 2')
  return options
}

function count(text, name, min) {
  const n = Number(text)
  if (!Number.isSafeInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}`)
  return n
}

function parseCheckpoint(text) {
  if (text === 'classic' || text === 'none') return { kind: text, parts: 1 }
  const multipart = /^multipart:(\d+)$/.exec(text)
  if (multipart && Number(multipart[1]) >= 1) return { kind: 'multipart', parts: Number(multipart[1]) }
  throw new Error('--checkpoint must be classic, multipart:P or none')
}

// --- actions ---------------------------------------------------------------------------------

class TableGenerator {
  constructor({ seed, partitions, partitionValues }) {
    this.r = new Random(seed)
    this.partitions = partitions
    this.partitionValues = partitionValues
    this.live = new Map()
    this.tombstones = new Map()
    this.protocol = { minReaderVersion: 1, minWriterVersion: 2 }
    this.metaData = this.newMetaData({})
  }

  newMetaData(configuration) {
    const fields = [['id', 'long'], ['value', 'string'], ...this.partitions ? [['p', 'integer']] : []]
      .map(([name, type]) => ({ name, type, nullable: true, metadata: {} }))
    return {
      id: this.metaData?.id ?? this.r.uuid(),
      format: { provider: 'parquet', options: {} },
      schemaString: JSON.stringify({ type: 'struct', fields }),
      partitionColumns: this.partitions ? ['p'] : [],
      configuration,
      createdTime: BigInt(FIRST_TIMESTAMP),
    }
  }

  /** Adds `n` new files at `version`; returns the add actions. */
  addFiles(version, n) {
    const adds = []
    for (let i = 0; i < n; i++) {
      const add = this.newAdd(version)
      this.live.set(add.path, add)
      adds.push({ add })
    }
    return adds
  }

  newAdd(version) {
    const r = this.r
    const partition = this.partitions && !r.chance(0.05) ? String(r.int(0, this.partitionValues - 1)) : null
    const dir = this.partitions ? `p=${partition ?? '__HIVE_DEFAULT_PARTITION__'}/` : ''
    const records = r.int(1, 100000)
    const minId = r.int(0, 1e9)
    const [minValue, maxValue] = [r.hex(8), r.hex(8)].sort()
    return {
      path: `${dir}part-${pad(r.int(0, 99999), 5)}-${r.uuid()}-c000.snappy.parquet`,
      partitionValues: this.partitions ? { p: partition } : {},
      size: BigInt(r.int(1000, 5e8)),
      modificationTime: BigInt(commitTimestamp(version)),
      dataChange: true,
      stats: `{"numRecords":${records},"minValues":{"id":${minId},"value":"${minValue}"},` +
        `"maxValues":{"id":${minId + records - 1},"value":"${maxValue}"},"nullCount":{"id":0,"value":0}}`,
    }
  }

  /** Removes `n` random live files at `version`; returns the remove actions. */
  removeFiles(version, n) {
    const paths = [...this.live.keys()]
    const removes = []
    for (let i = 0; i < n && paths.length; i++) {
      const [victim] = paths.splice(this.r.int(0, paths.length - 1), 1)
      const { partitionValues, size } = this.live.get(victim)
      const remove = { path: victim, deletionTimestamp: BigInt(commitTimestamp(version)), dataChange: true,
        extendedFileMetadata: true, partitionValues, size }
      this.live.delete(victim)
      this.tombstones.set(victim, remove)
      removes.push({ remove })
    }
    return removes
  }

  checkpointRows() {
    return [
      { protocol: this.protocol },
      { metaData: this.metaData },
      ...[...this.live.values()].map(add => ({ add: { ...add, dataChange: false } })),
      ...[...this.tombstones.values()].map(remove => ({ remove })),
    ]
  }
}

// --- files -----------------------------------------------------------------------------------

function commitInfo(version, operation) {
  return JSON.stringify({ commitInfo: { timestamp: commitTimestamp(version), operation,
    operationParameters: { mode: 'Append' }, isBlindAppend: false, engineInfo: 'mod_unicat make-table.mjs' } })
}

function writeCommit(logDir, version, operation, actions) {
  const file = path.join(logDir, `${pad(version, 20)}.json`)
  const lines = [commitInfo(version, operation), ...actions.map(action => renderJson(CHECKPOINT, action))]
  writeFileSync(file, `${lines.join('\n')}\n`)
  const seconds = commitTimestamp(version) / 1000
  utimesSync(file, seconds, seconds)
}

function writeCheckpoint(logDir, version, rows, { checkpoint, codec, pageVersion }) {
  if (checkpoint.kind === 'none') return null
  const { parts } = checkpoint
  if (parts > rows.length) throw new Error(`cannot split ${rows.length} checkpoint rows into ${parts} parts`)
  const files = []
  for (let part = 0; part < parts; part++) {
    const slice = rows.slice(Math.floor(part * rows.length / parts), Math.floor((part + 1) * rows.length / parts))
    const name = checkpoint.kind === 'classic'
      ? `${pad(version, 20)}.checkpoint.parquet`
      : `${pad(version, 20)}.checkpoint.${pad(part + 1, 10)}.${pad(parts, 10)}.parquet`
    writeFileSync(path.join(logDir, name), writeParquet(checkpointTable(slice), { codec, pageVersion }))
    files.push(name)
  }
  const hint = { version, size: rows.length, ...checkpoint.kind === 'multipart' ? { parts } : {} }
  writeFileSync(path.join(logDir, '_last_checkpoint'), `${JSON.stringify(hint)}\n`)
  return { version, kind: checkpoint.kind, parts, rows: rows.length, files }
}

/** Tracks the live path set between recorded versions and renders expected.json entries. */
class ExpectedVersions {
  constructor() {
    this.previous = new Set()
    this.versions = []
  }

  record(version, table) {
    const live = [...table.live.keys()].sort()
    const current = new Set(live)
    this.versions.push({
      version,
      timestamp: commitTimestamp(version),
      numFiles: live.length,
      numTombstones: table.tombstones.size,
      livePathsSha256: createHash('sha256').update(live.map(p => `${p}\n`).join('')).digest('hex'),
      addedPaths: live.filter(p => !this.previous.has(p)),
      removedPaths: [...this.previous].filter(p => !current.has(p)).sort(),
      protocol: plainJson('protocol', table.protocol),
      metaData: plainJson('metaData', table.metaData),
    })
    this.previous = current
  }
}

const plainJson = (kind, action) => JSON.parse(renderJson(CHECKPOINT, { [kind]: action }))[kind]

/** Commits 0..V: the N files in equal batches, ~3% removed per commit from 1 on; returns V. */
function writeInitialCommits(logDir, table, files) {
  const batches = Math.min(MAX_CHECKPOINT_COMMITS, files)
  for (let version = 0; version < batches; version++) {
    const batch = Math.floor((version + 1) * files / batches) - Math.floor(version * files / batches)
    const actions = version === 0
      ? [{ protocol: table.protocol }, { metaData: table.metaData }]
      : table.removeFiles(version, Math.max(1, Math.floor(table.live.size * 0.03)))
    const operation = version === 0 ? 'CREATE TABLE' : 'WRITE'
    writeCommit(logDir, version, operation, [...actions, ...table.addFiles(version, batch)])
  }
  return batches - 1
}

/** A commit after the checkpoint: a few adds and removes, plus a new metaData at V+2. */
function laterCommitActions(table, version, checkpointVersion) {
  const actions = []
  if (version === checkpointVersion + 2) {
    const configuration = { 'delta.logRetentionDuration': 'interval 7 days', 'mod_unicat.version': `${version}` }
    table.metaData = table.newMetaData(configuration)
    actions.push({ metaData: table.metaData })
  }
  return [...actions, ...table.addFiles(version, table.r.int(1, 10)), ...table.removeFiles(version, table.r.int(1, 5))]
}

function generate(options) {
  const logDir = path.join(options.outDir, '_delta_log')
  if (existsSync(logDir)) throw new Error(`${logDir} already exists`)
  mkdirSync(logDir, { recursive: true })
  const table = new TableGenerator(options)
  const checkpointVersion = writeInitialCommits(logDir, table, options.files)
  const checkpoint = writeCheckpoint(logDir, checkpointVersion, table.checkpointRows(), options)
  const expected = new ExpectedVersions()
  expected.record(checkpointVersion, table)
  const latestVersion = checkpointVersion + options.commits
  for (let version = checkpointVersion + 1; version <= latestVersion; version++) {
    writeCommit(logDir, version, 'WRITE', laterCommitActions(table, version, checkpointVersion))
    expected.record(version, table)
  }
  const result = { latestVersion, checkpoint, versions: expected.versions }
  writeFileSync(path.join(options.outDir, 'expected.json'), `${JSON.stringify(result)}\n`)
  return result
}

try {
  const started = Date.now()
  const { latestVersion, checkpoint, versions } = generate(parseOptions(process.argv.slice(2)))
  const written = checkpoint ? `${checkpoint.kind} @${checkpoint.version} (${checkpoint.rows} rows)` : 'none'
  process.stderr.write(`make-table: versions 0..${latestVersion}, checkpoint ${written}, ` +
    `${versions.at(-1).numFiles} live files, ${Date.now() - started} ms\n`)
} catch (err) {
  process.stderr.write(`make-table: ${err.stack ?? err}\n`)
  process.exit(1)
}
