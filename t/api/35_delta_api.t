# SPDX-License-Identifier: Apache-2.0
# The UC Delta API (/delta/v1), spoken to as delta-io's
# UCDeltaTokenBasedRestClient speaks through the Unity Catalog SDK (kebab
# case, the requests of createStagingTable, createTable, loadTable,
# updateTable with add-commit and set-latest-backfilled-version,
# reportMetrics), by an engine that writes the table's first commit and
# its staged commits to a local table: the contract of a catalog-managed
# table, columns that keep their nested types, commits shared with the
# preview coordinator, replays, conflicts, requirements, metadata carried
# by commits, credentials, rename, drop, privileges and hidden tables, and
# every error in the API's own shape.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;
use File::Path qw(make_path);
use File::Temp ();

plan tests => 117;

my $p = "t85_$$";
my $cat = "cat_$p";
my @cleanup = ($cat);
END { drop_catalog($_) for @cleanup }
my $tmp = File::Temp::tempdir("unicat-t85-XXXXXX", TMPDIR => 1, CLEANUP => 1);
create_catalog($cat, storage_root => "file://$tmp/root");
create_schema($cat, 'sch');
my $SCH = "/delta/v1/catalogs/$cat/schemas/sch";
my $CLIENT = [ Accept => 'application/json',
               'User-Agent' => 'unitycatalog-java-client Delta/4.1.0' ];

sub delta { my ($method, $path, %o) = @_; api($method => $path, headers => $CLIENT, %o) }
sub table_path { "$SCH/tables/$_[0]" }

# The API's errors: {"error":{"message","type","code"}}, code the status.
sub is_delta_error {
    my ($res, $status, $type, $name, %opt) = @_;
    my $e = (json_of($res) || {})->{error};
    my @p;
    push @p, 'status ' . $res->code . ", expected $status" unless $res->code == $status;
    push @p, 'not application/json' unless ($res->header('Content-Type') // '') =~ m{^application/json};
    if (ref $e ne 'HASH') { push @p, 'no error object' }
    else {
        push @p, "type '" . ($e->{type} // '') . "', expected $type" unless ($e->{type} // '') eq $type;
        push @p, "code is not the status" unless is_json_int($e->{code}) && $e->{code} == $res->code;
        push @p, 'no message' unless defined $e->{message} && length $e->{message};
        push @p, "message '$e->{message}' does not match $opt{message}"
            if $opt{message} && defined $e->{message} && $e->{message} !~ $opt{message};
    }
    ok(!@p, $name) or diag join('; ', @p) . ': ' . $res->content;
}

# --- configuration -------------------------------------------------------------------
my $res = delta(GET => '/delta/v1/config', query => { catalog => $cat, 'protocol-versions' => '1.0' });
is_ok_json($res, 'config');
my $j = json_of($res) || {};
ok(($j->{'protocol-version'} // '') eq '1.0'
   && (grep { $_ eq 'POST /v1/catalogs/{catalog}/schemas/{schema}/tables/{table}' } @{ $j->{endpoints} || [] })
   && !(grep { $_ eq 'GET /v1/catalogs/{catalog}/schemas/{schema}/tables' } @{ $j->{endpoints} || [] }),
   'config names protocol 1.0 and only the endpoints served') or diag explain $j;
is_delta_error(delta(GET => '/delta/v1/config', query => { catalog => $cat }), 400,
               'InvalidParameterValueException', 'config without protocol-versions: 400');
is_delta_error(delta(GET => '/delta/v1/config', query => { catalog => $cat, 'protocol-versions' => '2.3' }),
               400, 'InvalidParameterValueException', 'config with no version in common: 400');
is_delta_error(delta(GET => '/delta/v1/config', query => { catalog => "no_$p", 'protocol-versions' => '1.0' }),
               404, 'NoSuchCatalogException', 'config of an unknown catalog: 404');
is_delta_error(delta(GET => '/delta/v1/nothing-here'), 404, 'NotFoundException',
               'an unknown path of the API answers in its dialect');

# --- a staging table, the first commit, the table --------------------------------------
$res = delta(POST => "$SCH/staging-tables", body => { name => 'events' });
is_ok_json($res, 'createStagingTable');
my $st = json_of($res) || {};
my $id = $st->{'table-id'} // '';
my $cred = ($st->{'storage-credentials'} || [])->[0] || {};
ok(is_uuid($id) && ($st->{'table-type'} // '') eq 'MANAGED'
   && ($st->{location} // '') =~ m{^file://\Q$tmp\E/root/}
   && ($cred->{operation} // '') eq 'READ_WRITE' && ($cred->{prefix} // '') eq $st->{location}
   && is_json_int($cred->{'expiration-time-ms'}) && ref $cred->{config} eq 'HASH'
   && !%{ $cred->{config} },
   'staging table: id, MANAGED, a location under the storage root, READ_WRITE credentials (none needed locally)')
    or diag explain $st;
my $rp = $st->{'required-protocol'} || {};
ok(($rp->{'min-reader-version'} // 0) == 3 && ($rp->{'min-writer-version'} // 0) == 7
   && join(',', sort @{ $rp->{'reader-features'} || [] }) eq 'catalogManaged,deletionVectors,v2Checkpoint,vacuumProtocolCheck'
   && join(',', sort @{ $rp->{'writer-features'} || [] }) eq 'catalogManaged,deletionVectors,inCommitTimestamp,v2Checkpoint,vacuumProtocolCheck'
   && ($st->{'required-properties'}{'io.unitycatalog.tableId'} // '') eq $id
   && ($st->{'required-properties'}{'delta.checkpointPolicy'} // '') eq 'v2'
   && exists $st->{'suggested-properties'}{'delta.columnMapping.maxColumnId'}
   && !defined $st->{'suggested-properties'}{'delta.columnMapping.maxColumnId'}
   && (grep { $_ eq 'rowTracking' } @{ $st->{'suggested-protocol'}{'writer-features'} || [] }),
   'the contract of a catalog-managed table: required and suggested protocol and properties')
    or diag explain $st;
is_delta_error(delta(POST => "$SCH/staging-tables", body => {}), 400, 'InvalidParameterValueException',
               'a staging table without a name: 400');
is_delta_error(delta(POST => "/delta/v1/catalogs/$cat/schemas/nope/staging-tables", body => { name => 'x' }),
               404, 'NoSuchSchemaException', 'a staging table in an unknown schema: 404');

(my $dir = $st->{location}) =~ s{^file://}{};
make_path("$dir/_delta_log/_staged_commits");
sub put { my ($f, $text) = @_; open my $fh, '>', "$dir/_delta_log/$f" or die "$f: $!"; print $fh $text; close $fh }

my @fields = (
    { name => 'id', type => 'long', nullable => JSON::PP::false(), metadata => { comment => 'the key' } },
    { name => 'Amount', type => 'decimal(10,2)', nullable => JSON::PP::true(), metadata => {} },
    { name => 'tags', type => { type => 'array', 'element-type' => 'string', 'contains-null' => JSON::PP::true() },
      nullable => JSON::PP::true(), metadata => {} },
    { name => 'attrs', type => { type => 'map', 'key-type' => 'string', 'value-type' => 'integer',
                                 'value-contains-null' => JSON::PP::false() },
      nullable => JSON::PP::true(), metadata => {} },
    { name => 'day', type => 'date', nullable => JSON::PP::true(), metadata => {} },
    { name => 'point', type => { type => 'struct', fields => [
          { name => 'x', type => 'double', nullable => JSON::PP::true(), metadata => {} },
          { name => 'ys', type => { type => 'array', 'element-type' => 'long', 'contains-null' => JSON::PP::false() },
            nullable => JSON::PP::true(), metadata => { 'delta.columnMapping.id' => 7 } } ] },
      nullable => JSON::PP::true(), metadata => {} },
);
my $protocol = { 'min-reader-version' => 3, 'min-writer-version' => 7,
                 'reader-features' => [qw(catalogManaged deletionVectors v2Checkpoint vacuumProtocolCheck)],
                 'writer-features' => [qw(catalogManaged deletionVectors inCommitTimestamp v2Checkpoint
                                          vacuumProtocolCheck domainMetadata rowTracking)] };
my %required = (%{ $st->{'required-properties'} }, 'delta.enableRowTracking' => 'true');
# Version 0, written by the engine before it creates the table.
put('00000000000000000000.json', join "\n",
    '{"commitInfo":{"inCommitTimestamp":1790000000000,"txnId":"t0","operation":"CREATE TABLE"}}',
    '{"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["catalogManaged","deletionVectors","v2Checkpoint","vacuumProtocolCheck"],'
    . '"writerFeatures":["catalogManaged","deletionVectors","v2Checkpoint","vacuumProtocolCheck","inCommitTimestamp","domainMetadata","rowTracking"]}}',
    '{"metaData":{"id":"' . $id . '","format":{"provider":"parquet","options":{}},"schemaString":"{\\"type\\":\\"struct\\",\\"fields\\":[{\\"name\\":\\"id\\",\\"type\\":\\"long\\",\\"nullable\\":false,\\"metadata\\":{}}]}",'
    . '"partitionColumns":[],"configuration":{"delta.enableInCommitTimestamps":"true","io.unitycatalog.tableId":"' . $id . '"},"createdTime":1790000000000}}', '');
my %create = (name => 'events', location => "file:$dir", 'table-type' => 'MANAGED',
              columns => { type => 'struct', fields => \@fields }, 'partition-columns' => ['day'],
              protocol => $protocol, properties => \%required, comment => 'what happened',
              'domain-metadata' => { 'delta.rowTracking' => { rowIdHighWaterMark => 41 } },
              'last-commit-timestamp-ms' => 1790000000000);

sub without { my ($key, %h) = @_; delete $h{$key}; \%h }
is_delta_error(delta(POST => "$SCH/tables", body => without('last-commit-timestamp-ms', %create)), 400,
               'InvalidParameterValueException', 'createTable without last-commit-timestamp-ms: 400');
is_delta_error(delta(POST => "$SCH/tables", body => { %create, protocol => { %$protocol, 'writer-features' => ['catalogManaged'] } }),
               400, 'InvalidParameterValueException', 'a reader feature that is no writer feature: 400',
               message => qr/reader-features but not writer-features/);
is_delta_error(delta(POST => "$SCH/tables", body => { %create, properties => without('delta.checkpointPolicy', %required) }),
               400, 'InvalidParameterValueException', 'a required property missing: 400',
               message => qr/delta\.checkpointPolicy/);
is_delta_error(delta(POST => "$SCH/tables", body => { %create, columns => { type => 'struct', fields => [
                   @fields, { name => 'ID', type => 'long', nullable => JSON::PP::true(), metadata => {} } ] } }),
               400, 'InvalidParameterValueException', 'two columns whose names differ in case only: 400');
is_delta_error(delta(POST => "$SCH/tables", body => { %create, columns => { type => 'struct', fields => [
                   { name => 'x', type => 'decimal(39,2)', nullable => JSON::PP::true(), metadata => {} } ] } }),
               400, 'InvalidParameterValueException', 'a decimal of precision 39: 400');
is_delta_error(delta(POST => "$SCH/tables", body => { %create, 'partition-columns' => ['nope'] }),
               400, 'InvalidParameterValueException', 'an unknown partition column: 400',
               message => qr/unknown column: nope/);
is_delta_error(delta(POST => "$SCH/tables", body => { %create, 'domain-metadata' => { 'delta.clustering' => { clusteringColumns => [['id']] } } }),
               400, 'InvalidParameterValueException', 'clustering without its writer feature: 400');

$res = delta(POST => "$SCH/tables", body => \%create);
is_ok_json($res, 'createTable from the staging table');
my $created = json_of($res) || {};
my $m = $created->{metadata} || {};
is_deeply($m->{columns}, { type => 'struct', fields => \@fields }, 'the columns come back as they were sent, nested types too')
    or diag explain $m->{columns};
ok(($m->{'table-uuid'} // '') eq $id && ($m->{'table-type'} // '') eq 'MANAGED'
   && ($m->{location} // '') eq $st->{location} && is_json_int($m->{'created-time'})
   && is_json_int($m->{'updated-time'}) && ($m->{etag} // '') eq "etag-$m->{'updated-time'}"
   && join(',', @{ $m->{'partition-columns'} || [] }) eq 'day'
   && ($m->{'last-commit-version'} // -1) == 0 && ($m->{'last-commit-timestamp-ms'} // 0) == 1790000000000,
   'metadata: the staging id, MANAGED, its location, times, etag, partitions, version 0') or diag explain $m;
my $props = $m->{properties} || {};
ok(($props->{'delta.feature.catalogManaged'} // '') eq 'supported' && ($props->{'delta.minReaderVersion'} // '') eq '3'
   && ($props->{'delta.feature.inCommitTimestamp'} // '') eq 'supported'
   && ($props->{'delta.rowTracking.rowIdHighWaterMark'} // '') eq '41'
   && ($props->{'delta.lastUpdateVersion'} // '') eq '0' && ($props->{'io.unitycatalog.tableId'} // '') eq $id,
   'properties: the client\'s, and those its protocol, domain metadata and first commit say') or diag explain $props;
ok(ref $created->{commits} eq 'ARRAY' && !@{ $created->{commits} } && is_json_int($created->{'latest-table-version'})
   && $created->{'latest-table-version'} == 0, 'a new table: no commits, latest version 0') or diag explain $created;
is_delta_error(delta(POST => "$SCH/tables", body => \%create), 400, 'InvalidParameterValueException',
               'the staging table is taken: createTable again is refused');

# The catalog API reads the same table, its columns as Spark describes them.
$j = json_of(api(GET => "/tables/$cat.sch.events")) || {};
my %cols = map { $_->{name} => $_ } @{ $j->{columns} || [] };
ok(($j->{table_id} // '') eq $id && ($j->{comment} // '') eq 'what happened'
   && ($cols{id}{type_text} // '') eq 'bigint' && ($cols{id}{type_name} // '') eq 'LONG'
   && ($cols{id}{comment} // '') eq 'the key' && !$cols{id}{nullable}
   && ($cols{amount}{type_name} // $cols{Amount}{type_name} // '') eq 'DECIMAL'
   && ($cols{tags}{type_text} // '') eq 'array<string>' && ($cols{attrs}{type_text} // '') eq 'map<string,int>'
   && ($cols{point}{type_text} // '') eq 'struct<x:double,ys:array<bigint>>' && ($cols{point}{type_name} // '') eq 'STRUCT'
   && ($cols{day}{partition_index} // -1) == 0 && !defined $cols{id}{partition_index},
   'the catalog API shows the table: type_text, type_name, comments, the partition column') or diag explain $j;

# --- load, exists --------------------------------------------------------------------
$res = delta(GET => table_path('events'));
is_ok_json($res, 'loadTable');
is_deeply(json_of($res), $created, 'loadTable answers what createTable answered');
$res = delta(HEAD => table_path('events'));
ok($res->code == 204 && !length($res->content), 'HEAD: 204, no body') or diag $res->code;
is(delta(HEAD => table_path('nothing'))->code, 404, 'HEAD of a missing table: 404');
is_delta_error(delta(GET => table_path('nothing')), 404, 'NoSuchTableException', 'loadTable of a missing table: 404');

# --- commits ---------------------------------------------------------------------------
sub staged { sprintf '%020d.%s.json', $_[0], $_[1] // "$$-$_[0]" }
sub add_commit {
    my ($v, %o) = @_;
    return { action => 'add-commit',
             commit => { version => $v + 0, timestamp => 1790000000000 + $v,
                         'file-name' => $o{file} // staged($v), 'file-size' => 100 + $v,
                         'file-modification-timestamp' => 1790000000500 + $v } };
}
sub backfill { { action => 'set-latest-backfilled-version', 'latest-published-version' => $_[0] + 0 } }
sub update {
    my ($name, %o) = @_;
    delta(POST => table_path($name), user => $o{user} // 'admin', body => {
        requirements => [ { type => 'assert-table-uuid', uuid => $o{uuid} // $id },
                           $o{etag} ? { type => 'assert-etag', etag => $o{etag} } : () ],
        updates => $o{updates} });
}
sub versions_of { [ map { $_->{version} } @{ (json_of($_[0]) // {})->{commits} // [] } ] }
sub commit_v { my ($v, @more) = @_; update('events', updates => [ add_commit($v), @more ]) }

put('_staged_commits/' . staged($_), qq({"commitInfo":{"inCommitTimestamp":${\ (1790000000000 + $_)},"txnId":"t$_"}}\n)) for 1 .. 3;
$res = commit_v(1, backfill(0));
is_ok_json($res, 'add-commit 1, with the published version the client knows (0)');
$j = json_of($res) || {};
my $c1 = ($j->{commits} || [])->[0] || {};
ok(($j->{'latest-table-version'} // -1) == 1 && ($c1->{version} // 0) == 1 && ($c1->{'file-name'} // '') eq staged(1)
   && ($c1->{timestamp} // 0) == 1790000000001 && ($c1->{'file-size'} // 0) == 101
   && ($c1->{'file-modification-timestamp'} // 0) == 1790000000501,
   'the answer: the ratified commit, kebab case, latest version 1') or diag explain $j;
ok(($j->{metadata}{etag} // '') eq $m->{etag} && ($j->{metadata}{'updated-time'} // 0) == $m->{'updated-time'}
   && ($j->{metadata}{'last-commit-version'} // -1) == 0,
   'a data-only commit keeps the etag, updated-time and last-commit-version') or diag explain $j->{metadata};
is_deeply(versions_of(api(GET => '/delta/preview/commits', body => { table_id => $id, table_uri => $st->{location},
                                                                      start_version => 0 })),
          [1], 'the preview coordinator sees the same commits');
is_ok_json(commit_v(1), 'a replay of 1 (same file): 200');
is_delta_error(update('events', updates => [ add_commit(1, file => staged(1, 'other')) ]), 409,
               'CommitVersionConflictException', 'another file at version 1: 409');
is_delta_error(commit_v(3), 400, 'InvalidParameterValueException', 'a gap (3 after 1): 400');
is_delta_error(update('events', uuid => '0b6f3a52-5d7e-4a4c-9c1e-0d2b8c1f7a10', updates => [ add_commit(2) ]),
               409, 'UpdateRequirementConflictException', 'another table\'s uuid: 409');
is_delta_error(delta(POST => table_path('events'), body => { updates => [ add_commit(2) ] }), 400,
               'InvalidParameterValueException', 'no assert-table-uuid: 400');
is_delta_error(update('events', updates => []), 400, 'InvalidParameterValueException', 'no updates: 400');
is_delta_error(update('events', updates => [ add_commit(2), add_commit(2) ]), 400,
               'InvalidParameterValueException', 'two add-commits: 400', message => qr/At most one add-commit/);
is_delta_error(update('events', updates => [ { action => 'set-everything' } ]), 400,
               'InvalidParameterValueException', 'an unknown action: 400');
is_delta_error(update('events', updates => [ { action => 'set-properties', updates => { a => '1' } },
                                            { action => 'remove-properties', removals => ['a'] } ]),
               400, 'InvalidParameterValueException', 'set and remove of one property: 400');
is_delta_error(update('events', updates => [ { %{ add_commit(2) }, commit => { version => 2 } } ]), 400,
               'InvalidParameterValueException', 'a commit without its file: 400');
is_delta_error(update('events', updates => [ add_commit(2, file => '../x.json') ]), 400,
               'InvalidParameterValueException', 'a file name that leaves _staged_commits: 400');
is_deeply(versions_of(delta(GET => table_path('events'))), [1], 'none of those changed the commits');

# A commit that changes the metadata carries the actions that say it.
my @more = (@fields, { name => 'note', type => 'string', nullable => JSON::PP::true(), metadata => {} });
$res = update('events', updates => [
    add_commit(2), backfill(0),
    { action => 'set-columns', columns => { type => 'struct', fields => \@more } },
    { action => 'set-properties', updates => { 'delta.appendOnly' => 'true' } },
    { action => 'remove-properties', removals => ['delta.enableRowTracking'] },
    { action => 'set-table-comment', comment => 'what happened, noted' },
    { action => 'set-domain-metadata', updates => { 'delta.rowTracking' => { rowIdHighWaterMark => 99 } } } ]);
is_ok_json($res, 'add-commit 2 with set-columns, set/remove-properties, set-table-comment, set-domain-metadata');
$j = json_of($res) || {};
my $m2 = $j->{metadata} || {};
ok(($m2->{'last-commit-version'} // -1) == 2 && ($m2->{'last-commit-timestamp-ms'} // 0) == 1790000000002
   && ($m2->{etag} // '') ne $m->{etag} && @{ $m2->{columns}{fields} || [] } == 7
   && join(',', @{ $m2->{'partition-columns'} || [] }) eq 'day'
   && ($m2->{properties}{'delta.appendOnly'} // '') eq 'true'
   && !exists $m2->{properties}{'delta.enableRowTracking'}
   && ($m2->{properties}{'delta.rowTracking.rowIdHighWaterMark'} // '') eq '99'
   && ($m2->{properties}{'delta.feature.catalogManaged'} // '') eq 'supported',
   'the metadata changed with the commit, and dates it: last-commit-version 2, a new etag, partitions kept')
    or diag explain $m2;
is_deeply(versions_of($res), [2, 1], 'commits newest first');
is_deeply((json_of(api(GET => "/tables/$cat.sch.events")) || {})->{comment}, 'what happened, noted',
          'the catalog API sees the new comment');
my $etag2 = $m2->{etag};
$res = update('events', etag => $m->{etag}, updates => [ add_commit(2), backfill(0) ]);
is_ok_json($res, 'a replay of 2 with a stale etag: 200 (a replay checks no etag)');
is_delta_error(update('events', etag => $m->{etag}, updates => [ add_commit(3) ]), 409,
               'UpdateRequirementConflictException', 'a new commit with a stale etag: 409');
is_ok_json(update('events', etag => $etag2, updates => [ add_commit(3) ]), 'a new commit with the etag: 200');
is_deeply(versions_of(delta(GET => table_path('events'))), [3, 2, 1], 'the stale etag ratified nothing');
# The server's own reader reads what this API ratified: version 0 published,
# 1 to 3 from the staged files the catalog named, not a loser's file.
put('_staged_commits/' . staged(4, 'loser'), qq({"commitInfo":{"inCommitTimestamp":1790000000009,"txnId":"x"}}\n));
$j = json_of(api(GET => "/tables/$cat.sch.events/delta/history")) || {};
is(join(',', map { "$_->{version}:$_->{timestamp}" } @{ $j->{commits} || [] }),
   '3:1790000000003,2:1790000000002,1:1790000000001,0:1790000000000',
   'the Delta reader: the ratified versions with their in-commit timestamps') or diag explain $j;
$j = json_of(update('events', updates => [ { action => 'set-domain-metadata',
                                             updates => { 'delta.rowTracking' => { rowIdHighWaterMark => 120 } } },
                                           add_commit(4) ])) || {};
ok(($j->{metadata}{etag} // '') eq $etag2 && ($j->{metadata}{'last-commit-version'} // 0) == 2
   && ($j->{metadata}{properties}{'delta.rowTracking.rowIdHighWaterMark'} // '') eq '120',
   'a row-tracking high-water mark alone is kept but dates nothing') or diag explain $j->{metadata};

# Backfill reports.
$res = update('events', updates => [ backfill(3) ]);
is_deeply(versions_of($res), [4], 'set-latest-backfilled-version 3 alone: 4 is left');
is_delta_error(update('events', updates => [ backfill(9) ]), 400, 'InvalidParameterValueException',
               'backfilling past the last commit: 400');
$res = update('events', updates => [ backfill(4) ]);
ok(!@{ versions_of($res) } && ((json_of($res) || {})->{'latest-table-version'} // -1) == 4,
   'everything backfilled: no commits, latest version 4') or diag $res->content;

# The bound on commits not backfilled: the API's ResourceExhaustedException.
is_ok_json(commit_v($_), "commit $_") for 5 .. 14;
is_delta_error(commit_v(15), 429, 'ResourceExhaustedException', 'an eleventh commit not backfilled: 429');
is_ok_json(update('events', updates => [ add_commit(15), backfill(14) ]),
           'the commit with a backfill report: 200');

# --- writers racing for one version, on this server and on two over one database ---------
sub make_table {
    my ($name) = @_;
    my $s = json_of(delta(POST => "$SCH/staging-tables", body => { name => $name })) || {};
    my $res = delta(POST => "$SCH/tables", body => {
        %create, name => $name, location => $s->{location},
        properties => { %required, 'io.unitycatalog.tableId' => $s->{'table-id'} } });
    die "setup: table $name: " . $res->content unless $res->code == 200;
    return $s->{'table-id'};
}
sub race_for {
    my ($name, $uuid, $v, $writers, %o) = @_;
    race(map { my $w = $_; sub {
        delta(POST => table_path($name), ($w % 2 && $o{other} ? (base => $o{other}) : ()), body => {
            requirements => [ { type => 'assert-table-uuid', uuid => $uuid } ],
            updates => [ add_commit($v, file => staged($v, "w$w")), backfill($v - 1) ] }) } } 1 .. $writers);
}
my $raced = make_table('raced');
for my $v (1 .. 3) {
    one_winner('409 CommitVersionConflictException', "version $v: one writer of 16 wins, the others 409",
               race_for('raced', $raced, $v, 16));
}
$j = json_of(delta(GET => table_path('raced'))) || {};
ok(($j->{'latest-table-version'} // 0) == 3 && @{ versions_of(delta(GET => table_path('raced'))) } == 1,
   'versions dense; each backfill report kept the latest only') or diag explain $j;

my $node_b = own_httpd(<<"CONF");
Include "${\ Apache::Test::vars('t_conf')}/backend.conf"
DBDMin 1
DBDKeep 4
DBDMax 25
${\ catalog_mount()}
CONF
ok($node_b->{up}, 'node B serves the same catalog') or diag $node_b->{log}->();
my $across = make_table('across');
for my $v (1 .. 3) {
    one_winner('409 CommitVersionConflictException', "version $v: one of 16 writers on two servers wins",
               race_for('across', $across, $v, 16, other => "$node_b->{url}/api/2.1/unity-catalog"));
}
is((json_of(delta(GET => table_path('across'), base => "$node_b->{url}/api/2.1/unity-catalog")) || {})
       ->{'latest-table-version'}, 3, 'node B reads every version ratified once');
$node_b->{stop}->();

# --- rules kept by the table -----------------------------------------------------------
is_delta_error(update('events', updates => [ { action => 'set-protocol', protocol => {
                   %$protocol, 'reader-features' => ['deletionVectors'],
                   'writer-features' => [qw(deletionVectors inCommitTimestamp)] } } ]),
               400, 'InvalidParameterValueException', 'a protocol without catalogManaged: 400',
               message => qr/catalogManaged/);
is_delta_error(update('events', updates => [ { action => 'set-domain-metadata',
                                               updates => { 'delta.clustering' => { clusteringColumns => [['id']] } } } ]),
               400, 'InvalidParameterValueException', 'clustering without its feature: 400');
$res = update('events', updates => [
    { action => 'set-protocol', protocol => { %$protocol, 'writer-features' => [ @{ $protocol->{'writer-features'} }, 'clustering' ] } },
    { action => 'set-domain-metadata', updates => { 'delta.clustering' => { clusteringColumns => [['id'], ['point', 'x']] } } } ]);
is_ok_json($res, 'set-protocol with clustering, and its domain');
$j = (json_of($res) || {})->{metadata}{properties} || {};
ok(($j->{'delta.feature.clustering'} // '') eq 'supported' && ($j->{clusteringColumns} // '') eq '[["id"],["point","x"]]',
   'the protocol\'s features and the clustering columns are properties') or diag explain $j;
is_delta_error(update('events', updates => [ { action => 'update-metadata-snapshot-version',
                                               'last-commit-version' => 3, 'last-commit-timestamp-ms' => 1 } ]),
               400, 'InvalidParameterValueException', 'update-metadata-snapshot-version of a MANAGED table: 400');
is_ok_json(update('events', updates => [ { action => 'set-partition-columns', 'partition-columns' => ['DAY', 'id'] } ]),
           'set-partition-columns alone (names in any case)');
is_deeply((json_of(delta(GET => table_path('events'))) || {})->{metadata}{'partition-columns'}, ['day', 'id'],
          'the columns stay, partitioned anew');

# --- credentials, metrics --------------------------------------------------------------
$res = delta(GET => table_path('events') . '/credentials', query => { operation => 'READ' });
is_ok_json($res, 'table credentials, READ');
$cred = ((json_of($res) || {})->{'storage-credentials'} || [])->[0] || {};
ok(($cred->{prefix} // '') eq $st->{location} && ($cred->{operation} // '') eq 'READ' && ref $cred->{config} eq 'HASH',
   'the prefix is the table\'s location') or diag $res->content;
is_delta_error(delta(GET => table_path('events') . '/credentials', query => { operation => 'WRITE' }), 400,
               'InvalidParameterValueException', 'an unknown operation: 400');
$res = delta(GET => '/delta/v1/temporary-path-credentials', query => { location => "file:$tmp/elsewhere", operation => 'READ_WRITE' });
$cred = ((json_of($res) || {})->{'storage-credentials'} || [])->[0] || {};
ok($res->code == 200 && ($cred->{prefix} // '') eq "file://$tmp/elsewhere" && ($cred->{operation} // '') eq 'READ_WRITE',
   'path credentials for an admin, the location in its normal form') or diag $res->content;
is_delta_error(delta(GET => '/delta/v1/temporary-path-credentials', user => 'alice',
                     query => { location => "file://$tmp/elsewhere", operation => 'READ' }),
               403, 'PermissionDeniedException', 'path credentials where no external location lets alice in: 403');
is_delta_error(delta(GET => '/delta/v1/temporary-path-credentials', query => { operation => 'READ' }),
               400, 'InvalidParameterValueException', 'path credentials without a location: 400');
$res = delta(POST => table_path('events') . '/metrics', body => {
    'table-id' => $id, report => { 'commit-report' => { 'num-files-added' => 2, 'num-bytes-added' => 2048,
                                                        'num-files-removed' => 0, 'num-bytes-removed' => 0,
                                                        'num-rows-inserted' => 10 } } });
ok($res->code == 204 && !length($res->content), 'reportMetrics: 204') or diag $res->code . ' ' . $res->content;
is_delta_error(delta(POST => table_path('events') . '/metrics', body => { 'table-id' => '0b6f3a52-5d7e-4a4c-9c1e-0d2b8c1f7a10' }),
               400, 'InvalidParameterValueException', 'metrics of another table id: 400');

# A staging table's credentials are its creator's, until it is a table.
my $st2 = json_of(delta(POST => "$SCH/staging-tables", body => { name => 'later' })) || {};
$res = delta(GET => "/delta/v1/staging-tables/$st2->{'table-id'}/credentials");
ok($res->code == 200 && ((json_of($res) || {})->{'storage-credentials'}[0]{operation} // '') eq 'READ_WRITE',
   'staging table credentials: READ_WRITE') or diag $res->content;
grant('catalog', $cat, 'alice', 'USE_CATALOG');
grant('schema', "$cat.sch", 'alice', 'USE_SCHEMA');
is_delta_error(delta(GET => "/delta/v1/staging-tables/$st2->{'table-id'}/credentials", user => 'alice'), 404,
               'NoSuchTableException', 'another principal\'s staging table: as missing');
$res = delta(GET => "/delta/v1/staging-tables/$id/credentials");
ok($res->code == 200 && ((json_of($res) || {})->{'storage-credentials'}[0]{prefix} // '') eq $st->{location},
   'the table a staging table became: credentials for who may write it') or diag $res->content;

# --- privileges, hidden tables ---------------------------------------------------------
my $missing = delta(GET => table_path('nothing'), user => 'alice');
$res = delta(GET => table_path('events'), user => 'alice');
ok($res->code == 404 && ((json_of($res) || {})->{error}{type} // '') eq 'NoSuchTableException'
   && ((json_of($res) || {})->{error}{message} // '') =~ /events/
   && (json_of($missing) || {})->{error}{message} =~ /nothing/,
   'a table alice may not see answers as a missing one') or diag $res->content;
is(delta(HEAD => table_path('events'), user => 'alice')->code, 404, 'HEAD of a hidden table: 404');
grant('table', "$cat.sch.events", 'alice', 'SELECT');
is_ok_json(delta(GET => table_path('events'), user => 'alice'), 'SELECT reads the table');
is_delta_error(update('events', user => 'alice', updates => [ add_commit(16) ]), 403,
               'PermissionDeniedException', 'SELECT alone does not commit');
is_delta_error(delta(GET => table_path('events') . '/credentials', user => 'alice', query => { operation => 'READ_WRITE' }),
               403, 'PermissionDeniedException', 'READ_WRITE credentials need MODIFY');
is_delta_error(delta(POST => table_path('events') . '/rename', user => 'alice', body => { 'new-name' => 'x' }),
               403, 'PermissionDeniedException', 'rename needs MANAGE');
grant('table', "$cat.sch.events", 'alice', 'MODIFY');
is_ok_json(update('events', user => 'alice', updates => [ add_commit(16) ]), 'MODIFY commits');

# --- other tables ----------------------------------------------------------------------
my $view = create_object('/tables', { name => 'a_view', catalog_name => $cat, schema_name => 'sch',
                                      table_type => 'VIEW', data_source_format => 'PARQUET',
                                      view_definition => 'select 1', columns => [] });
is_delta_error(delta(GET => table_path('a_view')), 400, 'UnsupportedTableFormatException',
               'a table that is not Delta: UnsupportedTableFormatException, so the client falls back');
make_path("$tmp/ext/orders");
api(POST => '/external-locations', body => { name => "loc_$p", url => "file://$tmp/ext" });
$res = delta(POST => "$SCH/tables", body => {
    name => 'orders', location => "file://$tmp/ext/orders", 'table-type' => 'EXTERNAL',
    columns => { type => 'struct', fields => [ $fields[0] ] },
    protocol => { 'min-reader-version' => 1, 'min-writer-version' => 2 }, properties => {},
    'last-commit-timestamp-ms' => 1790000000000 });
is_ok_json($res, 'an EXTERNAL table through the API');
$j = json_of($res) || {};
ok(($j->{metadata}{'table-type'} // '') eq 'EXTERNAL' && !exists $j->{commits} && !exists $j->{'latest-table-version'},
   'an external table has no commits of the catalog\'s: its log is its truth') or diag explain $j;
is_ok_json(delta(POST => table_path('orders'), body => {
               requirements => [ { type => 'assert-table-uuid', uuid => $j->{metadata}{'table-uuid'} } ],
               updates => [ { action => 'update-metadata-snapshot-version', 'last-commit-version' => 5,
                              'last-commit-timestamp-ms' => 1790000000005 } ] }),
           'update-metadata-snapshot-version of an EXTERNAL table');
is_delta_error(delta(POST => table_path('orders'), body => {
                   requirements => [ { type => 'assert-table-uuid', uuid => $j->{metadata}{'table-uuid'} } ],
                   updates => [ add_commit(1) ] }),
               400, 'InvalidParameterValueException', 'add-commit to an EXTERNAL table: 400');

# --- rename, drop ----------------------------------------------------------------------
is_delta_error(delta(POST => table_path('events') . '/rename', body => { 'new-name' => 'orders' }), 409,
               'AlreadyExistsException', 'renaming onto another table: 409');
$res = delta(POST => table_path('events') . '/rename', body => { 'new-name' => 'happenings' });
ok($res->code == 204 && !length($res->content), 'rename: 204') or diag $res->content;
is_delta_error(delta(GET => table_path('events')), 404, 'NoSuchTableException', 'the old name is gone');
$j = json_of(delta(GET => table_path('happenings'))) || {};
ok(($j->{metadata}{'table-uuid'} // '') eq $id && @{ $j->{commits} || [] },
   'the table and its commits under the new name') or diag explain $j;
$res = delta(DELETE => table_path('happenings'));
ok($res->code == 204 && !length($res->content), 'deleteTable: 204') or diag $res->content;
is(delta(HEAD => table_path('happenings'))->code, 404, 'gone');
is(api(GET => '/delta/preview/commits', body => { table_id => $id, table_uri => $st->{location},
                                                   start_version => 0 })->code,
   404, 'its commits went with it');
