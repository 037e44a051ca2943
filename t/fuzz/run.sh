#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# libFuzzer targets of the Parquet, Thrift and Delta log readers, the
# request path and the reader of JSON bodies.
#
#   sh t/fuzz/run.sh [TARGET...]     build, replay regressions, fuzz
#   sh t/fuzz/run.sh --build-only    build the targets only
#   sh t/fuzz/run.sh --replay-only   build and replay t/fuzz/regressions/
#
# Targets: parquet thrift pages delta_log checkpoint predicate request files
# json (default: all).
# Environment:
#   FUZZ_SECONDS   seconds of fuzzing per target (default 60)
#   FUZZ_JOBS      targets fuzzed at once (default 1)
#   FUZZ_FLAGS     extra libFuzzer flags
#
# The targets are built by make (build/fuzz/): they link the core library
# of the ASan+UBSan flavour, which carries libFuzzer's coverage.
#
# Seeds come from the fixtures at run time (nothing binary is committed
# but the minimized reproducers in t/fuzz/regressions/<target>/, which are
# replayed first). Exits non-zero when a regression input fails or a target
# finds a crash, leak, timeout or out-of-memory; the reproducer is named.
set -u

cd "$(dirname "$0")/../.." || exit 2
ROOT=$(pwd)
OUT=$ROOT/build/fuzz
FIXTURES=${FIXTURES:-${UNICAT_DELTA_FIXTURES:-$ROOT/t/delta/fixtures}}
SECONDS_EACH=${FUZZ_SECONDS:-60}
JOBS=${FUZZ_JOBS:-1}
ALL_TARGETS="parquet thrift pages delta_log checkpoint predicate request files json"

mode=fuzz
targets=""
for arg in "$@"; do
    case $arg in
    --build-only) mode=build ;;
    --replay-only) mode=replay ;;
    -*) echo "run.sh: unknown option $arg" >&2; exit 2 ;;
    *) targets="$targets $arg" ;;
    esac
done
[ -n "$targets" ] || targets=$ALL_TARGETS
for t in $targets; do
    case " $ALL_TARGETS " in
    *" $t "*) ;;
    *) echo "run.sh: unknown target $t (one of: $ALL_TARGETS)" >&2; exit 2 ;;
    esac
done

# --- build -----------------------------------------------------------------
bins=""
for t in $ALL_TARGETS; do bins="$bins build/fuzz/fuzz_$t"; done
# shellcheck disable=SC2086
${MAKE:-make} --no-print-directory $bins build/fuzz/seed_pages || {
    echo "run.sh: building the fuzz targets failed" >&2; exit 1; }
[ $mode = build ] && exit 0

# Sanitizers: leaks are findings; UBSan stops at the first report.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$PWD/t/fuzz/lsan.supp}"

max_len() {
    case $1 in
    parquet|checkpoint) echo 1048576 ;;
    pages) echo 262144 ;;
    thrift) echo 65536 ;;
    delta_log) echo 131072 ;;
    predicate) echo 16384 ;;
    request) echo 8192 ;;
    files) echo 4096 ;;
    json) echo 16384 ;;
    esac
}

# --- regressions ------------------------------------------------------------
# Each input on its own, so every failing one is named.
status=0
for t in $targets; do
    dir=t/fuzz/regressions/$t
    [ -d "$dir" ] || continue
    passed=0
    failed=0
    log=$OUT/regressions-$t.log
    : > "$log"
    for f in $(find "$dir" -type f ! -name '*.md' ! -name '.*' | sort); do
        if "$OUT/fuzz_$t" -rss_limit_mb=2048 -timeout=10 "$f" >> "$log" 2>&1
        then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
            echo "regression $t: FAILED $f" >&2
            grep -E 'ERROR|runtime error' "$log" | tail -1 >&2
        fi
    done
    echo "regressions $t: $passed passed, $failed failed"
    [ $failed = 0 ] || status=1
done
[ $mode = replay ] && exit $status

# --- seeds ------------------------------------------------------------------
# Each seed is named after its table, so files of the same name in
# different tables stay apart.
seed_name() {   # fixture path -> <table>-<file>
    rel=${1#"$FIXTURES"/}
    echo "$rel" | sed 's|/_delta_log/|-|; s|/|-|g'
}

seed_parquet() {    # every Parquet file under a _delta_log
    find "$FIXTURES" -path '*/_delta_log/*' -name '*.parquet' -type f \
        | while read -r f; do cp -f "$f" "$1/$(seed_name "$f")"; done
}

# delta_log inputs: a flags byte, then NUL-separated sections: commit 0,
# commit 1, _last_checkpoint, commit 2 (see fuzz_delta_log.c).
seed_delta_log() {
    for table in "$FIXTURES"/*/; do
        table=${table%/}
        log=$table/_delta_log
        [ -d "$log" ] || continue
        name=$(basename "$table")
        c0=$log/00000000000000000000.json
        c1=$log/00000000000000000001.json
        c2=$log/00000000000000000002.json
        lc=$log/_last_checkpoint
        if [ -f "$c0" ]; then
            for flags in 0 8; do
                {
                    printf '%b' "\\0$(printf %03o "$flags")"
                    cat "$c0"
                    if [ -f "$c1" ]; then printf '\000'; cat "$c1"; fi
                    if [ -f "$c1" ] && [ -f "$c2" ]; then
                        printf '\000'
                        [ -f "$lc" ] && cat "$lc"
                        printf '\000'; cat "$c2"
                    fi
                } > "$1/$name-log-$flags"
            done
        fi
        # Every commit alone, behind the fixed protocol and metaData, with
        # and without change data feed.
        find "$log" -maxdepth 1 -name '*.json' -type f | while read -r f; do
            { printf '\001'; cat "$f"; } > "$1/$(seed_name "$f")-p"
            { printf '\003'; cat "$f"; } > "$1/$(seed_name "$f")-cdf"
        done
        if [ -f "$lc" ]; then
            { printf '\001'; printf '\000\000'; cat "$lc"; } \
                > "$1/$name-last_checkpoint"
        fi
        # V2 JSON checkpoint manifests as the fifth section.
        find "$log" -maxdepth 1 -name '*.checkpoint.*.json' -type f \
            | while read -r f; do
            {
                printf '\001\000\000'
                [ -f "$lc" ] && cat "$lc"
                printf '\000\000'; cat "$f"
            } > "$1/$(seed_name "$f")-v2"
        done
    done
}

seed_pages() {
    # shellcheck disable=SC2046
    "$OUT/seed_pages" "$1" $(find "$FIXTURES" -path '*/_delta_log/*' \
        -name '*.parquet' -type f) >/dev/null
}

seed_thrift() {     # footers of the Parquet seeds, and page headers
    # shellcheck disable=SC2046
    "$OUT/seed_pages" --thrift "$1" $(find "$FIXTURES" -path \
        '*/_delta_log/*' -name '*.parquet' -type f) >/dev/null
}

seed_predicate() {  # hints of every op and type, then fixtures' partitionValues
    values=$(cat "$FIXTURES"/*/_delta_log/*.json 2>/dev/null \
        | grep -o '"partitionValues":{[^}]*}' | sed 's/^"partitionValues"://' \
        | sort -u | head -50)
    n=0
    while read -r op type col lit; do
        n=$((n + 1))
        hint='{"op":"'$op'","children":[{"op":"column","name":"'$col'","valueType":"'$type'"},{"op":"literal","value":"'$lit'","valueType":"'$type'"}]}'
        case $n in
        1) hint='{"op":"not","children":[{"op":"isNull","children":[{"op":"column","name":"'$col'","valueType":"'$type'"}]}]}' ;;
        2) hint='{"op":"and","children":['$hint',{"op":"or","children":[{"op":"column","name":"b","valueType":"bool"},'$hint']}]}' ;;
        esac
        { printf '%s' "$hint"
          printf '\000{"%s":"%s"}' "$col" "$lit"
          printf '%s\n' "$values" | tr '\n' '\000'
        } > "$1/seed-$n"
    done <<EOF_SEEDS
equal string s A/A
equal int i 25
lessThan long l -9223372036854775808
lessThanOrEqual date d 2021-04-29
greaterThan float f 0.1
greaterThanOrEqual double x 1e-3
equal timestamp t 2022-01-01T00:00:00.123456789+01:00
lessThan timestamp t 2022-01-01 00:00:00
equal bool b true
equal string year 2021
equal string k A
EOF_SEEDS
}

seed_request() {    # calls of every family and batch-checks: mode byte, target, NUL, body
    n=0
    while IFS='|' read -r m target body; do
        n=$((n + 1))
        { printf "\\$m"; printf '%s' "$target"; printf '\000%s' "$body"; } \
            > "$1/seed-$n"
    done <<'EOF_SEEDS'
001|/catalogs|{"name":"fz_cat","storage_root":"s3://fz/cat"}
001|/schemas|{"name":"sch","catalog_name":"fz_cat"}
001|/tables|{"name":"tbl","catalog_name":"fz_cat","schema_name":"sch","table_type":"EXTERNAL","data_source_format":"DELTA","storage_location":"s3://fz/ext/tbl","columns":[{"name":"email","type_text":"string","type_name":"STRING","type_json":"{}","position":0}]}
001|/volumes|{"name":"vol","catalog_name":"fz_cat","schema_name":"sch","volume_type":"MANAGED"}
001|/functions|{"function_info":{"name":"fil","catalog_name":"fz_cat","schema_name":"sch","data_type":"BOOLEAN","full_data_type":"boolean","parameter_style":"S","is_deterministic":true,"sql_data_access":"NO_SQL","is_null_call":false,"security_type":"DEFINER","routine_body":"SQL","routine_definition":"true"}}
000|/catalogs?max_results=1&page_token=x|
000|/schemas?catalog_name=fz_cat&include_browse=true|
000|/tables/fz_cat.sch.tbl?omit_columns=true|
002|/catalogs/fz_cat|{"new_name":"fz_cat2","comment":"c","properties":{"a":"b"}}
002|/permissions/table/fz_cat.sch.tbl|{"changes":[{"principal":"alice","add":["SELECT","MANAGE"]}]}
001|/tag-policies|{"tag_policy":{"tag_key":"PII level","description":"d","values":[{"name":"low"},{"name":"high"}]}}
002|/tag-policies/PII%20level?force=true|{"tag_policy":{"values":[{"name":"low"}]},"update_mask":"values"}
001|/entity-tag-assignments|{"tag_assignment":{"entity_type":"columns","entity_name":"fz_cat.sch.tbl.EMAIL","tag_key":"PII level","tag_value":"low"}}
000|/entity-tag-assignments/tables/fz_cat.sch.tbl/tags?max_results=1|
002|/entity-tag-assignments/catalogs/fz_cat/tags/k|{"tag_assignment":{"tag_value":"v"},"update_mask":"tag_value"}
001|/policies/tables/fz_cat.sch.tbl|{"name":"pol","policy_type":"POLICY_TYPE_ROW_FILTER","to_principals":["a"],"match_columns":[{"alias":"e","condition":"c"}],"row_filter":{"function_name":"fz_cat.sch.fil","using":[{"alias":"e"},{"constant":"1"}]}}
000|/policies/tables/fz_cat.sch.tbl?include_inherited=true&max_results=1|
002|/policies/schemas/fz_cat.sch/pol|{"policy_info":{"comment":"x"},"update_mask":"*"}
001|/shares|{"name":"fz_shr"}
002|/shares/fz_shr|{"updates":[{"action":"ADD","data_object":{"name":"fz_cat.sch.tbl"}}]}
001|/recipients|{"name":"fz_rcp","authentication_type":"TOKEN"}
002|/shares/fz_shr/permissions|{"changes":[{"principal":"fz_rcp","add":["SELECT"]}]}
040|/shares?maxResults=1|
040|/shares/fz_shr/all-tables|
040|/shares/fz_shr/schemas/sch/tables/tbl/version?startingTimestamp=2024-01-01T00:00:00Z|
040|/shares/fz_shr/schemas/sch/tables/tbl/metadata|
041|/shares/fz_shr/schemas/sch/tables/tbl/query|{"predicateHints":["a = 1"],"jsonPredicateHints":"{\"op\":\"equal\",\"children\":[{\"op\":\"column\",\"name\":\"a\",\"valueType\":\"int\"},{\"op\":\"literal\",\"value\":\"1\",\"valueType\":\"int\"}]}","limitHint":1,"version":0}
041|/shares/fz_shr/schemas/sch/tables/tbl/query|{"startingVersion":0,"endingVersion":1,"includeRefreshToken":true}
040|/shares/fz_shr/schemas/sch/tables/tbl/changes?startingVersion=0&endingVersion=2|
100|dapi0123456789abcdef0123456789abcdef|
000|/delta/v1/config?catalog=fz_cat&protocol-versions=1.1,2.0|
001|/delta/v1/catalogs/fz_cat/schemas/sch/staging-tables|{"name":"dt"}
001|/delta/v1/catalogs/fz_cat/schemas/sch/tables|{"name":"dx","location":"s3://fz/ext/dx","table-type":"EXTERNAL","columns":{"type":"struct","fields":[{"name":"a","type":"decimal(9,2)","nullable":true,"metadata":{}},{"name":"m","type":{"type":"map","key-type":"string","value-type":{"type":"array","element-type":"long","contains-null":true},"value-contains-null":false},"nullable":true,"metadata":{"comment":"c"}},{"name":"s","type":{"type":"struct","fields":[{"name":"x","type":"double","nullable":false,"metadata":{}}]},"nullable":true,"metadata":{}}]},"partition-columns":["A"],"protocol":{"min-reader-version":1,"min-writer-version":2,"writer-features":["rowTracking"]},"properties":{"k":"v"},"domain-metadata":{"delta.rowTracking":{"rowIdHighWaterMark":1}},"last-commit-timestamp-ms":1}
000|/delta/v1/catalogs/fz_cat/schemas/sch/tables/dx|
001|/delta/v1/catalogs/fz_cat/schemas/sch/tables/dx|{"requirements":[{"type":"assert-table-uuid","uuid":"x"},{"type":"assert-etag","etag":"e"}],"updates":[{"action":"set-partition-columns","partition-columns":["m"]},{"action":"set-properties","updates":{"a":"b"}},{"action":"remove-domain-metadata","domains":["delta.rowTracking"]},{"action":"add-commit","commit":{"version":1,"timestamp":1,"file-name":"f","file-size":1,"file-modification-timestamp":1}}]}
001|/delta/v1/catalogs/fz_cat/schemas/sch/tables/dx/rename|{"new-name":"dy"}
001|/delta/v1/catalogs/fz_cat/schemas/sch/tables/dy/metrics|{"table-id":"x","report":{"commit-report":{"num-files-added":1}}}
003|/delta/v1/catalogs/fz_cat/schemas/sch/tables/dy|
003|/catalogs/fz_cat?force=true|
011|/tables?catalog_name=fz_cat&schema_name=sch|{"name":"x"}
021|/action/batch-check|{"checks":[{"operation":{"server":{"action":{"action":"create_project"}}}},{"id":"a","identity":{"user":"alice"},"operation":{"warehouse":{"action":{"action":"use"},"warehouse-id":"00000000-0000-4000-8000-000000000001"}}}]}
031|/action/batch-check|{"checks":[{"operation":{"namespace":{"action":{"action":"get_metadata"},"warehouse-id":"00000000-0000-4000-8000-000000000001","namespace":["sch"]}}},{"operation":{"table":{"action":{"action":"commit","updated_properties":{"a":1}},"warehouse-id":"00000000-0000-4000-8000-000000000001","namespace":["sch"],"table":"tbl"}}},{"operation":{"project":{"action":{"action":"list_warehouses"}}}}],"error-on-not-found":true}
EOF_SEEDS
}

seed_files() {      # paths of the files route (after its mount), NUL, a query
    n=0
    while IFS='|' read -r path query; do
        n=$((n + 1))
        { printf '%s' "$path"; printf '\000%s' "$query"; } > "$1/seed-$n"
    done <<'EOF_SEEDS'
/0a1b2c3d-0000-4000-8000-00000000f11e/a.txt|exp=1700000060&kid=f0&sig=00
/0a1b2c3d-0000-4000-8000-00000000f11e/dir/|exp=1700000060&kid=f0&scope=prefix&sig=00&maxResults=1
/0a1b2c3d-0000-4000-8000-00000000f11e/|scope=prefix&pageToken=YQ.1700000060.f0.00
/0a1b2c3d-0000-4000-8000-00000000f11e/dir/%2E%2E/a.txt|exp=1&kid=f0&sig=
/0a1b2c3d-0000-4000-8000-00000000f11e/dir/out/secret|scope=prefix
/0a1b2c3d-0000-4000-8000-00000000f11e/p%3D1/part%201%25.parquet|maxResults=1000
EOF_SEEDS
}

seed_json() {       # bodies of every kind of value and escape, and the edges
    n=0
    while IFS= read -r body; do
        n=$((n + 1))
        printf '%s' "$body" > "$1/seed-$n"
    done <<'EOF_SEEDS'
{"checks":[{"id":"c0","operation":{"namespace":{"action":{"action":"get_metadata"},"warehouse-id":"440e07b8-e0e6-4af8-857d-6b3bf59d0344","namespace":["s000010"]}}}],"error-on-not-found":true}
{"name":"caf\u00e9 \ud83d\ude00 \"q\" \\ \/ \b\f\n\r\t","k\u0041":"é中😀"}
[0,-0,1,-1,9223372036854775807,-9223372036854775808,1.5,-0.0,1e308,2.5E-3,1e-400,-4.9e-324,0.1e+2,123456789012345678901234567890.5]
[9223372036854775808]
[-9223372036854775809]
[1e309]
[true,false,null,[],{},[[]],{"a":{}},"",""]
 { "a" : [ 1 , 2 ] ,	"b" : { } }
{"a":1,"a":2}
{"a":1,"\u0061":2}
["\ud800","\udc00x","\ud800\u0041","\u0000"]
[01,1.,.5,+1,-,1e,1e+,0x1]
[tru,nul,falsee,True]
{"a" 1}
{"a":1,}
[1,]
EOF_SEEDS
    # A NUL after a number or literal (jansson skips one), invalid UTF-8,
    # and nesting at jansson's limit and one past it.
    printf '[1\000,true\000,2.5\000]' > "$1/seed-nul"
    printf '["\300\200","\355\240\200","\364\220\200\200","\303"]' \
        > "$1/seed-utf8"
    for depth in 2047 2048 2049; do
        for inner in '' 1; do
            awk -v n=$depth -v v="$inner" 'BEGIN { for (i = 0; i < n; i++)
                printf "["; printf "%s", v; for (i = 0; i < n; i++)
                printf "]" }' > "$1/seed-depth-$depth$inner"
        done
    done
}

# --- fuzzing ----------------------------------------------------------------
fuzz_one() {
    t=$1
    corpus=$OUT/corpus-$t
    artifacts=$OUT/artifacts-$t
    mkdir -p "$corpus" "$artifacts"
    case $t in
    parquet|checkpoint) seed_parquet "$corpus" ;;
    pages) seed_pages "$corpus" ;;
    thrift) seed_thrift "$corpus" ;;
    delta_log) seed_delta_log "$corpus" ;;
    predicate) seed_predicate "$corpus" ;;
    request) seed_request "$corpus" ;;
    files) seed_files "$corpus" ;;
    json) seed_json "$corpus" ;;
    esac
    dict=""
    [ -f "t/fuzz/$t.dict" ] && dict="-dict=t/fuzz/$t.dict"
    log=$OUT/fuzz-$t.log
    before=$(find "$artifacts" -type f | wc -l)
    # shellcheck disable=SC2086
    "$OUT/fuzz_$t" -max_total_time="$SECONDS_EACH" -max_len="$(max_len $t)" \
        -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$artifacts/" $dict ${FUZZ_FLAGS:-} "$corpus" \
        > "$log" 2>&1
    rc=$?
    after=$(find "$artifacts" -type f | wc -l)
    stats=$(grep -E '^#[0-9]+' "$log" | tail -1)
    eps=$(grep -E 'stat::average_exec_per_sec' "$log" | awk '{print $2}')
    echo "fuzz $t: rc=$rc ${SECONDS_EACH}s exec/s=${eps:-?} $stats"
    if [ $rc != 0 ] || [ "$after" -gt "$before" ]; then
        echo "fuzz $t: FINDING (log: $log)" >&2
        grep -E '==ERROR|runtime error|SUMMARY|ALARM|out-of-memory|leak' \
            "$log" | head -5 >&2
        grep -o "Test unit written to [^ ]*" "$log" | awk '{print $5}' \
            | while read -r a; do
            echo "fuzz $t: reproducer $a" >&2
            echo "  replay:   $OUT/fuzz_$t $a" >&2
            echo "  minimize: $OUT/fuzz_$t -minimize_crash=1 -runs=20000 -exact_artifact_path=$a.min $a" >&2
        done
        return 1
    fi
    return 0
}

if [ "$JOBS" -le 1 ]; then
    for t in $targets; do
        fuzz_one "$t" || status=1
    done
else
    # A few at a time; each reports into its own file.
    running=0
    pids=""
    for t in $targets; do
        ( fuzz_one "$t" > "$OUT/result-$t" 2>&1 ) &
        pids="$pids $!"
        running=$((running + 1))
        if [ $running -ge "$JOBS" ]; then
            for p in $pids; do wait "$p"; done
            pids=""
            running=0
        fi
    done
    for p in $pids; do wait "$p"; done
    for t in $targets; do
        cat "$OUT/result-$t"
        grep -q FINDING "$OUT/result-$t" && status=1
    done
fi
exit $status
