// SPDX-License-Identifier: Apache-2.0
// Where a reader gets a file's bytes: the server's URLs (Range requests
// only; a deletion vector must have been rewritten to a URL of its own),
// or the table's folder on disk (the log's relative paths, decoded once,
// and its "u" vectors found by their ids), which the expected rows are
// read from.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { dvRelativePath } from './dv.mjs'
import { rangeBuffer } from './http.mjs'

// The key of a URL of the server's files route, for messages.
function shown(url) {
  const m = /\/files\/[0-9a-f-]{36}\/([^?]+)/.exec(url || '')
  return m ? decodeURIComponent(m[1]) : String(url).replace(/\?.*/, '')
}

export function remoteSource(tally) {
  return {
    data: file => rangeBuffer(file.url, file.size, tally),
    async dvBytes(dv, start, end) {
      if (dv.storageType !== 'p' || !/^https?:/.test(dv.pathOrInlineDv))
        throw new Error(`a deletion vector of storageType ${dv.storageType} the recipient cannot read: `
                        + dv.pathOrInlineDv)
      const buffer = rangeBuffer(dv.pathOrInlineDv, end, tally)
      return buffer.slice(start, end)
    },
    decoded: (file, read) => read(),
    describe: file => shown(file.url),
  }
}

function memoryBuffer(buf) {
  return {
    byteLength: buf.length,
    slice: (s, e = buf.length) => buf.buffer.slice(buf.byteOffset + s, buf.byteOffset + e),
  }
}

// The decoded rows of each file are kept: the versions of a table share
// most of their files.
export function diskSource(dir) {
  const cache = new Map()
  return {
    data: file => memoryBuffer(readFileSync(path.join(dir, file.path))),
    async dvBytes(dv, start, end) {
      if (dv.storageType !== 'u') throw new Error(`a deletion vector of storageType ${dv.storageType} in the log`)
      return readFileSync(path.join(dir, dvRelativePath(dv.pathOrInlineDv))).subarray(start, end)
    },
    decoded(file, read) {
      if (!cache.has(file.path)) cache.set(file.path, read())
      return cache.get(file.path)
    },
    describe: file => file.path,
  }
}
