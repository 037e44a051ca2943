#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The rooms of src/ include one way: each room includes only rooms below it
# in the layer order that src/README.md gives (its section "The rooms, in
# layer order": one "N. **room/**" item per room, the lowest first), so
# that no two rooms include each other, however indirectly. Every room of
# src/ has its place there, and every room named there exists. The glue
# (mod_unicat/) reaches the database through the rooms above it: of
# src/store/ it includes the connection (uc_store.h) alone.
set -eu
guide=src/README.md
order=$(awk '
    /^## / { inside = ($0 ~ /^## The rooms, in layer order/) ; next }
    inside && /^[0-9]+\. \*\*[a-z]+\/\*\*/ {
        sub(/^[0-9]+\. \*\*/, ""); sub(/\/\*\*.*/, ""); print }' "$guide")
failed=0
fail() { echo "$*"; failed=$((failed + 1)); }
[ -n "$order" ] || fail "$guide: no section \"The rooms, in layer order\""

rank() {
    echo "$order" | awk -v room="$1" '$0 == room { print NR; found = 1 }
                                      END { if (!found) print 0 }'
}

for dir in src/*/; do
    room=$(basename "$dir")
    [ "$(rank "$room")" != 0 ] || fail "src/$room/ has no place in $guide"
done
for room in $order; do
    [ -d "src/$room" ] || fail "$guide names src/$room/, which does not exist"
done

for file in src/*/*.c src/*/*.h; do
    room=$(basename "$(dirname "$file")")
    mine=$(rank "$room")
    for other in $(sed -n 's|^#include "\.\./\([a-z_]*\)/.*|\1|p' "$file" |
                   sort -u); do
        theirs=$(rank "$other")
        if [ "$theirs" = 0 ]; then
            fail "$file includes from $other/, which has no place in $guide"
        elif [ "$theirs" -ge "$mine" ]; then
            fail "$file ($room/) includes from $other/, which is not below it"
        fi
    done
done

for file in mod_unicat/*.c mod_unicat/*.h; do
    sed -n 's|^#include "\.\./src/store/\([^"]*\)".*|\1|p' "$file" |
        while read -r header; do
            [ "$header" = uc_store.h ] ||
                echo "$file includes src/store/$header: the glue reaches the database through the rooms above it"
        done
done > "${TMPDIR:-/tmp}/check-layers.$$"
while read -r line; do fail "$line"; done < "${TMPDIR:-/tmp}/check-layers.$$"
rm -f "${TMPDIR:-/tmp}/check-layers.$$"

echo "layers: $(echo "$order" | wc -l) rooms in order, $failed problems"
[ "$failed" = 0 ]
