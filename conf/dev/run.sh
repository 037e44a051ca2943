#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `make run`: httpd in the foreground on 127.0.0.1 with the module and an
# embedded SQLite catalog in ./var, Basic auth users admin, alice and bob.
# In an empty catalog it makes a demo (a Delta table, a share of it, a
# recipient and its profile file), then prints commands to try.
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

# What this script adds to ./var once httpd runs is the server user's too.
give() {
    if [ "$(id -u)" = 0 ]; then chown -R "$owner:$group" "$@"; fi
}

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
    give "$var/htpasswd"
fi

awk -v port="$port" -v var="$var" -v top="$top" -v users="$user_lines" '
    { gsub(/@PORT@/, port); gsub(/@VAR@/, var); gsub(/@TOP@/, top);
      gsub(/@USER_LINES@/, users); print }' conf/dev/httpd.conf.in > "$var/httpd.conf"

server="http://127.0.0.1:$port"
base="$server/api/2.1/unity-catalog"

# One call of the catalog API as admin: the status in $code, the body in
# $answer. A 503 is the catalog asking to be asked again shortly. The
# user agent keeps this script's calls out of the access log.
call() {
    i=0
    while :; do
        answer=$(curl -s -w ' %{http_code}' -A make-run -u admin:admin -X "$1" \
            -H 'Content-Type: application/json' ${3:+-d "$3"} "$base$2") ||
            answer="(no answer) none"
        code=${answer##* }
        answer=${answer% *}
        i=$((i + 1))
        [ "$code" = 503 ] && [ $i -lt 30 ] || break
        sleep 1
    done
}

# A call the demo needs: anything but a 200 stops it, and says where.
demo_call() {
    call "$@"
    [ "$code" = 200 ] && return 0
    echo "make run: the demo stopped at $1 $2: $code $answer" >&2
    return 1
}

# Opens the recipient's activation link, whose answer is its profile file;
# the link is the last one of the answer ($answer), the newest token's.
write_profile() {
    link=$(printf '%s' "$answer" | sed -n 's/.*"activation_url":"\([^"]*\)".*/\1/p')
    curl -sf -A make-run -o "$var/demo.share" "$link" || {
        echo "make run: the demo recipient's activation link did not open" >&2
        rm -f "$var/demo.share"
        return 1
    }
    give "$var/demo.share"
}

# The catalog holds nothing yet: no catalog, share or recipient.
catalog_is_empty() {
    for list in catalogs shares recipients; do
        call GET "/$list"
        [ "$code" = 200 ] && ! printf '%s' "$answer" | grep -q '"name"' || return 1
    done
}

# The demo: conf/dev/demo/orders (made by t/delta/gen/make-demo-table.mjs)
# copied into var/data/demo, with its commits dated as their commitInfo
# says (the reader takes a commit's time from its file); the table in the
# catalog, a share of it with its history, a recipient granted the share,
# and the recipient's profile file.
make_demo() {
    table="$var/data/demo/orders"
    if [ ! -d "$table/_delta_log" ]; then
        mkdir -p "$var/data/demo"
        cp -R conf/dev/demo/orders "$table" || return 1
        for commit in "$table"/_delta_log/*.json; do
            ms=$(sed -n '1s/.*"timestamp":\([0-9]*\).*/\1/p' "$commit")
            touch -d "@$((ms / 1000))" "$commit"
        done
        give "$var/data/demo"
    fi
    demo_call POST /catalogs '{"name":"demo","comment":"made by make run"}' &&
    demo_call POST /schemas '{"name":"sales","catalog_name":"demo"}' &&
    demo_call POST /tables "$(sed "s|@LOCATION@|$table|" conf/dev/demo/orders.json)" &&
    demo_call POST /shares '{"name":"demo_share"}' &&
    demo_call PATCH /shares/demo_share '{"updates":[{"action":"ADD","data_object":{
        "name":"demo.sales.orders","data_object_type":"TABLE","shared_as":"sales.orders",
        "history_data_sharing_status":"ENABLED","enable_cdf":true}}]}' &&
    demo_call POST /recipients \
        '{"name":"demo_recipient","authentication_type":"TOKEN"}' &&
    write_profile &&
    demo_call PATCH /shares/demo_share/permissions \
        '{"changes":[{"principal":"demo_recipient","add":["SELECT"]}]}'
}

# The demo is made once, in an empty catalog ("made"; "other" when the
# catalog has content of its own, nothing when the catalog cannot be asked
# or making the demo failed). A profile file deleted since is written anew
# from a new token (the old one expires at once); one of an earlier run on
# another port is pointed at this one.
demo_status() {
    call GET /catalogs/demo
    if [ "$code" = 404 ]; then
        if catalog_is_empty; then make_demo && echo made; else echo other; fi
    elif [ "$code" != 200 ]; then
        return 1
    elif [ ! -s "$var/demo.share" ]; then
        demo_call POST /recipients/demo_recipient/rotate-token \
            '{"existing_token_expire_in_seconds":0}' && write_profile && echo kept
    else
        sed -i "s|\"endpoint\":\"[^\"]*\"|\"endpoint\":\"$server/delta-sharing/\"|" \
            "$var/demo.share"
        echo kept
    fi
}

# What to try: the demo through the catalog, its history, the share read
# as the recipient reads it, and the metrics.
print_demo() {
    cat <<MSG
$1 the Delta table demo.sales.orders
(versions 0 to 3, partitioned by region) in var/data/demo/orders, shared as sales.orders
in demo_share with the recipient demo_recipient, whose profile file is var/demo.share.
Try, from this folder:
  uc=$base
  # the web console's page (open $server/ in a browser to use it)
  curl -u admin:admin $server/
  curl -u admin:admin \$uc/catalogs
  curl -u admin:admin "\$uc/tables?catalog_name=demo&schema_name=sales"
  curl -u admin:admin \$uc/tables/demo.sales.orders
  # the table's history, from its Delta log: what each version added and removed
  build/unicat-delta --changes 0:3 var/data/demo/orders
  # the table read as the recipient reads it, with the token of its profile file
  ds=$server/delta-sharing/shares/demo_share
  table=\$ds/schemas/sales/tables/orders
  token=\$(sed -n 's/.*"bearerToken":"\\([^"]*\\)".*/\\1/p' var/demo.share)
  curl -H "Authorization: Bearer \$token" \$ds/all-tables
  curl -H "Authorization: Bearer \$token" -X POST \$table/query
  curl -H "Authorization: Bearer \$token" -H 'Content-Type: application/json' -d '{"version":1}' \$table/query
  curl -H "Authorization: Bearer \$token" "\$table/changes?startingVersion=0"
  python3 -c "import delta_sharing; print(delta_sharing.load_as_pandas('var/demo.share#demo_share.sales.orders'))"
  # the server's metrics, in Prometheus' format
  curl $server/unicat-status
MSG
}

print_plain() {
    cat <<MSG
The catalog has content of its own: make run makes its demo only in an empty one. Try:
  curl -u admin:admin $base/catalogs
  curl $server/unicat-status
MSG
}

apache2 -f "$var/httpd.conf" -DFOREGROUND &
httpd_pid=$!
trap 'kill -TERM "$httpd_pid" 2>/dev/null' INT TERM
i=0
while [ $i -lt 300 ] && kill -0 "$httpd_pid" 2>/dev/null &&
      ! curl -s -o /dev/null -A make-run "$base/metastore_summary"; do
    sleep 0.1
    i=$((i + 1))
done

# The demo data folder is an external location (file://, no credential),
# so that external tables and volumes there are governed like any other
# storage: made once the server answers, kept in the catalog afterwards.
call POST /external-locations \
    "{\"name\":\"demo_data\",\"url\":\"$var/data\",\"comment\":\"make run's demo data\"}"
case $code in
    200) echo "make run: $var/data is the external location demo_data" ;;
    400) ;;    # registered by an earlier run
    *) echo "make run: could not register $var/data as a location ($code)" >&2 ;;
esac

demo=$(demo_status) || demo=""
echo "mod_unicat on $server (catalog: $var/catalog.db)"
echo "Users: admin/admin (metastore admin), alice/alice and bob/bob (who need grants)."
echo "The web console: open $server/ in a browser and sign in as one of them."
case $demo in
    made) print_demo "make run made its demo in the empty catalog:" ;;
    kept) print_demo "The demo of an earlier run is there:" ;;
    other) print_plain ;;
esac
echo "Ctrl-C stops the server."
wait "$httpd_pid"
