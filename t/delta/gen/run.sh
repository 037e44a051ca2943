#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs one of the t/delta/gen scripts with its locked npm dependencies.
#
#   t/delta/gen/run.sh SCRIPT.mjs [ARGS...]     e.g. t/delta/gen/run.sh dump-parquet.mjs FILE.parquet
#
# Dependencies live outside the source tree, in $NODE_GEN_DIR (default <repo>/build/node-gen).
# They are installed with `npm ci` (exact versions from package-lock.json) on first use and
# again whenever package-lock.json changes. Installing needs the npm registry; later runs don't.
# Module resolution: Node's ESM loader ignores NODE_PATH, so the script runs with
# NODE_PATH=$NODE_GEN_DIR/node_modules plus lib/register-node-path.mjs, a resolve hook that
# retries failed bare imports from the NODE_PATH directories. Without run.sh, `npm ci` in this
# directory and plain `node SCRIPT.mjs` work too.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dir=${NODE_GEN_DIR:-$(cd "$here/../../.." && pwd)/build/node-gen}

[ $# -ge 1 ] || { echo "usage: $0 SCRIPT.mjs [ARGS...]" >&2; exit 2; }

if ! cmp -s "$here/package-lock.json" "$dir/.installed-lock.json"; then
  mkdir -p "$dir"
  cp "$here/package.json" "$here/package-lock.json" "$dir/"
  npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error >&2
  cp "$here/package-lock.json" "$dir/.installed-lock.json"
fi

script=$1
shift
case $script in */*) ;; *) script=$here/$script ;; esac
NODE_PATH=$dir/node_modules exec node --import "$here/lib/register-node-path.mjs" "$script" "$@"
