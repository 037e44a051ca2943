#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The catalog, the demo password file and the configuration that may hold
# a database password are not readable by other users:
# - `make run` keeps the catalog and the passwords in ./var. This starts
#   conf/dev/run.sh in a scratch folder holding what it needs (its
#   configuration and the built module), has the catalog written, and
#   checks the mode and owner of every file under var/;
# - `make install` into a scratch DESTDIR installs unicat.conf 0640.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
module=mod_unicat/.libs/mod_unicat.so
if [ ! -f "$top/$module" ]; then
    echo "deploy-files.sh: $top/$module is missing; run make first" >&2
    exit 1
fi

work=$(mktemp -d /tmp/unicat-run.XXXXXX) || exit 1
pid=""
cleanup() {
    if [ -n "$pid" ]; then
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

mkdir -p "$work/conf/dev" "$work/mod_unicat/.libs"
cp "$top/conf/dev/run.sh" "$top/conf/dev/httpd.conf.in" "$work/conf/dev/"
cp "$top/$module" "$work/$module"
# Files an earlier run left world-readable must be tightened too.
mkdir "$work/var"
: >"$work/var/catalog.db"
chmod 644 "$work/var/catalog.db"

port=$(perl -MIO::Socket::INET -e \
    'print IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1:0")->sockport')
(cd "$work" && exec sh conf/dev/run.sh "$port") >"$work/run.log" 2>&1 &
pid=$!

base="http://127.0.0.1:$port/api/2.1/unity-catalog"
i=0
until curl -s -o /dev/null -u admin:admin "$base/metastore_summary"; do
    i=$((i + 1))
    if [ $i -ge 100 ] || ! kill -0 "$pid" 2>/dev/null; then
        echo "deploy-files.sh: make run did not come up:"; cat "$work/run.log"
        exit 1
    fi
    sleep 0.2
done
# A write, so that the database has its -wal and -shm files.
curl -s -o /dev/null -u admin:admin -H 'Content-Type: application/json' \
    -d '{"name":"perms"}' "$base/catalogs"

# make run registers its demo data folder as an external location once the
# server answers.
i=0
until curl -s -u admin:admin "$base/external-locations/demo_data" |
        grep -q "\"url\":\"file://$work/var/data\""; do
    i=$((i + 1))
    if [ $i -ge 150 ]; then
        echo "make run did not register var/data as the location demo_data:"
        grep -v '^127\.0\.0\.1 ' "$work/run.log"
        exit 1
    fi
    sleep 0.2
done

# As root, run.sh gives var/ to the checkout's owner, or www-data when root
# owns it (as it owns this scratch folder).
if [ "$(id -u)" = 0 ]; then server_user=www-data; else server_user=$(id -un); fi

failed=0
for f in htpasswd catalog.db catalog.db-wal catalog.db-shm secret.key; do
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
