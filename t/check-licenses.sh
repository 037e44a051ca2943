#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every source file of the project names its licence in an SPDX line
# (vendored test data keeps its own licence), the console's web files
# included; the console's third-party files are each listed in
# src/console/web/vendor/VENDORED.txt with their version, licences,
# licence files (present) and checksum (matching). Exits non-zero naming
# the files that fail.
set -u
cd "$(dirname "$0")/.." || exit 2
missing=$(find Makefile .ci/run mod_unicat src t \
              \( -path t/delta/fixtures -o -path t/objstore/aws-sigv4 \
                 -o -name node_modules -o -path t/logs -o -path t/state \
                 -o -path t/tmp -o -path t/htdocs -o -path t/conf \
                 -o -path src/console/web/vendor -o -path t/console/out \) -prune \
              -o -type f \( -name '*.c' -o -name '*.h' -o -name '*.sh' \
                 -o -name '*.t' -o -name '*.pm' -o -name '*.PL' -o -name '*.mjs' \
                 -o -name '*.js' -o -name '*.css' -o -name '*.html' \
                 -o -name '*.lua' -o -name Makefile -o -name run \) -print \
          | grep -v -e '^src/store/uc_migrations_gen.c$' -e '^t/TEST$' \
          | while read -r f; do
                head -3 "$f" | grep -q 'SPDX-License-Identifier: Apache-2.0' \
                    || echo "$f"
            done)
if [ -n "$missing" ]; then
    echo "check-licenses: no SPDX-License-Identifier line in:" >&2
    echo "$missing" | sed 's/^/  /' >&2
    exit 1
fi

vendor=src/console/web/vendor
vendored=$(cd "$vendor" && for f in *; do
    case $f in VENDORED.txt|LICENSE-*) continue ;; esac
    line=$(awk -v f="$f" '$1 == f' VENDORED.txt)
    if [ -z "$line" ]; then echo "$vendor/$f: not in VENDORED.txt"; continue; fi
    set -- $line
    [ $# = 6 ] || { echo "$vendor/$f: VENDORED.txt wants 6 fields"; continue; }
    for licence in $(echo "$5" | tr , ' '); do
        [ -s "$licence" ] || echo "$vendor/$f: licence file $licence is missing"
    done
    [ "$(sha256sum "$f" | cut -d' ' -f1)" = "$6" ] ||
        echo "$vendor/$f: not the file VENDORED.txt records ($2 $3)"
done)
if [ -n "$vendored" ]; then
    echo "check-licenses: the console's third-party files:" >&2
    echo "$vendored" | sed 's/^/  /' >&2
    exit 1
fi
echo "check-licenses: every source file names its licence, every vendored file is recorded"
