#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs CMD against a local Azure Blob Storage: azurite (npm) on loopback,
# which checks the signature, permissions, resource and lifetime of every
# SAS it is shown and refuses a wrong one with 403. A container holds one
# blob, written with Azure's own SDK. Exits with CMD's status, or non-zero
# when azurite cannot be brought up.
#
# Usage: sh t/azure/with-azurite.sh CMD [ARG...]
#
# CMD sees:
#   UNICAT_AZURE_ENDPOINT    http://127.0.0.1:PORT/ACCOUNT
#   UNICAT_AZURE_ACCOUNT / _KEY   azurite's well-known development account
#   UNICAT_AZURE_CONTAINER / _BLOB / _TEXT   the blob and what it holds
#
# Environment read:
#   UNICAT_AZURE_NODE_DIR    npm prefix for azurite, default build/node-azure
set -eu

if [ $# -eq 0 ]; then
    echo "usage: $0 CMD [ARG...]" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
node_dir=${UNICAT_AZURE_NODE_DIR:-$root/build/node-azure}
account=devstoreaccount1
key='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='

fail() {
    echo "with-azurite.sh: $*" >&2
    exit 1
}

command -v node >/dev/null 2>&1 || fail "node is not installed"
command -v npm >/dev/null 2>&1 || fail "npm is not installed"
if ! cmp -s "$here/package-lock.json" "$node_dir/package-lock.json" \
   || [ ! -x "$node_dir/node_modules/.bin/azurite-blob" ]; then
    mkdir -p "$node_dir"
    cp "$here/package.json" "$here/package-lock.json" "$node_dir/"
    npm ci --prefix "$node_dir" --no-audit --no-fund --loglevel=error \
        >&2 || fail "npm ci failed in $node_dir"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/unicat-azurite.XXXXXX") || exit 1
pid=""
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

port=$(node -e 'const s = require("net").createServer();
  s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });')
"$node_dir/node_modules/.bin/azurite-blob" --blobHost 127.0.0.1 \
    --blobPort "$port" --inMemoryPersistence --disableProductStyleUrl \
    --disableTelemetry --skipApiVersionCheck \
    --silent >"$work/azurite.out" 2>&1 &
pid=$!
endpoint="http://127.0.0.1:$port/$account"
i=0
until grep -q "successfully listens" "$work/azurite.out" 2>/dev/null; do
    i=$((i + 1))
    if [ $i -ge 150 ] || ! kill -0 "$pid" 2>/dev/null; then
        cat "$work/azurite.out" >&2
        fail "azurite did not come up"
    fi
    sleep 0.2
done
container=unicat
blob="tables/t1/part-00000 x.parquet"
text="the bytes of a Parquet file"
# From beside its node_modules, where its imports resolve.
cp "$here/setup.mjs" "$node_dir/setup.mjs"
node "$node_dir/setup.mjs" "$endpoint" \
    "$account" "$key" "$container" "$blob" "$text" \
    || fail "cannot fill azurite"

export UNICAT_AZURE_ENDPOINT="$endpoint" UNICAT_AZURE_ACCOUNT="$account" \
    UNICAT_AZURE_KEY="$key" UNICAT_AZURE_CONTAINER="$container" \
    UNICAT_AZURE_BLOB="$blob" UNICAT_AZURE_TEXT="$text"
status=0
"$@" || status=$?
exit $status
