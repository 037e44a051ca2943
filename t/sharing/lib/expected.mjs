// SPDX-License-Identifier: Apache-2.0
// What a recipient should read, from the table's folder alone: its JSON
// commits replayed from version 0 (the live files of each version, its
// metaData, its commit timestamp, its changes), and the rows of those
// files read from disk. Independent of the server: nothing here asks it.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { diskSource } from './sources.mjs'
import { rowsOfFiles, tableColumns } from './rows.mjs'
import { changeExtra } from './answers.mjs'

// The key of a logical file: its path and its deletion vector's id.
function fileKey(action) {
  const dv = action.deletionVector
  return `${action.path}#${dv ? [dv.storageType, dv.pathOrInlineDv, dv.offset ?? ''].join(':') : ''}`
}

function setting(meta, key) {
  return ((meta || {}).configuration || {})[key]
}

// The commit's timestamp as Delta readers take it: its in-commit
// timestamp where the table has them on, else its file's time, each
// later than the one before.
function commitTimestamp(file, actions, meta, previous) {
  const ict = actions.find(a => a.commitInfo)?.commitInfo?.inCommitTimestamp
  if (setting(meta, 'delta.enableInCommitTimestamps') === 'true' && Number.isInteger(ict)) return ict
  const t = Math.floor(statSync(file).mtimeMs)
  return previous !== undefined && t <= previous ? previous + 1 : t
}

// A commit's data changes as a change data feed tells them: its cdc
// files when it has any, else its add and remove actions that change data
// (a remove and an add of one path that replace its deletion vector stay
// a delete of its rows and an insert of those left, as the server's lines
// tell them: the pairing a Delta reader makes of them is not made here,
// no fixture with a change data feed having deletion vectors).
function changesOf(actions) {
  const cdc = actions.filter(a => a.cdc).map(a => ({ kind: 'cdc', action: a.cdc }))
  if (cdc.length) return cdc
  return actions.flatMap(a => a.add?.dataChange ? [{ kind: 'add', action: a.add }]
    : a.remove?.dataChange ? [{ kind: 'remove', action: a.remove }] : [])
}

// Every version of the log, or null when the log does not go back to
// version 0 in JSON (a checkpoint stands for the first versions).
export function replay(dir) {
  const log = path.join(dir, '_delta_log')
  const commits = readdirSync(log).filter(f => /^\d{20}\.json$/.test(f)).sort()
  if (!commits.length || Number(commits[0].slice(0, 20)) !== 0) return null
  const live = new Map()
  const versions = []
  let meta, timestamp
  for (const name of commits) {
    const file = path.join(log, name)
    const actions = readFileSync(file, 'utf8').split('\n').filter(l => l.trim()).map(l => JSON.parse(l))
    for (const a of actions) {
      if (a.metaData) meta = a.metaData
      if (a.add) live.set(fileKey(a.add), a.add)
      if (a.remove) live.delete(fileKey(a.remove))
    }
    timestamp = commitTimestamp(file, actions, meta, timestamp)
    versions.push({ meta, files: [...live.values()], changes: changesOf(actions), timestamp })
  }
  return versions
}

function diskFile(action) {
  return {
    path: decodeURIComponent(action.path), size: action.size,
    partitionValues: action.partitionValues || {}, dv: action.deletionVector || null,
  }
}

// The expected rows of the table at version v.
export function expectedSnapshot(reader, versions, v, problems) {
  const state = versions[v]
  return rowsOfFiles(state.files.map(a => diskFile(a)), tableColumns(state.meta), 'physical',
                     reader.source, problems, reader.tally)
}

// The expected rows of the change data feed from version `from` to the
// last, with the columns a change adds; the table's latest columns, as a
// client reading the range uses them.
export function expectedChanges(reader, versions, from, problems) {
  const files = versions.slice(from).flatMap((state, i) => state.changes.map(c => {
    const f = diskFile(c.action)
    f.extra = changeExtra({ kind: c.kind, version: from + i, timestamp: state.timestamp })
    return f
  }))
  return rowsOfFiles(files, tableColumns(versions.at(-1).meta), 'physical', reader.source, problems,
                     reader.tally)
}

export function diskReader(dir) {
  return { source: diskSource(dir), tally: { files: 0, deleted: 0, ranges: 0 } }
}

// The first version of a change data feed the table has had on ever
// since, or undefined.
export function changesFrom(versions) {
  let from
  versions.forEach((s, v) => {
    if (setting(s.meta, 'delta.enableChangeDataFeed') !== 'true') from = undefined
    else if (from === undefined) from = v
  })
  return from
}
