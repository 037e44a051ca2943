#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs CMD against a stand-in for Google's OAuth token endpoint, STS and
# Cloud Storage (t/gcp/token.mjs, plain node) on loopback, which verifies
# the JWTs it is sent with the public half of a throw-away service account
# key made here, checks Credential Access Boundaries, answers whether a
# downscoped token may read, write or list a name, and serves a bucket of
# the Delta fixtures to its tokens and to V4 URLs signed with that key. Exits with CMD's status, or
# non-zero when the stand-in cannot be brought up.
#
# Usage: sh t/gcp/with-gcp.sh CMD [ARG...]
#
# CMD sees:
#   UNICAT_GCP_TOKEN_URI         http://127.0.0.1:PORT/token
#   UNICAT_GCP_STS_URI           http://127.0.0.1:PORT/v1/token
#   UNICAT_GCP_CHECK_URI         http://127.0.0.1:PORT/check
#   UNICAT_GCP_CLIENT_EMAIL      the service account
#   UNICAT_GCP_PRIVATE_KEY_ID    its key's id (the JWT's kid)
#   UNICAT_GCP_PRIVATE_KEY_FILE  its private key, PKCS#8 PEM
#   UNICAT_GCS_ENDPOINT          http://127.0.0.1:PORT, Cloud Storage's JSON
#                                API and V4 signed URLs (path style)
#   UNICAT_GCS_BUCKET            unicat-test, a bucket holding t/delta: the
#                                Delta fixtures are under fixtures/
set -eu

if [ $# -eq 0 ]; then
    echo "usage: $0 CMD [ARG...]" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
email=unicat-test@unicat-test.iam.gserviceaccount.com

fail() {
    echo "with-gcp.sh: $*" >&2
    exit 1
}

command -v node >/dev/null 2>&1 || fail "node is not installed"
command -v openssl >/dev/null 2>&1 || fail "openssl is not installed"

work=$(mktemp -d "${TMPDIR:-/tmp}/unicat-gcp.XXXXXX") || exit 1
pid=""
# The stand-in's status, killed, is not a failure: the key goes in any case.
cleanup() {
    if [ -n "$pid" ] && kill "$pid" 2>/dev/null; then
        wait "$pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

key="$work/service-account.pem"
(umask 077 && openssl genpkey -algorithm RSA \
    -pkeyopt rsa_keygen_bits:2048 -out "$key" 2>/dev/null) \
    || fail "cannot make a key"
kid=$(openssl rand -hex 20)

# Cloud Storage: the bucket unicat-test holds t/delta (its fixtures/).
mkdir "$work/gcs" && ln -s "$(cd "$here/../delta" && pwd)" "$work/gcs/unicat-test" \
    || fail "cannot make the bucket"
# Pages of two names: every listing of a log takes several.
GCS_PAGE=2 node "$here/token.mjs" "$key" "$email" "$kid" "$work/gcs" >"$work/token.out" 2>&1 &
pid=$!
i=0
until grep -q "^listening " "$work/token.out" 2>/dev/null; do
    i=$((i + 1))
    if [ $i -ge 100 ] || ! kill -0 "$pid" 2>/dev/null; then
        cat "$work/token.out" >&2
        fail "the token stand-in did not come up"
    fi
    sleep 0.1
done
base="http://127.0.0.1:$(sed -n 's/^listening //p' "$work/token.out")"

export UNICAT_GCP_TOKEN_URI="$base/token" \
    UNICAT_GCP_STS_URI="$base/v1/token" UNICAT_GCP_CHECK_URI="$base/check" \
    UNICAT_GCP_CLIENT_EMAIL="$email" UNICAT_GCP_PRIVATE_KEY_ID="$kid" \
    UNICAT_GCP_PRIVATE_KEY_FILE="$key" UNICAT_GCS_ENDPOINT="$base" \
    UNICAT_GCS_BUCKET=unicat-test
status=0
"$@" || status=$?
exit $status
