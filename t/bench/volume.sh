#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `make bench` (fifth part): a local volume shared to a recipient and read
# through the grant of its root on the files route (README "Local volumes
# and skills"). One httpd child (t/bench/sharing.conf.in). Measures:
#   1. the first page (1,000 entries) of the listing of a directory of
#      BENCH_VOLUME_FILES (100,000) files, against the same page of a
#      directory of 1,000 and against the page's bytes served by httpd as a
#      static file: a page costs one pass over its directory;
#   2. the child's RSS before and after BENCH_VOLUME_WALKS (3) walks of
#      every page of the large directory (target: no growth beyond
#      allocator noise: a page keeps only its own entries);
#   3. requests per second reading one file of 64 KiB through the grant,
#      against httpd serving the same file statically (wrk, 8
#      connections; target >= 0.8: the signature and the lookup of the
#      volume are the whole difference).
# Figures are medians over BENCH_ROUNDS (5) alternating rounds. The script
# reports; it fails only when the harness breaks.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
PATH=$PATH:/usr/sbin:/sbin
export PATH

ROUNDS=${BENCH_ROUNDS:-5}
FILES=${BENCH_VOLUME_FILES:-100000}
WALKS=${BENCH_VOLUME_WALKS:-3}
MEM_NOISE_KB=4096
so="$top/mod_unicat/.libs/mod_unicat.so"
user=bench pass=bench

. "$here/lib.sh"

bench_need apache2 htpasswd curl awk perl wrk

# --- the volume (made once): a large directory, a small one, a file ------------
volume=$top/build/volume-bench/volume-$FILES
if [ ! -f "$volume/.made" ]; then
    rm -rf "$volume"
    mkdir -p "$volume/large" "$volume/small"
    perl -e 'my ($d, $n) = @ARGV;
             for my $i (1 .. $n) {
                 open(my $f, ">", sprintf("%s/part-%06d.bin", $d, $i)) or die $!;
                 print $f "x" x 16; close $f }' "$volume/large" "$FILES" ||
        die "cannot make $volume/large"
    perl -e 'my ($d) = @ARGV; for my $i (1 .. 1000) {
                 open(my $f, ">", sprintf("%s/part-%06d.bin", $d, $i)) or die $!;
                 close $f }' "$volume/small" || die "cannot make $volume/small"
    head -c 65536 /dev/urandom >"$volume/one.bin"
    touch "$volume/.made"
fi
chmod -R a+rX "$volume"

bench_server_dir htdocs/open
cp "$volume/one.bin" "$dir/htdocs/open/one.bin"
bench_owner
start_httpd "$here/sharing.conf.in"
child=$(child_pid)
api="http://127.0.0.1:$port/api/2.1/unity-catalog"
sharing="http://127.0.0.1:$port/delta-sharing"
say "bench: httpd pid $httpd_pid (child $child) on 127.0.0.1:$port, volume $volume"

call POST /catalogs '{"name":"bench"}'
call POST /schemas '{"name":"sch","catalog_name":"bench"}'
call POST /volumes "{\"name\":\"vol\",\"catalog_name\":\"bench\",\"schema_name\":\"sch\",
    \"volume_type\":\"EXTERNAL\",\"storage_location\":\"file://$volume\"}"
call POST /shares '{"name":"bench"}'
call PATCH /shares/bench '{"updates":[{"action":"ADD","data_object":
    {"name":"bench.sch.vol","data_object_type":"VOLUME"}}]}'
recipient_of bench
curl -sS -f -X POST -H "Authorization: Bearer $token" -o "$dir/grant.json" \
     "$sharing/shares/bench/schemas/sch/volumes/vol/temporary-volume-credentials" ||
    die "no credentials for the volume"
root=$(sed -n 's|.*"url":"\([^"]*\)".*|\1|p' "$dir/grant.json")
query=$(sed -n 's|.*"query":"\([^"]*\)".*|\1|p' "$dir/grant.json")
[ -n "$root" ] && [ -n "$query" ] || die "no grant in $(cat "$dir/grant.json")"

# One GET timed by curl; 200 or die. "total first-byte bytes" in $timing.
fetch() { # url outfile
    timing=$(curl -sS -o "$2" -w '%{time_total} %{time_starttransfer} %{size_download} %{http_code}' "$1") ||
        die "curl failed on $1"
    [ "${timing##* }" = 200 ] || die "$1 answered ${timing##* }: $(head -c 300 "$2")"
    timing=${timing% *}
}
fetch "${root}large/?$query" "$dir/htdocs/open/page.json"
entries=$(grep -o '"name"' "$dir/htdocs/open/page.json" | wc -l | tr -d ' ')
[ "$entries" = 1000 ] || die "the first page holds $entries entries"
grep -q '"nextPageToken"' "$dir/htdocs/open/page.json" || die "the first page has no token"
[ -n "$as_owner" ] && chown -R "$owner:$group" "$dir/htdocs"
page_bytes=$(wc -c <"$dir/htdocs/open/page.json" | tr -d ' ')

# --- 1: alternating rounds ----------------------------------------------------
results=$dir/rounds.txt
: >"$results"
round() { fetch "$2" /dev/null; echo "$1 $timing" >>"$results"; }
r=1
while [ "$r" -le "$ROUNDS" ]; do
    round large "$root""large/?$query"
    round small "$root""small/?$query"
    round static "http://127.0.0.1:$port/open/page.json"
    r=$((r + 1))
done

# --- 2: memory over walks of every page ------------------------------------------
walk() { # every page of the large directory once; the pages' count in $pages
    pages=0 next=""
    while :; do
        curl -sS -f -o "$dir/walk.json" "$root""large/?$query${next:+&pageToken=$next}" ||
            die "a page of the walk failed"
        pages=$((pages + 1))
        next=$(sed -n 's|.*"nextPageToken":"\([^"]*\)".*|\1|p' "$dir/walk.json")
        [ -n "$next" ] || break
    done
}
walk
rss_before=$(rss_kb "$child")
w=0
t0=$(date +%s)
while [ "$w" -lt "$WALKS" ]; do walk; w=$((w + 1)); done
walk_seconds=$(( $(date +%s) - t0 ))
rss_after=$(rss_kb "$child")
[ "$pages" = $(( (FILES + 999) / 1000 )) ] || die "a walk took $pages pages"

# --- 3: one file, through the grant and statically ---------------------------------
wrk_rps() { # url -> requests per second
    out=$(wrk -t2 -c8 -d3s "$1" 2>&1) || die "wrk failed on $1: $out"
    printf '%s\n' "$out" | grep -q 'Non-2xx' && die "wrk saw errors on $1: $out"
    printf '%s\n' "$out" | awk '/^Requests\/sec:/ { print $2 }'
}
: >"$dir/rps.txt"
r=1
while [ "$r" -le "$ROUNDS" ]; do
    echo "grant_rps $(wrk_rps "$root""one.bin?$query")" >>"$dir/rps.txt"
    echo "static_rps $(wrk_rps "http://127.0.0.1:$port/open/one.bin")" >>"$dir/rps.txt"
    r=$((r + 1))
done
[ "$(child_pid)" = "$child" ] || die "the child changed during the run"
crashes=$(grep -c 'exit signal\|AH00052' "$dir/error.log" || :)

cat "$results" "$dir/rps.txt" | awk -v files="$FILES" -v bytes="$page_bytes" \
    -v rb="$rss_before" -v ra="$rss_after" -v walks="$WALKS" -v pages="$pages" \
    -v secs="$walk_seconds" -v noise="$MEM_NOISE_KB" -v crashes="$crashes" '
function median(list,   a, k, i, j, t) {
    k = split(list, a, " ")
    for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return k ? a[int((k + 1) / 2)] : 0
}
$1 == "large" { l = l " " $2 } $1 == "small" { s = s " " $2 } $1 == "static" { st = st " " $2 }
$1 == "grant_rps" { g[++ng] = $2 } $1 == "static_rps" { sr[++ns] = $2 }
END {
    for (i = 1; i <= ng; i++) ratio = ratio " " g[i] / sr[i]
    r = median(ratio)
    print "== A local volume through its grant: a directory of " files " files"
    printf "  1. first page (1,000 entries, %.1f kB): %.1f ms; of a directory of 1,000: %.1f ms; static: %.1f ms\n", bytes / 1000, median(l) * 1000, median(s) * 1000, median(st) * 1000
    printf "  2. child RSS before / after %d walks of %d pages: %d / %d kB (%+d kB), %d s  %s\n", walks, pages, rb, ra, ra - rb, secs, (ra - rb <= noise ? "PASS" : "MISS")
    printf "  3. one file of 64 KiB, requests/s: through the grant %.0f, static %.0f, ratio %.2f (target >= 0.8) %s\n", median(gl()), median(sl()), r, (r >= 0.8 ? "PASS" : "MISS")
    if (crashes + 0) print "error log: " crashes " child crash lines"
}
function gl(   i, x) { for (i = 1; i <= ng; i++) x = x " " g[i]; return x }
function sl(   i, x) { for (i = 1; i <= ns; i++) x = x " " sr[i]; return x }'
