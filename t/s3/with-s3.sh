#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs CMD against a local S3: s3rver behind a proxy that verifies every
# request's SigV4 signature independently (sigv4-proxy.mjs), with a bucket
# filled by upload.mjs, a stand-in for AWS STS's AssumeRole (sts.mjs, run
# by the proxy) and one for Cloudflare's R2 temporary credentials (r2.mjs,
# run by the proxy too), whose temporary credentials the proxy accepts
# within their session policy or R2 scope. Exits with CMD's status, or
# non-zero when the harness cannot be brought up.
#
# Usage: sh t/s3/with-s3.sh CMD [ARG...]
#
# CMD sees:
#   UNICAT_S3_ENDPOINT       http://127.0.0.1:PORT (the proxy)
#   UNICAT_S3_BUCKET         the bucket
#   UNICAT_S3_KEY / _SECRET  credentials the proxy accepts
#   UNICAT_S3_REGION         the region they are scoped to
#   UNICAT_S3_SESSION_TOKEN  the one session token the proxy accepts
#   UNICAT_S3_PROXY_LOG      the proxy's log, one line per request
#   UNICAT_DELTA_FIXTURES    the fixture directory uploaded under fixtures/
#   UNICAT_STS_ENDPOINT      http://127.0.0.1:PORT, the STS stand-in: it
#                            takes AssumeRole calls signed (service sts)
#                            by UNICAT_S3_KEY / _SECRET, with or without
#                            UNICAT_S3_SESSION_TOKEN
#   UNICAT_STS_ROLE_ARN      the one role it lets them assume
#   UNICAT_STS_EXTERNAL_ID   the external id it demands for that role; a
#                            POST of Action=TrustExternalId&RoleArn=…
#                            &ExternalId=… signed with the base keys adds
#                            one (as an administrator edits the role's trust
#                            policy for a credential's external_id)
#   UNICAT_STS_LOG           its log: "VERDICT SESSION-NAME" per request
#                            (session names that make it misbehave on
#                            purpose, uc-hang among them, are in sts.mjs)
#   UNICAT_R2_API_BASE       http://127.0.0.1:PORT/client/v4, the stand-in
#                            for Cloudflare's API: it serves POST
#                            {base}/accounts/{id}/r2/temp-access-credentials
#                            for UNICAT_S3_BUCKET only (its error codes,
#                            and the buckets that make it misbehave on
#                            purpose, hang-bucket among them, are in r2.mjs)
#   UNICAT_R2_ACCOUNT_ID     the one account id (32 hex digits) it serves
#   UNICAT_R2_API_TOKEN      the one bearer token it accepts
#   UNICAT_R2_PARENT_KEY     the parent access key id it accepts, which is
#                            UNICAT_S3_KEY: the base identity stands for it
#   UNICAT_R2_LOG            its log: "VERDICT BUCKET" per request
#
# Environment read:
#   UNICAT_DELTA_FIXTURES      default: t/delta/fixtures
#   UNICAT_S3_NODE_DIR         npm prefix for the tools, default build/node-s3
#   UNICAT_S3_INJECT_BAD_SECRET=1  hands CMD a wrong secret (the proxy keeps
#                              the right one): every signed request of CMD
#                              must then be refused with SignatureDoesNotMatch
set -eu

if [ $# -eq 0 ]; then
    echo "usage: $0 CMD [ARG...]" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fixtures=${UNICAT_DELTA_FIXTURES:-$root/t/delta/fixtures}
node_dir=${UNICAT_S3_NODE_DIR:-$root/build/node-s3}
bucket=unicat-test
key=AKIDUNICATTEST
secret=unicat-test-secret/With+Chars=
region=us-east-1
token=unicat-test-session-token/With+Chars==
role_arn=arn:aws:iam::123456789012:role/unicat-test
external_id=unicat-test-external-id
r2_account=0123456789abcdef0123456789abcdef
r2_token=unicat-test-r2-api-token_With-Chars

fail() {
    echo "with-s3.sh: $*" >&2
    exit 1
}

command -v node >/dev/null 2>&1 || fail "node is not installed"
command -v npm >/dev/null 2>&1 || fail "npm is not installed"
[ -d "$fixtures" ] \
    || fail "no Delta fixtures at $fixtures (set UNICAT_DELTA_FIXTURES)"
fixtures=$(cd "$fixtures" && pwd)

# npm ci again whenever the committed lock file changed.
sh "$root/t/npm-install.sh" "$here" "$node_dir" node_modules/s3rver \
    node_modules/aws4 || fail "the npm tools cannot be installed"
node_dir=$(cd "$node_dir" && pwd)
export UNICAT_S3_NODE_DIR="$node_dir"

work=$(mktemp -d "${TMPDIR:-/tmp}/unicat-s3.XXXXXX")
s3rver_pid=
proxy_pid=
cleanup() {
    for pid in $proxy_pid $s3rver_pid; do
        kill "$pid" 2>/dev/null || :
    done
    for pid in $proxy_pid $s3rver_pid; do
        wait "$pid" 2>/dev/null || :
    done
    proxy_pid=
    s3rver_pid=
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# running PID: the process exists and has not exited (an exited child of
# this shell stays a zombie until waited for, and kill -0 still succeeds).
running() {
    kill -0 "$1" 2>/dev/null || return 1
    [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" != Z ]
}

# wait_ready FILE PID NAME LOG: the port the server wrote to FILE.
wait_ready() {
    i=0
    while [ ! -s "$1" ]; do
        if ! running "$2"; then
            cat "$4" >&2 || :
            fail "$3 exited before listening"
        fi
        i=$((i + 1))
        if [ $i -gt 150 ]; then
            cat "$4" >&2 || :
            fail "$3 did not listen within 15 s"
        fi
        sleep 0.1
    done
    cat "$1"
}

# s3rver's continuation tokens are DES-encrypted, a cipher OpenSSL 3 keeps
# in its legacy provider.
node --openssl-legacy-provider "$here/s3rver.mjs" --dir "$work/data" \
    --ready "$work/s3rver.port" >"$work/s3rver.out" 2>&1 &
s3rver_pid=$!
s3_port=$(wait_ready "$work/s3rver.port" "$s3rver_pid" s3rver \
    "$work/s3rver.out")

: >"$work/proxy.log"
: >"$work/sts.log"
: >"$work/r2.log"
# The HTTP suite runs as another user (t/run-http.sh as root) and reads
# these logs; the bucket's files under data/ stay the owner's.
chmod 711 "$work"
chmod 644 "$work/proxy.log" "$work/sts.log" "$work/r2.log"
node "$here/sigv4-proxy.mjs" --upstream "http://127.0.0.1:$s3_port" \
    --key "$key" --secret "$secret" --region "$region" \
    --session-token "$token" --log "$work/proxy.log" \
    --ready "$work/proxy.port" --sts-ready "$work/sts.port" \
    --sts-role "$role_arn" --sts-external-id "$external_id" \
    --sts-log "$work/sts.log" --r2-ready "$work/r2.port" \
    --r2-token "$r2_token" --r2-account "$r2_account" --r2-bucket "$bucket" \
    --r2-log "$work/r2.log" >"$work/proxy.out" 2>&1 &
proxy_pid=$!
proxy_port=$(wait_ready "$work/proxy.port" "$proxy_pid" "SigV4 proxy" \
    "$work/proxy.out")
sts_port=$(wait_ready "$work/sts.port" "$proxy_pid" "STS stand-in" \
    "$work/proxy.out")
r2_port=$(wait_ready "$work/r2.port" "$proxy_pid" "R2 stand-in" \
    "$work/proxy.out")

node "$here/upload.mjs" --endpoint "http://127.0.0.1:$proxy_port" \
    --bucket "$bucket" --key "$key" --secret "$secret" --region "$region" \
    --session-token "$token" --fixtures "$fixtures" \
    --sts-endpoint "http://127.0.0.1:$sts_port" --sts-role "$role_arn" \
    --sts-external-id "$external_id" >&2 \
    || { cat "$work/proxy.out" "$work/s3rver.out" >&2
         fail "upload failed"; }

export UNICAT_S3_ENDPOINT="http://127.0.0.1:$proxy_port"
export UNICAT_S3_BUCKET="$bucket"
export UNICAT_S3_KEY="$key"
export UNICAT_S3_SECRET="$secret"
export UNICAT_S3_REGION="$region"
export UNICAT_S3_SESSION_TOKEN="$token"
export UNICAT_S3_PROXY_LOG="$work/proxy.log"
export UNICAT_DELTA_FIXTURES="$fixtures"
export UNICAT_STS_ENDPOINT="http://127.0.0.1:$sts_port"
export UNICAT_STS_ROLE_ARN="$role_arn"
export UNICAT_STS_EXTERNAL_ID="$external_id"
export UNICAT_STS_LOG="$work/sts.log"
export UNICAT_R2_API_BASE="http://127.0.0.1:$r2_port/client/v4"
export UNICAT_R2_ACCOUNT_ID="$r2_account"
export UNICAT_R2_API_TOKEN="$r2_token"
export UNICAT_R2_PARENT_KEY="$key"
export UNICAT_R2_LOG="$work/r2.log"
# An http_proxy of the environment must not see loopback requests.
export no_proxy="127.0.0.1,localhost,.localhost${no_proxy:+,$no_proxy}"
if [ "${UNICAT_S3_INJECT_BAD_SECRET:-}" = 1 ]; then
    export UNICAT_S3_SECRET="not-$secret"
fi

set +e
"$@"
rc=$?
set -e
if [ $rc -ne 0 ]; then
    # Only the requests the proxy refused say something about a failure;
    # the verified ones (long presigned addresses) would bury the output.
    echo "with-s3.sh: '$*' exited with $rc; last requests the proxy refused:" >&2
    grep -v '^verified ' "$work/proxy.log" | tail -n 10 | cut -c 1-300 >&2 || :
fi
cleanup
exit $rc
