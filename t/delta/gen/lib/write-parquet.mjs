// SPDX-License-Identifier: Apache-2.0
// Parquet writing with parquet-wasm (arrow-rs' parquet crate compiled to WebAssembly).
//
// What its writer properties really allow (checked against the written page headers):
// * codecs UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4_RAW, BROTLI (and deprecated Hadoop LZ4);
// * pageVersion 1 -> DATA_PAGE, 2 -> DATA_PAGE_V2; pages always end on row boundaries;
// * dictionary on: DICTIONARY_PAGE (PLAIN) + RLE_DICTIONARY pages, falling back within the
//   chunk once the dictionary exceeds dictionaryPageBytes -- to PLAIN with v1, to
//   DELTA_BINARY_PACKED (ints) / DELTA_BYTE_ARRAY (strings) with v2; booleans: PLAIN (v1), RLE (v2);
// * dictionary off: PLAIN everywhere with v1; DELTA_BINARY_PACKED / DELTA_BYTE_ARRAY / RLE with v2;
// * per-column encodings (setColumnEncoding) only reach top-level columns: the column path is
//   taken as one name, so nested leaves such as `add.path` cannot be addressed, and a global
//   encoding panics on the first column of another physical type. All checkpoint leaves are
//   nested, hence no DELTA_LENGTH_BYTE_ARRAY and no DELTA_* in v1 pages from this writer (see duckdb.mjs).
import * as arrow from 'apache-arrow'
import * as pw from 'parquet-wasm'

export const CODECS = ['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'ZSTD', 'LZ4_RAW', 'BROTLI']

export function parseCodec(name) {
  const codec = String(name).toUpperCase()
  if (!CODECS.includes(codec)) throw new Error(`unknown codec ${name} (one of ${CODECS.join(', ')})`)
  return codec
}

/**
 * Writes an Arrow table; returns the Parquet bytes. Options: codec, pageVersion (1|2),
 * dictionary (default true), and optional limits dataPageBytes, dictionaryPageBytes,
 * rowGroupRows, writeBatchRows (rows between page-size checks; small => small pages).
 */
export function writeParquet(table, options) {
  const { codec, pageVersion, dictionary = true } = options
  let props = new pw.WriterPropertiesBuilder()
    .setCompression(pw.Compression[codec])
    .setWriterVersion(pageVersion === 2 ? pw.WriterVersion.V2 : pw.WriterVersion.V1)
    .setDictionaryEnabled(dictionary)
  const limits = [
    ['dataPageBytes', 'setDataPageSizeLimit'],
    ['dictionaryPageBytes', 'setDictionaryPageSizeLimit'],
    ['rowGroupRows', 'setMaxRowGroupSize'],
    ['writeBatchRows', 'setWriteBatchSize'],
  ]
  for (const [option, setter] of limits) {
    if (options[option] !== undefined) props = props[setter](options[option])
  }
  return pw.writeParquet(pw.Table.fromIPCStream(arrow.tableToIPC(table, 'stream')), props.build())
}
