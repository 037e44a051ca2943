// SPDX-License-Identifier: Apache-2.0
// ESM resolve hook: a bare import that normal resolution cannot find is retried from each
// node_modules directory listed in NODE_PATH (which ESM otherwise ignores).
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const moduleDirs = (process.env.NODE_PATH ?? '').split(path.delimiter).filter(Boolean)

const isBare = specifier => !/^[./]/.test(specifier) && !specifier.includes(':')

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context)
  } catch (err) {
    if (err.code !== 'ERR_MODULE_NOT_FOUND' || !isBare(specifier)) throw err
    for (const dir of moduleDirs) {
      // A parent URL inside `dir` makes Node's lookup walk up to `dir` itself.
      const parentURL = pathToFileURL(path.join(dir, 'node-path-parent.mjs')).href
      try {
        return await nextResolve(specifier, { ...context, parentURL })
      } catch (retryErr) {
        if (retryErr.code !== 'ERR_MODULE_NOT_FOUND') throw retryErr
      }
    }
    throw err
  }
}
