#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs each cmocka test binary given as an argument, shows its output and
# totals the test cases: "N passed, N failed" on the last line. Exits non-zero
# when a test failed, a binary crashed or reported nothing.
# Usage: sh t/unit/run.sh build/test_*
set -u

if [ $# -eq 0 ]; then
    echo "usage: $0 test-binary..." >&2
    echo "0 passed, 0 failed"
    exit 2
fi

passed=0
failed=0
status=0
out=$(mktemp "${TMPDIR:-/tmp}/uc_unit_run.XXXXXX") || exit 2
trap 'rm -f "$out"' EXIT INT TERM

for bin in "$@"; do
    case $bin in
        */*) cmd=$bin ;;
        *) cmd=./$bin ;;
    esac
    echo "=== $bin"
    "$cmd" >"$out" 2>&1
    rc=$?
    cat "$out"
    # cmocka 1.1: "[  PASSED  ] 12 test(s)." and "[  FAILED  ] 2 test(s), ...".
    p=$(sed -n 's/^\[  PASSED  \] \([0-9][0-9]*\) test(s).*/\1/p' "$out" | tail -n 1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9][0-9]*\) test(s).*/\1/p' "$out" | tail -n 1)
    p=${p:-0}
    f=${f:-0}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        # A crash or a failed group setup: count the binary as one failure.
        echo "*** $bin exited with status $rc without reporting failed tests"
        f=1
    fi
    if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
        echo "*** $bin ran no tests"
        f=1
    fi
    [ "$f" -gt 0 ] && status=1
    passed=$((passed + p))
    failed=$((failed + f))
done

echo "$passed passed, $failed failed"
exit $status
