#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `make run`: httpd in the foreground on 127.0.0.1 with the module and an
# embedded SQLite catalog in ./var, Basic auth users admin, alice and bob.
set -eu
port=${1:-8080}
top=$(pwd)
var="$top/var"
# ./var holds the catalog and the demo passwords: what this script and
# httpd create there (the database, its -wal and -shm among them) is the
# server user's alone, and files left by earlier runs are made so.
umask 077
mkdir -p "$var/run" "$var/htdocs" "$var/data"
chmod 700 "$var"
for f in htpasswd catalog.db catalog.db-wal catalog.db-shm secret.key; do
    if [ -e "$var/$f" ]; then chmod 600 "$var/$f"; fi
done
# The key stored secrets are sealed with (UnicatSecretKeyFile): made once,
# kept with the catalog whose secrets it opens.
if [ ! -s "$var/secret.key" ]; then
    od -An -tx1 -N32 /dev/urandom | tr -d ' \n' > "$var/secret.key"
    echo >> "$var/secret.key"
fi

user_lines=""
if [ "$(id -u)" = 0 ]; then
    # httpd will not serve as root: children run as the checkout's owner,
    # or as www-data when root owns the checkout.
    owner=$(stat -c %U "$top")
    [ "$owner" = root ] && owner=www-data
    group=$(id -gn "$owner")
    chown -R "$owner:$group" "$var"
    user_lines="User $owner
Group $group"
    # The children must reach ./var: grant traversal (not reading) on any
    # parent folder that lacks it, and say so.
    d="$var"
    while [ "$d" != / ]; do
        d=$(dirname "$d")
        if ! runuser -u "$owner" -- test -x "$d" 2>/dev/null; then
            echo "make run: allowing $owner to traverse $d (chmod o+x)"
            chmod o+x "$d"
        fi
    done
fi

if [ ! -f "$var/htpasswd" ]; then
    htpasswd -cbB "$var/htpasswd" admin admin 2>/dev/null
    htpasswd -bB "$var/htpasswd" alice alice 2>/dev/null
    htpasswd -bB "$var/htpasswd" bob bob 2>/dev/null
    if [ "$(id -u)" = 0 ]; then chown "$owner:$group" "$var/htpasswd"; fi
fi

awk -v port="$port" -v var="$var" -v top="$top" -v users="$user_lines" '
    { gsub(/@PORT@/, port); gsub(/@VAR@/, var); gsub(/@TOP@/, top);
      gsub(/@USER_LINES@/, users); print }' conf/dev/httpd.conf.in > "$var/httpd.conf"

base="http://127.0.0.1:$port/api/2.1/unity-catalog"
cat <<MSG
mod_unicat on $base (catalog: $var/catalog.db)
Users: admin/admin, alice/alice, bob/bob. Try:
  curl -u admin:admin -H 'Content-Type: application/json' -d '{"name":"main","comment":"first"}' $base/catalogs
  curl -u admin:admin -H 'Content-Type: application/json' -d '{"name":"sales","catalog_name":"main"}' $base/schemas
  curl -u admin:admin '$base/schemas?catalog_name=main'
  curl -u admin:admin -H 'Content-Type: application/json' -d '{"name":"orders","catalog_name":"main","schema_name":"sales","table_type":"EXTERNAL","data_source_format":"DELTA","storage_location":"$var/data/orders","columns":[{"name":"id","type_text":"bigint","type_json":"{}","type_name":"LONG"}]}' $base/tables
  curl -u admin:admin '$base/tables?catalog_name=main&schema_name=sales'
  curl -u admin:admin $base/external-locations
  curl -u admin:admin -H 'Content-Type: application/json' -d '{"table_id":"<table_id of orders>","operation":"READ"}' $base/temporary-table-credentials
  curl -u admin:admin -X PATCH -H 'Content-Type: application/json' -d '{"changes":[{"principal":"alice","add":["USE CATALOG","USE SCHEMA"]}]}' $base/permissions/catalog/main
  curl -u alice:alice '$base/schemas?catalog_name=main'
  curl -u admin:admin -X DELETE '$base/catalogs/main?force=true'
Ctrl-C stops the server.
MSG

# The demo data folder is an external location (file://, no credential),
# so that external tables and volumes there are governed like any other
# storage: made once the server answers, kept in the catalog afterwards.
apache2 -f "$var/httpd.conf" -DFOREGROUND &
httpd_pid=$!
trap 'kill -TERM "$httpd_pid" 2>/dev/null' INT TERM
i=0
while [ $i -lt 300 ] && kill -0 "$httpd_pid" 2>/dev/null &&
      ! curl -s -o /dev/null "$base/metastore_summary"; do
    sleep 0.1
    i=$((i + 1))
done
# A 503 is the catalog asking to be asked again shortly.
i=0
while :; do
    code=$(curl -s -o /dev/null -w '%{http_code}' -u admin:admin \
        -H 'Content-Type: application/json' \
        -d "{\"name\":\"demo_data\",\"url\":\"$var/data\",\"comment\":\"make run's demo data\"}" \
        "$base/external-locations") || code=none
    i=$((i + 1))
    [ "$code" = 503 ] && [ $i -lt 30 ] || break
    sleep 1
done
case $code in
    200) echo "make run: $var/data is the external location demo_data" ;;
    400) ;;    # registered by an earlier run
    *) echo "make run: could not register $var/data as a location ($code)" >&2 ;;
esac
wait "$httpd_pid"
