#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# What the benchmark scripts share (sourced): messages, a temporary
# directory the child can own, and one httpd on a free loopback port.

say() { printf '%s\n' "$*"; }
die() {
    printf 'bench: %s\n' "$*" >&2
    if [ -n "${dir:-}" ] && [ -s "$dir/error.log" ]; then
        printf 'bench: last lines of the error log:\n' >&2
        tail -n 20 "$dir/error.log" >&2
    fi
    exit 2
}

# A temporary directory in $dir, removed (and the httpd in $httpd_pid
# stopped) on exit; BENCH_KEEP=1 keeps it.
bench_tmpdir() {
    dir=$(mktemp -d /tmp/unicat-bench.XXXXXX)
    httpd_pid=""
    cleanup() {
        rc=$?
        trap - EXIT INT TERM HUP
        if [ -n "$httpd_pid" ] && kill -0 "$httpd_pid" 2>/dev/null; then
            kill -TERM "$httpd_pid" 2>/dev/null || :
            i=0
            while kill -0 "$httpd_pid" 2>/dev/null && [ $i -lt 100 ]; do
                sleep 0.1; i=$((i + 1))
            done
            kill -0 "$httpd_pid" 2>/dev/null && kill -KILL "$httpd_pid" 2>/dev/null
            wait "$httpd_pid" 2>/dev/null || :
        fi
        if [ "${BENCH_KEEP:-0}" = 1 ]; then
            printf 'bench: kept %s\n' "$dir" >&2
        else
            rm -rf "$dir"
        fi
        exit $rc
    }
    trap cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    trap 'exit 129' HUP
}

# The tools named and the built module ($so), or die.
bench_need() { # tool...
    for tool in "$@"; do
        command -v "$tool" >/dev/null 2>&1 || die "$tool is missing"
    done
    [ -f "$so" ] || die "$so is missing: run make first"
}

# $dir for an httpd of the module: run/, htdocs/, db/, a secret key, the
# module, $user's password file, owned by the child's user (bench_owner).
# The directories of $@ (under $dir) are made too, before it is handed
# over.
bench_server_dir() { # extra-dir...
    bench_tmpdir
    mkdir -p "$dir/run" "$dir/htdocs" "$dir/db"
    for extra in "$@"; do mkdir -p "$dir/$extra"; done
    (umask 077 && od -An -tx1 -N32 /dev/urandom | tr -d ' \n' > "$dir/secret.key") ||
        die "writing the secret key failed"
    cp "$so" "$dir/mod_unicat.so"
    htpasswd -cbs "$dir/htpasswd" "$user" "$pass" 2>/dev/null || die "htpasswd failed"
}

# As root, the child runs as www-data (or nobody) and owns $dir: sets
# user_lines (for the configuration), as_owner (a command prefix), owner
# and group.
bench_owner() {
    user_lines=""
    as_owner=""
    if [ "$(id -u)" = 0 ]; then
        # httpd will not serve as root; the child gets the temporary directory.
        owner=www-data
        id "$owner" >/dev/null 2>&1 || owner=nobody
        group=$(id -gn "$owner")
        chown -R "$owner:$group" "$dir"
        chmod 755 "$dir"
        user_lines="User $owner
    Group $group"
        as_owner="runuser -u $owner --"
    fi
}

random_port() {
    r=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
    echo $((20000 + r % 40000))
}
port_busy() {
    if command -v ss >/dev/null 2>&1; then
        [ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]
    else
        curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$1/" 2>/dev/null
    fi
}

# httpd from the template $1 (@PORT@, @DIR@, @USER_LINES@ and @STS_LINES@
# filled in), on a free port left in $port. $httpd_env, when set, is a
# command prefix both httpd runs take (t/tsan/run.sh: env LD_PRELOAD=...).
start_httpd() {
    tries=0
    while [ $tries -lt 8 ]; do
        tries=$((tries + 1))
        port=$(random_port)
        port_busy "$port" && continue
        awk -v port="$port" -v d="$dir" -v users="$user_lines" -v sts="${sts_lines:-}" '
            { gsub(/@PORT@/, port); gsub(/@DIR@/, d); gsub(/@USER_LINES@/, users)
              gsub(/@STS_LINES@/, sts); print }
        ' "$1" > "$dir/httpd.conf"
        ${httpd_env:-} apache2 -t -f "$dir/httpd.conf" >"$dir/configtest.log" 2>&1 ||
            die "httpd rejects the configuration: $(cat "$dir/configtest.log")"
        : > "$dir/error.log"
        ${httpd_env:-} apache2 -f "$dir/httpd.conf" -DFOREGROUND >"$dir/httpd.out" 2>&1 &
        httpd_pid=$!
        i=0
        while [ $i -lt 100 ]; do
            if ! kill -0 "$httpd_pid" 2>/dev/null; then
                wait "$httpd_pid" 2>/dev/null || :
                httpd_pid=""
                break
            fi
            code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 \
                   "http://127.0.0.1:$port/" 2>/dev/null) || code=000
            [ "$code" != 000 ] && return 0
            sleep 0.1; i=$((i + 1))
        done
        if [ -n "$httpd_pid" ]; then
            die "httpd did not answer on port $port within 10 s"
        fi
        grep -qi 'in use' "$dir/error.log" "$dir/httpd.out" 2>/dev/null ||
            die "httpd exited at start: $(cat "$dir/httpd.out" "$dir/error.log")"
    done
    die "no free port found"
}

child_pid() {
    kids=$(ps -o pid= --ppid "$httpd_pid" 2>/dev/null | tr -d ' ')
    [ "$(printf '%s\n' "$kids" | grep -c .)" = 1 ] ||
        die "expected exactly one httpd child, found: $(echo $kids)"
    echo "$kids"
}
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
hwm_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }

# The catalog API at $api as $user: one call, its answer in $dir/api.out;
# fails unless 200.
call() { # method path [json]
    curl -sS -u "$user:$pass" -X "$1" -H 'Content-Type: application/json' \
         ${3:+-d "$3"} -o "$dir/api.out" -w '%{http_code}' "$api$2" >"$dir/api.code" ||
        die "curl failed"
    [ "$(cat "$dir/api.code")" = 200 ] ||
        die "$1 $2 answered $(cat "$dir/api.code"): $(head -c 300 "$dir/api.out")"
}

# A recipient "reader" of the share $1, its link activated: its bearer
# token in $token.
recipient_of() { # share
    call POST /recipients '{"name":"reader","authentication_type":"TOKEN"}'
    nonce=$(sed -n 's|.*"activation_url":"[^"]*/\([A-Za-z0-9_-]\{43\}\)".*|\1|p' "$dir/api.out")
    [ -n "$nonce" ] || die "no activation link in $(head -c 300 "$dir/api.out")"
    call PATCH "/shares/$1/permissions" \
        '{"changes":[{"principal":"reader","add":["SELECT"]}]}'
    call GET "/public/data_sharing_activation/$nonce"
    token=$(sed -n 's|.*"bearerToken":"\([^"]*\)".*|\1|p' "$dir/api.out")
    [ -n "$token" ] || die "no bearer token in the activation answer"
}

# The catalog of the A/B and PostgreSQL benchmarks, through the API at
# $api: "big" with 1,000 schemas s0000..s0999, and 100 EXTERNAL Delta
# tables of 20 columns in s0000.
bench_fill_pages() {
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
}

# wrk on `url` for $DUR seconds with the header `auth`, `conns`
# connections (one thread when one) and the wrk script $BENCH_SCRIPT
# (report.lua by default): prints "requests/s CPU-us/request", the CPU
# being what the httpd child `child` used (user and system). Dies when an
# answer was an error status (connections the server closed are not
# errors of the answers).
bench_rate() { # url child auth conns
    r_hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
    r_threads=2
    [ "$4" = 1 ] && r_threads=1
    r_t0=$(awk '{ print $14 + $15 }' "/proc/$2/stat")
    r_out=$(wrk -t"$r_threads" -c"$4" -d"${DUR}s" -s "$here/${BENCH_SCRIPT:-report.lua}" \
                -H "$3" "$1" 2>&1) || die "wrk: $r_out"
    r_t1=$(awk '{ print $14 + $15 }' "/proc/$2/stat")
    set -- $(printf '%s\n' "$r_out" | grep '^BENCH ')
    [ $# = 8 ] || die "no result from wrk: $r_out"
    [ "$7" = 0 ] || die "errors answered: $r_out"
    awk -v n="$2" -v d="$3" -v t="$((r_t1 - r_t0))" -v hz="$r_hz" \
        'BEGIN { printf "%.1f %.1f", n / (d / 1e6), t * 1e6 / hz / n }'
}
