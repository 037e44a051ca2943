#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Installs the npm tools of a harness (its package.json and committed
# package-lock.json in SRC) into NODE_DIR with `npm ci`, unless NODE_DIR
# already holds that lock file and every PATH (relative to NODE_DIR) that
# shows the tools are there. The harnesses call it as they start; make
# calls it once before the suites that run side by side, so that two of
# them never install into one folder at the same time.
#
# Usage: sh t/npm-install.sh SRC NODE_DIR PATH...
set -eu

if [ $# -lt 3 ]; then
    echo "usage: $0 SRC NODE_DIR PATH..." >&2
    exit 2
fi
src=$1
node_dir=$2
shift 2

installed=1
cmp -s "$src/package-lock.json" "$node_dir/package-lock.json" || installed=0
for path in "$@"; do
    [ -e "$node_dir/$path" ] || installed=0
done
[ "$installed" = 1 ] && exit 0

command -v npm >/dev/null 2>&1 || { echo "npm-install.sh: npm is not installed" >&2; exit 1; }
mkdir -p "$node_dir"
cp "$src/package.json" "$src/package-lock.json" "$node_dir/"
npm ci --prefix "$node_dir" --no-audit --no-fund --loglevel=error >&2 || {
    echo "npm-install.sh: npm ci failed in $node_dir" >&2
    exit 1
}
