#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `make deb-test`: builds the Debian package (conf/debian/build-deb.sh) and
# checks it as a Debian 12 machine would use it, without touching the
# machine's own httpd or files:
#   - its metadata: the name, httpd's module API and SQLite's dbd driver as
#     dependencies, the files it ships and their modes;
#   - its postinst, run against a scratch root (DPKG_ROOT): /var/lib/unicat
#     for www-data alone, an empty catalog 0600, a secret key 0600 owned by
#     www-data, and a second run that keeps the key;
#   - Debian's apache2 as packaged, in a scratch instance (a copy of
#     /etc/apache2 as APACHE_CONFDIR, its run, lock and log folders in the
#     scratch folder, a free port): "a2enmod unicat" enables the module and
#     what it depends on, apache2ctl starts it, and the installed module
#     serves the catalog (a create, a list) behind Basic authentication,
#     writes the audit log into APACHE_LOG_DIR, keeps unicat-status
#     closed, and leaves a files URL's signature and an activation link's
#     nonce out of Debian's access log. The package's files are used as installed; only the absolute
#     paths of the module, the catalog and the key point into the scratch
#     root.
# Needs root (chown www-data, httpd's parent), as CI runs it; says it is
# skipped otherwise. Exits non-zero on any failure.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$top/build/deb-test}
failures=0
fail() { echo "deb-test: FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { echo "deb-test: ok: $*"; }

if [ "$(id -u)" != 0 ]; then
    echo "deb-test: skipped: it needs root (postinst's chown, httpd's parent); CI runs it"
    exit 0
fi
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
deb=$(sh "$top/conf/debian/build-deb.sh" "$work/pkg") || exit 1
ok "built $(basename "$deb")"

# --- metadata --------------------------------------------------------------
[ "$(dpkg-deb -f "$deb" Package)" = libapache2-mod-unicat ] ||
    fail "the package is not named libapache2-mod-unicat"
depends=$(dpkg-deb -f "$deb" Depends)
case $depends in *apache2-api-20120211*) ;; *) fail "no apache2-api dependency: $depends" ;; esac
case $depends in *libaprutil1-dbd-sqlite3*) ;; *) fail "no dbd-sqlite3 dependency: $depends" ;; esac
case $depends in *libjansson4*) ;; *) fail "no shared-library dependencies: $depends" ;; esac
listing=$(dpkg-deb -c "$deb")
for f in ./usr/lib/apache2/modules/mod_unicat.so ./usr/bin/unicat-delta \
         ./etc/apache2/mods-available/unicat.load \
         ./etc/apache2/mods-available/unicat.conf ./var/lib/unicat/; do
    printf '%s\n' "$listing" | awk '{ print $6 }' | grep -qx "$f" ||
        fail "the package lacks $f"
done
printf '%s\n' "$listing" | grep -q '^-rw-r----- root/root .* ./etc/apache2/mods-available/unicat.conf$' ||
    fail "unicat.conf is not 0640 root"
ok "metadata: $depends"

# --- postinst in a scratch root ---------------------------------------------
root="$work/root"
ctl="$work/control"
dpkg-deb -x "$deb" "$root"
dpkg-deb -e "$deb" "$ctl"
grep -q 'apache2_invoke enmod' "$ctl/postinst" &&
    fail "postinst enables the module itself (a2enmod is the administrator's)"
DPKG_ROOT=$root sh "$ctl/postinst" configure || fail "postinst failed"
mode_of() { stat -c '%a %U:%G' "$1" 2>/dev/null || echo missing; }
[ "$(mode_of "$root/var/lib/unicat")" = "700 www-data:www-data" ] ||
    fail "/var/lib/unicat is $(mode_of "$root/var/lib/unicat")"
[ "$(mode_of "$root/var/lib/unicat/catalog.db")" = "600 www-data:www-data" ] ||
    fail "catalog.db is $(mode_of "$root/var/lib/unicat/catalog.db")"
key="$root/etc/apache2/unicat-secret.key"
[ "$(mode_of "$key")" = "600 www-data:www-data" ] || fail "the key is $(mode_of "$key")"
grep -Eqx '[0-9a-f]{64}' "$key" || fail "the key is not 32 bytes in hex"
first_key=$(cat "$key")
DPKG_ROOT=$root sh "$ctl/postinst" configure || fail "a second postinst failed"
[ "$(cat "$key")" = "$first_key" ] || fail "a second postinst replaced the key"
ok "postinst: catalog home, database and key"

# --- a scratch instance of Debian's apache2 ----------------------------------
conf="$work/apache2"
cp -R /etc/apache2 "$conf"
rm -f "$conf"/sites-enabled/* "$conf"/mods-enabled/unicat.*
port=$(perl -MIO::Socket::INET -e 'print IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => 0, Listen => 1)->sockport')
printf 'Listen 127.0.0.1:%s\n' "$port" > "$conf/ports.conf"
mkdir -p "$work/run" "$work/lock" "$work/log"
cat >> "$conf/envvars" <<ENV
# deb-test: this instance's folders
export APACHE_PID_FILE=$work/run/apache2.pid
export APACHE_RUN_DIR=$work/run
export APACHE_LOCK_DIR=$work/lock
export APACHE_LOG_DIR=$work/log
ENV
# The package's files as installed; absolute paths into the scratch root.
sed "s|/usr/lib/apache2/modules/|$root/usr/lib/apache2/modules/|" \
    "$root/etc/apache2/mods-available/unicat.load" > "$conf/mods-available/unicat.load"
sed -e "s|/var/lib/unicat/|$root/var/lib/unicat/|" \
    -e "s|/etc/apache2/unicat-secret.key|$key|g" \
    "$root/etc/apache2/mods-available/unicat.conf" > "$conf/mods-available/unicat.conf"
perl -MDigest::SHA=sha1_base64 -e 'print "admin:{SHA}", sha1_base64("admin"), "=\n"' > "$conf/smoke.htpasswd"
cat > "$conf/conf-enabled/unicat-smoke.conf" <<CONF
ServerName 127.0.0.1
<Location /api/2.1/unity-catalog>
    AuthType Basic
    AuthName "smoke"
    AuthBasicProvider file
    AuthUserFile $conf/smoke.htpasswd
    Require valid-user
    UnicatMetastoreAdmin admin
</Location>
CONF
chmod -R a+rX "$work/root/usr" "$conf"
chmod 755 "$work" "$root" "$root/var" "$root/var/lib"

APACHE_CONFDIR=$conf a2enmod -q unicat > "$work/a2enmod.out" 2>&1 || fail "a2enmod unicat: $(cat "$work/a2enmod.out")"
for m in unicat dbd reqtimeout; do
    [ -e "$conf/mods-enabled/$m.load" ] || fail "a2enmod unicat did not enable $m"
done
stop() { APACHE_CONFDIR=$conf APACHE_STARTED_BY_SYSTEMD=1 apache2ctl stop > /dev/null 2>&1 || :; }
trap stop EXIT
if ! APACHE_CONFDIR=$conf APACHE_STARTED_BY_SYSTEMD=1 apache2ctl start > "$work/start.out" 2>&1; then
    fail "apache2ctl start: $(cat "$work/start.out")"
fi
base="http://127.0.0.1:$port/api/2.1/unity-catalog"
up=0
for _ in $(seq 1 100); do
    if curl -s -o /dev/null "$base/catalogs"; then up=1; break; fi
    sleep 0.1
done
[ "$up" = 1 ] || fail "the scratch apache2 does not answer: $(tail -n 5 "$work/log/error.log" 2>/dev/null)"
status=$(curl -s -o "$work/create.json" -w '%{http_code}' -u admin:admin \
              -H 'Content-Type: application/json' -d '{"name":"smoke_catalog"}' "$base/catalogs")
[ "$status" = 200 ] || fail "POST /catalogs answered $status: $(cat "$work/create.json")"
status=$(curl -s -o "$work/list.json" -w '%{http_code}' -u admin:admin "$base/catalogs")
[ "$status" = 200 ] && grep -q '"smoke_catalog"' "$work/list.json" ||
    fail "GET /catalogs answered $status: $(cat "$work/list.json")"
status=$(curl -s -o /dev/null -w '%{http_code}' "$base/catalogs")
[ "$status" = 401 ] || fail "without credentials GET /catalogs answered $status"
status=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/unicat-status")
[ "$status" = 403 ] || fail "unicat-status answered $status, not 403"
grep -q '"operation":"CREATE".*"full_name":"smoke_catalog"' "$work/log/unicat-audit.log" 2>/dev/null ||
    fail "no audit line in APACHE_LOG_DIR/unicat-audit.log"
[ "$(stat -c %U "$root/var/lib/unicat/catalog.db")" = www-data ] ||
    fail "the catalog is no longer www-data's"
ok "the installed module serves the catalog on port $port"
# A files URL's signature and an activation link's nonce, refused as they
# may be: Debian's access log (vhost_combined here) has the requests,
# without either.
sig=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
nonce=$(head -c 32 /dev/urandom | base64 | tr '+/' '-_' | cut -c1-43)
curl -s -o /dev/null "http://127.0.0.1:$port/delta-sharing/files/0b6f2c1e-5d4a-4c3b-9a8f-7e6d5c4b3a21/part-0.parquet?exp=1&kid=0a1b2c3d&sig=$sig"
curl -s -o /dev/null "$base/public/data_sharing_activation/$nonce"
stop
trap - EXIT
if grep -rqF -e "$sig" -e "$nonce" "$work/log"; then
    fail "a signature or a nonce is in $(grep -rlF -e "$sig" -e "$nonce" "$work/log")"
elif ! grep -q 'sig=XXXXXXXX' "$work/log/other_vhosts_access.log" ||
     ! grep -q 'data_sharing_activation/XXXXXXXX' "$work/log/other_vhosts_access.log"; then
    fail "the access log lacks the requests: $(tail -n 3 "$work/log/other_vhosts_access.log" 2>/dev/null)"
else
    ok "the access log holds neither a signature nor an activation nonce"
fi

if [ "$failures" != 0 ]; then
    echo "deb-test: $failures failures (files in $work)" >&2
    exit 1
fi
rm -rf "$work"
echo "deb-test: PASS"
