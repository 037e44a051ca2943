// SPDX-License-Identifier: Apache-2.0
// make-demo-table.mjs -- the small Delta table `make run` serves as its demo (conf/dev/demo/orders),
// with real Parquet data files, so that it reads end to end: through the catalog, the sharing
// server's signed file URLs and a Delta Sharing client.
//
//   t/delta/gen/run.sh make-demo-table.mjs OUTDIR        (OUTDIR must not exist)
//
// Orders partitioned by region, four versions, change data feed on:
//   0 CREATE TABLE  protocol 1/4, metaData, orders 1-3 (EU) and 4-6 (US)
//   1 WRITE         orders 7-8 (APAC) and 9-10 (EU)
//   2 WRITE         orders 11-12 (US)
//   3 DELETE        region = 'APAC': the APAC file removed
// Each add carries its size and true stats; commit v is dated 2026-03-02T09:00Z plus v days (the
// commitInfo timestamp, the adds' modificationTime and the commit file's mtime). The output is a
// function of this script and the locked npm packages alone.
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import * as arrow from 'apache-arrow'
import { Random } from './lib/random.mjs'
import { writeParquet } from './lib/write-parquet.mjs'

const FIRST_COMMIT = Date.UTC(2026, 2, 2, 9)
const DAY = 86400000
const commitTimestamp = version => FIRST_COMMIT + version * DAY

// [order_id, order_date, customer, product, amount] by commit and region.
const WRITES = [
  { operation: 'CREATE TABLE', files: {
    EU: [[1, '2026-02-27', 'Ferrand SA', 'Espresso beans 1 kg', 18.5],
         [2, '2026-02-28', 'Holm & Vik', 'Filter papers', 4.2],
         [3, '2026-03-01', 'Ferrand SA', 'Burr grinder', 129.0]],
    US: [[4, '2026-02-27', 'Lakeside Diner', 'Espresso beans 1 kg', 21.0],
         [5, '2026-02-28', 'Oak Street Cafe', 'Milk jug', 12.75],
         [6, '2026-03-01', 'Lakeside Diner', 'Descaler', 9.99]] } },
  { operation: 'WRITE', files: {
    APAC: [[7, '2026-03-02', 'Harbour Roasters', 'Burr grinder', 135.0],
           [8, '2026-03-02', 'Kyoto Kissa', 'Filter papers', 5.1]],
    EU: [[9, '2026-03-02', 'Holm & Vik', 'Espresso beans 1 kg', 18.5],
         [10, '2026-03-02', 'Café Lumière', 'Milk jug', 11.9]] } },
  { operation: 'WRITE', files: {
    US: [[11, '2026-03-03', 'Oak Street Cafe', 'Espresso beans 1 kg', 21.0],
         [12, '2026-03-04', 'Prairie Books & Coffee', 'Descaler', 9.99]] } },
]
const DELETED_REGION = 'APAC'

const COLUMNS = [['order_id', 'long'], ['order_date', 'date'], ['customer', 'string'],
  ['product', 'string'], ['amount', 'double']]
const SCHEMA = {
  type: 'struct',
  fields: [...COLUMNS, ['region', 'string']].map(([name, type]) => ({ name, type, nullable: true, metadata: {} })),
}

const random = new Random(2026)

function dataFile(rows) {
  const column = i => rows.map(row => row[i])
  const table = new arrow.Table({
    order_id: arrow.vectorFromArray(column(0).map(BigInt), new arrow.Int64()),
    order_date: arrow.vectorFromArray(column(1).map(day => new Date(`${day}T00:00:00Z`)), new arrow.DateDay()),
    customer: arrow.vectorFromArray(column(2), new arrow.Utf8()),
    product: arrow.vectorFromArray(column(3), new arrow.Utf8()),
    amount: arrow.vectorFromArray(column(4), new arrow.Float64()),
  })
  return writeParquet(table, { codec: 'SNAPPY', pageVersion: 1 })
}

/** Delta's stats of a file: row count, each column's least and greatest value, no nulls. */
function stats(rows) {
  const pick = choose => Object.fromEntries(COLUMNS.map(([name], i) =>
    [name, rows.map(row => row[i]).reduce((a, b) => (choose(a < b) ? a : b))]))
  return JSON.stringify({ numRecords: rows.length, minValues: pick(less => less),
    maxValues: pick(less => !less), nullCount: Object.fromEntries(COLUMNS.map(([name]) => [name, 0])) })
}

function writeData(outDir, version, region, rows) {
  const file = `region=${region}/part-00000-${random.uuid()}.c000.snappy.parquet`
  const bytes = dataFile(rows)
  mkdirSync(path.join(outDir, `region=${region}`), { recursive: true })
  writeFileSync(path.join(outDir, file), bytes)
  return { path: file, partitionValues: { region }, size: bytes.length,
    modificationTime: commitTimestamp(version), dataChange: true, stats: stats(rows) }
}

function writeCommit(outDir, version, commitInfo, actions) {
  const info = { timestamp: commitTimestamp(version), ...commitInfo, engineInfo: 'mod_unicat make-demo-table.mjs' }
  const lines = [{ commitInfo: info }, ...actions].map(action => JSON.stringify(action))
  const file = path.join(outDir, '_delta_log', `${String(version).padStart(20, '0')}.json`)
  writeFileSync(file, `${lines.join('\n')}\n`)
  utimesSync(file, commitTimestamp(version) / 1000, commitTimestamp(version) / 1000)
}

function generate(outDir) {
  mkdirSync(outDir)
  mkdirSync(path.join(outDir, '_delta_log'))
  const live = new Map()
  WRITES.forEach(({ operation, files }, version) => {
    const adds = Object.entries(files).map(([region, rows]) => writeData(outDir, version, region, rows))
    adds.forEach(add => live.set(add.partitionValues.region, add))
    const table = version > 0 ? [] : [
      { protocol: { minReaderVersion: 1, minWriterVersion: 4 } },
      { metaData: { id: random.uuid(), name: 'orders', format: { provider: 'parquet', options: {} },
        schemaString: JSON.stringify(SCHEMA), partitionColumns: ['region'],
        configuration: { 'delta.enableChangeDataFeed': 'true' }, createdTime: commitTimestamp(0) } },
    ]
    writeCommit(outDir, version, { operation, operationParameters: { mode: version ? 'Append' : 'ErrorIfExists' },
      isBlindAppend: true }, [...table, ...adds.map(add => ({ add }))])
  })
  const { path: victim, partitionValues, size } = live.get(DELETED_REGION)
  const version = WRITES.length
  writeCommit(outDir, version, { operation: 'DELETE',
    operationParameters: { predicate: `["(region = '${DELETED_REGION}')"]` }, isBlindAppend: false },
  [{ remove: { path: victim, deletionTimestamp: commitTimestamp(version), dataChange: true,
    extendedFileMetadata: true, partitionValues, size } }])
  return version
}

try {
  if (process.argv.length !== 3) throw new Error('usage: make-demo-table.mjs OUTDIR')
  const latest = generate(process.argv[2])
  process.stderr.write(`make-demo-table: versions 0..${latest} in ${process.argv[2]}\n`)
} catch (err) {
  process.stderr.write(`make-demo-table: ${err.stack ?? err}\n`)
  process.exit(1)
}
