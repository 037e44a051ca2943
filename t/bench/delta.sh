#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `make bench` (second part): the Delta log reader on a generated file://
# table with 100,000 active files, a checkpoint and 20 later JSON commits
# (t/delta/gen/make-table.mjs, made once into build/delta-bench). Reports:
#   1. cold snapshot of the latest version (fresh process): time, peak
#      memory growth, and resident memory kept per active file beyond its
#      path (targets: < 1 s, <= 200 bytes);
#   2. warm snapshot check through the cache (a listing of the log after
#      the cached version), mean of 2,000 (target < 1 ms);
#   3. the checkpoint decoded into file entries, rows per second, against
#      `cat` of the same file in the same rounds (target: within 5x): with
#      the stats left compressed as a snapshot keeps them, and with every
#      file's stats read back as well.
# Figures are medians over BENCH_DELTA_ROUNDS (5) alternating rounds. The
# script reports; it fails only when the harness breaks.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
ROUNDS=${BENCH_DELTA_ROUNDS:-5}
FILES=${BENCH_DELTA_FILES:-114300}
bench=$top/build/delta_bench
table=$top/build/delta-bench/table-$FILES

[ -x "$bench" ] || { echo "bench: $bench is missing: run make first" >&2; exit 2; }
if [ ! -f "$table/expected.json" ]; then
    rm -rf "$table"
    sh "$top/t/delta/gen/run.sh" make-table.mjs "$table" --files "$FILES" \
        --commits 20 >/dev/null || { echo "bench: cannot generate the table" >&2; exit 2; }
fi

median() { sort -n | awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]}'; }
field() { awk -v k="$1" '$1 == k {print $2}'; }

out=$(mktemp)
trap 'rm -f "$out"' EXIT
i=0
while [ $i -lt "$ROUNDS" ]; do
    "$bench" cold "$table" >>"$out"
    i=$((i + 1))
done
"$bench" rounds "$table" "$ROUNDS" >>"$out"

files=$(field files <"$out" | tail -n 1)
cold=$(field cold_ms <"$out" | median)
peak=$(field peak_rss_growth_mb <"$out" | median)
per_file=$(field bytes_per_file_beyond_path <"$out" | median)
stats=$(field stats_bytes_per_file <"$out" | median)
warm=$(field warm_us <"$out" | median)
decode=$(field decode_ms <"$out" | median)
decode_all=$(field decode_all_ms <"$out" | median)
rows=$(awk '$1 == "decode_ms" {print $4; exit}' "$out")
cat_ms=$(field cat_ms <"$out" | median)
ratio() {
    awk -v k="$1" '$1 == k {d[++n] = $2} $1 == "cat_ms" {c[++m] = $2}
                   END {for (i = 1; i <= n; i++) print d[i] / c[i]}' "$out" | median
}

echo "== Delta log reader: $files active files, checkpoint + 20 commits"
printf '  cold snapshot            %8.1f ms      (target < 1000 ms)\n' "$cold"
printf '  peak memory growth       %8.1f MB\n' "$peak"
printf '  kept per file            %8.1f bytes beyond its path, stats compressed (target <= 200)\n' "$per_file"
printf '  stats text per file      %8.1f bytes, when read back\n' "$stats"
printf '  warm (cached) check      %8.1f us      (target < 1000 us)\n' "$warm"
printf '  checkpoint decode        %8.1f ms, %s rows: %.0f rows/s\n' "$decode" "$rows" \
    "$(awk -v r="$rows" -v d="$decode" 'BEGIN {print r / d * 1000}')"
printf '  cat of the checkpoint    %8.2f ms\n' "$cat_ms"
printf '  with all stats read back %8.1f ms\n' "$decode_all"
printf '  decode / cat             %8.1f x      (target <= 5)\n' "$(ratio decode_ms)"
printf '  with all stats / cat     %8.1f x      (target <= 5)\n' "$(ratio decode_all_ms)"
