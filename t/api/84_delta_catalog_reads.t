# SPDX-License-Identifier: Apache-2.0
# The server's own readers of a catalog-managed Delta table read what the
# catalog ratified (PROTOCOL.md "Catalog-managed tables"): a managed table
# created catalog-managed, version 0 published with Parquet data, later
# commits staged in _delta_log/_staged_commits/ and ratified through
# /delta/preview/commits, read through the catalog's Delta routes (the
# summary, the history, the rows) and the Delta Sharing server (version,
# query, time travel, changes, an asynchronous query) and by a second
# server over the same database. A ratified commit is seen at once and
# not before; a staged file the catalog did not ratify (a loser) never; a
# published file above the catalog's latest version is no version (and the
# catalog's staged file wins over it once its version is ratified); once
# the writer backfills, every answer is the same, files and rows.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use File::Copy ();
use File::Path qw(make_path);
use File::Temp ();
use JSON::PP ();
use POSIX ();
use Apache::Test qw(-withtestmore);
use Unicat::Test;
use Unicat::Commits;

plan tests => 26;

my $t_conf = Apache::Test::vars('t_conf');
my $p = "t84_$$";
my ($cat, $share, $rcp) = ("cat_$p", "shr_$p", "rcp_$p");
END {
    api(DELETE => "/shares/$share");
    api(DELETE => "/recipients/$rcp");
    drop_catalog($cat);
}
my $tmp = File::Temp::tempdir("unicat-t84-XXXXXX", TMPDIR => 1, CLEANUP => 1);
chmod 0755, $tmp;
my $JSON = JSON::PP->new->canonical;

# --- the table: version 0 published, with one row (id 0) ------------------------------
create_catalog($cat, storage_root => "file://$tmp");
create_schema($cat, 'sales');
my $t = coordinated({ catalog_name => $cat, schema_name => 'sales' }, 'events');
my $full = "$cat.sales.events";
(my $dir = $t->{storage_location}) =~ s{^file://}{};
make_path("$dir/_delta_log/_staged_commits");
# One Parquet file per row: the file named id<n> holds the row id = n.
my $simple = "$FindBin::Bin/../delta/fixtures/simple_table";
my %row_file = (0 => 'part-00001-c506e79a-0bf8-4e2b-a42b-9731b2e490ae',
                1 => 'part-00003-508ae4aa-801c-4c2c-a923-f6f89930a5c1',
                2 => 'part-00004-80938522-09c0-420c-861f-5a649e3d9674',
                3 => 'part-00006-63ce9deb-bc0f-482d-b9a1-7e717b67f294',
                4 => 'part-00007-94f725e2-3963-4b00-9e83-e31021a93cf9',
                5 => 'part-00001-7891c33d-cedc-47c3-88a6-abcfb049d3b4');
for my $id (keys %row_file) {
    File::Copy::copy("$simple/$row_file{$id}-c000.snappy.parquet",
                     "$dir/id$id.parquet") or die "setup: copy: $!";
}
my $T0 = 1_767_225_600_000;    # 2026-01-01T00:00:00Z; commit v at T0 + v min
sub ict { $T0 + 60_000 * $_[0] }
sub iso {
    my ($ms) = @_;
    return POSIX::strftime('%Y-%m-%dT%H:%M:%S', gmtime int($ms / 1000))
        . sprintf('.%03dZ', $ms % 1000);
}
# Commit $v adding the file of row $id: its commitInfo first, with its ICT.
sub commit_text {
    my ($v, $id, @more) = @_;
    return join '', map { $JSON->encode($_) . "\n" }
        { commitInfo => { inCommitTimestamp => ict($v), operation => 'WRITE',
                          txnId => "t84-$v-$id" } },
        @more,
        { add => { path => "id$id.parquet", partitionValues => {},
                   size => -s "$dir/id$id.parquet", modificationTime => ict($v),
                   dataChange => JSON::PP::true } };
}
sub put {
    my ($name, $text) = @_;
    open my $fh, '>', "$dir/_delta_log/$name" or die "setup: $name: $!";
    print $fh $text;
    close $fh or die "setup: $name: $!";
    system('chmod', '-R', 'a+rX', $tmp) == 0 or die 'setup: chmod';
    return -s "$dir/_delta_log/$name";
}
sub published { sprintf '%020d.json', $_[0] }
put(published(0), commit_text(0, 0,
    { protocol => { minReaderVersion => 3, minWriterVersion => 7,
                    readerFeatures => ['catalogManaged'],
                    writerFeatures => ['catalogManaged', 'inCommitTimestamp'] } },
    { metaData => { id => $t->{table_id},
                    format => { provider => 'parquet', options => {} },
                    schemaString => '{"type":"struct","fields":[{"name":"id",'
                                  . '"type":"long","nullable":true,"metadata":{}}]}',
                    partitionColumns => [], createdTime => ict(0),
                    configuration => { 'delta.enableInCommitTimestamps' => 'true',
                                       'delta.enableChangeDataFeed' => 'true',
                                       'io.unitycatalog.tableId' => $t->{table_id} } } }));
# Stages commit $v adding row $id as the writer $who; ratify($v, $who) posts it.
sub stage { my ($v, $id, $who) = @_; put('_staged_commits/' . staged($v, $who), commit_text($v, $id)) }
my %size;
sub ratify {
    my ($v, $who, %o) = @_;
    return commit($t, $v, file => staged($v, $who), timestamp => ict($v),
                  size => $size{"$v.$who"}, mtime => ict($v) + 5, lbv => 0, %o);
}

# --- shared with a recipient, history and change data feed on ---------------------------
my $setup = { cat => $cat, shares => [] };
share_table($setup, $share, 'events', history_data_sharing_status => 'ENABLED',
            enable_cdf => \1);
create_object('/recipients', { name => $rcp, authentication_type => 'TOKEN' });
grant_share($setup, $share, $rcp);
my $token = token_of_recipient($rcp) // die 'setup: no token';
my $T = "/shares/$share/schemas/pub/tables/events";
sub ds { sharing_api($token, @_) }

# What every reader shows of the table: the catalog's summary, history and
# rows; the recipient's version, files and changes (files by id and size:
# their URLs are signed anew each time).
sub files_of {
    my ($res) = @_;
    return [ sort map { "$_->{id}:$_->{size}" } map { $_->{file} // () }
             @{ answer_lines($res) } ];
}
sub seen {
    my (%o) = @_;
    my @base = $o{base} ? (base => "$o{base}/api/2.1/unity-catalog") : ();
    my $summary = json_of(api(GET => "/tables/$full/delta", @base)) || {};
    my $history = json_of(api(GET => "/tables/$full/delta/history", @base)) || {};
    my $preview = json_of(api(GET => "/tables/$full/delta/preview", @base)) || {};
    my %v = (summary => $summary,
             history => [ map { "$_->{version}:$_->{timestamp}:"
                                . ($_->{commit_info}{txnId} // '') }
                          @{ $history->{commits} || [] } ],
             rows => join(',', sort map { $_->[0] } @{ $preview->{rows} || [] }));
    return \%v if $o{base};
    my $query = ds(POST => "$T/query", body => {});
    my $changes = ds(GET => "$T/changes", query => { startingVersion => 0 });
    $v{version} = ds(GET => "$T/version")->header('Delta-Table-Version');
    $v{query} = [ $query->header('Delta-Table-Version'), files_of($query) ];
    $v{changes} = [ map { my ($kind, $c) = %$_;
                          "$kind:$c->{version}:$c->{timestamp}:$c->{id}" }
                    grep { !$_->{protocol} && !$_->{metaData} }
                    @{ answer_lines($changes) } ];
    return \%v;
}
sub summary_of { my ($v) = @_; "v$v->{summary}{version} rows $v->{rows}" }

my $at0 = seen();
is_deeply([ $at0->{summary}{version}, $at0->{rows}, $at0->{version},
            $at0->{query}[0], scalar @{ $at0->{query}[1] },
            scalar @{ $at0->{changes} } ],
          [ 0, '0', 0, 0, 1, 1 ],
          'version 0, published: one row, one file, one change, everywhere')
    or diag explain $at0;

# --- staged, then ratified ----------------------------------------------------------------
$size{'1.w'} = stage(1, 1, 'w');
$size{'1.loser'} = stage(1, 3, 'loser');
is_deeply(seen(), $at0, 'commit 1 staged (by a winner and a loser): nothing is seen before it is ratified');
is_ok_json(ratify(1, 'w'), 'commit 1 ratified');
my $at1 = seen();
is(summary_of($at1), 'v1 rows 0,1', 'the catalog\'s Delta routes see it at once: the ratified file, not the loser\'s');
ok($at1->{summary}{timestamp} == ict(1) && $at1->{summary}{num_files} == 2
   && $at1->{summary}{size_in_bytes} == (-s "$dir/id0.parquet") + (-s "$dir/id1.parquet"),
   'the summary: its In-Commit Timestamp, its files') or diag explain $at1->{summary};
is_deeply($at1->{history}, [ "1:${\ ict(1)}:t84-1-1", "0:${\ ict(0)}:t84-0-0" ],
          'the history: the ratified commit, with its time');
is_deeply([ $at1->{version}, $at1->{query}[0], scalar @{ $at1->{query}[1] } ], [ 1, 1, 2 ],
          'the recipient sees it at once: version 1, two files') or diag explain $at1;
is_deeply([ map { (split /:/)[0 .. 2] } @{ $at1->{changes} } ],
          [ add => 0, ict(0), add => 1, ict(1) ],
          'the changes: each commit\'s add, at its In-Commit Timestamp') or diag explain $at1->{changes};

# --- a published file above the catalog's latest version --------------------------------
put(published(2), commit_text(2, 4));
is_deeply(seen(), $at1, 'a published commit 2 the catalog did not ratify: no reader sees it');
ds_error(ds(POST => "$T/query", body => { version => 2 }), 400, 'INVALID_PARAMETER_VALUE',
         'the recipient cannot travel to it', qr/Version 2 of the table does not exist/);
ds_error(ds(GET => "$T/version", query => { startingTimestamp => iso(ict(2)) }), 400,
         'INVALID_PARAMETER_VALUE', 'nor find it by its time', qr/after the latest version/);

# --- the catalog ratifies another file for version 2; a second server ---------------------
$size{'2.w'} = stage(2, 2, 'w');
is_ok_json(ratify(2, 'w'), 'commit 2 ratified');
my $at2 = seen();
is(summary_of($at2), 'v2 rows 0,1,2', 'the catalog\'s file of version 2 wins over the published one');
is_deeply([ $at2->{version}, $at2->{query}[0], scalar @{ $at2->{query}[1] } ], [ 2, 2, 3 ],
          'and the recipient sees it');
my $res = ds(POST => "$T/query", body => { timestamp => iso(ict(1) + 30_000) });
is_deeply([ $res->code, $res->header('Delta-Table-Version'), files_of($res) ],
          [ 200, 1, $at1->{query}[1] ],
          'time travel by timestamp: version 1, by its In-Commit Timestamp');

my $node_b = own_httpd(<<"CONF");
Include "$t_conf/backend.conf"
DBDMin 1
DBDKeep 2
DBDMax 4
${\ catalog_mount()}
CONF
ok($node_b->{up}, 'node B serves the same catalog') or diag $node_b->{log}->();
is(summary_of(seen(base => $node_b->{url})), 'v2 rows 0,1,2', 'node B reads version 2 (and keeps it)');
$size{'3.w'} = stage(3, 5, 'w');
is_ok_json(ratify(3, 'w'), 'commit 3 ratified on node A');
is(summary_of(seen(base => $node_b->{url})), 'v3 rows 0,1,2,5',
   'node B sees it at once: its cache of the table is not stale');
$node_b->{stop}->();

# --- an asynchronous query: its job reads as the call does --------------------------------
my $async_caps = 'responseformat=parquet;asyncquery=true';
$res = sharing_api($token, POST => "$T/query", base => '/async/delta-sharing',
                   body => { idempotency_key => "k84-$$" },
                   headers => [ 'delta-sharing-capabilities' => $async_caps ]);
my $qid = ((answer_lines($res)->[0] || {})->{queryStatus} || {})->{queryId};
for (1 .. 50) {
    last unless $qid;
    $res = sharing_api($token, POST => "$T/queries/$qid", base => '/async/delta-sharing',
                       body => {}, headers => [ 'delta-sharing-capabilities' => $async_caps ]);
    last unless $res->code == 200 && (answer_lines($res)->[0] || {})->{queryStatus};
    select(undef, undef, undef, 0.1);
}
my $at3 = seen();
ok($qid && $res->code == 200 && $res->header('Delta-Table-Version') == 3
   && $JSON->encode(files_of($res)) eq $JSON->encode($at3->{query}[1]),
   'an asynchronous query answers version 3 and its files') or diag $res->code . ' ' . $res->content;

# --- the writer backfills: every answer stays the same -------------------------------------
for my $v (1 .. 3) {
    File::Copy::copy("$dir/_delta_log/_staged_commits/" . staged($v, 'w'),
                     "$dir/_delta_log/" . published($v)) or die "backfill $v: $!";
}
system('chmod', '-R', 'a+rX', $tmp) == 0 or die 'chmod';
# A staged file may go once its commit is published: that file is its copy.
unlink "$dir/_delta_log/_staged_commits/" . staged(2, 'w') or die "unlink: $!";
is_deeply(seen(), $at3, 'published but not yet reported (a staged file gone): the same answers');
is_ok_json(backfilled($t, 3), 'the writer reports versions up to 3 backfilled');
$res = get_commits($t);
ok(!@{ versions_of($res) } && latest_of($res) == 3,
   'the catalog keeps only the latest version') or diag $res->content;
my $after = seen();
is_deeply($after, $at3, 'after the backfill: the same summary, history, rows, files and changes')
    or diag explain $after, $at3;
is(summary_of($after), 'v3 rows 0,1,2,5', 'the rows of versions 0 to 3, and never the loser\'s');

# The recipient reads what the catalog ratified: catalogManaged is the
# server's to resolve, and no reader feature a Delta-format client must
# list (the lines it gets carry none of it).
$res = ds(POST => "$T/query", body => {},
          headers => [ 'delta-sharing-capabilities' => 'responseformat=delta' ]);
my $lines = answer_lines($res);
ok($res->code == 200 && ($res->header('delta-sharing-capabilities') // '') =~ /^responseformat=delta/
   && ref(($lines->[0] || {})->{protocol}{deltaProtocol}) eq 'HASH'
   && $res->content !~ /catalog(Managed|Owned)/ && grep({ $_->{file} } @$lines) == 4,
   'the Delta format: the table\'s four files, no catalogManaged in the protocol it shows')
    or diag $res->code . ' ' . $res->content;
