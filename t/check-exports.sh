#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A function src/ exports lives in the file its name says: when the name
# begins with the name of a source file and '_' (uc_sharing_query_end:
# uc_sharing_query.c), the longest such file defines it, so that whoever
# reads a call knows where to look.
set -eu
perl -e '
    my (%stem, %def, $bad);
    for my $c (glob "src/*/*.c") {
        (my $s = $c) =~ s{.*/|\.c$}{}g;
        $stem{$s} = $c;
        open my $fh, "<", $c or die "$c: $!";
        while (<$fh>) {
            $def{$1} //= $c
                if /^(?!static)(?:const )?[a-z_][\w *]*?\b(uc_\w+)\(/;
        }
    }
    for my $f (sort keys %def) {
        my ($best) = sort { length $b <=> length $a }
                     grep { index($f, "${_}_") == 0 } keys %stem;
        next if !$best || $stem{$best} eq $def{$f};
        print "$f is defined in $def{$f}, but its name says $stem{$best}\n";
        $bad++;
    }
    printf "check-exports: %d functions exported, %s\n", scalar(keys %def),
        $bad ? "$bad in the wrong file" : "each in the file its name says";
    exit($bad ? 1 : 0);'
