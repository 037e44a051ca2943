// SPDX-License-Identifier: Apache-2.0
// hyparquet and its codecs, from the folder npm installed them into
// (UNICAT_SHARING_NODE, as t/npm-install.sh fills build/node-sharing).
import { createRequire } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const dir = process.env.UNICAT_SHARING_NODE
if (!dir) throw new Error('UNICAT_SHARING_NODE names no folder of npm tools')
const require = createRequire(path.resolve(dir, 'package.json'))
const load = name => import(pathToFileURL(require.resolve(name)).href)

export const { parquetReadObjects, parquetMetadataAsync } = await load('hyparquet')
export const { compressors } = await load('hyparquet-compressors')
