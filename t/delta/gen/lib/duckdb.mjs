// SPDX-License-Identifier: Apache-2.0
// Re-encodes a Parquet file with DuckDB's writer (C++, @duckdb/node-api). Used for what
// parquet-wasm cannot write on nested leaves: with PARQUET_VERSION v2 DuckDB writes
// DELTA_LENGTH_BYTE_ARRAY (strings) and DELTA_BINARY_PACKED (ints) inside v1 DATA_PAGE headers
// -- for every column with `dictionary: false` (DICTIONARY_SIZE_LIMIT 0), otherwise only where
// it judges a dictionary (RLE_DICTIONARY) not worth it. Booleans stay PLAIN. It has no page-size
// knob (one data page per chunk); ROW_GROUP_SIZE is honoured in multiples of 2048 rows. Map
// groups come out as `key_value`, lists as `list`/`element`. Rows keep their order (one thread).
import { DuckDBInstance } from '@duckdb/node-api'

const DUCKDB_CODECS = {
  UNCOMPRESSED: 'uncompressed', SNAPPY: 'snappy', GZIP: 'gzip', ZSTD: 'zstd', LZ4_RAW: 'lz4', BROTLI: 'brotli',
}

const sqlString = text => `'${text.replaceAll("'", "''")}'`

export async function reencodeWithDuckdb(source, target, { codec, dictionary, rowGroupRows }) {
  const options = ['PARQUET_VERSION v2', `COMPRESSION ${DUCKDB_CODECS[codec]}`, `ROW_GROUP_SIZE ${rowGroupRows}`,
    ...dictionary ? [] : ['DICTIONARY_SIZE_LIMIT 0']]
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' })
  const connection = await instance.connect()
  try {
    await connection.run(`COPY (SELECT * FROM read_parquet(${sqlString(source)})) TO ${sqlString(target)}
      (FORMAT parquet, ${options.join(', ')})`)
  } finally {
    connection.closeSync()
    instance.closeSync()
  }
}
