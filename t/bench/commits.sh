#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `make bench` (sixth part): the commit coordinator of catalog-managed
# Delta tables, through the UC Delta API, on one httpd child and a SQLite
# catalog (t/bench/sharing.conf.in). Measures, in BENCH_ROUNDS (5)
# alternating rounds of BENCH_DURATION (5) seconds, on fresh tables each
# round, each writer committing the next version with the backfill report
# of the one before (as a Delta writer does), one request after the other:
#   1. commits per second on one table, against PATCH /schemas/{name} of
#      one schema on one connection: a catalog write of one row in one
#      transaction;
#   2. commits per second across BENCH_COMMIT_TABLES (8) tables, a writer
#      each, against as many connections each PATCHing a schema of its own;
#   3. loadTable (GET /delta/v1/.../tables/{t}) of a table with 10 commits
#      not backfilled, against GET /tables/{full_name} of it: requests per
#      second and p50 (wrk, 8 connections).
# Figures are medians of the per-round ratios. The script reports; it fails
# only when the harness breaks (or a commit is refused).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
PATH=$PATH:/usr/sbin:/sbin
export PATH

ROUNDS=${BENCH_ROUNDS:-5}
DUR=${BENCH_DURATION:-5}
WRITERS=${BENCH_COMMIT_TABLES:-8}
so="$top/mod_unicat/.libs/mod_unicat.so"
user=bench pass=bench

. "$here/lib.sh"

bench_need apache2 htpasswd curl awk wrk
bench_server_dir data
bench_owner
start_httpd "$here/sharing.conf.in"
base=/api/2.1/unity-catalog
api="http://127.0.0.1:$port$base"
say "bench: httpd pid $httpd_pid on 127.0.0.1:$port"

call POST /catalogs "{\"name\":\"bench\",\"storage_root\":\"file://$dir/data\"}"
call POST /schemas '{"name":"sch","catalog_name":"bench"}'
i=0
while [ $i -le "$WRITERS" ]; do
    call POST /schemas "{\"name\":\"wr$i\",\"catalog_name\":\"bench\"}"
    i=$((i + 1))
done

# A catalog-managed table made as a Delta engine makes one; its id in $id.
SCH=/delta/v1/catalogs/bench/schemas/sch
table() { # name
    call POST "$SCH/staging-tables" "{\"name\":\"$1\"}"
    id=$(sed -n 's|.*"table-id":"\([^"]*\)".*|\1|p' "$dir/api.out")
    location=$(sed -n 's|.*"location":"\([^"]*\)".*|\1|p' "$dir/api.out")
    call POST "$SCH/tables" "{\"name\":\"$1\",\"location\":\"$location\",
      \"table-type\":\"MANAGED\",\"last-commit-timestamp-ms\":1790000000000,
      \"columns\":{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",
        \"nullable\":false,\"metadata\":{}}]},
      \"protocol\":{\"min-reader-version\":3,\"min-writer-version\":7,
        \"reader-features\":[\"catalogManaged\",\"deletionVectors\",\"v2Checkpoint\",\"vacuumProtocolCheck\"],
        \"writer-features\":[\"catalogManaged\",\"deletionVectors\",\"v2Checkpoint\",\"vacuumProtocolCheck\",\"inCommitTimestamp\"]},
      \"properties\":{\"delta.enableDeletionVectors\":\"true\",\"delta.checkpointPolicy\":\"v2\",
        \"delta.enableInCommitTimestamps\":\"true\",\"delta.checkpoint.writeStatsAsStruct\":\"true\",
        \"delta.checkpoint.writeStatsAsJson\":\"true\",\"io.unitycatalog.tableId\":\"$id\"}}"
}

# One wrk run with commits.lua: BENCH line fields in $requests $duration
# $p50 $status_errors.
run() { # mode targets-file connections
    out=$(BENCH_MODE=$1 BENCH_TARGETS=$2 BENCH_BASE=$base BENCH_HERE=$here \
          wrk -t"$3" -c"$3" -d"${DUR}s" -s "$here/commits.lua" \
              -H "Authorization: Basic $(printf '%s:%s' "$user" "$pass" | base64)" \
              "http://127.0.0.1:$port/" 2>&1) || die "wrk failed: $out"
    read_bench "$out"
}
read_bench() { # wrk's output
    line=$(printf '%s\n' "$1" | grep '^BENCH ' | tail -1)
    [ -n "$line" ] || die "no result from wrk: $1"
    set -- $line
    requests=$2 duration=$3 p50=$4 status_errors=$7
    [ "$requests" -gt 0 ] || die "wrk made no request: $1"
}
rps() { awk -v n="$requests" -v d="$duration" 'BEGIN { printf "%.1f", n / (d / 1e6) }'; }

results=$dir/rounds.txt
: >"$results"
r=1
while [ "$r" -le "$ROUNDS" ]; do
    table "one_$r"
    echo "one_$r $id" >"$dir/one.txt"
    echo "wr0 -" >"$dir/patch_one.txt"
    : >"$dir/many.txt"; : >"$dir/patch_many.txt"
    i=1
    while [ $i -le "$WRITERS" ]; do
        table "many_${r}_$i"
        echo "many_${r}_$i $id" >>"$dir/many.txt"
        echo "wr$i -" >>"$dir/patch_many.txt"
        i=$((i + 1))
    done
    run commit "$dir/one.txt" 1
    [ "$status_errors" = 0 ] || die "$status_errors commits on one table were refused: $(printf "%s" "$out" | head -5)"
    echo "one commit $(rps)" >>"$results"
    run patch "$dir/patch_one.txt" 1
    echo "one patch $(rps)" >>"$results"
    run commit "$dir/many.txt" "$WRITERS"
    [ "$status_errors" = 0 ] || die "$status_errors commits across tables were refused"
    echo "many commit $(rps)" >>"$results"
    run patch "$dir/patch_many.txt" "$WRITERS"
    echo "many patch $(rps)" >>"$results"
    r=$((r + 1))
done

# --- 3: loadTable against GET /tables/{full_name} ------------------------------
table load
v=1
while [ $v -le 10 ]; do
    call POST "$SCH/tables/load" "{\"requirements\":[{\"type\":\"assert-table-uuid\",\"uuid\":\"$id\"}],
      \"updates\":[{\"action\":\"add-commit\",\"commit\":{\"version\":$v,\"timestamp\":$v,
        \"file-name\":\"$v.json\",\"file-size\":1,\"file-modification-timestamp\":$v}}]}"
    v=$((v + 1))
done
get() { # path
    out=$(wrk -t2 -c8 -d"${DUR}s" -s "$here/report.lua" \
              -H "Authorization: Basic $(printf '%s:%s' "$user" "$pass" | base64)" \
              "$api$1" 2>&1) || die "wrk failed: $out"
    read_bench "$out"
    [ "$status_errors" = 0 ] || die "GET $1 answered $status_errors errors"
}
r=1
while [ "$r" -le "$ROUNDS" ]; do
    get "$SCH/tables/load"
    echo "load delta $(rps) $p50" >>"$results"
    get "/tables/bench.sch.load"
    echo "load catalog $(rps) $p50" >>"$results"
    r=$((r + 1))
done

awk -v writers="$WRITERS" -v rounds="$ROUNDS" -v dur="$DUR" '
function median(list,    n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ key = $1 " " $2; v[key] = v[key] " " $3; if ($4 != "") p[key] = p[key] " " $4
  if ($2 == "patch") ratio[$1] = ratio[$1] " " last[$1] / $3
  else if ($1 == "load" && $2 == "catalog") { lr = lr " " last["load"] / $3; pr = pr " " lp / $4 }
  last[$1] = $3; if ($1 == "load") lp = $4 }
END {
    print "mod_unicat bench: commits of catalog-managed Delta tables, " rounds " rounds of " dur "s, medians"
    printf "%-44s %12s %12s %8s\n", "", "UC Delta API", "reference", "ratio"
    printf "%-44s %12.0f %12.0f %8.2f\n", "1. commits/s, one table, one writer", median(v["one commit"]), median(v["one patch"]), median(ratio["one"])
    printf "%-44s %12.0f %12.0f %8.2f\n", "2. commits/s, " writers " tables, a writer each", median(v["many commit"]), median(v["many patch"]), median(ratio["many"])
    printf "%-44s %12.0f %12.0f %8.2f\n", "3. loadTable/s vs GET /tables/{name}", median(v["load delta"]), median(v["load catalog"]), median(lr)
    printf "%-44s %10.2fms %10.2fms %8.2f\n", "   p50 latency", median(p["load delta"]) / 1000, median(p["load catalog"]) / 1000, median(pr)
    print "reference of 1 and 2: PATCH /schemas/{name} (one row written in a transaction), as many connections"
}' "$results"
