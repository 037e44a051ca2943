// SPDX-License-Identifier: Apache-2.0
// What a Parquet file really contains, from hyparquet's footer parser plus a walk over every
// page header of every column chunk (hyparquet's page-header reader): codecs, page types,
// and per column the set of "PAGE_TYPE:ENCODING" pairs and the page count.
import { parquetMetadata } from 'hyparquet'
import { parquetHeader } from 'hyparquet/src/column.js'

export function describeParquet(buffer) {
  const metadata = parquetMetadata(buffer)
  const view = new DataView(buffer)
  const columns = {}
  for (const group of metadata.row_groups) {
    for (const { meta_data: meta } of group.columns) {
      const column = columns[meta.path_in_schema.join('.')] ??= { codecs: new Set(), pages: 0, encodings: new Set() }
      column.codecs.add(meta.codec)
      for (const page of chunkPages(view, meta)) {
        column.pages++
        column.encodings.add(`${page.type}:${page.encoding}`)
      }
    }
  }
  const all = Object.values(columns)
  const union = key => sorted(all.flatMap(column => [...column[key]]))
  const pagePairs = union('encodings').map(pair => pair.split(':'))
  return {
    createdBy: metadata.created_by,
    rows: Number(metadata.num_rows),
    rowGroups: metadata.row_groups.length,
    codecs: union('codecs'),
    pageTypes: sorted(pagePairs.map(([type]) => type)),
    dataPageEncodings: sorted(pagePairs.filter(([type]) => type.startsWith('DATA')).map(([, encoding]) => encoding)),
    pages: all.reduce((sum, column) => sum + column.pages, 0),
    columns: Object.fromEntries(Object.entries(columns).map(([path, column]) =>
      [path, { codecs: [...column.codecs], pages: column.pages, encodings: sorted(column.encodings) }])),
  }
}

function* chunkPages(view, meta) {
  const dictionaryOffset = Number(meta.dictionary_page_offset ?? 0)
  const dataOffset = Number(meta.data_page_offset)
  let offset = dictionaryOffset > 0 && dictionaryOffset < dataOffset ? dictionaryOffset : dataOffset
  const end = offset + Number(meta.total_compressed_size)
  while (offset < end) {
    const reader = { view, offset }
    const header = parquetHeader(reader)
    const pageHeader = header.data_page_header ?? header.data_page_header_v2 ?? header.dictionary_page_header
    yield { type: header.type, encoding: pageHeader?.encoding }
    offset = reader.offset + header.compressed_page_size
  }
}

const sorted = items => [...new Set(items)].sort()
