#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every source file of the project names its licence in an SPDX line
# (vendored test data keeps its own licence). Exits non-zero naming the
# files without one.
set -u
cd "$(dirname "$0")/.." || exit 2
missing=$(find Makefile .ci/run mod_unicat src t \
              \( -path t/delta/fixtures -o -path t/objstore/aws-sigv4 \
                 -o -name node_modules -o -path t/logs -o -path t/state \
                 -o -path t/tmp -o -path t/htdocs -o -path t/conf \) -prune \
              -o -type f \( -name '*.c' -o -name '*.h' -o -name '*.sh' \
                 -o -name '*.t' -o -name '*.pm' -o -name '*.PL' -o -name '*.mjs' \
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
echo "check-licenses: every source file names its licence"
