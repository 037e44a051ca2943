#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `make bench`: mod_unicat against httpd serving the same bytes statically.
#
# Starts its own httpd (one event-MPM child, 127.0.0.1, a free port, a
# temporary directory), fills a SQLite catalog, then measures:
#   1. GET /catalogs/{name}: req/s and p99 versus the same JSON as a file;
#   2. GET /schemas (first 100 of 1,000): req/s and p99 versus a file;
#   3. the cost of a page of 100 taken from the middle of 100,000 schemas
#      versus the page of a catalog that holds only 100, both made from
#      the database (a mount with UnicatAnswerCache Off);
#   4. the child's RSS after a 20,000-request warm-up and after 100,000 more;
#   5. enforcement: GET /catalogs/{name} as a non-admin holding USE CATALOG
#      versus as a metastore admin (who skips the grant lookups), both
#      made (the mount with UnicatAnswerCache Off), so that the rule runs
#      on every request;
#   6. POST /management/v1/action/batch-check with 1,000 checks over a
#      catalog of 10,000 schemas and 10,000 grants, one connection, against
#      a plain GET /catalogs/{name} on that same connection: checks/s, time
#      relative to the GET, and 1,000 versus 500 checks (linear or worse);
#   7. POST /tables of 10,000 tables with 20 columns each into one schema
#      (creates per second, four connections), then the cost of the last
#      page of GET /tables against the first (both made, as in 3);
#   8. GET /tables pages: bytes per second against the same bytes served
#      statically;
#   9. memory against object size: the child's VmRSS and peak (VmHWM)
#      before and after 100 batch-checks of 1,000 checks that name a few
#      tables of about 900 kB each (properties and comment), and after 100
#      GET /tables?max_results=1000 over a schema of such tables (a page
#      ends at its byte budget: what one costs does not grow with them).
#  10. vended credentials: POST /temporary-table-credentials (READ) for an
#      EXTERNAL table on s3:// under an external location whose credential
#      is an aws_iam_role with base keys, answered from the per-process
#      cache, versus GET /tables/{full_name} of that table; then with the
#      cache cold, every answer a real AssumeRole to the STS stand-in
#      (BENCH_VEND_TABLES tables, each asked once): credentials/s and their
#      ratio to the warm throughput. It needs the STS stand-in of
#      t/s3/with-s3.sh (`make bench` runs under it), whose role is told to
#      trust the external id the server generates, and is skipped, saying
#      why, without it.
#  11. GET /catalogs/{name} against httpd's floor: the same authenticated
#      request answered by httpd itself with an empty 204 (mod_rewrite, no
#      file, no module): time per request relative to it.
#  12. the same GET on a mount with UnicatMetrics Off against the counted
#      mount: what the shared metrics cost per request.
#  13, 14, 15. figures 2, 8 and 11 with every answer made from the
#      database (the mount with UnicatAnswerCache Off): 1, 2, 8 and 11 are
#      answers the child's answer cache keeps, as a catalog that is read
#      more than written gives them.
# The machine is shared and noisy, so every figure is a ratio against a
# reference measured in the same run, in alternating rounds (median of the
# per-round ratios). The script reports; it exits non-zero only when the
# harness itself breaks, never because a target is missed.
#
# Knobs (environment): BENCH_DURATION (s per measured run, 5),
# BENCH_ROUNDS (5), BENCH_WARMUP (s, 2), BENCH_CONNECTIONS (32),
# BENCH_THREADS (wrk threads, 2), BENCH_BIG (schemas in the big catalog,
# 100000), BENCH_MEM_REQUESTS (100000), BENCH_MEM_WARMUP (20000),
# BENCH_AUTHZ_SCHEMAS (10000, also the number of grants),
# BENCH_BATCH_DURATION (s per batch-check run, 3), BENCH_TABLES (10000),
# BENCH_COLUMNS (columns per table, 20), BENCH_LARGE_TABLES (large tables
# for 9, 60), BENCH_LARGE_REQUESTS (requests per part of 9, 100),
# BENCH_VEND_TABLES (tables for the cold part of 10, 2000: shared out
# between its warm-up and its rounds), BENCH_KEEP=1 keeps the temporary
# directory.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
PATH=$PATH:/usr/sbin:/sbin
export PATH

DUR=${BENCH_DURATION:-5}
ROUNDS=${BENCH_ROUNDS:-5}
WARM=${BENCH_WARMUP:-2}
CONNS=${BENCH_CONNECTIONS:-32}
THREADS=${BENCH_THREADS:-2}
BIG=${BENCH_BIG:-100000}
MEM_N=${BENCH_MEM_REQUESTS:-100000}
MEM_WARM=${BENCH_MEM_WARMUP:-20000}
MEM_NOISE_KB=512          # RSS growth tolerated as allocator noise
AUTHZ_N=${BENCH_AUTHZ_SCHEMAS:-10000}
BDUR=${BENCH_BATCH_DURATION:-3}
TABLES_N=${BENCH_TABLES:-10000}
TABLE_COLS=${BENCH_COLUMNS:-20}
LARGE_N=${BENCH_LARGE_TABLES:-60}
LARGE_REQ=${BENCH_LARGE_REQUESTS:-100}
VEND_N=${BENCH_VEND_TABLES:-2000}

so="$top/mod_unicat/.libs/mod_unicat.so"
user=bench pass=bench
auth=$(printf '%s:%s' "$user" "$pass" | base64)
# A second user, not an admin: it gets USE CATALOG through the API.
ruser=reader rpass=reader
rauth=$(printf '%s:%s' "$ruser" "$rpass" | base64)
start_time=$(date +%s)

. "$here/lib.sh"

for tool in apache2 wrk ab htpasswd sqlite3 curl awk base64 ps; do
    command -v "$tool" >/dev/null 2>&1 ||
        die "$tool is missing (Debian: apt-get install -y apache2 apache2-utils wrk sqlite3 curl)"
done
[ -f "$so" ] || die "$so is missing: run make first"

# Figure 10 vends through the STS stand-in of t/s3/with-s3.sh; decided
# here because the endpoint goes into httpd's configuration.
vend_skip=""
for v in UNICAT_STS_ENDPOINT UNICAT_STS_ROLE_ARN UNICAT_STS_LOG UNICAT_S3_KEY \
         UNICAT_S3_SECRET UNICAT_S3_BUCKET; do
    eval "[ -n \"\${$v:-}\" ]" && continue
    vend_skip="$v is unset: no STS stand-in (run under sh t/s3/with-s3.sh)"
    break
done
[ -n "$vend_skip" ] || [ "$VEND_N" -ge $((ROUNDS + 1)) ] ||
    die "BENCH_VEND_TABLES must be at least BENCH_ROUNDS + 1 (a table per cold run)"

# --- temporary directory, owned by the user the child runs as -------------
bench_tmpdir
mkdir -p "$dir/run" "$dir/htdocs" "$dir/db"
# The key that seals the credentials' secrets (figure 10): without one the
# module refuses to store a secret_access_key.
(umask 077 && od -An -tx1 -N32 /dev/urandom | tr -d ' \n' > "$dir/secret.key") ||
    die "writing the secret key failed"
sts_lines=""
[ -z "$vend_skip" ] && sts_lines="UnicatAwsStsEndpoint $UNICAT_STS_ENDPOINT"
cp "$so" "$dir/mod_unicat.so"
htpasswd -cbs "$dir/htpasswd" "$user" "$pass" 2>/dev/null || die "htpasswd failed"
htpasswd -bs "$dir/htpasswd" "$ruser" "$rpass" 2>/dev/null || die "htpasswd failed"

bench_owner
# The SQLite CLI writes as the child's user so WAL and shm stay shared.
sql() { $as_owner sqlite3 -batch -bail "$dir/db/catalog.db"; }

start_httpd "$here/httpd.conf.in"
base="http://127.0.0.1:$port/api/2.1/unity-catalog"
static="http://127.0.0.1:$port"
made="http://127.0.0.1:$port/made/api/2.1/unity-catalog"
child=$(child_pid)
rss_start=$(rss_kb "$child")
say "bench: httpd pid $httpd_pid (child $child) on 127.0.0.1:$port, data in $dir"

# --- data --------------------------------------------------------------------
get() { # path outfile -> status
    curl -sS -u "$user:$pass" -o "$2" -w '%{http_code}' "$base$1"
}
post() { # path json -> status
    curl -sS -u "$user:$pass" -H 'Content-Type: application/json' \
         -d "$2" -o "$dir/post.out" -w '%{http_code}' "$base$1"
}

code=$(get /metastore_summary "$dir/metastore.json") || die "curl failed"
[ "$code" = 200 ] || die "GET /metastore_summary answered $code: $(cat "$dir/metastore.json")"
for c in bench_small bench_100 bench_1k bench_big bench_authz; do
    code=$(post /catalogs "{\"name\":\"$c\",\"comment\":\"benchmark catalog\"}") ||
        die "curl failed"
    [ "$code" = 200 ] || die "POST /catalogs $c answered $code: $(cat "$dir/post.out")"
done

# Schemas in bulk, shaped like the ones POST /schemas makes (no storage_root,
# owner and creator the caller). Names s000000, s000001... sort like numbers.
fill() { # catalog count
    cat <<SQL | sql || die "bulk insert into $1 failed"
.timeout 30000
BEGIN IMMEDIATE;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < $2),
     c(id) AS (SELECT id FROM securables WHERE kind = 'catalog' AND name = '$1'),
     t(ms) AS (SELECT CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
INSERT INTO securables (id, kind, parent_id, name, properties, details, owner,
                        created_at, created_by, updated_at, updated_by)
SELECT lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' ||
             substr(hex(randomblob(2)), 2) || '-' ||
             substr('89ab', 1 + abs(random()) % 4, 1) ||
             substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))),
       'schema', c.id, printf('s%06d', n.i), '{}', '{}', '$user',
       t.ms, '$user', t.ms, '$user'
FROM n, c, t;
COMMIT;
SQL
}
t0=$(date +%s)
fill bench_100 100
fill bench_1k 1000
fill bench_big "$BIG"
fill bench_authz "$AUTHZ_N"
say "bench: inserted $((BIG + 1100 + AUTHZ_N)) schemas in $(( $(date +%s) - t0 )) s"

# One grant per schema of bench_authz, spread over principals and privileges:
# schema i goes to reader when i % 4 = 0 (else to u00..u36), privilege by
# (i / 4) % 4: USE_SCHEMA, SELECT, MODIFY, CREATE_TABLE. So reader holds
# USE SCHEMA exactly on the schemas with i % 16 = 0.
t0=$(date +%s)
cat <<SQL | sql || die "bulk insert of grants failed"
.timeout 30000
BEGIN IMMEDIATE;
WITH c(id) AS (SELECT id FROM securables WHERE kind = 'catalog' AND name = 'bench_authz'),
     s(id, i) AS (SELECT id, CAST(substr(name, 2) AS INTEGER) FROM securables
                  WHERE kind = 'schema' AND parent_id = (SELECT id FROM c)),
     t(ms) AS (SELECT CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
INSERT INTO grants (securable_id, principal, privilege, granted_by, granted_at)
SELECT s.id,
       CASE WHEN s.i % 4 = 0 THEN '$ruser' ELSE printf('u%02d', s.i % 37) END,
       CASE (s.i / 4) % 4 WHEN 0 THEN 'USE_SCHEMA' WHEN 1 THEN 'SELECT'
                          WHEN 2 THEN 'MODIFY' ELSE 'CREATE_TABLE' END,
       '$user', t.ms
FROM s, t;
COMMIT;
SQL
ngrants=$(echo "SELECT count(*) FROM grants g JOIN securables s ON s.id = g.securable_id
  JOIN securables c ON c.id = s.parent_id WHERE c.name = 'bench_authz';" | sql) ||
    die "counting grants failed"
[ "$ngrants" = "$AUTHZ_N" ] || die "expected $AUTHZ_N grants on bench_authz schemas, found $ngrants"
say "bench: inserted $ngrants grants in $(( $(date +%s) - t0 )) s"

# USE CATALOG for reader on bench_small and bench_authz, through the API.
for c in bench_small bench_authz; do
    code=$(curl -sS -u "$user:$pass" -X PATCH -H 'Content-Type: application/json' \
           -d "{\"changes\":[{\"principal\":\"$ruser\",\"add\":[\"USE CATALOG\"]}]}" \
           -o "$dir/post.out" -w '%{http_code}' "$base/permissions/catalog/$c") || die "curl failed"
    [ "$code" = 200 ] || die "PATCH /permissions/catalog/$c answered $code: $(cat "$dir/post.out")"
done

# The API's answers, saved as the static reference.
catalog_path=/catalogs/bench_small
page1k_path="/schemas?catalog_name=bench_1k&max_results=100"
page100_path="/schemas?catalog_name=bench_100&max_results=100"
code=$(get "$catalog_path" "$dir/htdocs/catalog.json")
[ "$code" = 200 ] || die "GET $catalog_path answered $code"
code=$(get "$page1k_path" "$dir/htdocs/schemas_1k.json")
[ "$code" = 200 ] || die "GET $page1k_path answered $code"
grep -q '"name":"s000099"' "$dir/htdocs/schemas_1k.json" ||
    die "unexpected first page: $(head -c 300 "$dir/htdocs/schemas_1k.json")"
[ -n "$as_owner" ] && chown -R "$owner:$group" "$dir/htdocs"
for f in catalog schemas_1k; do
    curl -sS -u "$user:$pass" -o "$dir/check.json" "$static/$f.json" || die "curl failed"
    cmp -s "$dir/check.json" "$dir/htdocs/$f.json" || die "static $f.json differs from the API's answer"
done

# A page from the middle of the big catalog. Tokens are opaque; this one is
# computed (base64url of "k1:" + the last name of the previous page) and
# checked, and found by walking the pages if the format ever changes.
mid=$((BIG / 2))
last=$(printf 's%06d' $((mid - 1)))
first=$(printf 's%06d' "$mid")
token=$(printf 'k1:%s' "$last" | base64 | tr '+/' '-_' | tr -d '=\n')
deep_path="/schemas?catalog_name=bench_big&max_results=100&page_token=$token"
code=$(get "$deep_path" "$dir/deep.json")
if [ "$code" != 200 ] || ! grep -q "^{\"schemas\":\[{\"name\":\"$first\"" "$dir/deep.json"; then
    say "bench: computed page token not accepted; walking pages to $first"
    token=""
    p=0
    while :; do
        path="/schemas?catalog_name=bench_big&max_results=100${token:+&page_token=$token}"
        code=$(get "$path" "$dir/deep.json")
        [ "$code" = 200 ] || die "GET $path answered $code"
        grep -q "\"name\":\"$last\"" "$dir/deep.json" && {
            token=$(sed -n 's/.*"next_page_token":"\([^"]*\)".*/\1/p' "$dir/deep.json")
            break
        }
        token=$(sed -n 's/.*"next_page_token":"\([^"]*\)".*/\1/p' "$dir/deep.json")
        [ -n "$token" ] || die "walked off the end of bench_big without finding $last"
        p=$((p + 1))
    done
    deep_path="/schemas?catalog_name=bench_big&max_results=100&page_token=$token"
    code=$(get "$deep_path" "$dir/deep.json")
    grep -q "\"name\":\"$first\"" "$dir/deep.json" || die "page token walk failed"
fi
grep -q '"next_page_token":"' "$dir/deep.json" || die "deep page has no next_page_token"
code=$(get "$page100_path" "$dir/page100.json")
[ "$code" = 200 ] || die "GET $page100_path answered $code"
grep -q '"next_page_token":null' "$dir/page100.json" ||
    die "the page of bench_100 should be its only page"
items() { grep -o '"schema_id"' "$1" | wc -l | tr -d ' '; }
[ "$(items "$dir/deep.json")" = 100 ] && [ "$(items "$dir/page100.json")" = 100 ] ||
    die "pages do not hold 100 schemas each"

# --- throughput: wrk ----------------------------------------------------------
results="$dir/results"
: > "$results"

# CPU ticks (user + system) the httpd child has used: the server's own cost
# per request, less sensitive than throughput to other load on the machine.
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$child/stat"; }

# WRK_AUTH (base64 user:pass), WRK_SCRIPT, WRK_CONNS and WRK_THREADS
# override the defaults for one call; batch.lua posts the file BENCH_BODY.
BENCH_HERE=$here
export BENCH_HERE
wrk_run() { # url seconds -> W_RPS W_P50 W_P99 W_ERR W_STATUS W_CPU (us/request)
    w_url=$1
    w_t0=$(cpu_ticks)
    out=$(wrk -t"${WRK_THREADS:-$THREADS}" -c"${WRK_CONNS:-$CONNS}" -d"${2}s" \
              -s "$here/${WRK_SCRIPT:-report.lua}" \
              -H "Authorization: Basic ${WRK_AUTH:-$auth}" "$w_url" 2>&1) ||
        die "wrk failed on $w_url: $out"
    line=$(printf '%s\n' "$out" | sed -n 's/^BENCH //p')
    [ -n "$line" ] || die "no result from wrk on $w_url: $out"
    w_t1=$(cpu_ticks)
    set -- $line
    [ "$1" -gt 0 ] || die "wrk made no request to $w_url: $out"
    W_RPS=$(awk -v n="$1" -v d="$2" 'BEGIN { printf "%.1f", n / (d / 1e6) }')
    W_P50=$3 W_P99=$4 W_ERR=$5 W_STATUS=$6
    W_CPU=$(awk -v t="$((w_t1 - w_t0))" -v hz="$hz" -v n="$1" 'BEGIN { printf "%.1f", t * 1e6 / hz / n }')
}

# Alternating rounds (A B, B A, ...) so drift on the machine hits both sides.
pair() { # test urlA urlB [authA authB]
    p_test=$1 p_a=$2 p_b=$3 p_aa=${4:-$auth} p_ab=${5:-$auth}
    WRK_AUTH=$p_aa; wrk_run "$p_a" "$WARM"
    WRK_AUTH=$p_ab; wrk_run "$p_b" "$WARM"
    r=1
    while [ "$r" -le "$ROUNDS" ]; do
        if [ $((r % 2)) = 1 ]; then order="A B"; else order="B A"; fi
        for side in $order; do
            if [ "$side" = A ]; then u=$p_a WRK_AUTH=$p_aa; else u=$p_b WRK_AUTH=$p_ab; fi
            wrk_run "$u" "$DUR"
            WRK_AUTH=""
            echo "$p_test $r $side $W_RPS $W_P50 $W_P99 $W_ERR $W_STATUS $W_CPU" >> "$results"
            printf '  %s round %d %s: %8s req/s, p50 %6s us, p99 %6s us, server CPU %6s us/req%s\n' \
                "$p_test" "$r" "$side" "$W_RPS" "$W_P50" "$W_P99" "$W_CPU" \
                "$( [ "$W_ERR$W_STATUS" = 00 ] || echo ", ERRORS socket $W_ERR status $W_STATUS")"
        done
        r=$((r + 1))
    done
}

say "bench: wrk -t$THREADS -c$CONNS, $ROUNDS rounds of ${DUR}s per side after ${WARM}s warm-ups"
say "1. GET $catalog_path  (A static file, B module)"
pair 1 "$static/catalog.json" "$base$catalog_path"
say "2. GET $page1k_path  (A static file, B module)"
pair 2 "$static/schemas_1k.json" "$base$page1k_path"
say "13. GET $page1k_path, every answer made  (A static file, B module, UnicatAnswerCache Off)"
pair 13 "$static/schemas_1k.json" "$made$page1k_path"
say "3. page of 100, made (A bench_100, only page; B bench_big, page from $first)"
pair 3 "$made$page100_path" "$made$deep_path"
say "5. GET $catalog_path, made  (A as admin $user, B as $ruser with USE CATALOG)"
pair 5 "$made$catalog_path" "$made$catalog_path" "$auth" "$rauth"
say "11. GET $catalog_path  (A httpd's empty 204 after the same authentication, B module)"
pair 11 "$static/floor" "$base$catalog_path"
say "15. GET $catalog_path, every answer made  (A httpd's empty 204, B module, UnicatAnswerCache Off)"
pair 15 "$static/floor" "$made$catalog_path"
say "12. GET $catalog_path  (A mount with UnicatMetrics Off, B counted in the metrics)"
pair 12 "$static/nometrics/api/2.1/unity-catalog$catalog_path" "$base$catalog_path"

# --- batch-check: one connection, one request at a time -----------------------
# Bodies: N checks, every 20th a warehouse check (get_metadata, use,
# list_namespaces), the others namespace get_metadata on distinct schemas of
# bench_authz (every (10000/N)th one), alternately by namespace-id and by
# name. With IDENT the same checks carry identity reader, for the admin to
# post. The expected number of "allowed":true is computed alongside.
authz_url="http://127.0.0.1:$port/management/v1/action/batch-check"
echo "SELECT id FROM securables WHERE kind = 'catalog' AND name = 'bench_authz';" | sql \
    > "$dir/wh.id" || die "reading the catalog id failed"
wh=$(cat "$dir/wh.id")
echo "SELECT CAST(substr(s.name, 2) AS INTEGER), s.id FROM securables s
  WHERE s.kind = 'schema' AND s.parent_id = '$wh' ORDER BY s.name;" | sql \
    > "$dir/schema.ids" || die "reading schema ids failed"
[ "$(wc -l < "$dir/schema.ids")" = "$AUTHZ_N" ] || die "bench_authz does not hold $AUTHZ_N schemas"
make_body() { # checks identity(0/1) outfile -> prints expected allowed count
    awk -F'|' -v n="$1" -v ident="$2" -v wh="$wh" -v total="$AUTHZ_N" -v who="$ruser" \
        -v out="$3" '
    { id[$1] = $2 }
    END {
        nns = n - int(n / 20); stride = int(total / nns); if (stride < 1) stride = 1
        split("get_metadata use list_namespaces", wa, " ")
        idn = ident ? ",\"identity\":{\"user\":\"oidc~" who "\"}" : ""
        printf "{\"checks\":[" > out
        j = 0; w = 0; yes = 0
        for (k = 0; k < n; k++) {
            if (k) printf "," > out
            if (k % 20 == 19) {
                printf "{\"id\":\"c%d\"%s,\"operation\":{\"warehouse\":{\"action\":{\"action\":\"%s\"},\"warehouse-id\":\"%s\"}}}", k, idn, wa[w % 3 + 1], wh > out
                w++; yes++          # reader holds USE CATALOG on bench_authz
                continue
            }
            i = j * stride
            if (j % 2 == 0)
                ref = "\"namespace-id\":\"" id[i] "\""
            else
                ref = sprintf("\"namespace\":[\"s%06d\"]", i)
            printf "{\"id\":\"c%d\"%s,\"operation\":{\"namespace\":{\"action\":{\"action\":\"get_metadata\"},\"warehouse-id\":\"%s\",%s}}}", k, idn, wh, ref > out
            if (i % 16 == 0) yes++  # USE SCHEMA for reader exactly there
            j++
        }
        printf "]}" > out
        print yes
    }' "$dir/schema.ids"
}
check_body() { # body expected-allowed auth-user auth-pass label
    code=$(curl -sS -u "$3:$4" -H 'Content-Type: application/json' \
           --data-binary "@$1" -o "$dir/batch.out" -w '%{http_code}' "$authz_url") ||
        die "curl failed"
    [ "$code" = 200 ] || die "batch-check ($5) answered $code: $(head -c 400 "$dir/batch.out")"
    nres=$(grep -o '"allowed":' "$dir/batch.out" | wc -l | tr -d ' ')
    nyes=$(grep -o '"allowed":true' "$dir/batch.out" | wc -l | tr -d ' ')
    nchk=$(grep -o '"operation":' "$1" | wc -l | tr -d ' ')
    [ "$nres" = "$nchk" ] || die "batch-check ($5): $nres answers for $nchk checks"
    [ "$nyes" = "$2" ] || die "batch-check ($5): $nyes allowed, expected $2"
    say "  $5: $nchk checks, $nyes allowed as expected, $(wc -c < "$1" | tr -d ' ') bytes posted"
}
exp1000=$(make_body 1000 0 "$dir/b1000.json")
exp500=$(make_body 500 0 "$dir/b500.json")
expi=$(make_body 1000 1 "$dir/b1000i.json")
say "6. batch-check on $AUTHZ_N schemas / $ngrants grants (namespace checks)"
check_body "$dir/b1000.json" "$exp1000" "$ruser" "$rpass" "1000 checks as $ruser"
check_body "$dir/b500.json" "$exp500" "$ruser" "$rpass" "500 checks as $ruser"
check_body "$dir/b1000i.json" "$expi" "$user" "$pass" "1000 checks as $user for identity $ruser"
# The admin asking for itself: everything allowed.
check_body "$dir/b1000.json" "1000" "$user" "$pass" "1000 checks as $user (admin, no identity)"

batch_results="$dir/batch_results"
: > "$batch_results"
# Variants: G plain GET (reference), F 1000 checks, H 500 checks, I 1000
# checks with identity override as admin; rotated each round.
batch_one() { # variant seconds
    case $1 in
        G) WRK_SCRIPT=report.lua WRK_AUTH=$rauth; b_url=$base$catalog_path ;;
        F) WRK_SCRIPT=batch.lua WRK_AUTH=$rauth BENCH_BODY=$dir/b1000.json; b_url=$authz_url ;;
        H) WRK_SCRIPT=batch.lua WRK_AUTH=$rauth BENCH_BODY=$dir/b500.json; b_url=$authz_url ;;
        I) WRK_SCRIPT=batch.lua WRK_AUTH=$auth BENCH_BODY=$dir/b1000i.json; b_url=$authz_url ;;
    esac
    export BENCH_BODY
    WRK_CONNS=1 WRK_THREADS=1
    wrk_run "$b_url" "$2"
    WRK_SCRIPT="" WRK_AUTH="" WRK_CONNS="" WRK_THREADS=""
}
BENCH_BODY=""
for v in G F H I; do batch_one $v 1; done
r=1
while [ "$r" -le "$ROUNDS" ]; do
    case $((r % 4)) in
        1) order="G F H I" ;; 2) order="I H F G" ;; 3) order="F G I H" ;; 0) order="H I G F" ;;
    esac
    for v in $order; do
        batch_one $v "$BDUR"
        echo "$v $r $W_RPS $W_P50 $W_P99 $W_ERR $W_STATUS $W_CPU" >> "$batch_results"
        printf '  6 round %d %s: %8s req/s, p50 %6s us, p99 %6s us, server CPU %6s us/req%s\n' \
            "$r" "$v" "$W_RPS" "$W_P50" "$W_P99" "$W_CPU" \
            "$( [ "$W_ERR$W_STATUS" = 00 ] || echo ", ERRORS socket $W_ERR status $W_STATUS")"
    done
    r=$((r + 1))
done

# --- tables: creates, then pages ---------------------------------------------
code=$(post /catalogs '{"name":"bench_tables","comment":"benchmark catalog"}') || die "curl failed"
[ "$code" = 200 ] || die "POST /catalogs bench_tables answered $code: $(cat "$dir/post.out")"
code=$(post /schemas '{"name":"sch","catalog_name":"bench_tables"}') || die "curl failed"
[ "$code" = 200 ] || die "POST /schemas bench_tables.sch answered $code: $(cat "$dir/post.out")"
# The creates go through curl --parallel (four connections kept alive): wrk
# cannot stop after an exact number of requests. One body file per table,
# t00000 ... with $TABLE_COLS columns, written beforehand.
say "7. POST /tables: $TABLES_N tables of $TABLE_COLS columns into bench_tables.sch (curl, 4 connections)"
mkdir -p "$dir/tables"
awk -v n="$TABLES_N" -v cols="$TABLE_COLS" -v d="$dir/tables" -v url="$base/tables" \
    -v cred="$user:$pass" -v cfg="$dir/tables.curl" 'BEGIN {
    c = ""
    for (i = 0; i < cols; i++)
        c = c sprintf("%s{\"name\":\"col_%02d\",\"type_text\":\"bigint\",\"type_json\":" \
            "\"{\\\"name\\\":\\\"col_%02d\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true," \
            "\\\"metadata\\\":{}}\",\"type_name\":\"LONG\",\"position\":%d,\"nullable\":true," \
            "\"comment\":\"column %d\"}", i ? "," : "", i, i, i, i)
    for (t = 0; t < n; t++) {
        f = sprintf("%s/t%05d.json", d, t)
        printf "{\"name\":\"t%05d\",\"catalog_name\":\"bench_tables\",\"schema_name\":\"sch\"," \
               "\"table_type\":\"EXTERNAL\",\"data_source_format\":\"DELTA\"," \
               "\"storage_location\":\"s3://bench-tables/t%05d\",\"comment\":\"benchmark table\"," \
               "\"properties\":{\"owner_team\":\"bench\"},\"columns\":[%s]}", t, t, c > f
        close(f)
        printf "url = \"%s\"\nuser = \"%s\"\nheader = \"Content-Type: application/json\"\n" \
               "data-binary = \"@%s\"\noutput = \"/dev/null\"\nwrite-out = \"%%{http_code}\\n\"\n", \
               url, cred, f > cfg
        if (t < n - 1) print "next" > cfg
    }
}' || die "writing the table bodies failed"
t0=$(date +%s%N)
curl -sS --parallel --parallel-max 4 -K "$dir/tables.curl" > "$dir/tables.codes" 2> "$dir/tables.err" ||
    die "curl failed creating tables: $(head -c 300 "$dir/tables.err")"
t1=$(date +%s%N)
bad=$(grep -vc '^200$' "$dir/tables.codes" || :)
[ "$bad" = 0 ] || die "creating tables: $bad answers were not 200: $(sort "$dir/tables.codes" | uniq -c | tr '\n' ' ')"
ntables=$(echo "SELECT count(*) FROM securables t JOIN securables s ON s.id = t.parent_id
  JOIN securables c ON c.id = s.parent_id WHERE t.kind = 'table' AND c.name = 'bench_tables';" | sql) ||
    die "counting tables failed"
[ "$ntables" = "$TABLES_N" ] || die "expected $TABLES_N tables, found $ntables"
creates_rps=$(awk -v n="$ntables" -v ns="$((t1 - t0))" 'BEGIN { printf "%.0f", n / (ns / 1e9) }')
say "  $ntables tables created in $(awk -v ns="$((t1 - t0))" 'BEGIN { printf "%.1f", ns / 1e9 }') s: $creates_rps creates/s"

first_tables="/tables?catalog_name=bench_tables&schema_name=sch&max_results=100"
last_after=$(printf 't%05d' $((TABLES_N - 101)))
last_first=$(printf 't%05d' $((TABLES_N - 100)))
token=$(printf 'k1:%s' "$last_after" | base64 | tr '+/' '-_' | tr -d '=\n')
last_tables="$first_tables&page_token=$token"
code=$(get "$first_tables" "$dir/htdocs/tables_page.json")
[ "$code" = 200 ] || die "GET $first_tables answered $code"
code=$(get "$last_tables" "$dir/last_tables.json")
[ "$code" = 200 ] || die "GET $last_tables answered $code: $(head -c 300 "$dir/last_tables.json")"
grep -q "^{\"tables\":\[{\"name\":\"$last_first\"" "$dir/last_tables.json" &&
    grep -q '"next_page_token":null}$' "$dir/last_tables.json" ||
    die "unexpected last page: $(head -c 300 "$dir/last_tables.json")"
for f in "$dir/htdocs/tables_page.json" "$dir/last_tables.json"; do
    [ "$(grep -o '"table_id"' "$f" | wc -l | tr -d ' ')" = 100 ] ||
        die "$f does not hold 100 tables"
done
[ -n "$as_owner" ] && chown -R "$owner:$group" "$dir/htdocs"
curl -sS -u "$user:$pass" -o "$dir/check.json" "$static/tables_page.json" || die "curl failed"
cmp -s "$dir/check.json" "$dir/htdocs/tables_page.json" || die "static tables_page.json differs"
page_bytes=$(wc -c < "$dir/htdocs/tables_page.json" | tr -d ' ')
say "  a page of 100 tables is $page_bytes bytes"
say "7. GET /tables page, made (A first page, B last page, from $last_first)"
pair 7 "$made$first_tables" "$made$last_tables"
say "8. GET /tables page of $page_bytes bytes (A static file, B module)"
pair 8 "$static/tables_page.json" "$base$first_tables"
say "14. GET /tables page, every answer made  (A static file, B module, UnicatAnswerCache Off)"
pair 14 "$static/tables_page.json" "$made$first_tables"

# --- memory: ab, exact request counts ----------------------------------------
printf '{"comment":"benchmark catalog"}' > "$dir/patch.json"
ab_run() { # n concurrency expected-status url [ab options...]
    a_n=$1 a_c=$2 a_expect=$3 a_url=$4
    shift 4
    [ "$a_n" -gt 0 ] || return 0
    out=$(ab -q -S -d -l -k -r -n "$a_n" -c "$a_c" -A "$user:$pass" "$@" "$a_url" 2>&1) ||
        die "ab failed on $a_url: $out"
    done_n=$(printf '%s\n' "$out" | awk '/^Complete requests:/ { print $3 }')
    failed=$(printf '%s\n' "$out" | awk '/^Failed requests:/ { print $3 }')
    non2xx=$(printf '%s\n' "$out" | awk '/^Non-2xx responses:/ { print $3 }')
    [ "$done_n" = "$a_n" ] || die "ab completed ${done_n:-?} of $a_n on $a_url: $out"
    bad=${failed:-0}
    if [ "$a_expect" = 2xx ]; then
        bad=$((bad + ${non2xx:-0}))
    elif [ "${non2xx:-0}" != "$a_n" ]; then
        bad=$((bad + a_n - ${non2xx:-0}))
    fi
    MEM_DONE=$((MEM_DONE + done_n))
    MEM_BAD=$((MEM_BAD + bad))
}
# One pass of the mix: reads that hit every renderer, a 404, and an update
# (JSON body, transaction) at a concurrency SQLite's single writer can take.
mix() { # requests
    m=$1
    ab_run $((m / 4))  "$CONNS" 2xx "$base$catalog_path"
    ab_run $((m / 4))  "$CONNS" 2xx "$base$page1k_path"
    ab_run $((m / 5))  "$CONNS" 2xx "$base$deep_path"
    ab_run $((m / 10)) "$CONNS" 2xx "$base/catalogs?max_results=50"
    ab_run $((m / 10)) "$CONNS" 404 "$base/catalogs/no_such_catalog"
    ab_run $((m - m / 4 - m / 4 - m / 5 - m / 10 - m / 10)) 4 2xx \
        "$base$catalog_path" -p "$dir/patch.json" -T application/json -m PATCH
}

MEM_DONE=0 MEM_BAD=0
say "4. memory: mix of GET catalog/page/deep page/list, 404 and PATCH (ab -k -c$CONNS)"
[ "$(child_pid)" = "$child" ] || die "the httpd child changed (crash?)"
mix "$MEM_WARM"
rss_before=$(rss_kb "$child")
say "  after ${MEM_DONE}-request warm-up: VmRSS $rss_before kB"
steps=5 s=1 rss_steps=""
while [ $s -le $steps ]; do
    n=$((MEM_N / steps))
    [ $s = $steps ] && n=$((MEM_N - (steps - 1) * (MEM_N / steps)))
    mix "$n"
    [ "$(child_pid)" = "$child" ] || die "the httpd child changed during the memory run (crash?)"
    rss=$(rss_kb "$child")
    rss_steps="$rss_steps $rss"
    say "  after $((MEM_DONE - MEM_WARM)) more requests: VmRSS $rss kB"
    s=$((s + 1))
done
rss_after=$rss
mem_measured=$((MEM_DONE - MEM_WARM))
[ "$MEM_BAD" = 0 ] || say "  WARNING: $MEM_BAD unexpected answers or failed requests in the memory run"

# --- memory against object size ----------------------------------------------
# Tables of about 900 kB each: 56 properties of 16,000 bytes and a comment
# of 60,000. The reader holds SELECT on the catalog, so every check is true.
say "9. memory against object size: $LARGE_N tables of about 900 kB"
code=$(post /catalogs '{"name":"bench_large","comment":"large objects"}') || die "curl failed"
[ "$code" = 200 ] || die "POST /catalogs bench_large answered $code: $(cat "$dir/post.out")"
code=$(post /schemas '{"name":"sch","catalog_name":"bench_large"}') || die "curl failed"
[ "$code" = 200 ] || die "POST /schemas bench_large.sch answered $code: $(cat "$dir/post.out")"
code=$(curl -sS -u "$user:$pass" -X PATCH -H 'Content-Type: application/json' \
           -d "{\"changes\":[{\"principal\":\"$ruser\",\"add\":[\"USE CATALOG\",\"USE SCHEMA\",\"SELECT\"]}]}" \
           -o "$dir/post.out" -w '%{http_code}' "$base/permissions/catalog/bench_large") ||
    die "curl failed"
[ "$code" = 200 ] || die "granting on bench_large answered $code: $(cat "$dir/post.out")"
mkdir -p "$dir/large"
awk -v n="$LARGE_N" -v d="$dir/large" 'BEGIN {
    # Concatenation, not sprintf: mawk bounds what sprintf may build.
    v = "v"; while (length(v) < 16000) v = v v; v = substr(v, 1, 16000)
    c = "c"; while (length(c) < 60000) c = c c; c = substr(c, 1, 60000)
    p = ""
    for (i = 1; i <= 56; i++)
        p = p (i > 1 ? "," : "") "\"p" (i < 10 ? "0" : "") i "\":\"" v "\""
    for (t = 0; t < n; t++) {
        f = sprintf("%s/l%03d.json", d, t)
        printf "{\"name\":\"l%03d\",\"catalog_name\":\"bench_large\",\"schema_name\":\"sch\"," \
               "\"table_type\":\"EXTERNAL\",\"data_source_format\":\"DELTA\",\"columns\":[]," \
               "\"storage_location\":\"s3://bench-large/l%03d\",", t, t > f
        printf "%s", "\"comment\":\"" c "\",\"properties\":{" p "}}" > f
        close(f)
    }
}' || die "writing the large table bodies failed"
for f in "$dir"/large/l*.json; do
    code=$(curl -sS -u "$user:$pass" -H 'Content-Type: application/json' \
               --data-binary "@$f" -o "$dir/post.out" -w '%{http_code}' "$base/tables") ||
        die "curl failed"
    [ "$code" = 200 ] || die "POST /tables $(basename "$f") answered $code: $(head -c 300 "$dir/post.out")"
done
echo "SELECT id FROM securables WHERE kind = 'catalog' AND name = 'bench_large';" | sql \
    > "$dir/large.id" || die "reading the catalog id failed"
lwh=$(cat "$dir/large.id")
echo "SELECT t.id FROM securables t JOIN securables s ON s.id = t.parent_id
  WHERE t.kind = 'table' AND s.parent_id = '$lwh' ORDER BY t.name LIMIT 5;" | sql \
    > "$dir/large.ids" || die "reading table ids failed"
# 1,000 checks over five of them, by name and by id in turn.
awk -v wh="$lwh" -v out="$dir/large_checks.json" '
    { id[NR - 1] = $1 }
    END {
        printf "{\"checks\":[" > out
        for (k = 0; k < 1000; k++) {
            t = k % 5
            ref = k % 2 ? sprintf("\"namespace\":[\"sch\"],\"table\":\"l%03d\"", t) \
                        : "\"table-id\":\"" id[t] "\""
            printf "%s{\"operation\":{\"table\":{\"action\":{\"action\":\"read_data\"},\"warehouse-id\":\"%s\",%s}}}", \
                   k ? "," : "", wh, ref > out
        }
        printf "]}" > out
    }' "$dir/large.ids" || die "writing the large batch-check failed"
large_run() { # label url [body] -> L_RSS0 L_RSS1 L_HWM0 L_HWM1
    [ "$(child_pid)" = "$child" ] || die "the httpd child changed (crash?)"
    # Resets the peak to what is resident now (Linux: clear_refs 5), so that
    # the peak is this part's, not the earlier parts'.
    echo 5 > "/proc/$child/clear_refs" 2>/dev/null ||
        say "  (cannot reset VmHWM: the peak includes the earlier parts)"
    L_RSS0=$(rss_kb "$child") L_HWM0=$(hwm_kb "$child")
    i=0
    while [ $i -lt "$LARGE_REQ" ]; do
        if [ -n "${3:-}" ]; then
            code=$(curl -sS -u "$ruser:$rpass" -H 'Content-Type: application/json' \
                       --data-binary "@$3" -o "$dir/large.out" -w '%{http_code}' "$2") ||
                die "curl failed ($1)"
        else
            code=$(curl -sS -u "$ruser:$rpass" -o "$dir/large.out" -w '%{http_code}' "$2") ||
                die "curl failed ($1)"
        fi
        [ "$code" = 200 ] || die "$1 answered $code: $(head -c 300 "$dir/large.out")"
        i=$((i + 1))
    done
    [ "$(child_pid)" = "$child" ] || die "the httpd child changed during $1 (crash?)"
    L_RSS1=$(rss_kb "$child") L_HWM1=$(hwm_kb "$child")
    say "  $1: VmRSS $L_RSS0 -> $L_RSS1 kB, VmHWM $L_HWM0 -> $L_HWM1 kB"
}
large_run "batch-check of 1,000 checks" "$authz_url" "$dir/large_checks.json"
nyes=$(grep -o '"allowed":true' "$dir/large.out" | wc -l | tr -d ' ')
[ "$nyes" = 1000 ] || die "the large batch-check allowed $nyes of 1000"
large_batch="$L_RSS0 $L_RSS1 $L_HWM0 $L_HWM1"
large_run "GET /tables?max_results=1000" \
    "$base/tables?catalog_name=bench_large&schema_name=sch&max_results=1000"
large_page_rows=$(grep -o '"table_id"' "$dir/large.out" | wc -l | tr -d ' ')
large_page_bytes=$(wc -c < "$dir/large.out" | tr -d ' ')
say "  a page holds $large_page_rows of $LARGE_N tables, $large_page_bytes bytes"
large_pages="$L_RSS0 $L_RSS1 $L_HWM0 $L_HWM1"

# --- vended credentials --------------------------------------------------------
vend_results="$dir/vend_results"
: > "$vend_results"
vend_warm_sts=0
if [ -n "$vend_skip" ]; then
    say "10. vended credentials: skipped: $vend_skip"
else
    vend_bucket=$UNICAT_S3_BUCKET
    say "10. vended credentials: EXTERNAL tables on s3://$vend_bucket/bench, aws_iam_role credential"
    json_str() { printf '%s' "$1" | sed 's/[\\"]/\\&/g'; }
    code=$(post /credentials "{\"name\":\"bench_cred\",\"aws_iam_role\":{\"role_arn\":\"$(json_str "$UNICAT_STS_ROLE_ARN")\",\"region\":\"us-east-1\",\"access_key_id\":\"$(json_str "$UNICAT_S3_KEY")\",\"secret_access_key\":\"$(json_str "$UNICAT_S3_SECRET")\"}}") ||
        die "curl failed"
    [ "$code" = 200 ] || die "POST /credentials bench_cred answered $code: $(cat "$dir/post.out")"
    external_id=$(sed -n 's/.*"external_id":"\([^"]*\)".*/\1/p' "$dir/post.out")
    [ -n "$external_id" ] ||
        die "the credential has no generated external_id: $(cat "$dir/post.out")"
    # As the role's administrator would: its trust policy names the
    # credential's external id (t/s3/with-s3.sh's TrustExternalId).
    code=$(curl -s -o "$dir/trust.out" -w '%{http_code}' \
        --aws-sigv4 "aws:amz:us-east-1:sts" \
        --user "$UNICAT_S3_KEY:$UNICAT_S3_SECRET" \
        --data "Action=TrustExternalId&RoleArn=$UNICAT_STS_ROLE_ARN&ExternalId=$external_id" \
        "$UNICAT_STS_ENDPOINT/") ||
        die "cannot reach the STS stand-in at $UNICAT_STS_ENDPOINT"
    [ "$code" = 200 ] || die "TrustExternalId answered $code: $(cat "$dir/trust.out")"
    code=$(post /external-locations "{\"name\":\"bench_loc\",\"url\":\"s3://$vend_bucket/bench\",\"credential_name\":\"bench_cred\"}") ||
        die "curl failed"
    [ "$code" = 200 ] || die "POST /external-locations bench_loc answered $code: $(cat "$dir/post.out")"
    code=$(post /catalogs '{"name":"bench_vend","comment":"vended credentials"}') || die "curl failed"
    [ "$code" = 200 ] || die "POST /catalogs bench_vend answered $code: $(cat "$dir/post.out")"
    code=$(post /schemas '{"name":"sch","catalog_name":"bench_vend"}') || die "curl failed"
    [ "$code" = 200 ] || die "POST /schemas bench_vend.sch answered $code: $(cat "$dir/post.out")"
    vend_table() { # name -> the POST /tables body
        printf '{"name":"%s","catalog_name":"bench_vend","schema_name":"sch","table_type":"EXTERNAL","data_source_format":"DELTA","columns":[],"storage_location":"s3://%s/bench/%s"}' \
            "$1" "$vend_bucket" "$1"
    }
    code=$(post /tables "$(vend_table warm)") || die "curl failed"
    [ "$code" = 200 ] || die "POST /tables bench_vend.sch.warm answered $code: $(cat "$dir/post.out")"
    warm_id=$(sed -n 's/.*"table_id":"\([^"]*\)".*/\1/p' "$dir/post.out")
    [ -n "$warm_id" ] || die "POST /tables answered no table_id: $(head -c 300 "$dir/post.out")"
    # The cold tables, each under its own prefix (so its own cache entry),
    # through curl --parallel like 7.
    mkdir -p "$dir/vend"
    i=0
    : > "$dir/vend.curl"
    while [ $i -lt "$VEND_N" ]; do
        f=$(printf '%s/vend/t%05d.json' "$dir" $i)
        vend_table "$(printf 't%05d' $i)" > "$f"
        [ $i -gt 0 ] && echo next >> "$dir/vend.curl"
        printf 'url = "%s"\nuser = "%s"\nheader = "Content-Type: application/json"\ndata-binary = "@%s"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\n' \
            "$base/tables" "$user:$pass" "$f" >> "$dir/vend.curl"
        i=$((i + 1))
    done
    curl -sS --parallel --parallel-max 4 -K "$dir/vend.curl" > "$dir/vend.codes" 2> "$dir/vend.err" ||
        die "curl failed creating the vend tables: $(head -c 300 "$dir/vend.err")"
    bad=$(grep -vc '^200$' "$dir/vend.codes" || :)
    [ "$bad" = 0 ] || die "creating the vend tables: $bad answers were not 200: $(sort "$dir/vend.codes" | uniq -c | tr '\n' ' ')"
    echo "SELECT t.id FROM securables t JOIN securables s ON s.id = t.parent_id
  JOIN securables c ON c.id = s.parent_id
  WHERE t.kind = 'table' AND c.name = 'bench_vend' AND t.name <> 'warm' ORDER BY t.name;" | sql \
        > "$dir/vend.ids" || die "reading the vend table ids failed"
    [ "$(wc -l < "$dir/vend.ids" | tr -d ' ')" = "$VEND_N" ] ||
        die "expected $VEND_N vend tables, found $(wc -l < "$dir/vend.ids")"

    vend_url="$base/temporary-table-credentials"
    table_url="$base/tables/bench_vend.sch.warm"
    printf '{"table_id":"%s","operation":"READ"}' "$warm_id" > "$dir/vend_warm.json"
    sts_calls() { grep -c '^verified ' "$UNICAT_STS_LOG" || :; }
    vend_post() { # -> status, the answer in $dir/vend.out
        curl -sS -u "$user:$pass" -H 'Content-Type: application/json' \
             --data-binary "@$dir/vend_warm.json" -o "$dir/vend.out" -w '%{http_code}' "$vend_url"
    }
    key_of() { sed -n 's/.*"aws_temp_credentials":{"access_key_id":"\([^"]*\)".*/\1/p' "$1"; }
    # The first call fills the cache through STS; the second must not call
    # it again, and must answer the same keys.
    s0=$(sts_calls)
    code=$(vend_post) || die "curl failed"
    [ "$code" = 200 ] || die "temporary-table-credentials answered $code: $(head -c 300 "$dir/vend.out")"
    grep -q '"aws_temp_credentials":{"access_key_id":"ASIA' "$dir/vend.out" &&
        grep -q '"session_token":"[^"]' "$dir/vend.out" &&
        grep -q '"expiration_time":[0-9]' "$dir/vend.out" ||
        die "temporary-table-credentials answered no aws_temp_credentials: $(head -c 300 "$dir/vend.out")"
    key1=$(key_of "$dir/vend.out")
    s1=$(sts_calls)
    [ $((s1 - s0)) = 1 ] || die "the first temporary-table-credentials made $((s1 - s0)) STS calls, not 1"
    code=$(vend_post) || die "curl failed"
    [ "$code" = 200 ] && [ "$(key_of "$dir/vend.out")" = "$key1" ] && [ "$(sts_calls)" = "$s1" ] ||
        die "the second temporary-table-credentials was not answered from the cache: $code, $(( $(sts_calls) - s1 )) STS calls"
    code=$(get /tables/bench_vend.sch.warm "$dir/vend_table.out") || die "curl failed"
    [ "$code" = 200 ] || die "GET /tables/bench_vend.sch.warm answered $code"
    say "  answered from the cache after one STS call; GET /tables/{full_name} of the same table for reference"

    # The cold runs: ROUNDS + 1 equal slices of the table ids, the first for
    # the warm-up. -d only bounds a run: it ends at its slice's last answer.
    vend_slice=$((VEND_N / (ROUNDS + 1)))
    vend_cold() { # slice -> V_RATE V_OK V_BAD V_US V_P50 V_P99 V_SOCK V_STS V_CPU
        [ "$(child_pid)" = "$child" ] || die "the httpd child changed (crash?)"
        v_s0=$(sts_calls) v_t0=$(cpu_ticks)
        out=$(BENCH_IDS="$dir/vend.ids" BENCH_FROM=$(($1 * vend_slice)) BENCH_COUNT=$vend_slice \
              wrk -t1 -c"$CONNS" -d"${DUR}s" -s "$here/vend.lua" \
                  -H "Authorization: Basic $auth" "$vend_url" 2>&1) ||
            die "wrk failed on $vend_url: $out"
        v_t1=$(cpu_ticks) v_s1=$(sts_calls)
        line=$(printf '%s\n' "$out" | sed -n 's/^VEND //p')
        [ -n "$line" ] || die "no result from wrk on $vend_url: $out"
        set -- $line
        V_OK=$1 V_BAD=$2 V_US=$3 V_P50=$4 V_P99=$5 V_SOCK=$6 V_STS=$((v_s1 - v_s0))
        [ "$V_OK" -gt 0 ] && [ "$V_US" -gt 0 ] || die "no credentials vended by the cold run: $out"
        # Each answer must have made its own AssumeRole (requests cut off
        # by a run's end may add calls, never remove them).
        [ "$V_STS" -ge "$V_OK" ] ||
            die "the cold run vended $V_OK credentials with only $V_STS STS calls: answered from the cache"
        V_RATE=$(awk -v n="$V_OK" -v us="$V_US" 'BEGIN { printf "%.1f", n / (us / 1e6) }')
        V_CPU=$(awk -v t="$((v_t1 - v_t0))" -v hz="$hz" -v n="$V_OK" 'BEGIN { printf "%.1f", t * 1e6 / hz / n }')
    }
    vend_one() { # variant round
        case $1 in
            A) wrk_run "$table_url" "$DUR"
               echo "10 $2 A $W_RPS $W_P50 $W_P99 $W_ERR $W_STATUS $W_CPU" >> "$results"
               v_line="$W_RPS req/s, p50 $W_P50 us, p99 $W_P99 us, server CPU $W_CPU us/req" ;;
            B) v_s0=$(sts_calls)
               WRK_SCRIPT=batch.lua BENCH_BODY=$dir/vend_warm.json
               export BENCH_BODY
               wrk_run "$vend_url" "$DUR"
               WRK_SCRIPT=""
               vend_warm_sts=$((vend_warm_sts + $(sts_calls) - v_s0))
               echo "10 $2 B $W_RPS $W_P50 $W_P99 $W_ERR $W_STATUS $W_CPU" >> "$results"
               v_line="$W_RPS req/s, p50 $W_P50 us, p99 $W_P99 us, server CPU $W_CPU us/req" ;;
            C) vend_cold "$2"
               echo "$2 $V_RATE $V_OK $V_BAD $V_US $V_P50 $V_P99 $V_SOCK $V_STS $V_CPU" >> "$vend_results"
               v_line="$V_RATE creds/s ($V_OK of $vend_slice in $V_US us, $V_STS STS calls), p50 $V_P50 us, p99 $V_P99 us, server CPU $V_CPU us/cred"
               [ "$V_BAD$V_SOCK" = 00 ] || v_line="$v_line, ERRORS bad answers $V_BAD socket $V_SOCK" ;;
        esac
        [ "$1" = C ] || [ "$W_ERR$W_STATUS" = 00 ] || v_line="$v_line, ERRORS socket $W_ERR status $W_STATUS"
    }
    say "10. (A GET /tables/{full_name}, B temporary-table-credentials warm, C cold: $vend_slice tables a run)"
    wrk_run "$table_url" "$WARM"
    WRK_SCRIPT=batch.lua BENCH_BODY=$dir/vend_warm.json
    export BENCH_BODY
    wrk_run "$vend_url" "$WARM"
    WRK_SCRIPT=""
    vend_cold 0
    r=1
    while [ "$r" -le "$ROUNDS" ]; do
        if [ $((r % 2)) = 1 ]; then order="A B C"; else order="C B A"; fi
        for v in $order; do
            vend_one "$v" "$r"
            say "  10 round $r $v: $v_line"
        done
        r=$((r + 1))
    done
    [ "$(child_pid)" = "$child" ] || die "the httpd child changed during 10 (crash?)"
    say "  STS calls during the warm runs: $vend_warm_sts"
fi

# --- summary -----------------------------------------------------------------
crashes=$(grep -c -E 'exit signal|AH00052|AH00060' "$dir/error.log" || :)
uc_errors=$(grep -c 'UC0' "$dir/error.log" || :)
elapsed=$(( $(date +%s) - start_time ))

awk -v rounds="$ROUNDS" -v dur="$DUR" -v conns="$CONNS" -v threads="$THREADS" \
    -v rb="$rss_before" -v ra="$rss_after" -v rs="$rss_start" -v noise="$MEM_NOISE_KB" \
    -v memn="$mem_measured" -v memw="$MEM_WARM" -v membad="$MEM_BAD" -v steps="$rss_steps" \
    -v big="$BIG" -v elapsed="$elapsed" -v crashes="$crashes" -v ucerr="$uc_errors" \
    -v ruser="$ruser" -v admin="$user" -v authzn="$AUTHZ_N" -v ngrants="$ngrants" -v bdur="$BDUR" \
    -v creates="$creates_rps" -v ntables="$TABLES_N" -v ncols="$TABLE_COLS" -v pbytes="$page_bytes" \
    -v lbatch="$large_batch" -v lpages="$large_pages" -v lrows="$large_page_rows" \
    -v lbytes="$large_page_bytes" -v ln="$LARGE_N" -v lreq="$LARGE_REQ" \
    -v vskip="$vend_skip" -v vn="$VEND_N" -v vslice="${vend_slice:-0}" -v vwsts="$vend_warm_sts" \
    -v vbucket="${UNICAT_S3_BUCKET:-}" '
function median(list,    n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    if (n == 0) return 0
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function ms(us) { return sprintf("%.2f ms", us / 1000) }
FILENAME ~ /vend_results$/ {
    vrate[$1] = $2; vrl = vrl " " $2; vbad += $4 + $8; vp50 = vp50 " " $6; vp99 = vp99 " " $7
    vsts += $9; vok += $3; vcpu = vcpu " " $10
    next
}
FILENAME ~ /batch_results$/ {
    v = $1; r = $2
    brps[v, r] = $3; bp50[v] = bp50[v] " " $4; berr += $6 + $7; bcpu[v] = bcpu[v] " " $8
    next
}
{
    t = $1; r = $2; s = $3
    rps[t, r, s] = $4; p99[t, s] = p99[t, s] " " $6; rpsl[t, s] = rpsl[t, s] " " $4
    cpu[t, r, s] = $9; cpul[t, s] = cpul[t, s] " " $9
    errs[t, s] += $7 + $8
}
END {
    for (t = 1; t <= 15; t++) {
        if (t == 4 || t == 6 || t == 9 || t == 10) continue
        rl = ""; pl = ""; cl = ""
        for (r = 1; r <= rounds; r++) {
            rl = rl " " rps[t, r, "B"] / rps[t, r, "A"]
            pl = pl " " rps[t, r, "A"] / rps[t, r, "B"]
            if (cpu[t, r, "A"] > 0) cl = cl " " cpu[t, r, "B"] / cpu[t, r, "A"]
        }
        ratio[t] = median(rl); inv[t] = median(pl); cratio[t] = median(cl)
        ca[t] = median(cpul[t, "A"]); cb[t] = median(cpul[t, "B"])
        ma[t] = median(rpsl[t, "A"]); mb[t] = median(rpsl[t, "B"])
        qa[t] = median(p99[t, "A"]); qb[t] = median(p99[t, "B"])
        note[t] = (errs[t, "A"] + errs[t, "B"]) ? sprintf(" (%d errors)", errs[t, "A"] + errs[t, "B"]) : ""
    }
    line = "--------------------------------------------------------------------------------------------------"
    print ""
    print "mod_unicat bench summary: wrk -t" threads " -c" conns ", " rounds " alternating rounds of " dur "s per side, medians;"
    print "ratios are medians of the per-round ratios. Run took " elapsed " s."
    print line
    printf "%-34s %14s %14s %8s %9s  %s\n", "figure", "module", "reference", "ratio", "target", "result"
    print line
    split("GET /catalogs/{name}|GET /schemas 100 of 1,000", title, "|")
    for (t = 1; t <= 2; t++) {
        printf "%-34s %14s %14s %8.2f %9s  %s\n", t ". " title[t] " req/s", sprintf("%.0f", mb[t]), sprintf("%.0f", ma[t]) " st", ratio[t], ">= 0.50", (ratio[t] >= 0.5 ? "PASS" : "MISS") note[t]
        printf "%-34s %14s %14s %8.2f %9s  %s\n", "   p99 latency (module/static)", ms(qb[t]), ms(qa[t]), qa[t] ? qb[t] / qa[t] : 0, "-", "info"
        printf "%-34s %14s %14s %8.2f %9s  %s\n", "   httpd CPU per request", sprintf("%.1f us", cb[t]), sprintf("%.1f us", ca[t]), cratio[t], "-", "info"
    }
    printf "%-34s %14s %14s %8.2f %9s  %s\n", "3. page of 100, time per request", sprintf("%.1f us", 1e6 / mb[3]), sprintf("%.1f us", 1e6 / ma[3]), inv[3], "<= 1.50", (inv[3] <= 1.5 ? "PASS" : "MISS") note[3]
    printf "%-34s %14s %14s %8s %9s  %s\n", "   (mid-" big " page vs 100-only)", sprintf("%.0f r/s", mb[3]), sprintf("%.0f r/s", ma[3]), "", "", ""
    printf "%-34s %14s %14s %8.2f %9s  %s\n", "   p99 latency (deep/100-only)", ms(qb[3]), ms(qa[3]), qa[3] ? qb[3] / qa[3] : 0, "-", "info"
    printf "%-34s %14s %14s %8.2f %9s  %s\n", "   httpd CPU per request", sprintf("%.1f us", cb[3]), sprintf("%.1f us", ca[3]), cratio[3], "-", "info"
    growth = ra - rb
    printf "%-34s %14s %14s %8s %9s  %s\n", "4. child VmRSS after " memn " req", ra " kB", rb " kB", sprintf("%+d kB", growth), "<= +" noise, (growth <= noise ? "PASS" : "MISS") (membad ? sprintf(" (%d bad answers)", membad) : "")
    printf "%-34s %14s %14s %8s %9s  %s\n", "   (reference: after " memw " warm-up)", "", "", "", "", ""
    print "   VmRSS every " memn / 5 " requests (kB):" steps
    printf "%-34s %14s %14s %8s %9s  %s\n", "   RSS at start, before any load", rs " kB", "", "", "", "info"
    t = 5
    printf "%-34s %14s %14s %8.2f %9s  %s\n", "5. GET /catalogs/{name} req/s", sprintf("%.0f", mb[t]), sprintf("%.0f", ma[t]) " ad", ratio[t], ">= 0.80", (ratio[t] >= 0.8 ? "PASS" : "MISS") note[t]
    printf "%-34s %14s %14s %8s %9s  %s\n", "   (" ruser " with USE CATALOG vs admin)", "", "", "", "", ""
    printf "%-34s %14s %14s %8.2f %9s  %s\n", "   p99 latency (" ruser "/admin)", ms(qb[t]), ms(qa[t]), qa[t] ? qb[t] / qa[t] : 0, "-", "info"
    printf "%-34s %14s %14s %8.2f %9s  %s\n", "   httpd CPU per request", sprintf("%.1f us", cb[t]), sprintf("%.1f us", ca[t]), cratio[t], "-", "info"
    cs = ""; ci = ""; rg = ""; rl2 = ""; rc = ""; ri = ""
    for (r = 1; r <= rounds; r++) {
        if (!brps["G", r] || !brps["F", r] || !brps["H", r] || !brps["I", r]) continue
        tg = 1 / brps["G", r]; tf = 1 / brps["F", r]; th = 1 / brps["H", r]; ti = 1 / brps["I", r]
        cs = cs " " 1000 / tf; ci = ci " " 1000 / ti
        tfl = tfl " " tf * 1000; thl = thl " " th * 1000; tgl = tgl " " tg * 1000; til = til " " ti * 1000
        rg = rg " " tf / tg; ri = ri " " ti / tg
        rl2 = rl2 " " tf / th
        if (th > tg) rc = rc " " (tf - tg) / (th - tg)
    }
    gms = median(tfl); ims = median(til)
    printf "%-34s %14s %14s %8s %9s  %s\n", "6. batch-check 1000, checks/s", sprintf("%.0f", median(cs)), "", "", "-", "info" (berr ? sprintf(" (%d errors)", berr) : "")
    printf "%-34s %14s %14s %8.1f %9s  %s\n", "   time per request vs GET", sprintf("%.2f ms", gms), sprintf("%.3f ms", median(tgl)), median(rg), "-", "info"
    printf "%-34s %14s %14s %8.2f %9s  %s\n", "   p50 latency (batch/GET)", ms(median(bp50["F"])), ms(median(bp50["G"])), median(bp50["G"]) ? median(bp50["F"]) / median(bp50["G"]) : 0, "-", "info"
    printf "%-34s %14s %14s %8.1f %9s  %s\n", "   identity override (as admin)", sprintf("%.2f ms", ims), sprintf("%.0f chk/s", median(ci)), median(ri), "-", "info"
    printf "%-34s %14s %14s %8.2f %9s  %s\n", "   1000 vs 500 checks, time", sprintf("%.2f ms", gms), sprintf("%.2f ms", median(thl)), median(rl2), "<= 2.50", (median(rl2) <= 2.5 ? "PASS" : "MISS")
    printf "%-34s %14s %14s %8.2f %9s  %s\n", "   same, less a GET (fixed cost)", "", "", median(rc), "<= 2.50", (median(rc) <= 2.5 ? "PASS" : "MISS")
    printf "%-34s %14s %14s %8s %9s  %s\n", "   httpd CPU per request (1000/500)", sprintf("%.0f us", median(bcpu["F"])), sprintf("%.0f us", median(bcpu["H"])), sprintf("%.2f", median(bcpu["H"]) ? median(bcpu["F"]) / median(bcpu["H"]) : 0), "-", "info"
    printf "%-34s %14s %14s %8s %9s  %s\n", "7. POST /tables, creates/s", sprintf("%.0f", creates), "", "", "-", "info"
    printf "%-34s %14s %14s %8s %9s  %s\n", "   (" ntables " tables of " ncols " columns)", "", "", "", "", ""
    printf "%-34s %14s %14s %8.2f %9s  %s\n", "   last page / first, time", sprintf("%.1f us", 1e6 / mb[7]), sprintf("%.1f us", 1e6 / ma[7]), inv[7], "<= 1.50", (inv[7] <= 1.5 ? "PASS" : "MISS") note[7]
    printf "%-34s %14s %14s %8.2f %9s  %s\n", "8. GET /tables page, bytes/s", sprintf("%.1f MB/s", mb[8] * pbytes / 1e6), sprintf("%.1f MB/s", ma[8] * pbytes / 1e6) " st", ratio[8], "-", "info" note[8]
    printf "%-34s %14s %14s %8.2f %9s  %s\n", "   p99 latency (module/static)", ms(qb[8]), ms(qa[8]), qa[8] ? qb[8] / qa[8] : 0, "-", "info"
    printf "%-34s %14s %14s %8.2f %9s  %s\n", "   httpd CPU per request", sprintf("%.1f us", cb[8]), sprintf("%.1f us", ca[8]), cratio[8], "-", "info"
    t = 13
    printf "%-34s %14s %14s %8.2f %9s  %s\n", "13. = 2, answers made, req/s", sprintf("%.0f", mb[t]), sprintf("%.0f", ma[t]) " st", ratio[t], "-", "info" note[t]
    printf "%-34s %14s %14s %8.2f %9s  %s\n", "   httpd CPU per request", sprintf("%.1f us", cb[t]), sprintf("%.1f us", ca[t]), cratio[t], "-", "info"
    t = 14
    printf "%-34s %14s %14s %8.2f %9s  %s\n", "14. = 8, answers made, bytes/s", sprintf("%.1f MB/s", mb[t] * pbytes / 1e6), sprintf("%.1f MB/s", ma[t] * pbytes / 1e6) " st", ratio[t], "-", "info" note[t]
    printf "%-34s %14s %14s %8.2f %9s  %s\n", "   httpd CPU per request", sprintf("%.1f us", cb[t]), sprintf("%.1f us", ca[t]), cratio[t], "-", "info"
    split(lbatch, lb, " "); split(lpages, lp, " ")
    printf "%-34s %14s %14s %8s %9s  %s\n", "9. " lreq " batch-checks, peak VmHWM", lb[4] " kB", lb[3] " kB", sprintf("%+d MB", (lb[4] - lb[3]) / 1024), "<= +64 MB", ((lb[4] - lb[3]) <= 65536 ? "PASS" : "MISS")
    printf "%-34s %14s %14s %8s %9s  %s\n", "   VmRSS after / before", lb[2] " kB", lb[1] " kB", sprintf("%+d MB", (lb[2] - lb[1]) / 1024), "<= +64 MB", ((lb[2] - lb[1]) <= 65536 ? "PASS" : "MISS")
    printf "%-34s %14s %14s %8s %9s  %s\n", "   " lreq " pages of 1000, peak VmHWM", lp[4] " kB", lp[3] " kB", sprintf("%+d MB", (lp[4] - lp[3]) / 1024), "<= +64 MB", ((lp[4] - lp[3]) <= 65536 ? "PASS" : "MISS")
    printf "%-34s %14s %14s %8s %9s  %s\n", "   VmRSS after / before", lp[2] " kB", lp[1] " kB", sprintf("%+d MB", (lp[2] - lp[1]) / 1024), "<= +64 MB", ((lp[2] - lp[1]) <= 65536 ? "PASS" : "MISS")
    printf "%-34s %14s %14s %8s %9s  %s\n", "   (a page: " lrows " of " ln " tables, " sprintf("%.1f MB", lbytes / 1e6) ")", "", "", "", "", ""
    if (vskip != "")
        print "10. vended credentials: skipped: " vskip
    else {
        t = 10; rl = ""; cl = ""; vl = ""
        for (r = 1; r <= rounds; r++) {
            rl = rl " " rps[t, r, "B"] / rps[t, r, "A"]
            if (cpu[t, r, "A"] > 0) cl = cl " " cpu[t, r, "B"] / cpu[t, r, "A"]
            vl = vl " " vrate[r] / rps[t, r, "B"]
        }
        vratio = median(rl)
        mb[t] = median(rpsl[t, "B"]); ma[t] = median(rpsl[t, "A"])
        qb[t] = median(p99[t, "B"]); qa[t] = median(p99[t, "A"])
        cb[t] = median(cpul[t, "B"]); ca[t] = median(cpul[t, "A"])
        note[t] = (errs[t, "A"] + errs[t, "B"]) ? sprintf(" (%d errors)", errs[t, "A"] + errs[t, "B"]) : ""
        printf "%-34s %14s %14s %8.2f %9s  %s\n", "10. vend creds, warm cache, req/s", sprintf("%.0f", mb[t]), sprintf("%.0f", ma[t]) " tb", vratio, ">= 0.80", (vratio >= 0.8 ? "PASS" : "MISS") note[t]
        printf "%-34s %14s %14s %8.2f %9s  %s\n", "   p99 latency (vend/GET table)", ms(qb[t]), ms(qa[t]), qa[t] ? qb[t] / qa[t] : 0, "-", "info"
        printf "%-34s %14s %14s %8.2f %9s  %s\n", "   httpd CPU per request", sprintf("%.1f us", cb[t]), sprintf("%.1f us", ca[t]), median(cl), "-", "info"
        printf "%-34s %14s %14s %8.2f %9s  %s\n", "   cold cache, creds/s (vs warm)", sprintf("%.0f", median(vrl)), sprintf("%.0f", mb[t]) " wm", median(vl), "-", "info" (vbad ? sprintf(" (%d errors)", vbad) : "")
        printf "%-34s %14s %14s %8.2f %9s  %s\n", "   p99 latency (cold/warm)", ms(median(vp99)), ms(qb[t]), qb[t] ? median(vp99) / qb[t] : 0, "-", "info"
        printf "%-34s %14s %14s %8.1f %9s  %s\n", "   httpd CPU per credential", sprintf("%.1f us", median(vcpu)), sprintf("%.1f us", cb[t]), cb[t] ? median(vcpu) / cb[t] : 0, "-", "info"
        printf "%-34s %14s %14s %8s %9s  %s\n", "   STS AssumeRole calls (cold/warm)", vsts, vwsts, "", "-", (vsts >= vok && vwsts == 0 ? "info" : "CHECK")
    }
    t = 11
    printf "%-34s %14s %14s %8.2f %9s  %s\n", "11. GET /catalogs/{name}, time", sprintf("%.1f us", 1e6 / mb[t]), sprintf("%.1f us", 1e6 / ma[t]) " 204", inv[t], "<= 1.50", (inv[t] <= 1.5 ? "PASS" : "MISS") note[t]
    printf "%-34s %14s %14s %8s %9s  %s\n", "   (vs the authenticated 204 of httpd)", sprintf("%.0f r/s", mb[t]), sprintf("%.0f r/s", ma[t]), "", "", ""
    printf "%-34s %14s %14s %8.2f %9s  %s\n", "   httpd CPU per request", sprintf("%.1f us", cb[t]), sprintf("%.1f us", ca[t]), cratio[t], "-", "info"
    t = 15
    printf "%-34s %14s %14s %8.2f %9s  %s\n", "15. = 11, answers made, time", sprintf("%.1f us", 1e6 / mb[t]), sprintf("%.1f us", 1e6 / ma[t]) " 204", inv[t], "-", "info" note[t]
    printf "%-34s %14s %14s %8.2f %9s  %s\n", "   httpd CPU per request", sprintf("%.1f us", cb[t]), sprintf("%.1f us", ca[t]), cratio[t], "-", "info"
    t = 12
    printf "%-34s %14s %14s %8.3f %9s  %s\n", "12. metrics on / off, req/s", sprintf("%.0f", mb[t]), sprintf("%.0f", ma[t]) " off", ratio[t], ">= 0.970", (ratio[t] >= 0.97 ? "PASS" : "MISS") note[t]
    printf "%-34s %14s %14s %8.3f %9s  %s\n", "   httpd CPU per request", sprintf("%.1f us", cb[t]), sprintf("%.1f us", ca[t]), cratio[t], "-", "info"
    print line
    print "Module/static ratios: higher is better. Page cost: deep page time / 100-only page time"
    print "(inverse throughput). p99 and httpd CPU per request (the child'"'"'s user+system time over the"
    print "run divided by its requests; robust to other load) are informational."
    print "RSS growth under " noise " kB counts as allocator noise, not a leak."
    print "5: " ruser "/admin throughput on the same URL (ad = as admin), every answer made so that the"
    print "   rule runs on every request; enforcement may cost at most 20%."
    print "6: one connection, one request at a time (wrk -t1 -c1, " bdur "s runs), as " ruser " unless noted;"
    print "   " authzn " schemas and " ngrants " grants in the catalog; 950 namespace get_metadata checks on"
    print "   distinct schemas (half by namespace-id, half by name) and 50 warehouse checks per 1000."
    print "   Identity override: " admin " posts the same checks for user oidc~" ruser ", reference"
    print "   column = its checks/s."
    print "   1000 vs 500: time ratio, 2.0 is linear, 4.0 quadratic; 2.5 leaves room for noise. The second\n   line subtracts a plain GET from both."
    print "7: " ntables " POST /tables over 4 connections, each with " ncols " columns; the page cost is the"
    print "   time of the last page of 100 over the first (keyset pages cost the same anywhere)."
    print "8: a page of 100 tables (" pbytes " bytes) from the module against the same file served by httpd."
    print "1, 2, 8, 11: as a catalog read more than written answers them: the child keeps the answer"
    print "   (UnicatAnswerCacheSize) until the catalog changes. 13, 14, 15: figures 2, 8 and 11 made from"
    print "   the database on every request (a mount with UnicatAnswerCache Off); 3, 5 and 7 are made too."
    print "9: " ln " tables of about 900 kB (56 properties of 16,000 bytes, a comment of 60,000); " lreq " batch-checks"
    print "   of 1,000 checks naming five of them (by name and by id), then " lreq " GET /tables?max_results=1000,"
    print "   one at a time as " ruser ". Growth of the child'"'"'s peak (VmHWM) and resident (VmRSS) memory;"
    print "   the target holds whatever the size of the objects."
    if (vskip == "") {
        print "10: POST /temporary-table-credentials {table_id, READ} as " admin " for EXTERNAL tables under"
        print "   s3://" vbucket "/bench, the location of an aws_iam_role credential with base keys; tb = GET"
        print "   /tables/{full_name} of the same table. Warm: one table, answered from the per-process cache"
        print "   (filled by one STS call before the rounds). Cold: " vslice " of the " vn " other tables a run (wrk -t1"
        print "   -c" conns ", each table asked once), every answer a fresh STS AssumeRole to the stand-in (node,"
        print "   one process on the same cores): credentials/s from the first request to the last answer, and"
        print "   their ratio to the warm req/s of the same round (wm). The CPU is the httpd child'"'"'s only."
    }
    print "11: the GET of the module against httpd answering the same authenticated request with an empty 204"
    print "   by itself (mod_rewrite, no file, no module): time per request, module over that floor."
    print "12: the same GET on a mount with UnicatMetrics Off (off) and on the counted one: what the shared"
    print "   counters cost; the target allows 3%."
    if (crashes + 0 || ucerr + 0) print "error log: " crashes " child crash lines, " ucerr " module (UC0...) error lines"
}' "$results" "$batch_results" "$vend_results"
