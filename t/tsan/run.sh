#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `make tsan-test` (part of `make test`): the module built with
# ThreadSanitizer (build/tsan/mod_unicat.so) in Debian's httpd, one child
# of the event MPM with 16 threads (t/tsan/httpd.conf.in), under a
# concurrent load of everything that runs side by side in a child:
#   - list pages, kept (the answer cache) and made (UnicatAnswerCache Off),
#     and GETs, while writes create and delete schemas (each moves the
#     catalog's version, so kept answers go stale as they are read);
#   - temporary credentials vended for one table (the vend cache and the
#     credential kept at the catalog's version), when the STS stand-in of
#     t/s3/with-s3.sh is there;
#   - full Delta Sharing queries of a table of TSAN_FILES files, several at
#     once from a cold snapshot cache: long answers, rendered by several
#     threads each.
#   - asynchronous queries, prepared by the child's pool of threads.
# Every SQLite handle passes from thread to thread (fewer handles than
# threads) and handles are opened and closed during the load. httpd is not
# instrumented: gcc's TSan runtime is preloaded into it (clang 14's shared
# runtime crashes when preloaded), then APR's atomics as TSan sees them
# (t/tsan/apr_atomic.c), each process writing its reports to a file of its
# own; nothing is suppressed. The run fails unless every request of the
# load answered as expected and no report was written.
#
# Usage: sh t/tsan/run.sh [MODULE [ATOMICS]]   (as root, httpd's child runs
# as www-data; TSAN_KEEP=1 keeps the temporary directory)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
PATH=$PATH:/usr/sbin:/sbin
export PATH

so=${1:-$top/build/tsan/mod_unicat.so}
atomics=${2:-$top/build/tsan/apr_atomic.so}
FILES=${TSAN_FILES:-12000}
# Requests of each kind: list pages kept, made and GETs (LISTS each), vends,
# full queries, asynchronous queries, schemas each writer creates and
# deletes.
LISTS=1000 VENDS=600 QUERIES=32 ASYNC=12 WRITES=80
# A request not answered within REQUEST_SECONDS fails; the load is stopped
# after LOAD_SECONDS (a server that hangs fails the run, not CI).
REQUEST_SECONDS=60 LOAD_SECONDS=150
user=tsan pass=tsan
BENCH_KEEP=${TSAN_KEEP:-0}

. "$top/t/bench/lib.sh"
die() {
    printf 'tsan-test: FAIL: %s\n' "$*" >&2
    [ -n "${dir:-}" ] && [ -s "$dir/error.log" ] &&
        printf 'tsan-test: last lines of the error log:\n%s\n' \
               "$(tail -n 20 "$dir/error.log")" >&2
    exit 1
}

bench_need apache2 htpasswd curl awk gcc node
[ -f "$atomics" ] || die "$atomics is missing: run make $atomics"
runtime=$(gcc -print-file-name=libtsan.so.2)
[ -f "$runtime" ] || die "gcc's ThreadSanitizer runtime is missing (Debian: libtsan2)"

sts_lines=""
[ -n "${UNICAT_STS_ENDPOINT:-}" ] &&
    sts_lines="UnicatAwsStsEndpoint $UNICAT_STS_ENDPOINT"

bench_server_dir tsan
sh "$top/t/delta/gen/run.sh" make-table.mjs "$dir/table" --files "$FILES" \
    --commits 5 >/dev/null || die "cannot generate the Delta table"
bench_owner
httpd_env="env LD_PRELOAD=$runtime:$atomics TSAN_OPTIONS=log_path=$dir/tsan/report:halt_on_error=0:second_deadlock_stack=1"
start_httpd "$here/httpd.conf.in"
api="http://127.0.0.1:$port/api/2.1/unity-catalog"
made="http://127.0.0.1:$port/made/api/2.1/unity-catalog"
sharing="http://127.0.0.1:$port/delta-sharing"
child=$(child_pid)
grep -q libtsan "/proc/$child/maps" || die "httpd's child runs without the TSan runtime"
say "tsan-test: httpd pid $httpd_pid (child $child) on 127.0.0.1:$port, data in $dir"

# --- the catalog ---------------------------------------------------------------
json_str() { printf '%s' "$1" | sed 's/[\\"]/\\&/g'; }
call POST /catalogs '{"name":"cat"}'
i=0
while [ $i -lt 20 ]; do
    call POST /schemas "{\"name\":\"sch$i\",\"catalog_name\":\"cat\"}"
    i=$((i + 1))
done
call POST /tables '{"name":"delta","catalog_name":"cat","schema_name":"sch0",
    "table_type":"EXTERNAL","data_source_format":"DELTA",
    "storage_location":"file://'"$dir"'/table","columns":[]}'
call POST /shares '{"name":"share"}'
call PATCH /shares/share '{"updates":[{"action":"ADD","data_object":{"name":"cat.sch0.delta"}}]}'
recipient_of share

vend=""
if [ -n "$sts_lines" ]; then
    call POST /credentials "{\"name\":\"cred\",\"aws_iam_role\":{\"role_arn\":\"$(json_str "$UNICAT_STS_ROLE_ARN")\",\"region\":\"us-east-1\",\"access_key_id\":\"$(json_str "$UNICAT_S3_KEY")\",\"secret_access_key\":\"$(json_str "$UNICAT_S3_SECRET")\"}}"
    external_id=$(sed -n 's/.*"external_id":"\([^"]*\)".*/\1/p' "$dir/api.out")
    [ -n "$external_id" ] || die "the credential has no external_id"
    # As the role's administrator would (t/s3/with-s3.sh).
    code=$(curl -sS -o "$dir/trust.out" -w '%{http_code}' \
        --aws-sigv4 "aws:amz:us-east-1:sts" --user "$UNICAT_S3_KEY:$UNICAT_S3_SECRET" \
        --data "Action=TrustExternalId&RoleArn=$UNICAT_STS_ROLE_ARN&ExternalId=$external_id" \
        "$UNICAT_STS_ENDPOINT/") || die "cannot reach the STS stand-in"
    [ "$code" = 200 ] || die "TrustExternalId answered $code"
    call POST /external-locations "{\"name\":\"loc\",\"url\":\"s3://$UNICAT_S3_BUCKET/tsan\",\"credential_name\":\"cred\"}"
    call POST /tables "{\"name\":\"vended\",\"catalog_name\":\"cat\",\"schema_name\":\"sch1\",
        \"table_type\":\"EXTERNAL\",\"data_source_format\":\"DELTA\",
        \"storage_location\":\"s3://$UNICAT_S3_BUCKET/tsan/vended\",\"columns\":[]}"
    vend=$(sed -n 's/.*"table_id":"\([^"]*\)".*/\1/p' "$dir/api.out")
    [ -n "$vend" ] || die "no table_id"
fi

# --- the load ------------------------------------------------------------------
# A curl configuration of `count` requests to `url` (curl -K), each
# writing "status bytes" on a line of its own.
requests() { # count url [curl options line...]
    n=$1 url=$2
    shift 2
    k=0
    while [ $k -lt "$n" ]; do
        [ $k -gt 0 ] && echo next
        printf 'url = "%s"\noutput = "/dev/null"\nmax-time = %s\nwrite-out = "%%{http_code} %%{size_download}\\n"\n' \
               "$url" "$REQUEST_SECONDS"
        for line in "$@"; do echo "$line"; done
        k=$((k + 1))
    done
}
# The requests of the configuration $1.curl, `parallel` at a time, their
# lines in $1.out, in the background.
run_load() { # name parallel
    curl -sS --parallel --parallel-max "$2" -K "$dir/$1.curl" \
         >"$dir/$1.out" 2>"$dir/$1.err" &
    load_pids="$load_pids $!"
}
basic="user = \"$user:$pass\""
bearer="header = \"Authorization: Bearer $token\""
json='header = "Content-Type: application/json"'

requests $LISTS "$api/schemas?catalog_name=cat&max_results=7" "$basic" >"$dir/kept.curl"
requests $LISTS "$made/schemas?catalog_name=cat&max_results=7" "$basic" >"$dir/made.curl"
requests $LISTS "$api/tables/cat.sch0.delta" "$basic" >"$dir/get.curl"
requests $QUERIES "$sharing/shares/share/schemas/sch0/tables/delta/query" "$bearer" "$json" \
    'data = "{}"' >"$dir/query.curl"
[ -n "$vend" ] && requests $VENDS "$api/temporary-table-credentials" "$basic" "$json" \
    "data = \"{\\\"table_id\\\":\\\"$vend\\\",\\\"operation\\\":\\\"READ\\\"}\"" >"$dir/vend.curl"

# Writes: schemas created and deleted, one at a time by each of two writers.
writer() { # name
    w=0
    while [ $w -lt $WRITES ]; do
        curl -sS -m "$REQUEST_SECONDS" -u "$user:$pass" -H 'Content-Type: application/json' \
             -o /dev/null -w '%{http_code} 0\n' -d "{\"name\":\"$1_$w\",\"catalog_name\":\"cat\"}" "$api/schemas" ||
            echo "000 0"
        curl -sS -m "$REQUEST_SECONDS" -u "$user:$pass" -X DELETE -o /dev/null -w '%{http_code} 0\n' \
             "$api/schemas/cat.$1_$w" || echo "000 0"
        w=$((w + 1))
    done >"$dir/$1.out" 2>"$dir/$1.err"
}

# Asynchronous queries (UnicatSharingAsyncWait 0: each is prepared by a
# thread of the child's pool, which marks it ready on a database handle
# of its own), each polled until its answer, the whole table.
async='delta-sharing-capabilities: responseformat=parquet;asyncquery=true'
async_client() { # name
    q=0
    while [ $q -lt $ASYNC ]; do
        query="$sharing/shares/share/schemas/sch0/tables/delta/query"
        curl -sS -m "$REQUEST_SECONDS" -H "Authorization: Bearer $token" -H "$async" \
             -H 'Content-Type: application/json' \
             -d "{\"idempotency_key\":\"$1-$q\"}" -o "$dir/$1.answer" "$query" || :
        id=$(sed -n '1s/^{"queryStatus":{"queryId":"\([^"]*\)".*/\1/p' "$dir/$1.answer")
        polls=0
        while [ -n "$id" ] && [ $polls -lt 100 ]; do
            curl -sS -m "$REQUEST_SECONDS" -H "Authorization: Bearer $token" -H "$async" \
                 -H 'Content-Type: application/json' -d '{}' -o "$dir/$1.answer" "${query%/query}/queries/$id" || :
            grep -q '^{"queryStatus"' "$dir/$1.answer" || break
            polls=$((polls + 1))
            sleep 0.1
        done
        [ -n "$id" ] && ! grep -q '^{"queryStatus"' "$dir/$1.answer" &&
            echo "200 $(wc -c <"$dir/$1.answer")"
        q=$((q + 1))
    done >"$dir/$1.out" 2>"$dir/$1.err"
}

t0=$(date +%s)
load_pids=""
async_client a1 &
load_pids="$load_pids $!"
run_load query 4
run_load kept 4
run_load made 4
run_load get 2
[ -n "$vend" ] && run_load vend 2
writer w1 &
load_pids="$load_pids $!"
writer w2 &
load_pids="$load_pids $!"
(sleep "$LOAD_SECONDS"; kill $load_pids 2>/dev/null) &
watchdog=$!
wait $load_pids || :
kill "$watchdog" 2>/dev/null || :
say "tsan-test: the load took $(( $(date +%s) - t0 )) s"

# --- the verdict ---------------------------------------------------------------
# httpd stopped first: its child's threads end, and what TSan finds as they
# end is written too.
kill -TERM "$httpd_pid"
i=0
while kill -0 "$httpd_pid" 2>/dev/null && [ $i -lt 300 ]; do
    sleep 0.1; i=$((i + 1))
done
kill -KILL "$httpd_pid" 2>/dev/null || :
wait "$httpd_pid" 2>/dev/null || :
httpd_pid=""
reports=$(find "$dir/tsan" -name 'report.*' | wc -l | tr -d ' ')
if [ "$reports" != 0 ]; then
    cat "$dir"/tsan/report.* >&2
    die "ThreadSanitizer reported races in $reports processes (above)"
fi
grep -q 'ThreadSanitizer' "$dir/error.log" "$dir/httpd.out" &&
    die "ThreadSanitizer failed: $(grep -h 'ThreadSanitizer' "$dir/error.log" "$dir/httpd.out" | head -n 3)"
grep -q 'exit signal' "$dir/error.log" && die "a child crashed: $(grep 'exit signal' "$dir/error.log")"

# Every request answered 200 (a query with at least 100 bytes a file).
answered() { # name count [min-bytes]
    ok=$(awk -v min="${3:-0}" '$1 == 200 && $2 >= min' "$dir/$1.out" | wc -l | tr -d ' ')
    [ "$ok" = "$2" ] || die "$1: $ok of $2 requests answered 200$( [ -n "${3:-}" ] && echo " with $3 bytes or more"): $(sort "$dir/$1.out" | awk '{ print $1 }' | uniq -c | tr '\n' ' ') $(grep '^curl:' "$dir/$1.err" | head -n 3)"
    say "tsan-test: $1: $ok requests answered"
}
answered query $QUERIES $((FILES * 100))
answered a1 $ASYNC $((FILES * 100))
answered kept $LISTS
answered made $LISTS
answered get $LISTS
[ -n "$vend" ] && answered vend $VENDS
answered w1 $((WRITES * 2))
answered w2 $((WRITES * 2))
[ -n "$vend" ] || say "tsan-test: no STS stand-in (run under sh t/s3/with-s3.sh): no credentials vended"

say "tsan-test: no ThreadSanitizer report"
