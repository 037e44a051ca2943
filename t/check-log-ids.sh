#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The ids of the module's log lines, checked as httpd checks its APLOGNO
# tags: each is "UC", four digits and ": " at the start of a string, and
# names one place in the code, so that a line of the error log leads to
# the one call that wrote it. Every log call of the core and the glue
# starts its message with an id (a sink that passes on a message written
# elsewhere, with the format "%s", carries that message's id). Every id
# the READMEs or a test name exists. Exits non-zero naming each problem.
set -u
cd "$(dirname "$0")/.." || exit 2
sources=$(find src mod_unicat -name '*.[ch]' ! -name uc_migrations_gen.c | sort)
failed=0

problem() {
    echo "check-log-ids: $*" >&2
    failed=$((failed + 1))
}

# Anything that looks like an id but is not one, as file:line:text.
malformed=$(grep -noE '.?UC[0-9]+.?.?' $sources | grep -vE ':"UC[0-9]{4}: $')
if [ -n "$malformed" ]; then
    problem "malformed log ids (write \"UCnnnn: \" at the start of the message):"
    echo "$malformed" | sed 's/^/  /' >&2
fi

ids=$(grep -ohE '"UC[0-9]{4}: ' $sources | tr -d '": ' | sort)

# The next id free after the highest of `id`'s hundred.
next_free() {
    block=$(echo "$1" | cut -c1-4)
    last=$(echo "$ids" | grep "^$block" | tail -n 1 | cut -c3-)
    printf 'UC%04d' $((1$last - 10000 + 1))
}

for id in $(echo "$ids" | uniq -d); do
    problem "$id is used at more than one place (an id names one call;" \
            "the next free one is $(next_free "$id")):"
    grep -nF "\"$id: " $sources | cut -d: -f1-2 | sed 's/^/  /' >&2
done

# Each log call, from its name to the first string literal: the format.
unlabelled=$(awk '
    FNR == 1 { inside = 0 }
    !inside && /(^|[^A-Za-z0-9_])(ap_log_(r|c|p|cs)?error|uc_log)[ \t]*\(/ &&
        !/^[A-Za-z_].*[A-Za-z0-9_*][ \t*]+(ap_log_[a-z]*|uc_log)[ \t]*\(/ {
        inside = 1; where = FILENAME ":" FNR
    }
    inside && index($0, "\"") {
        format = substr($0, index($0, "\""))
        if (format !~ /^"UC[0-9][0-9][0-9][0-9]: / && format !~ /^"%s"/)
            print where
        inside = 0
    }' $sources)
if [ -n "$unlabelled" ]; then
    problem "log calls whose message starts without an id:"
    echo "$unlabelled" | sed 's/^/  /' >&2
fi

# The ids the READMEs and the tests name.
for id in $(grep -rIohE 'UC[0-9]{4}' README.md src/README.md t --exclude-dir=fixtures \
                --exclude-dir=node_modules --exclude-dir=logs \
                --exclude-dir=state --exclude=check-log-ids.sh | sort -u); do
    echo "$ids" | grep -qx "$id" ||
        problem "$id is named in a README or t/ but no log line carries it"
done

[ "$failed" = 0 ] || exit 1
echo "check-log-ids: $(echo "$ids" | wc -l) log ids, each at one place"
