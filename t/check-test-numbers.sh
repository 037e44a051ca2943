#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The HTTP suite runs its files in the order of their names: each is
# t/api/NN_what_it_tests.t with a number NN of its own, so that the order
# is the numbers' (99_secrets_in_logs.t, which scans the logs of all the
# others, last). Every test file the README, the sources or the tests
# mention exists.
# Exits non-zero naming each problem.
set -u
cd "$(dirname "$0")/.." || exit 2
failed=0

problem() {
    echo "check-test-numbers: $*" >&2
    failed=$((failed + 1))
}

files=$(ls t/api)
for f in $(echo "$files" | grep -vE '^[0-9]{2}_[a-z0-9_]+\.t$'); do
    problem "t/api/$f is not named NN_what_it_tests.t"
done
for n in $(echo "$files" | grep -oE '^[0-9]{2}_' | sort | uniq -d); do
    problem "these share the number ${n%_}:" $(echo "$files" | grep "^$n")
done
[ "$(echo "$files" | tail -n 1)" = 99_secrets_in_logs.t ] ||
    problem "99_secrets_in_logs.t must run last"
for f in $(grep -rIohE '\b[0-9]{2}_[a-z0-9_]+\.t\b' README.md Makefile conf src \
               mod_unicat t --exclude-dir=fixtures --exclude-dir=node_modules \
               --exclude-dir=logs --exclude-dir=state | sort -u); do
    [ -f "t/api/$f" ] || problem "$f is mentioned but t/api has no such file"
done

[ "$failed" = 0 ] || exit 1
echo "check-test-numbers: $(echo "$files" | wc -l) HTTP test files, each number once"
