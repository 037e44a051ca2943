// SPDX-License-Identifier: Apache-2.0
// The Delta checkpoint schema (PROTOCOL.md "Checkpoint Schema"; the action columns a reader
// needs) as a shape tree (see json.mjs), and its conversion to an Apache Arrow table.
//
// Rows are plain action objects, e.g. { add: { path: 'x', size: 1n, partitionValues: {} } }:
// long fields are BigInt, int fields Number, maps plain objects (string -> string|null), lists
// arrays; a missing or null field is null in Parquet. Arrow names map entries `entries`
// (Parquet: MAP -> repeated group entries {required key; optional value}) and list items
// `element` (LIST -> repeated group list {element}).
import * as arrow from 'apache-arrow'

const scalar = makeArrowType => ({ kind: 'scalar', makeArrowType })
const STRING = scalar(() => new arrow.Utf8())
const LONG = scalar(() => new arrow.Int64())
const INT = scalar(() => new arrow.Int32())
const BOOLEAN = scalar(() => new arrow.Bool())
const struct = fields => ({ kind: 'struct', fields: Object.entries(fields) })
const mapOf = value => ({ kind: 'map', value })
const listOf = element => ({ kind: 'list', element })

const deletionVector = struct({
  storageType: STRING, pathOrInlineDv: STRING, offset: INT, sizeInBytes: INT, cardinality: LONG,
})

export const CHECKPOINT = struct({
  txn: struct({ appId: STRING, version: LONG, lastUpdated: LONG }),
  add: struct({
    path: STRING,
    partitionValues: mapOf(STRING),
    size: LONG,
    modificationTime: LONG,
    dataChange: BOOLEAN,
    stats: STRING,
    tags: mapOf(STRING),
    deletionVector,
    baseRowId: LONG,
    defaultRowCommitVersion: LONG,
  }),
  remove: struct({
    path: STRING,
    deletionTimestamp: LONG,
    dataChange: BOOLEAN,
    extendedFileMetadata: BOOLEAN,
    partitionValues: mapOf(STRING),
    size: LONG,
    deletionVector,
  }),
  metaData: struct({
    id: STRING,
    name: STRING,
    description: STRING,
    format: struct({ provider: STRING, options: mapOf(STRING) }),
    schemaString: STRING,
    partitionColumns: listOf(STRING),
    configuration: mapOf(STRING),
    createdTime: LONG,
  }),
  protocol: struct({
    minReaderVersion: INT, minWriterVersion: INT, readerFeatures: listOf(STRING), writerFeatures: listOf(STRING),
  }),
  domainMetadata: struct({ domain: STRING, configuration: STRING, removed: BOOLEAN }),
})

/**
 * Leaves that real writers declare REQUIRED inside the optional action groups (parquet-mr 1.8
 * for txn/add/remove/protocol, delta-rs for the deletion vector fields). Rows written with
 * this set must carry these fields whenever their group is present.
 */
export const REQUIRED_LEAVES = new Set([
  'txn.appId', 'txn.version',
  'add.path', 'add.size', 'add.modificationTime', 'add.dataChange',
  'remove.path', 'remove.dataChange',
  'protocol.minReaderVersion', 'protocol.minWriterVersion',
  ...['add', 'remove'].flatMap(action =>
    ['storageType', 'pathOrInlineDv', 'sizeInBytes', 'cardinality'].map(f => `${action}.deletionVector.${f}`)),
])

/** Arrow table with one column per checkpoint action; `required` lists REQUIRED leaf paths. */
export function checkpointTable(rows, required = new Set()) {
  const columns = {}
  for (const [name, shape] of CHECKPOINT.fields) {
    const builder = arrow.makeBuilder({ type: arrowType(shape, name, required), nullValues: [null, undefined] })
    for (const row of rows) builder.append(row[name])
    columns[name] = builder.finish().toVector()
  }
  return new arrow.Table(columns)
}

function arrowType(shape, path, required) {
  switch (shape.kind) {
    case 'struct':
      return new arrow.Struct(shape.fields.map(([name, child]) => arrowField(name, child, `${path}.${name}`, required)))
    case 'map': {
      const entry = new arrow.Struct([
        new arrow.Field('key', new arrow.Utf8(), false),
        arrowField('value', shape.value, `${path}.value`, required),
      ])
      return new arrow.Map_(new arrow.Field('entries', entry, false))
    }
    case 'list':
      return new arrow.List(arrowField('element', shape.element, `${path}.element`, required))
    default:
      return shape.makeArrowType()
  }
}

const arrowField = (name, shape, path, required) =>
  new arrow.Field(name, arrowType(shape, path, required), !required.has(path))
