// SPDX-License-Identifier: Apache-2.0
// dump-parquet.mjs -- print every row of a Parquet file as JSON lines, using hyparquet, a
// reader independent of both the C reader and the parquet-wasm/DuckDB writers.
//
//   t/delta/gen/run.sh dump-parquet.mjs FILE.parquet            rows as JSONL on stdout
//   t/delta/gen/run.sh dump-parquet.mjs --pages FILE.parquet    footer + page-header summary (JSON)
//
// Row conventions (a checkpoint row prints like the Delta JSON commit line of its action,
// e.g. {"add":{"path":"x","partitionValues":{},"size":1,...}}):
// * null top-level columns and null struct fields are omitted (a row with only nulls is {});
// * MAP -> JSON object, a null value kept as null; null map omitted, empty map {};
// * LIST -> JSON array, null elements kept; null list omitted, empty list [];
// * INT64 -> exact integer literal over the whole int64 range (jansson parses it exactly);
// * map entries keep file order except that JS objects move integer-like keys ("7") first,
//   and a duplicate key keeps its last value -- compare maps as JSON objects;
// * types that only occur in stats_parsed / partitionValues_parsed / commitInfo (dates,
//   timestamps incl. INT96, decimals, doubles, binary) are rendered as described in lib/dump.mjs.
//   Compare those columns loosely or not at all.
import { readFileSync } from 'node:fs'
import { parquetJsonLines } from './lib/dump.mjs'
import { describeParquet } from './lib/inspect.mjs'

async function main(args) {
  const pages = args[0] === '--pages'
  const files = pages ? args.slice(1) : args
  if (files.length !== 1) throw new Error('usage: dump-parquet.mjs [--pages] FILE.parquet')
  if (pages) {
    const bytes = readFileSync(files[0])
    const description = describeParquet(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))
    process.stdout.write(`${JSON.stringify(description, null, 1)}\n`)
  } else {
    for (const line of await parquetJsonLines(files[0])) process.stdout.write(`${line}\n`)
  }
}

process.stdout.on('error', err => {
  if (err.code !== 'EPIPE') throw err
  process.exit(0) // the reader went away (e.g. `| head`)
})

main(process.argv.slice(2)).catch(err => {
  process.stderr.write(`dump-parquet: ${err.stack ?? err}\n`)
  process.exit(1)
})
