// SPDX-License-Identifier: Apache-2.0
// Reads every row of a Parquet file with hyparquet (+ hyparquet-compressors for GZIP, ZSTD,
// BROTLI, LZ4, LZ4_RAW) and renders each as one JSON line (conventions in json.mjs): top-level
// columns and struct fields that are null are omitted, maps become objects, lists arrays.
//
// Types beyond the checkpoint's (they appear in add.stats_parsed, partitionValues_parsed and
// legacy commitInfo columns): DATE -> "YYYY-MM-DD"; timestamps (INT96, TIMESTAMP_MILLIS/MICROS,
// logical TIMESTAMP any unit) -> "YYYY-MM-DDTHH:MM:SS.ffffffZ" in UTC, truncated to
// microseconds (INT96 nanoseconds are cut); DECIMAL -> hyparquet's JS number (exact only up to
// ~15 significant digits); FLOAT/DOUBLE -> JSON number; BYTE_ARRAY without annotation -> decoded
// as UTF-8 (hyparquet's default); FIXED_LEN_BYTE_ARRAY without annotation -> hex string.
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, parquetSchema } from 'hyparquet'
import { isListLike, isMapLike } from 'hyparquet/src/schema.js'
import { compressors } from 'hyparquet-compressors'
import { renderJson } from './json.mjs'

const MICROS_PER_DAY = 86400000000n

// hyparquet-compressors 1.1.2 misreads the LZ4 block of an empty page (a lone 0x00 token, which
// parquet-rs writes for empty dictionary pages and all-null v2 value sections): it looks for a
// match offset after the final literals-only token. An empty page needs no decoding.
const skipEmpty = decompress => (input, length) => length === 0 ? new Uint8Array(0) : decompress(input, length)
const COMPRESSORS = { ...compressors, LZ4: skipEmpty(compressors.LZ4), LZ4_RAW: skipEmpty(compressors.LZ4_RAW) }

const PARSERS = {
  timestampFromMilliseconds: millis => isoMicros(BigInt(millis) * 1000n),
  timestampFromMicroseconds: micros => isoMicros(BigInt(micros)),
  timestampFromNanoseconds: nanos => isoMicros(floorDiv(BigInt(nanos), 1000n)),
  dateFromDays: days => isoMicros(BigInt(days) * MICROS_PER_DAY).split('T')[0],
}

/** The file's rows as JSON text lines. */
export async function parquetJsonLines(path) {
  const file = await asyncBufferFromFile(path)
  const metadata = await parquetMetadataAsync(file)
  const rows = await parquetReadObjects({ file, metadata, compressors: COMPRESSORS, parsers: PARSERS })
  const shape = shapeOf(parquetSchema(metadata))
  return rows.map(row => renderJson(shape, row))
}

/** Shape tree (json.mjs) of a hyparquet schema node, classified exactly as hyparquet assembles it. */
function shapeOf(node) {
  const shape = nodeShape(node)
  return node.element.repetition_type === 'REPEATED' ? { kind: 'list', element: shape } : shape
}

function nodeShape(node) {
  if (isListLike(node)) {
    const repeated = node.children[0]
    return { kind: 'list', element: nodeShape(repeated.children.length === 1 ? repeated.children[0] : repeated) }
  }
  if (isMapLike(node)) {
    return { kind: 'map', value: shapeOf(node.children[0].children.find(child => child.element.name === 'value')) }
  }
  if (node.children.length) {
    return { kind: 'struct', fields: node.children.map(child => [child.element.name, shapeOf(child)]) }
  }
  return { kind: 'scalar' }
}

function isoMicros(micros) {
  const millis = floorDiv(micros, 1000n)
  const fraction = String(micros - millis * 1000n).padStart(3, '0')
  return new Date(Number(millis)).toISOString().replace('Z', `${fraction}Z`)
}

function floorDiv(a, b) {
  const q = a / b
  return a % b < 0n ? q - 1n : q
}
