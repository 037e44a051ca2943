#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The catalog, the demo password file and the configuration that may hold
# a database password are not readable by other users:
# - `make run` keeps the catalog, the passwords and the demo's profile file
#   in ./var. This starts conf/dev/run.sh in a scratch folder
#   (t/make-run-scratch.sh), which writes the catalog as it makes its demo,
#   and checks the mode and owner of every file under var/;
# - `make install` into a scratch DESTDIR installs unicat.conf 0640.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/t/make-run-scratch.sh"
scratch_make_run
# Files an earlier run left world-readable must be tightened too.
mkdir "$work/var"
: >"$work/var/catalog.db"
chmod 644 "$work/var/catalog.db"
start_make_run

# As root, run.sh gives var/ to the checkout's owner, or www-data when root
# owns it (as it owns this scratch folder).
if [ "$(id -u)" = 0 ]; then server_user=www-data; else server_user=$(id -un); fi

failed=0
for f in htpasswd catalog.db catalog.db-wal catalog.db-shm secret.key \
         demo.share data/demo/orders/_delta_log/00000000000000000000.json; do
    if [ ! -e "$work/var/$f" ]; then
        echo "not created: var/$f"; failed=$((failed + 1)); continue
    fi
    owner=$(stat -c %U "$work/var/$f")
    if [ "$owner" != "$server_user" ]; then
        echo "var/$f is owned by $owner, not $server_user"; failed=$((failed + 1))
    fi
done
# httpd gives its pid file mode 644 itself; inside var/ (700) it is private.
exposed=$(cd "$work" && find var -perm /o=rwx ! -path var/httpd.pid)
if [ -n "$exposed" ]; then
    echo "open to other users:"; echo "$exposed" | sed 's/^/  /'
    (cd "$work" && ls -la var)
    failed=$((failed + 1))
fi

make --no-print-directory -C "$top" install DESTDIR="$work/dest" \
    >"$work/install.log" 2>&1 || { cat "$work/install.log"; failed=$((failed + 1)); }
conf="$work/dest/etc/apache2/mods-available/unicat.conf"
mode=$(stat -c %a "$conf" 2>/dev/null)
if [ "$mode" != 640 ]; then
    echo "make install: unicat.conf has mode ${mode:-none}, not 640"
    failed=$((failed + 1))
fi

echo "make run and make install files: $failed problems"
[ "$failed" = 0 ]
