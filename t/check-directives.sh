#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every directive in the module's command table is documented in the README
# (a "### Name" section with Syntax, Default and Context), and every
# documented Unicat directive exists.
set -eu
code=$(sed -n 's/.*AP_INIT_[A-Z0-9]*("\([A-Za-z0-9]*\)".*/\1/p' mod_unicat/*.c | sort -u)
docs=$(sed -n 's/^### \(Unicat[A-Za-z0-9]*\)$/\1/p' README.md | sort -u)
failed=0
for d in $code; do
    if ! echo "$docs" | grep -qx "$d"; then
        echo "not documented in README.md: $d"; failed=$((failed + 1))
    fi
    for field in Syntax Default Context; do
        awk -v d="### $d" -v f="| $field |" '
            $0 == d { inside = 1; next }
            /^### / { inside = 0 }
            inside && index($0, f) == 1 { found = 1 }
            END { exit !found }' README.md ||
            { echo "README.md: $d has no $field row"; failed=$((failed + 1)); }
    done
done
for d in $docs; do
    echo "$code" | grep -qx "$d" || { echo "documented but not in the code: $d"; failed=$((failed + 1)); }
done
total=$(echo "$code" | wc -w)
echo "directives: $total documented checks, $failed problems"
[ "$failed" = 0 ]
