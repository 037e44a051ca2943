#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A/B of two builds of the module on the pages of make bench's figures 2
# and 8 and the GET of figures 1 and 11 (a page of 100 schemas, a page of
# 100 tables, one catalog): the same SQLite catalog (1,000 schemas; 100
# tables of 20 columns)
# served by two httpds, one child each, one with module A and one with
# module B, measured in alternating rounds (wrk, BENCH_DURATION seconds
# each, BENCH_ROUNDS rounds): requests per second of each, the server's
# CPU time per request, and the medians of the per-round ratios B/A. Then,
# when valgrind is installed, the instructions per request of each build:
# each httpd in turn runs alone (-X) under callgrind, counting from the
# start of a request to its end (ap_process_async_request, so not the
# event loop), BENCH_COUNT requests of each page on one connection, and
# the median over the requests. Instructions do not depend on the load of
# the machine: the steadiest of the three figures. For a change of the module: run it with the build
# before the change as A.
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
COUNT=${BENCH_COUNT:-200}
user=bench pass=bench
so=$so_a

. "$here/lib.sh"

bench_need apache2 htpasswd curl awk wrk
bench_server_dir
bench_owner
start_httpd "$here/sharing.conf.in"
api="http://127.0.0.1:$port/api/2.1/unity-catalog"
say "bench: filling the catalog through A"
bench_fill_pages

# B: the same database and configuration, its own module and port.
dir_a=$dir port_a=$port pid_a=$httpd_pid
dir_b=$(mktemp -d /tmp/unicat-bench-b.XXXXXX)
pid_b="" cpid=""
# B (or an httpd under callgrind) goes first, then lib.sh's cleanup stops A and removes its directory.
trap 'rc=$?; set +e; for p in $pid_b $cpid; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
      rm -rf "$dir_b"; dir=$dir_a httpd_pid=$pid_a; (exit $rc); cleanup' EXIT
cp -a "$dir_a/." "$dir_b/"
rm -f "$dir_b/httpd.pid"
cp "$so_b" "$dir_b/mod_unicat.so"
dir=$dir_b
httpd_pid=""
start_httpd "$here/sharing.conf.in"
port_b=$port pid_b=$httpd_pid
dir=$dir_a httpd_pid=$pid_a

httpd_pid=$pid_b; child_b=$(child_pid)
httpd_pid=$pid_a; child_a=$(child_pid)
auth="Authorization: Basic $(printf '%s:%s' "$user" "$pass" | base64)"
rps() { # port child path -> "requests/s CPU-us/request"
    bench_rate "http://127.0.0.1:$1/api/2.1/unity-catalog$3" "$2" "$auth" "$CONNS"
}
# name=path; a path holds no space.
pages="schemas=/schemas?catalog_name=big&max_results=100
tables=/tables?catalog_name=big&schema_name=s0000&max_results=100
catalog=/catalogs/big"
results=$dir_b/ab.txt
: >"$results"
r=1
while [ $r -le "$ROUNDS" ]; do
    for page in $pages; do
        name=${page%%=*} path=${page#*=}
        a=$(rps "$port_a" "$child_a" "$path")
        b=$(rps "$port_b" "$child_b" "$path")
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
{ a[$1] = a[$1] " " $2; b[$1] = b[$1] " " $4; r[$1] = r[$1] " " $4 / $2
  ca[$1] = ca[$1] " " $3; cb[$1] = cb[$1] " " $5; cr[$1] = cr[$1] " " ($3 ? $5 / $3 : 0) }
END {
    print "A/B, " rounds " alternating rounds, medians"
    for (k in a) {
        printf "  %-7s requests/s      A %8.0f  B %8.0f  B/A %.3f\n", k, median(a[k]), median(b[k]), median(r[k])
        printf "  %-7s CPU us/request  A %8.1f  B %8.1f  B/A %.3f\n", k, median(ca[k]), median(cb[k]), median(cr[k])
    }
}' "$results"

command -v valgrind >/dev/null 2>&1 || { say "valgrind is missing: no instruction counts"; exit 0; }
# Both servers stop; each build then runs alone under callgrind, as the
# owner of its directory (callgrind writes its counts after httpd has
# dropped root).
for pid in "$pid_b" "$pid_a"; do
    kill -TERM "$pid" 2>/dev/null || :
    wait "$pid" 2>/dev/null || :
done
pid_b="" httpd_pid="" pid_a=""
instructions() { # dir path -> instructions per request
    cdir=$1
    cport=$(random_port)
    sed "s/^Listen .*/Listen 127.0.0.1:$cport/" "$cdir/httpd.conf" >"$cdir/count.conf"
    rm -f "$cdir/httpd.pid" "$cdir"/callgrind.out*
    [ -n "$as_owner" ] && chown -R "$owner:$group" "$cdir"
    $as_owner valgrind --tool=callgrind --vgdb=no --collect-atstart=no \
        --toggle-collect=ap_process_async_request \
        --dump-after=ap_process_async_request \
        --callgrind-out-file="$cdir/callgrind.out" \
        apache2 -X -f "$cdir/count.conf" >"$cdir/callgrind.log" 2>&1 &
    cpid=$!
    i=0
    until curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$cport/"; do
        i=$((i + 1))
        [ $i -lt 120 ] || die "httpd under callgrind did not answer: $(tail -5 "$cdir/callgrind.log")"
        sleep 0.5
    done
    i=0
    while [ $i -lt "$COUNT" ]; do
        printf 'url="http://127.0.0.1:%s/api/2.1/unity-catalog%s"\noutput=/dev/null\n' "$cport" "$2"
        i=$((i + 1))
    done >"$cdir/count.urls"
    curl -sf -u "$user:$pass" -K "$cdir/count.urls" || die "a request under callgrind failed"
    kill -TERM "$cpid"
    wait "$cpid" 2>/dev/null || :
    cpid=""
    # A file per request (callgrind.out.N), and one at the exit.
    for f in "$cdir"/callgrind.out.*; do
        awk '/^totals:/ { print $2 }' "$f"
    done | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
    rm -f "$cdir"/callgrind.out*
}
say "Instructions per request (callgrind, $COUNT requests on one connection)"
for page in $pages; do
    name=${page%%=*} path=${page#*=}
    ia=$(instructions "$dir_a" "$path")
    ib=$(instructions "$dir_b" "$path")
    awk -v k="$name" -v a="$ia" -v b="$ib" 'BEGIN {
        printf "  %-7s instructions    A %8d  B %8d  B/A %.3f\n", k, a, b, b / a }'
done
