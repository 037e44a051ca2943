// SPDX-License-Identifier: Apache-2.0
// recipient.mjs -- a recipient of a Delta Sharing server that reads the
// rows of shared tables as the official clients do, and checks them
// against the rows of the tables' folders on disk.
//
//   UNICAT_SHARING_NODE=build/node-sharing UNICAT_SHARING_TOKEN=<bearer> \
//     node t/sharing/recipient.mjs SPEC.json
//
// SPEC: {"endpoint": "http://host:port/delta-sharing", "share": "s",
//        "maxFiles": 2, "maxVersions": 16,
//        "tables": [{"fixture": "f", "schema": "pub", "name": "t",
//                    "dir": "/path/of/the/table"}]}
//
// Two clients, "python" (lib/python.mjs) and "spark" (lib/spark.mjs),
// each list the share, then read every table at every version (at most
// maxVersions, spread), at its latest version, and its change data feed
// where it has one; Spark also re-reads the latest snapshot with its
// refresh token and through its async configuration. Every file URL is
// read with Range requests, its deletion vector applied, its partition
// values added; the rows are compared, as multisets, with those the
// log and files on disk give (lib/expected.mjs).
//
// Output: one JSON line per check, {"client", "fixture" (or "listing"),
// "versions", "changesFrom", "rows", "files", "deleted", "ranges",
// "problems": [...]}; the test
// file turns each into an assertion. Exits non-zero only when it cannot
// run at all.
import { readFileSync } from 'node:fs'
import { changeExtra } from './lib/answers.mjs'
import { changesFrom, diskReader, expectedChanges, expectedSnapshot, replay } from './lib/expected.mjs'
import { PythonClient } from './lib/python.mjs'
import { rowDifferences, rowsOfFiles, tableColumns } from './lib/rows.mjs'
import { remoteSource } from './lib/sources.mjs'
import { SparkClient } from './lib/spark.mjs'

// The versions read: all, or maxVersions of them spread from 0 to the last.
function versionsRead(count, max) {
  if (count <= max) return [...Array(count).keys()]
  return [...new Set([...Array(max).keys()].map(i => Math.round(i * (count - 1) / (max - 1))))]
}

// A read (a client's answer, as files) turned into rows and compared with
// the expected ones; what differs is pushed to `problems` under `label`.
async function compare(label, read, want, check, problems) {
  if (!read) return
  const columns = tableColumns(read.meta)
  const key = read.format === 'delta' ? 'physical' : 'name'
  const mine = []
  for (const f of read.files) if (check.changes) f.extra = changeExtra(f)
  const rows = await rowsOfFiles(read.files, columns, key, check.source, mine, check.tally)
  const differences = rowDifferences(await want, rows)
  if (check.version !== undefined && read.version !== check.version)
    mine.push(`Delta-Table-Version ${read.version}, not ${check.version}`)
  problems.push(...[...mine, ...differences].map(p => `${label}: ${p}`))
  check.tally.rows += rows.length
}

class TableCheck {
  constructor(spec, table, client) {
    this.table = { share: spec.share, schema: table.schema, name: table.name }
    this.fixture = table.fixture
    this.client = client
    this.versions = replay(table.dir)
    this.disk = diskReader(table.dir)
    this.expected = new Map()
    this.problems = []
    this.tally = { rows: 0, files: 0, deleted: 0, ranges: 0 }
    this.source = remoteSource(this.tally)
  }

  want(v) {
    if (!this.expected.has(v)) this.expected.set(v, expectedSnapshot(this.disk, this.versions, v, this.problems))
    return this.expected.get(v)
  }

  snapshotCheck(label, read, v) {
    return compare(label, read, this.want(v), { source: this.source, tally: this.tally, version: v },
                   this.problems)
  }

  changeCheck(label, read, from) {
    const want = expectedChanges(this.disk, this.versions, from, this.problems)
    return compare(label, read, want, { source: this.source, tally: this.tally, changes: true }, this.problems)
  }

  result(read) {
    return { client: this.client, fixture: this.fixture, versions: read,
             changesFrom: this.versions && changesFrom(this.versions), ...this.tally, problems: this.problems }
  }
}

// The timestamp half-way between the commits of version v and v + 1, in
// seconds (commits are 100 s apart), unless commit times are in-commit
// timestamps, which need not grow with the versions.
function timestampAfter(versions, v) {
  if (versions.some(s => s.meta?.configuration?.['delta.enableInCommitTimestamps'] === 'true')) return undefined
  return new Date(versions[v].timestamp + 50000).toISOString().replace(/\.\d{3}Z$/, 'Z')
}

async function pythonReads(spec, client, check, versions) {
  const { table, problems } = check
  for (const v of versions)
    await check.snapshotCheck(`v${v}`, await client.snapshot(table, { version: v }, problems), v)
  const last = check.versions.length - 1
  await check.snapshotCheck('latest', await client.snapshot(table, {}, problems), last)
  const middle = Math.floor(last / 2)
  const timestamp = timestampAfter(check.versions, middle)
  if (last > 0 && timestamp)
    await check.snapshotCheck(`at ${timestamp}`, await client.snapshot(table, { timestamp }, problems), middle)
  // table_changes reads parquet unless told use_delta_format: a user
  // must tell it where the table needs delta, as autoresolve says.
  const from = changesFrom(check.versions)
  if (from === undefined) return
  const format = await client.autoresolve(table, problems)
  await check.changeCheck(`changes from v${from}`, await client.changes(table, from, format, problems), from)
}

async function sparkReads(spec, client, check, versions) {
  const { table, problems } = check
  for (const v of versions)
    await check.snapshotCheck(`v${v}`, await client.snapshot(table, { version: v }, problems), v)
  const last = check.versions.length - 1
  const version = await client.tableVersion(table, problems)
  if (version !== last) problems.push(`GET …/version: ${version}, not ${last}`)
  const latest = await client.snapshot(table, {}, problems)
  await check.snapshotCheck('latest', latest, last)
  if (!latest?.refreshToken) problems.push('latest: no refreshToken in its endStreamAction')
  else {
    const again = await client.snapshot(table, { refreshToken: latest.refreshToken }, problems)
    await check.snapshotCheck('latest by its refresh token', again, last)
    const ids = r => (r?.files || []).map(f => f.id).sort().join()
    if (again && ids(again) !== ids(latest)) problems.push('latest by its refresh token: other file ids')
  }
  const async = new SparkClient(spec.profile, { maxFiles: spec.maxFiles, async: true })
  await check.snapshotCheck('latest, async', await async.snapshot(table, {}, problems), last)
  const from = changesFrom(check.versions)
  if (from !== undefined)
    await check.changeCheck(`changes from v${from}`, await client.changeSet(table, from, problems), from)
}

// Both clients' lists of the share: its tables, as the spec names them.
async function listings(spec, python, spark) {
  const want = spec.tables.map(t => `${t.schema}.${t.name}`).sort().join(' ')
  const out = []
  const py = []
  const shares = await python.walk('/shares', py)
  if (!shares.includes(spec.share)) py.push(`/shares does not list ${spec.share}`)
  for (const max of [undefined, 2]) {
    const got = (await python.walk(`/shares/${spec.share}/all-tables`, py, max)).sort().join(' ')
    if (got !== want) py.push(`all-tables${max ? ` by ${max}` : ''}: ${got}`)
  }
  out.push({ client: 'python', fixture: 'listing', problems: py })
  const sp = []
  try {
    if (!(await spark.walk('/shares')).includes(spec.share)) sp.push(`/shares does not list ${spec.share}`)
    const got = (await spark.walk(`/shares/${spec.share}/all-tables`)).sort().join(' ')
    if (got !== want) sp.push(`all-tables: ${got}`)
  } catch (e) {
    sp.push(e.message)
  }
  out.push({ client: 'spark', fixture: 'listing', problems: sp })
  return out
}

async function main(specFile) {
  const spec = JSON.parse(readFileSync(specFile, 'utf8'))
  spec.profile = { shareCredentialsVersion: 1, endpoint: spec.endpoint, bearerToken: process.env.UNICAT_SHARING_TOKEN }
  const python = new PythonClient(spec.profile)
  const spark = new SparkClient(spec.profile, { maxFiles: spec.maxFiles })
  for (const line of await listings(spec, python, spark)) process.stdout.write(`${JSON.stringify(line)}\n`)
  for (const table of spec.tables) {
    for (const [name, client, reads] of [['python', python, pythonReads], ['spark', spark, sparkReads]]) {
      const check = new TableCheck(spec, table, name)
      if (!check.versions) {
        const skipped = 'its log does not go back to version 0 in JSON'
        process.stdout.write(`${JSON.stringify({ ...check.result([]), skipped })}\n`)
        continue
      }
      const versions = versionsRead(check.versions.length, spec.maxVersions)
      try {
        await reads(spec, client, check, versions)
      } catch (e) {
        check.problems.push(`the driver failed: ${e.stack ?? e}`)
      }
      process.stdout.write(`${JSON.stringify(check.result(versions))}\n`)
    }
  }
}

main(process.argv[2]).catch(e => {
  process.stderr.write(`recipient.mjs: ${e.stack ?? e}\n`)
  process.exit(1)
})
