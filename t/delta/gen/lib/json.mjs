// SPDX-License-Identifier: Apache-2.0
// Renders decoded rows as Delta-commit-style JSON text, guided by a shape tree:
//   { kind: 'struct', fields: [[name, shape], ...] }   JSON object; null/undefined fields omitted
//   { kind: 'map', value: shape }                       JSON object; null values kept as null
//   { kind: 'list', element: shape }                    JSON array; null elements kept as null
//   { kind: 'scalar' }
// Scalars by JS type: bigint -> exact integer literal (the whole int64 range, e.g.
// -9223372036854775808; jansson reads these exactly as json_int_t); number -> JSON number
// (NaN/Infinity/-Infinity -> those words as strings); string; boolean; Uint8Array -> lowercase hex.
// The same renderer writes the generators' expected files and dump-parquet's output, so for a
// correct file the two are byte-identical.

export function renderJson(shape, value) {
  if (value === null || value === undefined) return 'null'
  switch (shape.kind) {
    case 'struct': return renderStruct(shape.fields, value)
    case 'map': return renderMap(shape.value, value)
    case 'list': return `[${Array.from(value, item => renderJson(shape.element, item)).join(',')}]`
    default: return renderScalar(value)
  }
}

function renderStruct(fields, value) {
  const members = []
  for (const [name, shape] of fields) {
    const field = value[name]
    if (field !== null && field !== undefined) members.push(`${JSON.stringify(name)}:${renderJson(shape, field)}`)
  }
  return `{${members.join(',')}}`
}

function renderMap(valueShape, value) {
  const entries = value instanceof Map ? [...value] : Object.entries(value)
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${renderJson(valueShape, item)}`).join(',')}}`
}

function renderScalar(value) {
  switch (typeof value) {
    case 'bigint': return value.toString()
    case 'number': return Number.isFinite(value) ? JSON.stringify(value) : JSON.stringify(String(value))
    case 'string': return JSON.stringify(value)
    case 'boolean': return String(value)
  }
  if (value instanceof Uint8Array) return JSON.stringify(Buffer.from(value).toString('hex'))
  throw new Error(`cannot render ${Object.prototype.toString.call(value)} as JSON`)
}
