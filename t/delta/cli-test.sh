#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# unicat-delta as a command, on a catalog-managed table made here: refused
# without its catalog's commits; with them (--catalog-commits FILE, and -
# for standard input) read as the catalog ratified it: version 1 from the
# staged file the catalog names, never a loser's staged file nor a
# published file above the catalog's latest version, which is the last
# version there is.
#   sh t/delta/cli-test.sh [build/unicat-delta]
set -eu
cli=${1:-build/unicat-delta}
[ -x "$cli" ] || { echo "cli-test: $cli is missing: run make first" >&2; exit 2; }
t=$(mktemp -d /tmp/unicat-cli.XXXXXX)
trap 'rm -rf "$t"' EXIT
log=$t/_delta_log
mkdir -p "$log/_staged_commits"
failed=0
fail() { echo "not ok: $*"; failed=$((failed + 1)); }

add() { # version file
    printf '{"commitInfo":{"inCommitTimestamp":%d,"txnId":"t%s"}}\n' \
        $((1790000000000 + $1)) "$2"
    printf '{"add":{"path":"%s.parquet","partitionValues":{},"size":10,' "$2"
    printf '"modificationTime":%d,"dataChange":true}}\n' $((1790000000000 + $1))
}
{
    add 0 zero
    printf '%s\n' '{"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["catalogManaged"],"writerFeatures":["catalogManaged","inCommitTimestamp"]}}'
    printf '%s\n' '{"metaData":{"id":"cli","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]}","partitionColumns":[],"configuration":{"delta.enableInCommitTimestamps":"true"}}}'
} >"$log/00000000000000000000.json"
add 1 one >"$log/_staged_commits/00000000000000000001.w.json"
add 1 loser >"$log/_staged_commits/00000000000000000001.l.json"
size=$(wc -c <"$log/_staged_commits/00000000000000000001.w.json" | tr -d ' ')
printf '{"commits":[{"version":1,"timestamp":1790000000001,"file_name":"00000000000000000001.w.json","file_size":%s,"file_modification_timestamp":1790000000001}],"latest_table_version":1}\n' \
    "$size" >"$t/commits.json"

if "$cli" "$t" >"$t/out" 2>"$t/err"; then
    fail "read without the catalog's commits"
else
    grep -q UNSUPPORTED_OPERATION "$t/err" || fail "refused, but not as unsupported: $(cat "$t/err")"
fi
add 2 above >"$log/00000000000000000002.json"
check() { # what (a snapshot in $t/out)
    grep -q '"version":1,' "$t/out" || fail "$1: not version 1: $(head -c 200 "$t/out")"
    for f in zero one; do
        grep -q "\"path\":\"$f.parquet\"" "$t/out" || fail "$1: $f.parquet missing"
    done
    for f in loser above; do
        ! grep -q "\"path\":\"$f.parquet\"" "$t/out" || fail "$1: $f.parquet read"
    done
}
"$cli" --catalog-commits "$t/commits.json" "$t" >"$t/out" || fail "--catalog-commits FILE failed"
check "--catalog-commits FILE"
"$cli" --catalog-commits - "$t" <"$t/commits.json" >"$t/out" || fail "--catalog-commits - failed"
check "--catalog-commits -"
! "$cli" --catalog-commits "$t/commits.json" --version 2 "$t" >/dev/null 2>&1 ||
    fail "version 2, above the catalog's latest, was read"
[ $failed = 0 ] || { echo "cli-test: $failed failed"; exit 1; }
echo "cli-test: unicat-delta reads a catalog-managed table as its catalog ratified it"
