#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# What `make run` prints to try, tried as printed: conf/dev/run.sh in a
# scratch folder (t/make-run-scratch.sh) makes its demo in the empty
# catalog, and each command it prints runs there and has its answer checked:
# the demo's catalog objects, its history, the Delta Sharing answers and
# the files their URLs download, the metrics (the pandas line only where
# python3 has delta_sharing). Then make run again, on other ports: the demo
# is found, not made twice, and its commands still work; a profile file
# deleted is written anew, with a new token; a catalog with content of its
# own gets no demo.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/t/make-run-scratch.sh"
failed=0
fail() {
    echo "not ok: $*"
    failed=$((failed + 1))
}

# Whether the answer ($out) holds each string.
has() {
    for s in "$@"; do
        grep -qF -- "$s" "$out" || fail "no $s in the answer of: $cmd"
    done
}

# The number of lines of the answer that hold a string.
lines_with() {
    grep -cF -- "$1" "$out"
}

# A Delta Sharing answer lists the files of these regions, and each URL
# downloads that very file of the table.
check_files() {
    regions=$(sed -n 's/.*"partitionValues":{"region":"\([A-Z]*\)"}.*/\1/p' "$out" |
        sort | tr '\n' ' ')
    [ "$regions" = "$1" ] || fail "files of regions '$regions', not '$1': $cmd"
    sed -n 's/.*"url":"\([^"]*\)".*/\1/p' "$out" | while read -r url; do
        rel=$(echo "${url%%\?*}" | sed 's|.*/files/[^/]*/||' |
            perl -pe 's/%([0-9A-Fa-f]{2})/chr hex $1/ge')
        curl -sf -o "$work/file" "$url" &&
            cmp -s "$work/file" "$top/conf/dev/demo/orders/$rel" ||
            echo "not ok: $url does not download $rel"
    done | grep . && failed=$((failed + 1))
}

# Checks the answer of one printed command ($cmd), chosen by what it asks.
check_answer() {
    case $cmd in
        *:$port/) has '<title>Unity Catalog console</title>' 'src="app.js"' ;;
        *'$uc/catalogs') has '"name":"demo"' ;;
        *'$uc/tables?'*) has '"full_name":"demo.sales.orders"' ;;
        *'$uc/tables/demo.sales.orders')
            has "\"storage_location\":\"file://$work/var/data/demo/orders\"" \
                '"name":"region","type_text":"string"' '"partition_index":0' ;;
        *unicat-delta*)
            has '"startVersion":0,"endVersion":3' \
                '"kind":"remove","version":3,"timestamp":1772701200000'
            [ "$(grep -o '"kind":"add"' "$out" | wc -l)" = 5 ] ||
                fail "not 5 files added in the history: $cmd" ;;
        *all-tables) has '"name":"orders","schema":"sales","share":"demo_share"' ;;
        *'{"version":1}'*) check_files 'APAC EU EU US ' ;;
        *query) check_files 'EU EU US US ' ;;
        *changes*)
            [ "$(lines_with '{"add":')" = 5 ] && [ "$(lines_with '{"remove":')" = 1 ] &&
                [ "$(lines_with '"version":3,"timestamp":1772701200000')" = 1 ] ||
                fail "not the 5 adds and 1 remove of versions 0 to 3: $cmd" ;;
        *delta_sharing*) has 'Ferrand SA' 'Prairie Books & Coffee'
            ! grep -q 'Kyoto Kissa' "$out" || fail "deleted rows read: $cmd" ;;
        *unicat-status)
            has 'unicat_requests_total{api="sharing",family="shares/query",method="POST",code="2xx"}' ;;
        *) fail "printed, not checked: $cmd" ;;
    esac
}

# Runs the commands printed after "Try, from this folder:", one by one in
# the scratch folder, each after the assignments printed before it.
try_printed() {
    sed -n '/^Try, from this folder:$/,/^Ctrl-C stops the server/p' "$work/run.log" |
        sed -n 's/^  \([^#]\)/\1/p' >"$work/commands"
    [ "$(grep -c '^curl\|^build\|^python3' "$work/commands")" -ge 10 ] ||
        fail "make run printed no demo commands: $(cat "$work/run.log")"
    assigned=""
    out="$work/answer"
    while read -r cmd; do
        case ${cmd%%=*} in
            *[!a-z]*) ;;
            *) assigned="$assigned$cmd
"
               continue ;;
        esac
        case $cmd in
            *delta_sharing*) python3 -c 'import delta_sharing' 2>/dev/null ||
                { echo "skipped (python3 has no delta_sharing): $cmd"; continue; } ;;
        esac
        (cd "$work" && sh -c "$assigned$cmd") >"$out" 2>"$work/errors" ||
            fail "exit $?: $cmd: $(cat "$work/errors")"
        check_answer
    done <"$work/commands"
}

printed() {
    grep -q "^$1" "$work/run.log" || fail "make run did not say '$1': $(cat "$work/run.log")"
}

scratch_make_run
start_make_run
printed 'make run made its demo in the empty catalog:'
try_printed
token=$(sed -n 's/.*"bearerToken":"\([^"]*\)".*/\1/p' "$work/var/demo.share")
[ -n "$token" ] || fail "no token in var/demo.share"
! grep -qF "$token" "$work/run.log" || fail "make run printed the recipient's token"
! grep -q 'data_sharing_activation/[A-Za-z0-9_-]\{9,\}' "$work/run.log" ||
    fail "make run printed the recipient's activation link"

stop_make_run
start_make_run
printed 'The demo of an earlier run is there:'
grep -qF "\"endpoint\":\"http://127.0.0.1:$port/delta-sharing/\"" "$work/var/demo.share" ||
    fail "the profile file does not name the new port $port"
try_printed

stop_make_run
rm "$work/var/demo.share"
start_make_run
printed 'The demo of an earlier run is there:'
try_printed
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" \
    "http://127.0.0.1:$port/delta-sharing/shares")
[ "$code" = 401 ] || fail "the token of the deleted profile answers $code, not 401"

uc="http://127.0.0.1:$port/api/2.1/unity-catalog"
for gone in catalogs/demo?force=true shares/demo_share recipients/demo_recipient; do
    curl -sf -o /dev/null -u admin:admin -X DELETE "$uc/$gone" || fail "DELETE $gone"
done
curl -sf -o /dev/null -u admin:admin -H 'Content-Type: application/json' \
    -d '{"name":"main"}' "$uc/catalogs" || fail "POST catalogs"
stop_make_run
start_make_run
printed 'The catalog has content of its own'
uc="http://127.0.0.1:$port/api/2.1/unity-catalog"
code=$(curl -s -o /dev/null -w '%{http_code}' -u admin:admin "$uc/catalogs/demo")
[ "$code" = 404 ] || fail "make run made its demo in a catalog of other content ($code)"

echo "make run's first run: $failed problems"
[ "$failed" = 0 ]
