#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `make bench` (fourth part): the web console in Debian's chromium on a
# catalog of BENCH_CONSOLE_TABLES (100,000) tables, served by `make run`'s
# configuration in a scratch folder (t/make-run-scratch.sh). See
# t/bench/console.mjs for what it measures.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/t/make-run-scratch.sh"
scratch_make_run
start_make_run
rc=0
UNICAT_CONSOLE_URL="http://127.0.0.1:$port/" \
UNICAT_CONSOLE_API="http://127.0.0.1:$port/api/2.1/unity-catalog" \
UNICAT_CONSOLE_NODE="$top/build/node-console" \
    node "$top/t/bench/console.mjs" || rc=$?
stop_make_run
exit $rc
