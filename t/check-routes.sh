#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The README's section "Every route and its rule" is what the route tables
# say: the block between its markers is, line for line, what
# build/list-routes prints of them (t/list-routes.c). With --write, the
# block is made so (after a route or a rule changed).
#   sh t/check-routes.sh [--write] build/list-routes
set -eu
write=0
[ "${1:-}" = --write ] && { write=1; shift; }
lister=${1:-build/list-routes}
readme=README.md
begin='<!-- routes: build/list-routes prints this block; make test checks it -->'
end='<!-- /routes -->'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$lister" > "$tmp/routes"
grep -qxF "$begin" "$readme" && grep -qxF "$end" "$readme" || {
    echo "check-routes: $readme has no block between '$begin' and '$end'"
    exit 1; }
awk -v b="$begin" -v e="$end" '$0 == e { inside = 0 } inside { print }
                                $0 == b { inside = 1 }' "$readme" > "$tmp/block"
if [ $write = 1 ]; then
    awk -v b="$begin" -v e="$end" -v f="$tmp/routes" '
        $0 == e { while ((getline line < f) > 0) print line; inside = 0 }
        !inside { print } $0 == b { inside = 1 }' "$readme" > "$tmp/readme"
    cat "$tmp/readme" > "$readme"
    echo "check-routes: $readme's listing written ($(grep -c '^| `' "$tmp/routes") routes)"
    exit 0
fi
if ! diff -u "$tmp/block" "$tmp/routes" > "$tmp/diff"; then
    echo "check-routes: $readme's listing of routes differs from the route tables (- README, + tables);"
    echo "run: sh t/check-routes.sh --write $lister"
    cat "$tmp/diff"
    exit 1
fi
echo "check-routes: $(grep -c '^| `' "$tmp/routes") routes, the README lists each with its rule"
