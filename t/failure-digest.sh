#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# failure-digest.sh LOG COMMAND...: runs COMMAND with its output shown and
# kept in LOG, and exits with its status. When it fails, the lines that
# name what failed (test files, failed assertions and where, suites, make
# targets) are printed again at the very end: a CI page that shows only the
# tail of the output still says which test failed and why.
set -u

log=$1
shift
mkdir -p "$(dirname "$log")" || exit 1
rm -f "$log.rc"
{ "$@" 2>&1; echo $? >"$log.rc"; } | tee "$log"
rc=$(cat "$log.rc" 2>/dev/null || echo 1)
rm -f "$log.rc"
[ "$rc" = 0 ] && exit 0

echo
echo "==================== what failed (all of it above, and in $log)"
grep -E -A 3 \
    -e '^# +Failed test' \
    "$log" | grep -E -e '^#' | cut -c 1-240 | head -n 30
grep -E \
    -e '\(Wstat: ' \
    -e '^ +Failed tests?: ' \
    -e '^\[  (FAILED|ERROR) +\] [a-z_]' \
    -e '^regression .*: FAILED' \
    -e 'deb-test: FAIL' \
    -e 'tsan-test: FAIL' \
    -e '^SUMMARY: ThreadSanitizer' \
    -e '^---- .* FAILED' \
    -e '^ +[a-z-]+: [0-9]+ passed, [1-9][0-9]* failed' \
    -e '^[0-9]+ passed, [1-9][0-9]* failed' \
    -e '^\*\*\* ' \
    -e 'problems$' \
    -e '^make(\[[0-9]+\])?: \*\*\*' \
    "$log" | grep -Ev ': 0 problems$' | cut -c 1-240 | tail -n 40
exit "$rc"
