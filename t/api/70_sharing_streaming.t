# SPDX-License-Identifier: Apache-2.0
# The query route of the Delta Sharing server in streaming mode, as Spark
# Structured Streaming reads a table (startingVersion, endingVersion), and
# its refresh tokens (includeRefreshToken, refreshToken). The fixture
# tables get commit times set here, so that every line's version and
# timestamp is checked against what the log says: the data-changing adds
# and removes of each commit, the metaData lines of later versions, in
# both response formats, filtered by the share object's partitions and by
# jsonPredicateHints, page by page; each refusal's status and errorCode;
# a refresh token's round trip, and the tokens that are refused.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Digest::MD5 ();
use Digest::SHA ();
use File::Temp ();
use JSON::PP ();
use Apache::Test qw(-withtestmore);
use Apache::TestRequest ();
use Unicat::Test;

plan tests => 46;

my $p = "ds68_$$";
my ($cat, $share, $recipient) = ("cat_$p", "shr_$p", "rcp_$p");
my $fixtures = "$FindBin::Bin/../delta/fixtures";
my $tmp = File::Temp::tempdir("unicat-s68-XXXXXX", TMPDIR => 1,
                              CLEANUP => 1);
chmod 0755, $tmp;
my %copies = (cdf => 'cdf-table', cdfp => 'cdf-table', fresh => 'cdf-table',
              stats => 'delta-1.2.1-only-struct-stats',
              dvp => 'dv-partitioned-with-checkpoint',
              plain => 'cdf-table');
# Commit v of every table was made at T0 + 100 v seconds.
my $T0 = 1700000000;
sub ts_of { ($T0 + 100 * $_[0]) * 1000 }
for my $name (sort keys %copies) {
    system('cp', '-r', "$fixtures/$copies{$name}", "$tmp/$name") == 0
        or die "setup: cannot copy $copies{$name}";
    for my $commit (glob "$tmp/$name/_delta_log/*.json") {
        my ($v) = $commit =~ m{/(\d{20})\.json$};
        utime $T0 + 100 * $v, $T0 + 100 * $v, $commit or die "setup: $!";
    }
}
system('chmod', '-R', 'a+rX', $tmp);
END {
    api(DELETE => "/shares/$share");
    api(DELETE => "/recipients/$recipient");
    drop_catalog($cat);
}

# --- the provider -------------------------------------------------------------
create_catalog($cat);
create_schema($cat, 'sales');
for my $name (sort keys %copies) {
    create_object('/tables', { catalog_name => $cat, schema_name => 'sales',
        name => $name, table_type => 'EXTERNAL', data_source_format => 'DELTA',
        columns => [], storage_location => "file://$tmp/$name" });
}
create_object('/shares', { name => $share });
sub add { { action => 'ADD', data_object => { @_ } } }
my %history = (history_data_sharing_status => 'ENABLED');
my $res = api(PATCH => "/shares/$share", body => { updates => [
    add(name => "$cat.sales.cdf", shared_as => 'pub.cdf', %history),
    add(name => "$cat.sales.cdfp", shared_as => 'pub.cdfp', %history,
        partitions => [ { values => [ { name => 'birthday', op => 'EQUAL',
                                        value => '2023-12-24' } ] } ]),
    add(name => "$cat.sales.fresh", shared_as => 'pub.fresh', %history),
    add(name => "$cat.sales.stats", shared_as => 'pub.stats', %history,
        start_version => 2),
    add(name => "$cat.sales.dvp", shared_as => 'pub.dvp', %history),
    add(name => "$cat.sales.plain", shared_as => 'pub.plain'),
] });
is($res->code, 200, 'the provider shares six tables') or diag $res->content;
create_object('/recipients', { name => $recipient,
                               authentication_type => 'TOKEN' });
api(PATCH => "/shares/$share/permissions", body => { changes => [
    { principal => $recipient, add => ['SELECT'] } ] });
my $token = token_of_recipient($recipient);
ok(length($token // '') >= 43, 'the recipient activates its link');

# --- the recipient's client ---------------------------------------------------
my $T = "/shares/$share/schemas/pub/tables";
my $DELTA = 'responseformat=delta;readerfeatures=deletionvectors';
sub query {
    my ($table, $body, $caps) = @_;
    return sharing_api($token, POST => "$T/$table/query", body => $body,
                       headers => [ $caps ? ('delta-sharing-capabilities'
                                             => $caps) : () ]);
}
sub values_of { (values %{ $_[0] })[0] }

# A line after the first two, as "kind:id@version:timestamp" (metaData:
# "metaData@version"); delta-format files by the action they carry.
sub change_of {
    my ($line) = @_;
    my ($kind) = keys %$line;
    my $v = $line->{$kind};
    return "metaData\@$v->{version}" if $kind eq 'metaData';
    ($kind) = keys %{ $v->{deltaSingleAction} } if $v->{deltaSingleAction};
    return "$kind:$v->{id}\@$v->{version}:$v->{timestamp}";
}
sub changes_of {
    my @l = @{ answer_lines($_[0]) };
    return [ map { change_of($_) } grep { !$_->{endStreamAction} }
             @l[2 .. $#l] ];
}

# What the log says the same lines are: per version its metaData (after
# the start), then its data-changing adds and removes that `keep` keeps.
sub expected {
    my ($table, $from, $to, %opt) = @_;
    my $hash = $opt{delta} ? \&Digest::SHA::sha256_hex : \&Digest::MD5::md5_hex;
    my @out;
    for my $v ($from .. $to) {
        my $log = sprintf '%s/%s/_delta_log/%020d.json', $tmp, $table, $v;
        open my $fh, '<', $log or die "$log: $!";
        my @actions = map { JSON::PP::decode_json($_) } grep { /\S/ } <$fh>;
        push @out, "metaData\@$v" if $v > $from && grep { $_->{metaData} } @actions;
        for my $a (@actions) {
            my ($kind) = grep { $a->{$_} } qw(add remove);
            next unless $kind && $a->{$kind}{dataChange};
            next if $opt{keep} && !$opt{keep}->($a->{$kind}{partitionValues});
            push @out, sprintf '%s:%s@%d:%d', $kind,
                $hash->($a->{$kind}{path}), $v, ts_of($v);
        }
    }
    return \@out;
}
sub same_changes {
    my ($got, $want, $name) = @_;
    return fail("$name: the log has none to compare with") unless @$want;
    is(join("\n", @$got), join("\n", @$want), $name);
}

# --- streaming, parquet format ------------------------------------------------
$res = query('cdf', { startingVersion => 1 });
my $l = answer_lines($res);
ok($res->code == 200 && $res->header('Delta-Table-Version') eq '1'
   && $res->header('delta-sharing-capabilities') eq 'responseformat=parquet'
   && $l->[0]{protocol} && ($l->[1]{metaData} || {})->{version} == 1,
   'startingVersion 1: the version header, protocol, metaData of version 1')
    or diag $res->content;
same_changes(changes_of($res), expected('cdf', 1, 3),
             'every data-changing add and remove of versions 1 to 3, no '
             . 'cdc file, with its version and commit timestamp');
my ($add) = grep { $_->{add} } @$l;
my ($remove) = grep { $_->{remove} } @$l;
ok($add && $add->{add}{url} && ref $add->{add}{partitionValues}
   && $add->{add}{size} > 0 && $add->{add}{stats}
   && $add->{add}{expirationTimestamp} > time * 1000,
   'an add: url, partitionValues, size, stats, expiry');
ok($remove && $remove->{remove}{url} && $remove->{remove}{size} > 0
   && !exists $remove->{remove}{stats}, 'a remove: url, size, no stats');
ok(!grep({ $_->{endStreamAction} } @$l), 'no endStreamAction unasked');
my $ua = Apache::TestRequest::user_agent();
my $file = $ua->get($add->{add}{url});
ok($file->code == 200 && length($file->content) == $add->{add}{size},
   'an add\'s URL reads the file, signed as the snapshot\'s are');
same_changes(changes_of(query('cdf', { startingVersion => 1,
                                       endingVersion => 2 })),
             expected('cdf', 1, 2), 'endingVersion 2 ends the range');
same_changes(changes_of(query('cdf', { startingVersion => 2,
                                       endingVersion => 99 })),
             expected('cdf', 2, 3), 'an endingVersion past the latest: to '
             . 'the latest');
$res = query('cdf', { startingVersion => 3 });
same_changes(changes_of($res), expected('cdf', 3, 3),
             'startingVersion = the latest: its one remove');

# --- metaData of later versions, the start version of the share ---------------
$res = query('stats', { startingVersion => 8, endingVersion => 11 });
my $stats = changes_of($res);
same_changes($stats, expected('stats', 8, 11),
             'the metaData of version 10 before its add, with its version');
ok(grep({ $_ eq 'metaData@10' } @$stats) == 1, '... once');
ds_error(query('stats', { startingVersion => 1 }), 400,
         'INVALID_PARAMETER_VALUE', 'before the share\'s start_version',
         qr/since version 2/);

# --- pages --------------------------------------------------------------------
sub paged {
    my ($table, $body, $caps) = @_;
    my (@all, $next, $pages, @heads);
    do {
        my $r = query($table, { %$body, maxFiles => 1,
                                $next ? (pageToken => $next) : () }, $caps);
        my $l = answer_lines($r);
        my $end = $l->[-1]{endStreamAction};
        return ([ 'page ' . ($pages // 0) . ': ' . $r->content ], 0, 0)
            unless $end;
        push @heads, JSON::PP->new->canonical->encode([ @$l[0, 1] ])
            . $r->header('Delta-Table-Version');
        push @all, @{ changes_of($r) };
        $next = $end->{nextPageToken};
    } while ($next && ++$pages < 50);
    return (\@all, scalar(@heads), scalar(grep { $_ ne $heads[0] } @heads));
}
my ($all, $pages, $differ) = paged('stats', { startingVersion => 8,
                                             endingVersion => 11 });
same_changes($all, $stats, 'maxFiles 1: the same lines page by page, the '
             . 'metaData line on the page of its version');
ok($pages == 4 && $differ == 0, 'four pages, each with the same protocol, '
   . 'metaData and version header') or diag "$pages pages, $differ differ";
($all) = paged('cdf', { startingVersion => 1 });
same_changes($all, expected('cdf', 1, 3), 'pages of adds and removes');
$res = query('cdf', { startingVersion => 1, maxFiles => 2 });
my $next = answer_lines($res)->[-1]{endStreamAction}{nextPageToken};
ds_error(query('cdf', { startingVersion => 2, maxFiles => 2,
                        pageToken => $next }), 400,
         'INVALID_PARAMETER_VALUE', 'a page token of another start');
ds_error(query('cdf', { maxFiles => 2, pageToken => $next }), 400,
         'INVALID_PARAMETER_VALUE',
         'a streaming page token for a snapshot');

# --- filters ------------------------------------------------------------------
sub birthday { my ($day) = @_; sub { ($_[0]{birthday} // '') eq $day } }
same_changes(changes_of(query('cdfp', { startingVersion => 0 })),
             expected('cdfp', 0, 3, keep => birthday('2023-12-24')),
             'the share object\'s partition filters the changes');
my $hint = JSON::PP::encode_json({ op => 'equal', children => [
    { op => 'column', name => 'birthday', valueType => 'date' },
    { op => 'literal', value => '2023-12-29', valueType => 'date' } ] });
same_changes(changes_of(query('cdf', { startingVersion => 1,
                                       jsonPredicateHints => $hint })),
             expected('cdf', 1, 3, keep => birthday('2023-12-29')),
             'jsonPredicateHints prune the changes');

# --- delta format -------------------------------------------------------------
ds_error(query('dvp', { startingVersion => 1 }), 400,
         'UNSUPPORTED_OPERATION',
         'deletion vectors in the parquet format');
$res = query('dvp', { startingVersion => 1, endingVersion => 4 }, $DELTA);
$l = answer_lines($res);
ok($res->code == 200 && $res->header('delta-sharing-capabilities')
   =~ /^responseformat=delta/ && $l->[0]{protocol}{deltaProtocol}
   && $l->[1]{metaData}{deltaMetadata} && $l->[1]{metaData}{version} == 1,
   'the delta format: deltaProtocol, deltaMetadata with the version')
    or diag $res->content;
same_changes(changes_of($res), expected('dvp', 1, 4, delta => 1),
             'Delta actions add and remove with version and timestamp');
($remove) = grep { $_->{file} && $_->{file}{deltaSingleAction}{remove} } @$l;
($add) = grep { $_->{file} && $_->{file}{deltaSingleAction}{add} } @$l;
ok($remove && $remove->{file}{deltaSingleAction}{remove}{deletionTimestamp}
   == $remove->{file}{timestamp}
   && $remove->{file}{deltaSingleAction}{remove}{path} =~ m{^https?://}
   && $add->{file}{deltaSingleAction}{add}{deletionVector}{storageType} eq 'p',
   'a remove at its commit time, signed paths, deletion vectors as URLs')
    or diag explain [ $add, $remove ];
($all) = paged('dvp', { startingVersion => 1, endingVersion => 4 }, $DELTA);
same_changes($all, expected('dvp', 1, 4, delta => 1),
             'pages in the delta format');

# --- refusals -----------------------------------------------------------------
my @refusals = (
    [ { startingVersion => 1, version => 1 }, 'and version',
      qr/only provide one of: version,timestamp,startingVersion/ ],
    [ { startingVersion => 1, timestamp => '2023-12-22T00:00:00Z' },
      'and timestamp', qr/only provide one of/ ],
    [ { startingVersion => -1 }, 'negative', qr/cannot be negative/ ],
    [ { startingVersion => 3, endingVersion => 2 }, 'after endingVersion',
      qr/startingVersion\(3\) must be smaller than or equal to /
      . qr/endingVersion\(2\)/ ],
    [ { startingVersion => 4 }, 'after the latest version',
      qr/^Provided Start version\(4\) for reading change data is invalid\. /
      . qr/Start version cannot be greater than the latest version of the /
      . qr/table\(3\)\.$/ ],
    [ { endingVersion => 2 }, 'endingVersion alone', qr/endingVersion/ ],
);
for (@refusals) {
    my ($body, $what, $re) = @$_;
    ds_error(query('cdf', $body), 400, 'INVALID_PARAMETER_VALUE',
             "startingVersion $what", $re);
}
ds_error(query('plain', { startingVersion => 0 }), 400,
         'INVALID_PARAMETER_VALUE', 'without history sharing',
         qr/history sharing is not enabled on table: $share\.pub\.plain/);
ds_error(query('cdf', { startingVersion => 'one' }), 400,
         'MALFORMED_REQUEST', 'a startingVersion that is no number');

# --- refresh tokens -----------------------------------------------------------
$res = query('fresh', { includeRefreshToken => JSON::PP::true });
$l = answer_lines($res);
my $end = $l->[-1]{endStreamAction} || {};
my @files = grep { $_->{file} } @$l;
my $min = (sort { $a <=> $b } map { $_->{file}{expirationTimestamp} } @files)[0];
ok($res->code == 200 && $res->header('Delta-Table-Version') eq '3'
   && @files == @$l - 3 && $end->{refreshToken}
   && !exists $end->{nextPageToken}
   && $end->{minUrlExpirationTimestamp} == $min,
   'includeRefreshToken: the files, then endStreamAction with the token and '
   . 'the first URL expiry') or diag $res->content;
my $refresh = $end->{refreshToken};
my $ids = join ',', sort map { $_->{file}{id} } @files;
# A new commit: the table moves on to version 4, removing a file.
{
    my ($gone) = map { $_->{file} }
        grep { $_->{file}{partitionValues}{birthday} eq '2023-12-25' } @files;
    my ($path) = grep { Digest::MD5::md5_hex($_) eq $gone->{id} }
        map { JSON::PP::decode_json($_)->{add}{path} // () }
        do { open my $fh, '<', "$tmp/fresh/_delta_log/" . ('0' x 20) . '.json'
                 or die $!; <$fh> };
    my $v4 = "$tmp/fresh/_delta_log/" . sprintf('%020d', 4) . '.json';
    open my $fh, '>', $v4 or die "$v4: $!";
    print $fh JSON::PP::encode_json({ commitInfo => { timestamp => ts_of(4) } }),
        "\n", JSON::PP::encode_json({ remove => { path => $path,
        dataChange => JSON::PP::true, size => $gone->{size},
        partitionValues => { birthday => '2023-12-25' } } }), "\n";
    close $fh;
    utime $T0 + 400, $T0 + 400, $v4;
    chmod 0644, $v4;
}
is(query('fresh', {})->header('Delta-Table-Version'), '4',
   'a new commit: the latest version is 4');
$res = query('fresh', { refreshToken => $refresh,
                        includeRefreshToken => JSON::PP::true });
$l = answer_lines($res);
@files = grep { $_->{file} } @$l;
$end = $l->[-1]{endStreamAction} || {};
ok($res->code == 200 && $res->header('Delta-Table-Version') eq '3'
   && join(',', sort map { $_->{file}{id} } @files) eq $ids
   && !exists $l->[1]{metaData}{version}
   && !grep({ exists $_->{file}{version} } @files),
   'the refresh token: version 3 again, the same files, as a latest query')
    or diag $res->content;
$file = $ua->get($files[0]{file}{url});
ok($file->code == 200 && $files[0]{file}{expirationTimestamp} >= $min
   && $end->{refreshToken},
   'fresh URLs that read, and another refresh token');
(my $tampered = $refresh) =~ s/([0-9a-f])$/$1 eq '0' ? '1' : '0'/e;
ds_error(query('fresh', { refreshToken => $tampered }), 400,
         'INVALID_PARAMETER_VALUE', 'a tampered refresh token',
         qr/^Invalid refresh token/);
(my $longer = $refresh) =~ s/^([^.]*\.)(\d+)/$1 . ($2 + 3600)/e;
ds_error(query('fresh', { refreshToken => $longer }), 400,
         'INVALID_PARAMETER_VALUE', 'a refresh token made to last longer');
ds_error(query('cdf', { refreshToken => $refresh }), 400,
         'INVALID_PARAMETER_VALUE', 'the refresh token of another table',
         qr/^Invalid refresh token/);
my @misuse = (
    [ { includeRefreshToken => JSON::PP::true, version => 1 },
      'includeRefreshToken with a version',
      qr/cannot be used when querying a specific version/ ],
    [ { includeRefreshToken => JSON::PP::true, startingVersion => 1 },
      'includeRefreshToken with startingVersion', qr/specific version/ ],
    [ { includeRefreshToken => JSON::PP::true, pageToken => $next },
      'includeRefreshToken with a page token', qr/first page request/ ],
    [ { refreshToken => $refresh, timestamp => '2023-12-22T00:00:00Z' },
      'refreshToken with a timestamp', qr/specific version/ ],
    [ { refreshToken => $refresh, pageToken => $next },
      'refreshToken with a page token', qr/first page request/ ],
);
for (@misuse) {
    my ($body, $what, $re) = @$_;
    ds_error(query('fresh', $body), 400, 'INVALID_PARAMETER_VALUE',
             $what, $re);
}
