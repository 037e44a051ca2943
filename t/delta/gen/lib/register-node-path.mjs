// SPDX-License-Identifier: Apache-2.0
// Loaded with `node --import` (see run.sh): installs the resolve hook of node-path-resolve.mjs.
import { register } from 'node:module'

register('./node-path-resolve.mjs', import.meta.url)
