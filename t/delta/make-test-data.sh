#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Test data the unit tests need beyond the vendored fixtures, made with
# independent Parquet implementations from npm (t/delta/gen):
#   OUT/tables/NAME   synthetic Delta tables with expected.json, one per
#                     checkpoint kind, codec and page version
#   OUT/parquet       checkpoint-shaped Parquet files of every codec, page
#                     version and encoding, with NAME.expected.jsonl
#   OUT/dumps         every fixture checkpoint's rows as read by hyparquet
# Usage: sh t/delta/make-test-data.sh OUT
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$1
fixtures=${UNICAT_DELTA_FIXTURES:-$top/t/delta/fixtures}
gen="sh $here/gen/run.sh"

rm -rf "$out.tmp"
mkdir -p "$out.tmp/tables" "$out.tmp/dumps"

table() {
    name=$1
    shift
    $gen make-table.mjs "$out.tmp/tables/$name" "$@" >/dev/null
}
table classic-snappy-v1 --files 3000 --commits 6
table multipart-zstd-v2-partitioned --files 5000 --commits 6 \
    --checkpoint multipart:3 --codec ZSTD --page-version 2 --partitions
table classic-gzip-v2 --files 2000 --commits 4 --codec GZIP --page-version 2
table classic-lz4raw-v1 --files 2000 --commits 4 --codec LZ4_RAW
table classic-brotli-v2 --files 2000 --commits 4 --codec BROTLI --page-version 2
table classic-uncompressed-v1 --files 2000 --commits 4 --codec UNCOMPRESSED
table json-only --files 600 --commits 5 --checkpoint none
table large-snappy-v1 --files 40000 --commits 8 --seed 7

$gen make-parquet.mjs "$out.tmp/parquet" >/dev/null

find "$fixtures" -path '*_delta_log*' -name '*.parquet' | sort | while read -r f; do
    rel=${f#"$fixtures"/}
    $gen dump-parquet.mjs "$f" >"$out.tmp/dumps/$(echo "$rel" | tr / _).jsonl"
done

rm -rf "$out"
mv "$out.tmp" "$out"
