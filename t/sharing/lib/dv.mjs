// SPDX-License-Identifier: Apache-2.0
// Deletion vectors as Delta's PROTOCOL.md ("Deletion Vector Format")
// stores them, decoded here rather than by a library so that the driver
// checks the server's descriptors against its own reading of the bytes:
// Z85 (ids and inline vectors), the RoaringBitmapArray, and the framing
// of a vector in its file (size, bitmap, CRC-32).
import { crc32 } from 'node:zlib'

const Z85 = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#'
const Z85_VALUE = new Map([...Z85].map((c, i) => [c, i]))
const ROARING_ARRAY_MAGIC = 1681511377
const SERIAL_COOKIE_NO_RUNS = 12346
const SERIAL_COOKIE = 12347
const NO_OFFSET_THRESHOLD = 4

export function z85Decode(text) {
  if (text.length % 5) throw new Error(`Z85 text of ${text.length} characters`)
  const out = Buffer.alloc(text.length / 5 * 4)
  for (let i = 0; i < text.length; i += 5) {
    let value = 0
    for (const c of text.slice(i, i + 5)) {
      const digit = Z85_VALUE.get(c)
      if (digit === undefined) throw new Error(`not Z85: ${c}`)
      value = value * 85 + digit
    }
    out.writeUInt32BE(value, i / 5 * 4)
  }
  return out
}

// Where a vector stored with the table ("u") lives, relative to its root:
// an optional random prefix, then the Z85 of its UUID.
export function dvRelativePath(pathOrInlineDv) {
  const prefix = pathOrInlineDv.slice(0, -20)
  const hex = z85Decode(pathOrInlineDv.slice(-20)).toString('hex')
  const uuid = [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join('-')
  return `${prefix ? `${prefix}/` : ''}deletion_vector_${uuid}.bin`
}

// One portable RoaringBitmap (32-bit) at `at`: its values, the
// position after it.
function roaring32(buf, at, high, into) {
  const cookie = buf.readUInt32LE(at)
  let size, runs = null
  at += 4
  if ((cookie & 0xffff) === SERIAL_COOKIE) {
    size = (cookie >>> 16) + 1
    runs = buf.subarray(at, at + Math.ceil(size / 8))
    at += runs.length
  } else if (cookie === SERIAL_COOKIE_NO_RUNS) {
    size = buf.readUInt32LE(at)
    at += 4
  } else {
    throw new Error(`not a portable RoaringBitmap (cookie ${cookie})`)
  }
  const headers = []
  for (let i = 0; i < size; i++, at += 4)
    headers.push({ key: buf.readUInt16LE(at), cardinality: buf.readUInt16LE(at + 2) + 1 })
  if (!runs || size >= NO_OFFSET_THRESHOLD) at += 4 * size
  for (let i = 0; i < size; i++) {
    const base = high * 2 ** 32 + headers[i].key * 2 ** 16
    const isRun = runs && (runs[i >> 3] >> (i & 7)) & 1
    at = isRun ? runContainer(buf, at, base, into)
      : headers[i].cardinality <= 4096 ? arrayContainer(buf, at, headers[i].cardinality, base, into)
        : bitmapContainer(buf, at, base, into)
  }
  return at
}
function runContainer(buf, at, base, into) {
  const n = buf.readUInt16LE(at)
  at += 2
  for (let r = 0; r < n; r++, at += 4) {
    const start = buf.readUInt16LE(at)
    for (let v = 0; v <= buf.readUInt16LE(at + 2); v++) into.add(base + start + v)
  }
  return at
}
function arrayContainer(buf, at, cardinality, base, into) {
  for (let k = 0; k < cardinality; k++, at += 2) into.add(base + buf.readUInt16LE(at))
  return at
}
function bitmapContainer(buf, at, base, into) {
  for (let byte = 0; byte < 8192; byte++) {
    const bits = buf[at + byte]
    for (let bit = 0; bit < 8; bit++) if (bits >> bit & 1) into.add(base + byte * 8 + bit)
  }
  return at + 8192
}

// The row positions a serialized RoaringBitmapArray holds.
export function roaringArrayPositions(bytes) {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (buf.readInt32LE(0) !== ROARING_ARRAY_MAGIC) throw new Error('not a RoaringBitmapArray (magic)')
  const count = Number(buf.readBigUInt64LE(4))
  const positions = new Set()
  let at = 12
  for (let i = 0; i < count; i++) {
    const high = buf.readUInt32LE(at)
    at = roaring32(buf, at + 4, high, positions)
  }
  return positions
}

// A vector as its file frames it, read from `framed` (the bytes from the
// descriptor's offset on): its size, the bitmap, its CRC-32.
export function framedPositions(framed, descriptor) {
  const buf = Buffer.from(framed.buffer, framed.byteOffset, framed.byteLength)
  const size = buf.readUInt32BE(0)
  if (size !== descriptor.sizeInBytes)
    throw new Error(`its file frames ${size} bytes, the descriptor says ${descriptor.sizeInBytes}`)
  const bitmap = buf.subarray(4, 4 + size)
  if (buf.readUInt32BE(4 + size) !== crc32(bitmap)) throw new Error('its CRC-32 does not match')
  return roaringArrayPositions(bitmap)
}

// The bytes to read for a stored vector: from its offset (1 when the
// descriptor has none, after the file's version byte), size + bitmap + CRC.
export function framedRange(descriptor) {
  const start = descriptor.offset ?? 1
  return [start, start + 4 + descriptor.sizeInBytes + 4]
}

export function inlinePositions(descriptor) {
  return roaringArrayPositions(z85Decode(descriptor.pathOrInlineDv).subarray(0, descriptor.sizeInBytes))
}
