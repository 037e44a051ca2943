#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A/B of two builds of the module on the pages of make bench's figures 2
# and 8: the same SQLite catalog (1,000 schemas; 100 tables of 20 columns)
# served by two httpds, one child each, one with module A and one with
# module B, measured in alternating rounds (wrk, BENCH_DURATION seconds
# each, BENCH_ROUNDS rounds): requests per second of each, and the median
# of the per-round ratios B/A. For a change of the module: run it with the
# build before the change as A.
#   sh t/bench/ab.sh OLD/mod_unicat.so NEW/mod_unicat.so
set -eu

here=$(cd "$(dirname "$0")" && pwd)
PATH=$PATH:/usr/sbin:/sbin
export PATH
[ $# = 2 ] || { echo "usage: sh t/bench/ab.sh A.so B.so" >&2; exit 2; }
so_a=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
so_b=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
ROUNDS=${BENCH_ROUNDS:-5}
DUR=${BENCH_DURATION:-5}
CONNS=${BENCH_CONNECTIONS:-32}
user=bench pass=bench
so=$so_a

. "$here/lib.sh"

bench_need apache2 htpasswd curl awk wrk
bench_server_dir
bench_owner
start_httpd "$here/sharing.conf.in"
api="http://127.0.0.1:$port/api/2.1/unity-catalog"
say "bench: filling the catalog through A"
call POST /catalogs '{"name":"big"}'
i=0
while [ $i -lt 1000 ]; do
    call POST /schemas "{\"name\":\"s$(printf %04d $i)\",\"catalog_name\":\"big\"}"
    i=$((i + 1))
done
cols=$(awk 'BEGIN { for (c = 0; c < 20; c++) printf "%s{\"name\":\"c%02d\",\"type_text\":\"string\",\"type_name\":\"STRING\",\"type_json\":\"{\\\"name\\\":\\\"c%02d\\\",\\\"type\\\":\\\"string\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}\",\"position\":%d,\"comment\":\"the column %d of the table\"}", c ? "," : "", c, c, c, c }')
i=0
while [ $i -lt 100 ]; do
    call POST /tables "{\"name\":\"t$(printf %03d $i)\",\"catalog_name\":\"big\",\"schema_name\":\"s0000\",
      \"table_type\":\"EXTERNAL\",\"data_source_format\":\"DELTA\",\"storage_location\":\"s3://b/t$i\",
      \"columns\":[$cols]}"
    i=$((i + 1))
done

# B: the same database and configuration, its own module and port.
dir_a=$dir port_a=$port pid_a=$httpd_pid
dir_b=$(mktemp -d /tmp/unicat-bench-b.XXXXXX)
pid_b=""
# B goes first, then lib.sh's cleanup stops A and removes its directory.
trap 'rc=$?; [ -n "$pid_b" ] && kill -TERM "$pid_b" 2>/dev/null; wait "$pid_b" 2>/dev/null
      rm -rf "$dir_b"; dir=$dir_a httpd_pid=$pid_a; (exit $rc); cleanup' EXIT
cp -a "$dir_a/." "$dir_b/"
rm -f "$dir_b/httpd.pid"
cp "$so_b" "$dir_b/mod_unicat.so"
dir=$dir_b
httpd_pid=""
start_httpd "$here/sharing.conf.in"
port_b=$port pid_b=$httpd_pid
dir=$dir_a httpd_pid=$pid_a

auth="Authorization: Basic $(printf '%s:%s' "$user" "$pass" | base64)"
rps() { # port path
    out=$(wrk -t2 -c"$CONNS" -d"${DUR}s" -s "$here/report.lua" -H "$auth" \
              "http://127.0.0.1:$1/api/2.1/unity-catalog$2" 2>&1) || die "wrk: $out"
    set -- $(printf '%s\n' "$out" | grep '^BENCH ')
    [ "$7" = 0 ] || die "errors answered: $out"
    awk -v n="$2" -v d="$3" 'BEGIN { printf "%.1f", n / (d / 1e6) }'
}
results=$dir_b/ab.txt
: >"$results"
r=1
while [ $r -le "$ROUNDS" ]; do
    for page in "schemas /schemas?catalog_name=big&max_results=100" \
                "tables /tables?catalog_name=big&schema_name=s0000&max_results=100"; do
        name=${page%% *} path=${page#* }
        a=$(rps "$port_a" "$path")
        b=$(rps "$port_b" "$path")
        echo "$name $a $b" >>"$results"
    done
    r=$((r + 1))
done
awk -v rounds="$ROUNDS" '
function median(list,    n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ a[$1] = a[$1] " " $2; b[$1] = b[$1] " " $3; r[$1] = r[$1] " " $3 / $2 }
END {
    print "A/B, " rounds " alternating rounds, medians"
    for (k in a)
        printf "  page of 100 %-8s A %8.0f/s  B %8.0f/s  B/A %.3f\n", k, median(a[k]), median(b[k]), median(r[k])
}' "$results"
