# SPDX-License-Identifier: Apache-2.0
# Every fixture table whose log goes back to version 0, shared with its
# history and read through the protocol at every version, in both
# response formats, and by timestamp; its change data feed where it has
# one. What the server answers is compared with an independent replay of
# the fixture's JSON commits, made here: the same files (by path, size
# and partition values), the version header, the files' versions; the
# parquet format refused exactly when the table needs deletion vectors or
# column mapping; every file URL read with a Range (206, or 404 for the
# data files some fixtures come without). One test per fixture
# collects its mismatches, so a failure names the fixture, the version
# and what differed.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use JSON::PP ();
use Apache::Test qw(-withtestmore);
use Unicat::Test;

my @fixtures = @FIXTURES_WITH_HISTORY;
plan tests => @fixtures + 3;

my $p = "fx67_$$";
my $source = "$FindBin::Bin/../delta/fixtures";
my $T0 = Unicat::Test::HISTORY_T0;     # commit v is made at $T0 + 100 * v
my $DELTA = 'responseformat=delta;readerfeatures=deletionvectors,'
          . 'columnmapping,timestampntz,v2checkpoint,vacuumprotocolcheck,'
          . 'domainmetadata,rowtracking,icebergcompatv1';
sub decoded { (my $s = $_[0]) =~ s/%([0-9A-Fa-f]{2})/chr hex $1/ge; $s }
sub dv_key {
    my ($dv) = @_;
    return '' unless ref $dv eq 'HASH';
    return join ':', map { $dv->{$_} // '' } qw(storageType pathOrInlineDv offset);
}

# The replay: for each version, its live files (decoded path + its
# deletion vector => the add), its metaData and protocol; and per commit
# its data changes.
sub replay {
    my ($dir) = @_;
    my (%files, $meta, $protocol, @versions);
    for my $commit (commits_of($dir)) {
        my @changes;
        for my $a (actions_of($commit)) {
            $meta = $a->{metaData} if $a->{metaData};
            $protocol = $a->{protocol} if $a->{protocol};
            if (my $add = $a->{add}) {
                $files{ decoded($add->{path}) . '#' . dv_key($add->{deletionVector}) } = $add;
                push @changes, [ add => decoded($add->{path}) ] if $add->{dataChange};
            }
            if (my $rm = $a->{remove}) {
                delete $files{ decoded($rm->{path}) . '#' . dv_key($rm->{deletionVector}) };
                push @changes, [ remove => decoded($rm->{path}) ] if $rm->{dataChange};
            }
            push @changes, [ cdf => decoded($a->{cdc}{path}) ] if $a->{cdc};
        }
        # A commit with cdc files tells its changes by them alone.
        @changes = grep { $_->[0] eq 'cdf' } @changes
            if grep { $_->[0] eq 'cdf' } @changes;
        push @versions, { files => { %files }, meta => $meta,
                          protocol => $protocol, changes => \@changes };
    }
    return \@versions;
}
sub setting {
    my ($meta, $key) = @_;
    return (($meta || {})->{configuration} || {})->{$key} // '';
}
sub needs_delta {
    my ($state) = @_;
    return setting($state->{meta}, 'delta.enableDeletionVectors') eq 'true'
        || (setting($state->{meta}, 'delta.columnMapping.mode') || 'none')
           ne 'none';
}

# --- the provider ------------------------------------------------------------
my %replay = map { $_ => replay("$source/$_") } @fixtures;
my $s = shared_fixtures($p, \@fixtures, "rcp_$p");
my $token = $s->{token}{"rcp_$p"};
ok($token, 'every fixture is shared with its history');

# --- the recipient -----------------------------------------------------------
my $T = "/shares/$s->{share}/schemas/pub/tables";
my $ua = Unicat::Test::user_agent();
my ($urls_read, $urls_failed) = (0, 0);

sub query {
    my ($name, $body, $caps) = @_;
    return sharing_api($token, POST => "$T/" . fixture_table_name($name)
                       . '/query',
                       body => $body,
                       headers => [ $caps ? ('delta-sharing-capabilities'
                                             => $caps) : () ]);
}
# The key of a file URL of the files route, decoded.
sub key_of_url {
    my ($url) = @_;
    my ($key) = ($url // '') =~ m{/files/[0-9a-f-]{36}/([^?]+)} or return '';
    return join '/', map { decoded($_) } split m{/}, $key;
}
# A Range read of a URL: 206 for a file the fixture holds, 404 for one
# its log names without it (some fixtures come without their data).
sub read_url {
    my ($name, $url) = @_;
    my $r = $ua->get($url, Range => 'bytes=0-3');
    my $held = -f "$s->{tmp}/" . fixture_table_name($name) . '/'
                  . key_of_url($url);
    my $ok = $held ? $r->code == 206 && length($r->content) == 4
                   : $r->code == 404;
    $ok ? $urls_read++ : $urls_failed++;
    diag 'a Range read of ' . key_of_url($url) . ' was a ' . $r->code
        unless $ok;
}
# What an answer's files say, as the replay keys them.
sub answered_files {
    my ($lines, $delta) = @_;
    my %got;
    for my $l (@$lines[2 .. $#$lines]) {
        my $f = $l->{file} or next;
        my $a = $delta ? ($f->{deltaSingleAction} || {})->{add} || {} : $f;
        my $url = $delta ? $a->{path} : $f->{url};
        my $dv = $delta ? dv_key($a->{deletionVector}) : '';
        $got{ key_of_url($url) . '#' . $dv } = {
            size => $a->{size}, partitionValues => $a->{partitionValues},
            version => $f->{version}, url => $url };
    }
    return \%got;
}
my $JSON = JSON::PP->new->canonical;
sub same_files {
    my ($want, $got, $version, $delta) = @_;
    my @bad;
    for my $k (sort keys %$want) {
        my $g = $got->{$k};
        my $w = $want->{$k};
        # The delta format rewrites a deletion vector stored in a file into
        # a URL, which keys it otherwise: compare those by path alone.
        ($g) = grep { (split /#/, $_)[0] eq (split /#/, $k)[0] } keys %$got
            and $g = $got->{$g} if !$g && $delta;
        if (!$g) { push @bad, "missing $k"; next }
        push @bad, "size of $k" if ($g->{size} // -1) != $w->{size};
        push @bad, "partitions of $k"
            if $JSON->encode($g->{partitionValues} || {})
               ne $JSON->encode($w->{partitionValues} || {});
        push @bad, "version of $k" if !$delta && ($g->{version} // -1) != $version;
    }
    push @bad, scalar(keys %$got) . ' files, not ' . scalar(keys %$want)
        if keys %$got != keys %$want;
    return @bad;
}
sub iso {
    my @t = gmtime($_[0]);
    return sprintf '%04d-%02d-%02dT%02d:%02d:%02dZ', $t[5] + 1900, $t[4] + 1,
        @t[3, 2, 1, 0];
}

for my $name (@fixtures) {
    my $states = $replay{$name};
    my @bad;
    for my $v (0 .. $#$states) {
        my $state = $states->[$v];
        for my $delta (0, 1) {
            my $r = query($name, { version => $v }, $delta ? $DELTA : undef);
            my $format = $delta ? 'delta' : 'parquet';
            if (!$delta && needs_delta($state)) {
                my $j = json_of($r) || {};
                push @bad, "v$v parquet: " . $r->code . " not a refusal"
                    unless $r->code == 400
                           && ($j->{errorCode} // '') eq 'UNSUPPORTED_OPERATION';
                next;
            }
            if ($r->code != 200
                || ($r->header('Delta-Table-Version') // '') ne $v) {
                push @bad, "v$v $format: " . $r->code . ' '
                    . substr($r->content, 0, 200);
                next;
            }
            my $lines = answer_lines($r);
            my $got = answered_files($lines, $delta);
            push @bad, map { "v$v $format: $_" }
                same_files($state->{files}, $got, $v, $delta);
            read_url($name, $_->{url}) for values %$got;
        }
    }
    # By timestamp: the version committed last before it (commit times are
    # the files' times, except with in-commit timestamps).
    if (@$states > 1 && setting($states->[-1]{meta},
                                'delta.enableInCommitTimestamps') ne 'true') {
        my $v = int($#$states / 2);
        my $r = query($name, { timestamp => iso($T0 + 100 * $v + 50) },
                      $DELTA);
        push @bad, "timestamp of v$v: " . $r->code . ' '
            . ($r->header('Delta-Table-Version') // 'no version')
            unless $r->code == 200
                   && ($r->header('Delta-Table-Version') // '') eq $v;
    }
    # The change data feed, from the first version that has it.
    my ($from) = grep { setting($states->[$_]{meta},
                                'delta.enableChangeDataFeed') eq 'true' }
                 0 .. $#$states;
    if (defined $from && setting($states->[-1]{meta},
                                 'delta.enableChangeDataFeed') eq 'true') {
        my $r = sharing_api($token, GET => "$T/" . fixture_table_name($name)
                            . '/changes', query => { startingVersion => $from },
                            headers => [ 'delta-sharing-capabilities'
                                         => $DELTA ]);
        my (@want, @got);
        for my $v ($from .. $#$states) {
            push @want, map { "$v $_->[0] $_->[1]" }
                @{ $states->[$v]{changes} };
        }
        for my $l (@{ answer_lines($r) }) {
            my $a = ($l->{file} || {})->{deltaSingleAction} or next;
            my ($kind) = grep { $a->{$_} } qw(add remove cdc) or next;
            push @got, join ' ', $l->{file}{version},
                $kind eq 'cdc' ? 'cdf' : $kind, key_of_url($a->{$kind}{path});
            read_url($name, $a->{$kind}{path}) unless $kind eq 'remove';
        }
        push @bad, "changes from v$from: " . $r->code . ' '
            . join(' | ', grep { my $w = $_; !grep { $_ eq $w } @got } @want)
            unless $r->code == 200
                   && join("\n", sort @want) eq join("\n", sort @got);
    }
    ok(!@bad, "$name: " . @$states . ' versions in both formats, by '
       . 'timestamp, and its changes') or diag join "\n", @bad[0 .. ($#bad < 9 ? $#bad : 9)];
}
# includeHistoricalProtocol: in the delta format, a streaming query tells
# each protocol of the range with its version (v2-checkpoint-json
# upgrades its protocol at version 1); without it, only the first.
my @protocols = map {
    my $lines = answer_lines(query('v2-checkpoint-json',
        { startingVersion => 0, $_ ? (includeHistoricalProtocol => \1) : () },
        $DELTA));
    join ',', map { $_->{protocol}{version} // 'none' }
              grep { $_->{protocol} } @$lines;
} 1, 0;
is("@protocols", '0,1 none', 'includeHistoricalProtocol: the protocols of '
   . 'the range, each with its version');
ok($urls_read > 100 && !$urls_failed,
   "every file URL answered a Range read ($urls_read reads)")
    or diag "$urls_failed failed";
