#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `make deb`: the Debian package libapache2-mod-unicat, built from a copy of
# the sources with this folder as its debian/ (the project keeps its
# top-level layout), into $1 (default build/deb). Prints the .deb's path.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/build/deb}
version=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' "$top/conf/debian/changelog")

rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage="$out/mod-unicat-$version"
mkdir "$stage"
# The sources the build reads; nothing built, nothing of a test run.
tar -C "$top" -cf - Makefile README.md mod_unicat/*.c mod_unicat/*.h src sql \
    conf/unicat.load conf/unicat.conf | tar -C "$stage" -xf -
find "$stage/src" -name '*_gen.c' -delete
cp -R "$top/conf/debian" "$stage/debian"
rm -f "$stage/debian/build-deb.sh"
(cd "$stage" && dpkg-buildpackage -b -us -uc --no-sign > "$out/build.log" 2>&1) || {
    tail -n 40 "$out/build.log" >&2
    echo "make deb: dpkg-buildpackage failed (whole log: $out/build.log)" >&2
    exit 1
}
deb=$(ls "$out"/libapache2-mod-unicat_"$version"_*.deb)
echo "$deb"
