#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make bench's figures 1, 2, 6 and 8 on a PostgreSQL catalog, beside the
# same figures on a SQLite catalog measured in the same run:
#   1. GET /catalogs/{name} against the same bytes as a static file;
#   2. a page of 100 schemas (of 1,000) against the same bytes as a file;
#   6. POST /management/v1/action/batch-check of 1,000 checks over the
#      1,000 schemas (a twentieth on the catalog, the others on schemas,
#      by id and by name in turn), as a user holding grants, on one
#      connection: checks per second, and its time against one
#      GET /catalogs/{name} on that connection;
#   8. a page of 100 tables of 20 columns against the same bytes as a
#      file;
#  13, 14, 15. figures 2, 8 and 1 made from the database on every
#      request (the mount with UnicatAnswerCache Off): 1, 2 and 8 are the
#      answers the child keeps while the catalog does not change;
#   0. PostgreSQL alone: the one statement of figure 15's GET (the
#      catalog's row; figure 1's kept answer needs one statement too, the
#      catalog's version), prepared, run by pgbench over the same socket
#      with as many clients as wrk has connections, against figure 1's
#      static file: the most any server could reach on this machine with a
#      GET that needs one statement of PostgreSQL, HTTP left out.
# Each backend in turn: one httpd (one event-MPM child, as in run.sh) on
# the catalog filled through the API (the same calls on both), PostgreSQL
# started here in a temporary directory (fsync on, commits not waited
# for, like SQLite's synchronous=NORMAL in WAL mode). Alternating rounds,
# medians of the per-round ratios; the server's CPU time per request
# beside the requests per second. Reports; exits non-zero only when the
# harness breaks.
# Knobs: BENCH_DURATION (5), BENCH_ROUNDS (5), BENCH_CONNECTIONS (32),
# PG_BIN (the folder of initdb and pg_ctl), BENCH_KEEP=1.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
PATH=$PATH:/usr/sbin:/sbin
export PATH
DUR=${BENCH_DURATION:-5}
ROUNDS=${BENCH_ROUNDS:-5}
CONNS=${BENCH_CONNECTIONS:-32}
so="$top/mod_unicat/.libs/mod_unicat.so"
user=bench pass=bench
ruser=reader rpass=reader
BENCH_HERE=$here
export BENCH_HERE

. "$here/lib.sh"

bench_need apache2 htpasswd curl awk wrk base64
PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}
[ -x "$PG_BIN/initdb" ] || die "PostgreSQL not found: set PG_BIN to the folder of initdb"
bench_server_dir pg
htpasswd -bs "$dir/htpasswd" "$ruser" "$rpass" 2>/dev/null || die "htpasswd failed"
bench_owner
auth="Authorization: Basic $(printf '%s:%s' "$user" "$pass" | base64)"
rauth="Authorization: Basic $(printf '%s:%s' "$ruser" "$rpass" | base64)"

pg_stop() {
    [ -f "$dir/pg/data/postmaster.pid" ] &&
        $as_owner "$PG_BIN/pg_ctl" -D "$dir/pg/data" -m fast -w -t 30 stop >/dev/null 2>&1
    return 0
}
trap 'rc=$?; set +e; pg_stop; (exit $rc); cleanup' EXIT
$as_owner "$PG_BIN/initdb" -D "$dir/pg/data" -A trust -U unicat >"$dir/initdb.log" 2>&1 ||
    die "initdb failed: $(tail -5 "$dir/initdb.log")"
$as_owner "$PG_BIN/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/server.log" -w -t 60 \
    -o "-k $dir/pg -c listen_addresses='' -c synchronous_commit=off -c max_connections=100" \
    start >/dev/null 2>&1 || die "PostgreSQL did not start: $(tail -5 "$dir/pg/server.log")"
$as_owner "$PG_BIN/createdb" -h "$dir/pg" -U unicat unicat || die "createdb failed"

# The answers of the API, saved as the static references of $1.
save_references() { # backend
    for ref in "catalog /catalogs/big" "schemas /schemas?catalog_name=big&max_results=100" \
               "tables /tables?catalog_name=big&schema_name=s0000&max_results=100"; do
        call GET "${ref#* }"
        cp "$dir/api.out" "$dir/htdocs/$1-${ref%% *}.json"
    done
    [ -n "$as_owner" ] && chown "$owner:$group" "$dir"/htdocs/*
    return 0
}

# reader: USE CATALOG on big, USE SCHEMA on every 16th schema; the body
# of 1,000 checks in $dir/checks.json, the number allowed in $allowed.
grants_and_checks() {
    call PATCH /permissions/catalog/big \
        "{\"changes\":[{\"principal\":\"$ruser\",\"add\":[\"USE CATALOG\"]}]}"
    i=0
    while [ $i -lt 1000 ]; do
        call PATCH "/permissions/schema/big.s$(printf %04d $i)" \
            "{\"changes\":[{\"principal\":\"$ruser\",\"add\":[\"USE SCHEMA\"]}]}"
        i=$((i + 16))
    done
    call GET /catalogs/big
    wh=$(sed -n 's/.*"id":"\([0-9a-f-]*\)".*/\1/p' "$dir/api.out")
    call GET "/schemas?catalog_name=big&max_results=1000"
    grep -o '"schema_id":"[0-9a-f-]*"' "$dir/api.out" | cut -d'"' -f4 >"$dir/schema.ids"
    [ "$(wc -l <"$dir/schema.ids")" = 1000 ] || die "expected 1,000 schema ids"
    allowed=$(awk -v wh="$wh" -v out="$dir/checks.json" '
        { id[NR - 1] = $1 }
        END {
            printf "{\"checks\":[" > out
            yes = 0; j = 0
            for (k = 0; k < 1000; k++) {
                if (k) printf "," > out
                if (k % 20 == 19) {
                    printf "{\"id\":\"c%d\",\"operation\":{\"warehouse\":{\"action\":{\"action\":\"use\"},\"warehouse-id\":\"%s\"}}}", k, wh > out
                    yes++
                    continue
                }
                ref = j % 2 ? sprintf("\"namespace\":[\"s%04d\"]", j) : "\"namespace-id\":\"" id[j] "\""
                printf "{\"id\":\"c%d\",\"operation\":{\"namespace\":{\"action\":{\"action\":\"get_metadata\"},\"warehouse-id\":\"%s\",%s}}}", k, wh, ref > out
                if (j % 16 == 0) yes++
                j++
            }
            printf "]}" > out
            print yes
        }' "$dir/schema.ids")
    got=$(curl -sS -H "$rauth" -H 'Content-Type: application/json' --data-binary "@$dir/checks.json" \
          "http://127.0.0.1:$port/management/v1/action/batch-check" | grep -o '"allowed":true' | wc -l)
    [ "$got" -eq "$allowed" ] || die "batch-check allowed $got of the checks, expected $allowed"
}

results=$dir/results
: >"$results"
# Figure 0's statement: the catalog's row by its parent, kind and name,
# as the module reads it for GET /catalogs/{name} made (figure 15).
pg_statement() {
    ms=$($as_owner "$PG_BIN/psql" -h "$dir/pg" -U unicat -d unicat -Atc \
         "SELECT id FROM securables WHERE kind = 'metastore' AND parent_id IS NULL") ||
        die "no metastore in the catalog"
    printf '%s\n' "SELECT id, name, comment, properties, storage_root, storage_location, details, owner, created_at, created_by, updated_at, updated_by FROM securables WHERE parent_id = '$ms' AND kind = 'catalog' AND name = 'big';" \
        >"$dir/get.sql"
}
pgbench_rate() {
    p_out=$($as_owner "$PG_BIN/pgbench" -h "$dir/pg" -U unicat -n -M prepared \
            -c "$CONNS" -j 2 -T "$DUR" -f "$dir/get.sql" unicat 2>&1) ||
        die "pgbench: $p_out"
    p_tps=$(printf '%s\n' "$p_out" | awk '/^tps = / { print $3; exit }')
    [ -n "$p_tps" ] || die "no result from pgbench: $p_out"
    printf '%s 0' "$p_tps"
}
# Alternating rounds of A (reference) and B (module) for one figure.
pair() { # backend figure urlA authA urlB authB conns
    r=1
    while [ $r -le "$ROUNDS" ]; do
        a=$(bench_rate "$3" "$child" "$4" "$7")
        b=$(bench_rate "$5" "$child" "$6" "$7")
        echo "$1 $2 $a $b" >>"$results"
        r=$((r + 1))
    done
}

for backend in sqlite pgsql; do
    case $backend in
    sqlite) dbd="DBDriver sqlite3
DBDParams $dir/db/catalog.db" ;;
    pgsql) dbd="DBDriver pgsql
DBDParams \"host=$dir/pg user=unicat dbname=unicat\"" ;;
    esac
    awk -v dbd="$dbd" '/^DBDriver / { print dbd; next } /^DBDParams / { next } { print }' \
        "$here/httpd.conf.in" >"$dir/$backend.conf.in"
    start_httpd "$dir/$backend.conf.in"
    child=$(child_pid)
    api="http://127.0.0.1:$port/api/2.1/unity-catalog"
    say "bench: $backend: filling the catalog through the API"
    bench_fill_pages
    grants_and_checks
    save_references "$backend"
    static="http://127.0.0.1:$port"
    say "bench: $backend: measuring ($ROUNDS rounds of ${DUR}s a side)"
    pair "$backend" 1 "$static/$backend-catalog.json" "$auth" "$api/catalogs/big" "$auth" "$CONNS"
    if [ "$backend" = pgsql ]; then
        pg_statement
        r=1
        while [ $r -le "$ROUNDS" ]; do
            a=$(bench_rate "$static/pgsql-catalog.json" "$child" "$auth" "$CONNS")
            echo "pgsql 0 $a $(pgbench_rate)" >>"$results"
            r=$((r + 1))
        done
    fi
    pair "$backend" 2 "$static/$backend-schemas.json" "$auth" \
        "$api/schemas?catalog_name=big&max_results=100" "$auth" "$CONNS"
    pair "$backend" 8 "$static/$backend-tables.json" "$auth" \
        "$api/tables?catalog_name=big&schema_name=s0000&max_results=100" "$auth" "$CONNS"
    made="http://127.0.0.1:$port/made/api/2.1/unity-catalog"
    pair "$backend" 15 "$static/$backend-catalog.json" "$auth" "$made/catalogs/big" "$auth" "$CONNS"
    pair "$backend" 13 "$static/$backend-schemas.json" "$auth" \
        "$made/schemas?catalog_name=big&max_results=100" "$auth" "$CONNS"
    pair "$backend" 14 "$static/$backend-tables.json" "$auth" \
        "$made/tables?catalog_name=big&schema_name=s0000&max_results=100" "$auth" "$CONNS"
    BENCH_BODY=$dir/checks.json BENCH_SCRIPT=batch.lua
    export BENCH_BODY BENCH_SCRIPT
    r=1
    while [ $r -le "$ROUNDS" ]; do
        BENCH_SCRIPT=report.lua
        a=$(bench_rate "$api/catalogs/big" "$child" "$rauth" 1)
        BENCH_SCRIPT=batch.lua
        b=$(bench_rate "http://127.0.0.1:$port/management/v1/action/batch-check" \
                       "$child" "$rauth" 1)
        echo "$backend 6 $a $b" >>"$results"
        r=$((r + 1))
    done
    unset BENCH_SCRIPT
    kill -TERM "$httpd_pid" 2>/dev/null || :
    wait "$httpd_pid" 2>/dev/null || :
    httpd_pid=""
done

# results: backend figure A-rps A-cpu B-rps B-cpu
awk '
function median(list,    n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ k = $1 " " $2; b[k] = b[k] " " $5; cb[k] = cb[k] " " $6
  r[k] = r[k] " " ($2 == 6 ? $3 / $5 : $5 / $3) }
END {
    name[1] = "1 GET /catalogs/{name} / static"
    name[2] = "2 page of 100 schemas / static"
    name[8] = "8 page of 100 tables / static"
    name[13] = "13 = 2, every answer made"
    name[14] = "14 = 8, every answer made"
    name[15] = "15 = 1, every answer made"
    name[6] = "6 batch-check, 1,000 checks"
    name[0] = "0 PostgreSQL alone, SQL of 1"
    printf "%-34s %22s %22s %8s\n", "figure", "SQLite", "PostgreSQL", "PG/SQLite"
    split("1 0 2 8 15 13 14 6", order, " ")
    for (i = 1; i <= 8; i++) {
        f = order[i]; s = "sqlite " f; p = "pgsql " f
        if (f == 0) {
            printf "%-34s %22s %14.2f (%5.0f/s)\n", name[f], "", median(r[p]), median(b[p])
            continue
        }
        if (f == 6) {
            printf "%-34s %13.0f checks/s %13.0f checks/s %8.2f\n", name[f],
                   median(b[s]) * 1000, median(b[p]) * 1000, median(b[p]) / median(b[s])
            printf "%-34s %20.1fx %20.1fx\n", "   its time / one GET", median(r[s]), median(r[p])
        } else
            printf "%-34s %14.2f (%5.0f/s) %14.2f (%5.0f/s) %8.2f\n", name[f],
                   median(r[s]), median(b[s]), median(r[p]), median(b[p]), median(r[p]) / median(r[s])
        printf "%-34s %19.1f us %19.1f us\n", "   server CPU per request", median(cb[s]), median(cb[p])
    }
}' "$results"
