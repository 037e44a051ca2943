# SPDX-License-Identifier: Apache-2.0
# Sourced by the tests of `make run` (t/deploy-files.sh, t/first-run.sh),
# with $top the checkout: conf/dev/run.sh in a scratch folder that holds
# what it needs (its configuration, the demo table, the built module and
# unicat-delta).
#   scratch_make_run   makes the folder, $work, removed on exit
#   start_make_run     starts run.sh there on a free port ($port, $pid,
#                      its output in $work/run.log) and waits until it has
#                      printed what to try
#   stop_make_run      stops it, and waits for httpd to end

scratch_make_run() {
    for f in mod_unicat/.libs/mod_unicat.so build/unicat-delta; do
        if [ ! -f "$top/$f" ]; then
            echo "$0: $top/$f is missing; run make first" >&2
            exit 1
        fi
    done
    pid=""
    work=$(mktemp -d /tmp/unicat-run.XXXXXX) || exit 1
    trap 'stop_make_run; rm -rf "$work"' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM HUP
    mkdir -p "$work/conf/dev" "$work/mod_unicat/.libs" "$work/build"
    cp -R "$top/conf/dev/run.sh" "$top/conf/dev/httpd.conf.in" \
        "$top/conf/dev/demo" "$work/conf/dev/"
    cp "$top/mod_unicat/.libs/mod_unicat.so" "$work/mod_unicat/.libs/"
    cp "$top/build/unicat-delta" "$work/build/"
}

start_make_run() {
    port=$(perl -MIO::Socket::INET -e \
        'print IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1:0")->sockport')
    # The log of an earlier start goes first: the new one is written as
    # the background job starts, not at once.
    rm -f "$work/run.log"
    (cd "$work" && exec sh conf/dev/run.sh "$port") >"$work/run.log" 2>&1 &
    pid=$!
    i=0
    until grep -qs '^Ctrl-C stops the server' "$work/run.log"; do
        i=$((i + 1))
        if [ $i -ge 150 ] || ! kill -0 "$pid" 2>/dev/null; then
            echo "$0: make run did not come up:"
            cat "$work/run.log"
            exit 1
        fi
        sleep 0.2
    done
}

stop_make_run() {
    [ -n "$pid" ] || return 0
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    pid=""
    i=0
    while [ -e "$work/var/httpd.pid" ] && [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
    done
}
