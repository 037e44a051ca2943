// SPDX-License-Identifier: Apache-2.0
// The wire as a recipient sees it: requests with the headers a client
// sets, NDJSON answers as lines of text (a client compares some of them
// byte for byte), and data files read by Range requests only.

// One request; the answer's status, headers and text. Never throws for
// an HTTP status: the callers say what they expected.
export async function request(method, url, { headers = {}, body } = {}) {
  const res = await fetch(url, { method, headers, body, redirect: 'manual' })
  const text = await res.text()
  return { status: res.status, headers: res.headers, text, url }
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
      const res = await fetch(url, { headers: { Range: `bytes=${start}-${end - 1}` } })
      const bytes = await res.arrayBuffer()
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
