#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs CMD against a local Azure Blob Storage: azurite (npm) on loopback,
# which checks the signature, permissions, resource and lifetime of every
# SAS it is shown and refuses a wrong one with 403. Two instances serve the
# same container and blob, written with Azure's own SDK: one over HTTP with
# shared keys and service SAS only, and one over HTTPS with OAuth ("--oauth
# basic"), which hands out user delegation keys for bearer tokens and checks
# the user delegation SAS signed with them. The bearer tokens come from a
# stand-in for Azure AD's token endpoint (aad.mjs), over HTTPS too; both
# HTTPS servers use a certificate for 127.0.0.1 from a throw-away
# authority, made with openssl at start-up and removed at exit. Exits with
# CMD's status, or non-zero when a server cannot be brought up.
#
# Usage: sh t/azure/with-azurite.sh CMD [ARG...]
#
# CMD sees:
#   UNICAT_AZURE_ENDPOINT    http://127.0.0.1:PORT/ACCOUNT
#   UNICAT_AZURE_ACCOUNT / _KEY   azurite's well-known development account
#   UNICAT_AZURE_CONTAINER / _BLOB / _TEXT   the blob and what it holds, in
#                            both instances, where the Delta fixtures are
#                            too, under fixtures/ (fixtures/simple_table/...)
#   UNICAT_AZURE_OAUTH_ENDPOINT   https://127.0.0.1:PORT/ACCOUNT, the
#                            instance with OAuth
#   UNICAT_AZURE_CA_FILE     the authority both HTTPS servers are signed by
#   UNICAT_AZURE_AD_AUTHORITY     https://127.0.0.1:PORT, the token
#                            endpoint's stand-in: POST
#                            /TENANT/oauth2/v2.0/token
#   UNICAT_AZURE_TENANT_ID / _CLIENT_ID / _CLIENT_SECRET   the one
#                            application it knows (the secret is new on
#                            every run and holds characters a form escapes)
#   UNICAT_AZURE_OBJECT_ID   the application's object id, the signed oid of
#                            the delegation keys azurite hands out
#
# Environment read:
#   UNICAT_AZURE_NODE_DIR    npm prefix for azurite, default build/node-azure
#   UNICAT_DELTA_FIXTURES    the Delta fixtures, default t/delta/fixtures
set -eu

if [ $# -eq 0 ]; then
    echo "usage: $0 CMD [ARG...]" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
node_dir=${UNICAT_AZURE_NODE_DIR:-$root/build/node-azure}
fixtures=${UNICAT_DELTA_FIXTURES:-$root/t/delta/fixtures}
account=devstoreaccount1
key='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='
tenant=72f988bf-86f1-41af-91ab-2d7cd011db47
client_id=5b3c2a1d-4e6f-4a8b-9c0d-1e2f3a4b5c6d
object_id=0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b

fail() {
    echo "with-azurite.sh: $*" >&2
    exit 1
}

command -v node >/dev/null 2>&1 || fail "node is not installed"
command -v npm >/dev/null 2>&1 || fail "npm is not installed"
command -v openssl >/dev/null 2>&1 || fail "openssl is not installed"
sh "$root/t/npm-install.sh" "$here" "$node_dir" \
    node_modules/.bin/azurite-blob || fail "the npm tools cannot be installed"

work=$(mktemp -d "${TMPDIR:-/tmp}/unicat-azurite.XXXXXX") || exit 1
pids=""
# A server killed by its signal is no failure of CMD's.
cleanup() {
    set +e
    for p in $pids; do
        kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
    done
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

# A CA and, signed by it, a certificate for 127.0.0.1 and localhost. The
# CA's key is gone once it has signed.
make_certificates() {
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 \
        -subj "/CN=unicat test CA" -keyout "$work/ca.key" \
        -out "$work/ca.pem" 2>/dev/null || fail "openssl: no test CA"
    openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" \
        -keyout "$work/server.key" -out "$work/server.csr" 2>/dev/null \
        || fail "openssl: no server key"
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$work/server.ext"
    openssl x509 -req -in "$work/server.csr" -days 2 -CA "$work/ca.pem" \
        -CAkey "$work/ca.key" -CAcreateserial -extfile "$work/server.ext" \
        -out "$work/server.pem" 2>/dev/null \
        || fail "openssl: no server certificate"
    rm -f "$work/ca.key"
}

free_port() {
    node -e 'const s = require("net").createServer();
      s.listen(0, "127.0.0.1",
               () => { console.log(s.address().port); s.close(); });'
}

# wait_for LOG PATTERN NAME: until LOG, written by the process started last,
# has a line matching PATTERN; NAME is for the error.
wait_for() {
    i=0
    until grep -q "$2" "$1" 2>/dev/null; do
        i=$((i + 1))
        if [ $i -ge 150 ] || ! kill -0 "$!" 2>/dev/null; then
            cat "$1" >&2
            fail "$3 did not come up"
        fi
        sleep 0.2
    done
}

# start_azurite PORT NAME [ARG...]: one instance, in memory.
start_azurite() {
    port=$1 name=$2
    shift 2
    "$node_dir/node_modules/.bin/azurite-blob" --blobHost 127.0.0.1 \
        --blobPort "$port" --inMemoryPersistence --disableProductStyleUrl \
        --disableTelemetry --skipApiVersionCheck \
        --silent "$@" >"$work/$name.out" 2>&1 &
    pids="$pids $!"
    wait_for "$work/$name.out" "successfully listens" "azurite ($name)"
}

make_certificates
http_port=$(free_port)
endpoint="http://127.0.0.1:$http_port/$account"
start_azurite "$http_port" http
oauth_port=$(free_port)
oauth_endpoint="https://127.0.0.1:$oauth_port/$account"
start_azurite "$oauth_port" oauth --oauth basic \
    --cert "$work/server.pem" --key "$work/server.key"

client_secret="unicat~$(openssl rand -hex 12)+&=/%"
UNICAT_AZURE_TENANT_ID=$tenant UNICAT_AZURE_CLIENT_ID=$client_id \
    UNICAT_AZURE_CLIENT_SECRET=$client_secret \
    UNICAT_AZURE_OBJECT_ID=$object_id \
    node "$here/aad.mjs" "$work/server.pem" "$work/server.key" \
    >"$work/aad.out" 2>&1 &
pids="$pids $!"
wait_for "$work/aad.out" "^listening " "the Azure AD stand-in"
authority="https://127.0.0.1:$(sed -n 's/^listening //p' "$work/aad.out")"

container=unicat
blob="tables/t1/part-00000 x.parquet"
text="the bytes of a Parquet file"
# From beside its node_modules, where its imports resolve.
cp "$here/setup.mjs" "$node_dir/setup.mjs"
for e in "$endpoint" "$oauth_endpoint"; do
    NODE_EXTRA_CA_CERTS="$work/ca.pem" node "$node_dir/setup.mjs" "$e" \
        "$account" "$key" "$container" "$blob" "$text" fixtures \
        "$fixtures" || fail "cannot fill azurite at $e"
done

export UNICAT_AZURE_ENDPOINT="$endpoint" UNICAT_AZURE_ACCOUNT="$account" \
    UNICAT_AZURE_KEY="$key" UNICAT_AZURE_CONTAINER="$container" \
    UNICAT_AZURE_BLOB="$blob" UNICAT_AZURE_TEXT="$text" \
    UNICAT_AZURE_OAUTH_ENDPOINT="$oauth_endpoint" \
    UNICAT_AZURE_CA_FILE="$work/ca.pem" \
    UNICAT_AZURE_AD_AUTHORITY="$authority" \
    UNICAT_AZURE_TENANT_ID="$tenant" UNICAT_AZURE_CLIENT_ID="$client_id" \
    UNICAT_AZURE_CLIENT_SECRET="$client_secret" \
    UNICAT_AZURE_OBJECT_ID="$object_id"
status=0
"$@" || status=$?
exit $status
