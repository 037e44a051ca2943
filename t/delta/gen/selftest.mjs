// SPDX-License-Identifier: Apache-2.0
// selftest.mjs -- checks the generators against the independent reader (and vice versa).
//
//   t/delta/gen/run.sh selftest.mjs [--fixtures DIR] [WORKDIR]
//
// 1. make-parquet.mjs into WORKDIR/parquet: every file dumped with hyparquet must equal its
//    NAME.expected.jsonl byte for byte, and its codec / page type must be the requested one.
// 2. make-table.mjs into WORKDIR/table-* (classic, multipart:3, none; partitioned, ZSTD v2 and
//    LZ4_RAW): replaying the files (checkpoint read with hyparquet, or JSON from version 0 when
//    there is none, then the later commits) must give expected.json's numFiles, tombstone count,
//    path digest, protocol and metaData at every listed version; _last_checkpoint must match.
// 3. With --fixtures DIR: every *.parquet below a _delta_log directory in DIR must dump without
//    error (row counts are printed).
// WORKDIR defaults to a fresh temporary directory, removed when every check passes.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { parquetJsonLines } from './lib/dump.mjs'

const HERE = path.dirname(fileURLToPath(import.meta.url))
const TABLES = [
  ['table-classic', ['--files', '300', '--commits', '5']],
  ['table-multipart', ['--files', '250', '--commits', '3', '--checkpoint', 'multipart:3', '--partitions',
    '--codec', 'ZSTD', '--page-version', '2']],
  ['table-none', ['--files', '40', '--commits', '4', '--checkpoint', 'none', '--partitions']],
  ['table-lz4', ['--files', '120', '--commits', '2', '--codec', 'LZ4_RAW', '--seed', '7']],
]

let failures = 0
function check(ok, message) {
  if (!ok) failures++
  process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${message}\n`)
}

function runScript(script, args) {
  const nodeArgs = [...process.execArgv, path.join(HERE, script), ...args]
  execFileSync(process.execPath, nodeArgs, { stdio: ['ignore', 'ignore', 'inherit'] })
}

// --- 1. make-parquet ---------------------------------------------------------------------------

async function checkParquetFiles(dir) {
  runScript('make-parquet.mjs', [dir])
  const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'))
  for (const entry of manifest.files) {
    const dumped = (await parquetJsonLines(path.join(dir, entry.file))).map(line => `${line}\n`).join('')
    const same = dumped === readFileSync(path.join(dir, entry.expected), 'utf8')
    const pageType = entry.requested.pageVersion === 2 ? 'DATA_PAGE_V2' : 'DATA_PAGE'
    const dataPageTypes = entry.pageTypes.filter(type => type.startsWith('DATA'))
    const asRequested = entry.codecs.join() === entry.requested.codec && dataPageTypes.join() === pageType
    check(same && asRequested, `${entry.file}: ${entry.rows} rows, ${entry.rowGroups} row groups, ${entry.pages} pages, ` +
      `${entry.codecs} ${entry.pageTypes.join('+')}, ${entry.dataPageEncodings.join(' ')}` +
      `${same ? '' : ' -- dump differs from expected'}${asRequested ? '' : ' -- not the requested codec/page type'}`)
  }
}

// --- 2. make-table -----------------------------------------------------------------------------

class Replay {
  constructor() {
    this.live = new Set()
    this.tombstones = new Set()
  }

  apply(action) {
    if (action.add) {
      this.live.add(action.add.path)
      this.tombstones.delete(action.add.path)
    } else if (action.remove) {
      this.live.delete(action.remove.path)
      this.tombstones.add(action.remove.path)
    } else if (action.protocol) {
      this.protocol = action.protocol
    } else if (action.metaData) {
      this.metaData = action.metaData
    }
  }

  summary() {
    const live = [...this.live].sort()
    return canonical({
      numFiles: live.length,
      numTombstones: this.tombstones.size,
      livePathsSha256: createHash('sha256').update(live.map(p => `${p}\n`).join('')).digest('hex'),
      protocol: this.protocol,
      metaData: this.metaData,
    })
  }
}

const canonical = value => JSON.stringify(value, (_, v) =>
  v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort()) : v)

const commitFile = (logDir, version) => path.join(logDir, `${String(version).padStart(20, '0')}.json`)
const commitActions = (logDir, version) =>
  readFileSync(commitFile(logDir, version), 'utf8').split('\n').filter(Boolean).map(line => JSON.parse(line))

async function checkTable(dir, args) {
  runScript('make-table.mjs', [dir, ...args])
  const logDir = path.join(dir, '_delta_log')
  const expected = JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8'))
  const [first] = expected.versions
  const replay = new Replay()
  if (expected.checkpoint) {
    for (const file of expected.checkpoint.files) {
      for (const line of await parquetJsonLines(path.join(logDir, file))) replay.apply(JSON.parse(line))
    }
    const hint = JSON.parse(readFileSync(path.join(logDir, '_last_checkpoint'), 'utf8'))
    const { version, rows: size, parts, kind } = expected.checkpoint
    check(canonical(hint) === canonical({ version, size, ...kind === 'multipart' ? { parts } : {} }),
      `${path.basename(dir)}: _last_checkpoint ${JSON.stringify(hint)}`)
  } else {
    for (let v = 0; v <= first.version; v++) commitActions(logDir, v).forEach(action => replay.apply(action))
  }
  for (const want of expected.versions) {
    if (want.version > first.version) commitActions(logDir, want.version).forEach(action => replay.apply(action))
    const { numFiles, numTombstones, livePathsSha256, protocol, metaData } = want
    check(replay.summary() === canonical({ numFiles, numTombstones, livePathsSha256, protocol, metaData }),
      `${path.basename(dir)}: version ${want.version}, ${numFiles} live files, ${numTombstones} tombstones`)
  }
}

// --- 3. fixtures -------------------------------------------------------------------------------

function logParquetFiles(dir) {
  return readdirSync(dir, { recursive: true })
    .filter(rel => rel.endsWith('.parquet') && rel.split(path.sep).includes('_delta_log'))
    .sort()
    .map(rel => path.join(dir, rel))
}

async function checkFixtures(dir) {
  for (const file of logParquetFiles(dir)) {
    try {
      const lines = await parquetJsonLines(file)
      check(true, `${path.relative(dir, file)}: ${lines.length} rows`)
    } catch (err) {
      check(false, `${path.relative(dir, file)}: ${err.message}`)
    }
  }
}

async function main(argv) {
  const { values, positionals } = parseArgs({
    args: argv, allowPositionals: true, options: { fixtures: { type: 'string' } },
  })
  const workDir = positionals[0] ?? mkdtempSync(path.join(os.tmpdir(), 'delta-gen-selftest-'))
  await checkParquetFiles(path.join(workDir, 'parquet'))
  for (const [name, args] of TABLES) await checkTable(path.join(workDir, name), args)
  if (values.fixtures) await checkFixtures(values.fixtures)
  process.stdout.write(`${failures ? `${failures} FAILED` : 'all passed'} (work dir ${workDir})\n`)
  if (!failures && !positionals[0]) rmSync(workDir, { recursive: true })
  process.exit(failures ? 1 : 0)
}

main(process.argv.slice(2)).catch(err => {
  process.stderr.write(`selftest: ${err.stack ?? err}\n`)
  process.exit(1)
})
