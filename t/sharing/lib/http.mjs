// SPDX-License-Identifier: Apache-2.0
// The wire as a recipient sees it: requests with the headers a client
// sets, NDJSON answers as lines of text (a client compares some of them
// byte for byte), and data files read by Range requests only.

import http from 'node:http'
import https from 'node:https'

// Every request of the driver goes over one kept-alive connection per
// server, as the clients' own HTTP stacks reuse theirs: a pool of many
// idle connections would each hold a child of a prefork server until its
// KeepAliveTimeout, and the next request would wait for one.
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 1 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 1 }),
}

// One exchange; the answer's status, headers (get and has, by any case)
// and bytes.
function exchange(method, url, headers, body) {
  const target = new URL(url)
  const client = target.protocol === 'https:' ? https : http
  return new Promise((resolve, reject) => {
    const req = client.request(target, { method, headers, agent: agents[target.protocol] }, res => {
      const chunks = []
      res.on('data', c => chunks.push(c))
      res.on('end', () => resolve({
        status: res.statusCode,
        headers: { get: n => res.headers[n.toLowerCase()] ?? null, has: n => n.toLowerCase() in res.headers },
        bytes: Buffer.concat(chunks),
      }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

// One request; the answer's status, headers and text. Never throws for
// an HTTP status: the callers say what they expected.
export async function request(method, url, { headers = {}, body } = {}) {
  const res = await exchange(method, url, headers, body)
  return { status: res.status, headers: res.headers, text: res.bytes.toString('utf8'), url }
}

// The lines of an NDJSON answer, as BufferedReader.readLine and Python's
// iter_lines split them (a final newline ends the last line).
export function linesOf(text) {
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  return lines
}

export function parsed(line) {
  try { return JSON.parse(line) } catch { return undefined }
}

// What an answer that is not the one wanted says, briefly.
export function refusal(res) {
  return `${res.status} ${res.text.slice(0, 200)}`
}

// An AsyncBuffer over a file URL: `size` as the file action gives it
// (Spark builds its ranges from it), every read a Range request that must
// come back 206 with exactly the bytes asked for.
export function rangeBuffer(url, size, tally) {
  return {
    byteLength: size,
    async slice(start, end = size) {
      const res = await exchange('GET', url, { Range: `bytes=${start}-${end - 1}` })
      const bytes = res.bytes.buffer.slice(res.bytes.byteOffset, res.bytes.byteOffset + res.bytes.byteLength)
      tally.ranges++
      if (res.status !== 206 || bytes.byteLength !== end - start)
        throw new HttpError(res.status, `a Range read of ${end - start} bytes at ${start} was a ${res.status}`
                            + ` of ${bytes.byteLength} bytes`)
      return bytes
    },
  }
}

export class HttpError extends Error {
  constructor(status, message) {
    super(message)
    this.status = status
  }
}
