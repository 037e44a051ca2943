#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `make http-test`: the Apache::Test suite (t/api/*.t) against every backend:
#   sqlite-event    SQLite file under t/state, event MPM (threads)
#   pgsql-event     a PostgreSQL this script initialises and starts itself
#                   (unix socket only, temporary folder), event MPM
#   sqlite-prefork  SQLite again under the prefork MPM (processes)
# It prints one summary line "N passed, N failed" (test files over all
# suites) and exits non-zero unless every suite really passed.
#
# Apache::Test refuses to run as root and then exits 0 having run nothing.
# As root this script therefore copies the working tree (with the built
# module) to a fresh folder under /tmp, hands it to the system user
# unicat-test (created when missing) and runs itself there via runuser.
# Not as root, it runs in place; each suite's output and error_log are kept
# in t/state/logs/.
#
# Environment: APXS (default apxs), PG_BIN (folder of initdb and pg_ctl),
# UNICAT_TEST_USER (default unicat-test), UNICAT_SUITES (default
# "sqlite-event pgsql-event sqlite-prefork"; pgsql-prefork also exists),
# UNICAT_TEST_ARGS (extra t/TEST.PL arguments such as
# "-verbose t/api/10_catalogs.t"; naming files runs only those).
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
test_user=${UNICAT_TEST_USER:-unicat-test}
module=mod_unicat/.libs/mod_unicat.so

if [ -z "${PG_BIN:-}" ]; then
    PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    [ -n "$PG_BIN" ] || PG_BIN=$(pg_config --bindir 2>/dev/null)
fi
export PG_BIN

if [ ! -f "$top/$module" ]; then
    echo "run-http.sh: $top/$module is missing; run make first" >&2
    exit 1
fi

# ---------------------------------------------------------------- as root
if [ "$(id -u)" = 0 ] && [ -z "${UNICAT_HTTP_INNER:-}" ]; then
    if ! id -u "$test_user" >/dev/null 2>&1; then
        useradd --system --create-home --shell /bin/sh "$test_user" || {
            echo "run-http.sh: cannot create the user $test_user" >&2; exit 1; }
    fi
    home=$(getent passwd "$test_user" | cut -d: -f6)
    [ -n "$home" ] && [ -d "$home" ] || home=/tmp
    outer=$(mktemp -d /tmp/unicat-http.XXXXXX) || exit 1
    outer_cleanup() {
        # What the inner run leaves if it is killed: its httpd and its
        # PostgreSQL (both started by this run, found by their pid files).
        if [ -s "$outer/tree/t/logs/httpd.pid" ]; then
            kill "$(cat "$outer/tree/t/logs/httpd.pid")" 2>/dev/null
        fi
        if [ -f "$outer/run/pg/data/postmaster.pid" ]; then
            runuser -u "$test_user" -- "$PG_BIN/pg_ctl" -D "$outer/run/pg/data" \
                -m immediate -w stop >/dev/null 2>&1
        fi
        cd / && rm -rf "$outer"
    }
    child=""
    # A signal interrupts `wait` below: pass it on to runuser (which hands
    # it to the inner run) and let that clean up before removing the tree.
    on_signal() {
        trap '' INT TERM HUP
        if [ -n "$child" ]; then
            kill -TERM "$child" 2>/dev/null
            wait "$child" 2>/dev/null
        fi
        exit "$1"
    }
    trap outer_cleanup EXIT
    trap 'on_signal 130' INT
    trap 'on_signal 143' TERM HUP
    mkdir "$outer/tree" "$outer/run"
    # The working tree as it is (uncommitted changes and the built module
    # included), without run-time state and generated test files.
    tar -C "$top" --anchored \
        --exclude=./.git --exclude=./var --exclude=./build \
        --exclude=./t/logs --exclude=./t/state --exclude=./t/htdocs \
        --exclude=./t/tmp --exclude=./t/TEST --exclude=./t/SMOKE \
        --exclude=./t/conf/httpd.conf --exclude=./t/conf/extra.conf \
        --exclude=./t/conf/backend.conf --exclude=./t/conf/cloud.conf \
        --exclude=./t/conf/logs.conf \
        --exclude=./t/conf/apache_test_config.pm \
        --exclude=./t/conf/mime.types \
        -cf - . | tar -C "$outer/tree" -xf - || {
        echo "run-http.sh: cannot copy the tree to $outer" >&2; exit 1; }
    # Files of the cloud stand-ins (t/s3, t/azure, t/gcp harnesses) live in
    # their own root-only folders: the test user gets copies.
    for var in UNICAT_AZURE_CA_FILE UNICAT_GCP_PRIVATE_KEY_FILE; do
        eval "file=\${$var:-}"
        if [ -n "$file" ] && [ -f "$file" ]; then
            mkdir -p "$outer/run/cloud"
            cp "$file" "$outer/run/cloud/$var" || exit 1
            eval "$var=\$outer/run/cloud/\$var"
            export "$var"
        fi
    done
    # The npm tools of the browser tests and of the sharing recipient
    # (make http-test installs them under build/, which the copy leaves
    # out): UNICAT_CONSOLE_NODE, UNICAT_SHARING_NODE.
    for tool in CONSOLE:console SHARING:sharing; do
        var=UNICAT_${tool%%:*}_NODE dir=node-${tool#*:}
        eval "node_dir=\${$var:-\$top/build/\$dir}"
        if [ -d "$node_dir/node_modules" ]; then
            cp -R "$node_dir" "$outer/run/$dir" || exit 1
            eval "$var=\$outer/run/\$dir"
            export "$var"
        fi
    done
    chown -R "$test_user:" "$outer"
    chmod 700 "$outer"
    echo "run-http.sh: running as $test_user in $outer/tree"
    cd "$outer"
    runuser -u "$test_user" -- env HOME="$home" UNICAT_HTTP_INNER=1 \
        UNICAT_HTTP_WORK="$outer/run" sh "$outer/tree/t/run-http.sh" &
    child=$!
    wait "$child"
    rc=$?
    child=""
    # The console's screenshots, one folder per suite, kept in the tree.
    if [ -d "$outer/run/console-shots" ]; then
        mkdir -p "$top/t/console/out" &&
            cp -R "$outer/run/console-shots/." "$top/t/console/out/"
    fi
    if [ $rc != 0 ] && [ -d "$outer/tree/t/state/logs" ]; then
        keep=$(mktemp -d /tmp/unicat-http-logs.XXXXXX) &&
            cp -R "$outer/tree/t/state/logs/." "$keep/" &&
            echo "run-http.sh: logs of the failed run kept in $keep"
    fi
    exit $rc
fi

# ----------------------------------------------------- as the test user
cd "$top" || exit 1
APXS=${APXS:-apxs}
export APACHE_TEST_NO_STICKY_PREFERENCES=1
suites=${UNICAT_SUITES:-sqlite-event pgsql-event sqlite-prefork}

if [ -n "${UNICAT_HTTP_WORK:-}" ]; then
    work=$UNICAT_HTTP_WORK
    mkdir -p "$work" || exit 1
    own_work=0
else
    work=$(mktemp -d /tmp/unicat-t.XXXXXX) || exit 1
    own_work=1
fi
pg="$work/pg"               # short: the socket path must stay < 108 bytes
logs="$top/t/state/logs"
mkdir -p "$logs" || exit 1
rm -f "$logs"/*

pg_stop() {
    if [ -f "$pg/data/postmaster.pid" ]; then
        "$PG_BIN/pg_ctl" -D "$pg/data" -m fast -w -t 30 stop >/dev/null 2>&1 ||
            "$PG_BIN/pg_ctl" -D "$pg/data" -m immediate -w stop >/dev/null 2>&1
    fi
}

cleanup() {
    if [ -s "$top/t/logs/httpd.pid" ]; then
        kill "$(cat "$top/t/logs/httpd.pid")" 2>/dev/null
    fi
    pg_stop
    rm -rf "$pg"
    [ "$own_work" = 1 ] && rm -rf "$work"
}
# The running suite is a background job in its own process group, so that
# a signal (interrupting `wait`) can stop Apache::Test and its children.
jobpg=""
on_signal() {
    trap '' INT TERM HUP
    [ -n "$jobpg" ] && kill -TERM -- "-$jobpg" 2>/dev/null
    exit "$1"
}
trap cleanup EXIT
trap 'on_signal 130' INT
trap 'on_signal 143' TERM HUP

pg_start() {
    rm -rf "$pg" && mkdir -p "$pg" || return 1
    if [ ! -x "$PG_BIN/initdb" ]; then
        echo "PostgreSQL not found: set PG_BIN to the folder of initdb"
        return 1
    fi
    "$PG_BIN/initdb" -D "$pg/data" -A trust -U unicat --no-sync \
        >"$pg/initdb.log" 2>&1 || { cat "$pg/initdb.log"; return 1; }
    "$PG_BIN/pg_ctl" -D "$pg/data" -l "$pg/server.log" -w -t 60 \
        -o "-k $pg -c listen_addresses='' -c fsync=off" start \
        >/dev/null 2>&1 || { cat "$pg/server.log"; return 1; }
    i=0
    until "$PG_BIN/pg_isready" -q -h "$pg" -U unicat; do
        i=$((i + 1))
        [ $i -lt 60 ] || { echo "PostgreSQL did not come up"; return 1; }
        sleep 0.5
    done
    "$PG_BIN/createdb" -h "$pg" -U unicat unicat
}

# The snippet t/conf/extra.conf includes: which database httpd uses.
write_backend() {
    case $1 in
    sqlite)
        db="$top/t/state/unicat.db"
        rm -f "$db" "$db-wal" "$db-shm"
        printf '# Written by t/run-http.sh\nDBDriver sqlite3\nDBDParams "%s"\n' \
            "$db" >"$top/t/conf/backend.conf" ;;
    pgsql)
        printf '# Written by t/run-http.sh\nDBDriver pgsql\nDBDParams "host=%s user=unicat dbname=unicat"\n' \
            "$pg" >"$top/t/conf/backend.conf" ;;
    esac
}

# The first of 20 free ports (the server's, then its virtual hosts'), from
# a random place: Apache::Test's own "-port select" always starts at 8529,
# so that suites run side by side (other checkouts' make test) would pick
# the same ports, and one's tests could talk to another's server.
free_ports() {
    perl -MIO::Socket::INET -e '
        srand($$ ^ time);
        for (1 .. 200) {
            my $base = 20000 + 20 * int(rand(2000));
            my @held = grep { $_ } map { IO::Socket::INET->new(
                LocalAddr => "127.0.0.1", LocalPort => $_, Listen => 1) }
                $base .. $base + 19;
            if (@held == 20) { print $base; exit 0 }
        }
        exit 1'
}

total_files=$(ls t/api/*.t 2>/dev/null | wc -l)
all_passed=0
all_failed=0
summary=""

# run_suite NAME BACKEND MPM
run_suite() {
    name=$1 backend=$2 mpm=$3
    log="$logs/$name.log"
    echo
    echo "==================== $name: $backend, $mpm MPM ===================="
    mkdir -p t/state
    opts="-apxs $APXS -httpd_conf $top/t/state/httpd-$mpm.conf"
    # Drop the previous suite's generated configuration (and its logs).
    perl t/TEST.PL $opts -clean >"$logs/$name.clean.log" 2>&1
    rc=1
    if [ "$backend" = pgsql ] && ! pg_start >"$log" 2>&1; then
        cat "$log"
        echo "$name: could not start PostgreSQL" | tee -a "$log"
    else
        write_backend "$backend"
        # What a suite's logs and its record of secrets hold is its own:
        # t/api/99_secrets_in_logs.t scans them.
        rm -f "$work/$name.rc" t/logs/error_log t/logs/access_log* \
            t/logs/secrets_used
        set -m
        { UNICAT_SUITE=$name perl t/TEST.PL $opts -port "$(free_ports)" \
              ${UNICAT_TEST_ARGS:-} </dev/null 2>&1
          echo $? >"$work/$name.rc"; } | tee "$log" &
        job=$!
        set +m
        jobpg=$(ps -o pgid= -p "$job" 2>/dev/null | tr -d ' ')
        wait "$job"
        jobpg=""
        rc=$(cat "$work/$name.rc" 2>/dev/null || echo 1)
    fi
    # Test files: Files=N from Test::Harness minus the files named in its
    # "Test Summary Report" and files skipped as a whole (they tested
    # nothing). Without a Files= line nothing ran: all count as failed.
    ran=$(sed -n 's/^Files=\([0-9][0-9]*\),.*/\1/p' "$log" | tail -n 1)
    [ -n "$ran" ] || ran=0
    bad=$(grep -Ec '^[^ ]+\.t +\(Wstat: ' "$log")
    skipped=$(grep -Ec '^[^ ]+\.t \.+ skipped' "$log")
    passed=$((ran - bad - skipped))
    [ "$passed" -ge 0 ] || passed=0
    expected=$ran
    # Every file must have run (unless files were named).
    if ! echo "${UNICAT_TEST_ARGS:-}" | grep -q '\.t\b' &&
       [ "$expected" -lt "$total_files" ]; then
        expected=$total_files
    fi
    [ "$expected" -gt 0 ] || expected=$total_files
    failed=$((expected - passed))
    # Apache::Test can exit 0 having run nothing: demand its PASS lines,
    # and this suite's own server having started (its error log says so).
    if [ "$rc" != 0 ] || ! grep -q '^Result: PASS' "$log" ||
       ! grep -q '^All tests successful' "$log" ||
       ! grep -q 'resuming normal operations' t/logs/error_log 2>/dev/null; then
        [ "$failed" -gt 0 ] || failed=1
    fi
    cp t/logs/error_log "$logs/$name.error_log" 2>/dev/null
    if [ "$backend" = pgsql ]; then
        cp "$pg/server.log" "$logs/$name.postgres.log" 2>/dev/null
        pg_stop
    fi
    if [ "$failed" -gt 0 ]; then
        echo "---- $name FAILED (exit status $rc); t/logs/error_log's last lines above debug:"
        grep -Ev '\[[a-z_0-9]+:(debug|trace[1-8])\]' t/logs/error_log 2>/dev/null |
            tail -n 60
        if [ "$backend" = pgsql ]; then
            echo "---- tail of the PostgreSQL log:"
            tail -n 20 "$logs/$name.postgres.log" 2>/dev/null
        fi
        echo "----"
    fi
    all_passed=$((all_passed + passed))
    all_failed=$((all_failed + failed))
    summary="$summary
  $name: $passed passed, $failed failed"
    # No -clean here: t/logs stays for inspection; the next suite cleans.
}

for suite in $suites; do
    case $suite in
    sqlite-event)   run_suite "$suite" sqlite event ;;
    pgsql-event)    run_suite "$suite" pgsql event ;;
    sqlite-prefork) run_suite "$suite" sqlite prefork ;;
    pgsql-prefork)  run_suite "$suite" pgsql prefork ;;
    *) echo "run-http.sh: unknown suite $suite"
       all_failed=$((all_failed + 1)) ;;
    esac
done

echo
echo "HTTP suites (test files):$summary"
echo "$all_passed passed, $all_failed failed"
[ "$all_failed" -eq 0 ] && [ "$all_passed" -gt 0 ]
