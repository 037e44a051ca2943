# SPDX-License-Identifier: Apache-2.0
# The commit coordinator of catalog-managed Delta tables
# (/delta/preview/commits), spoken to as Delta's UCTokenBasedRestClient
# speaks (snake_case JSON, the GET's request as a JSON body): a managed
# table created with the catalogManaged feature through a staging table,
# commits 1..n, replays, conflicts, gaps, backfill reports, the bound on
# commits not backfilled (and its directive, on a second httpd), metadata
# carried by a commit, privileges and hidden tables, tables that are not
# coordinated; writers racing for one version, on this server and on two
# servers over one database: exactly one wins each version.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;
use Unicat::Commits;
use File::Path qw(make_path);
use File::Temp ();

my $t_conf = Apache::Test::vars('t_conf');
plan tests => 101;

my $p = "t83_$$";
my $cat = "cat_$p";
my @cleanup = ($cat);
END { drop_catalog($_) for @cleanup }
create_catalog($cat, storage_root => "s3://bucket/$p");
create_schema($cat, 'sch');
my %in = (catalog_name => $cat, schema_name => 'sch');
my $UNKNOWN = '0b6f3a52-5d7e-4a4c-9c1e-0d2b8c1f7a10';

# is_as_missing, once the missing table's own answer is the catalog's 404.
sub as_missing_table {
    my ($res, $missing, $name) = @_;
    my $code = (json_of($missing) || {})->{error_code} // '';
    return is_as_missing($res, $missing, [$_[3], $UNKNOWN], $name)
        if $code eq 'TABLE_NOT_FOUND';
    return ok(0, $name) || diag "the missing table answered " . $missing->content;
}

# --- a fresh table, the first commits ----------------------------------------------
my $t = coordinated(\%in, 'events');
my $res = get_commits($t);
is_ok_json($res, 'GET commits of a fresh table, body on a GET');
my $j = json_of($res) || {};
ok(ref $j->{commits} eq 'ARRAY' && !@{ $j->{commits} }
   && is_json_int($j->{latest_table_version}) && $j->{latest_table_version} == 0,
   'fresh table: no commits, latest_table_version 0 (a JSON number)') or diag explain $j;
$res = api(GET => $COMMITS, query => { table_id => $t->{table_id}, start_version => 0 });
ok($res->code == 200 && latest_of($res) == 0 && ref((json_of($res) || {})->{commits}) eq 'ARRAY',
   'GET commits without a body reads the query string') or diag $res->content;

$res = commit($t, 1, lbv => 0);
is_ok_json($res, 'commit 1 ratified');
is($res->content, '{}', 'a commit answers {}');
$j = json_of(get_commits($t)) || {};
is_deeply($j, { commits => [ { version => 1, timestamp => 1700000000001,
                               file_name => staged(1), file_size => 101,
                               file_modification_timestamp => 1700000000501 } ],
                latest_table_version => 1 },
          'GET gives commit 1 with every field of commit_info');
ok(!grep({ !is_json_int($j->{commits}[0]{$_}) }
         qw(version timestamp file_size file_modification_timestamp)),
   'numbers are JSON numbers') or diag explain $j;

is_ok_json(commit($t, 1, lbv => 0), 'the same commit 1 again is a replay: 200');
is_deeply(versions_of(get_commits($t)), [1], 'a replay ratifies nothing more');
is_error(commit($t, 1, file => staged(1, 'other')), 409, 'COMMIT_VERSION_CONFLICT',
         'another file at version 1: 409', message => qr/already accepted.*Version 1/);
is_error(commit($t, 3), 400, 'INVALID_PARAMETER_VALUE', 'a gap (3 after 1): 400',
         message => qr/next version after the latest commit 1, but got 3/);
for my $v (2 .. 4) { commit($t, $v, lbv => 0)->code == 200 or diag "commit $v failed" }
is_deeply(versions_of(get_commits($t)), [4, 3, 2, 1], 'commits 1..4, newest first');
is_deeply(versions_of(get_commits($t, 2)), [4, 3, 2], 'from version 2');
is_deeply(versions_of(get_commits($t, 2, 2)), [2], 'versions 2 to 2');
is(latest_of(get_commits($t, 2, 2)), 4, 'latest_table_version whatever the range');
is_ok_json(commit($t, 2), 'a replay of an older commit still tracked: 200');
is_error(commit($t, 2, file => staged(2, 'other')), 409, 'COMMIT_VERSION_CONFLICT',
         'another file at an older version: 409');

# --- table_uri ------------------------------------------------------------------
is_error(commit($t, 5, uri => "s3://bucket/$p/elsewhere"), 400, 'INVALID_PARAMETER_VALUE',
         'another table_uri: 400', message => qr/does not match the table path/);
is_error(commit($t, 5, uri => ''), 400, 'INVALID_PARAMETER_VALUE', 'an empty table_uri: 400');
(my $spelled = "$t->{storage_location}/") =~ s{^s3://bucket/}{s3://BUCKET//};
is_ok_json(commit($t, 5, uri => $spelled, lbv => 2),
           'the table_uri in another spelling; commit 5 reporting 2 backfilled');
is_deeply(versions_of(get_commits($t)), [5, 4, 3], 'what was backfilled is not given');

# --- backfill reports -----------------------------------------------------------------
is_error(backfilled($t, 9), 400, 'INVALID_PARAMETER_VALUE', 'backfilled beyond the latest: 400',
         message => qr/Should not backfill version 9 while the last version committed is 5/);
is_error(commit($t, 6, lbv => 6), 400, 'INVALID_PARAMETER_VALUE',
         'a commit reporting itself backfilled: 400',
         message => qr/Latest backfilled version 6 cannot be greater than the last commit version = 5/);
is_ok_json(backfilled($t, 3), 'a backfill report alone');
is_deeply(versions_of(get_commits($t)), [5, 4], 'it forgets what it reports');
is_ok_json(backfilled($t, 5), 'everything backfilled');
$res = get_commits($t);
ok(!@{ versions_of($res) } && latest_of($res) == 5,
   'no commit left to give, the latest version kept') or diag $res->content;
is_ok_json(commit($t, 5), 'a replay of the backfilled latest commit: 200');
is_error(commit($t, 3), 500, 'COMMIT_STATE_UNKNOWN',
         'a version backfilled and forgotten cannot be told: 500, never a false 409');
is_ok_json(commit($t, 6), 'commit 6 after the backfill');
is_deeply(versions_of(get_commits($t)), [6], 'only commit 6 waits to be backfilled');

# --- a backfilled version replayed, on storage the server reads --------------------------
# The staged file of a replay is compared with the published one.
my $tmp = File::Temp::tempdir("unicat-t83-XXXXXX", TMPDIR => 1, CLEANUP => 1);
my $lcat = "local_$p";
push @cleanup, $lcat;
create_catalog($lcat, storage_root => "file://$tmp");
create_schema($lcat, 'sch');
my $lt = coordinated({ %in, catalog_name => $lcat }, 'local');
(my $dir = $lt->{storage_location}) =~ s{^file://}{};
make_path("$dir/_delta_log/_staged_commits");
sub put { open my $fh, '>', "$dir/_delta_log/$_[0]" or die "$_[0]: $!"; print $fh $_[1]; close $fh }
my $one = qq({"commitInfo":{"inCommitTimestamp":1700000000001,"txnId":"a"}}\n) x 900;
put('_staged_commits/' . staged(1), $one);
put('_staged_commits/' . staged(1, 'same'), $one);
put('_staged_commits/' . staged(1, 'other'), $one . "x");
put(sprintf('%020d.json', 1), $one);
commit($lt, $_) for 1 .. 3;
backfilled($lt, 2);
is_ok_json(commit($lt, 1), 'a replay of a forgotten version whose file was published: 200');
is_ok_json(commit($lt, 1, file => staged(1, 'same')), 'another file of the same bytes: 200');
is_error(commit($lt, 1, file => staged(1, 'other')), 409, 'COMMIT_VERSION_CONFLICT',
         'a file of other bytes: 409');
is_error(commit($lt, 2), 500, 'COMMIT_STATE_UNKNOWN', 'a version not found published: 500');
is_deeply(versions_of(get_commits($lt)), [3], 'none of them changed the commits');
is_ok_json(commit($lt, 4, uri => "file:$dir"),
           'the table_uri as Hadoop spells a local path (file:/...)');

# --- metadata carried by a commit ------------------------------------------------------
my $full = "$cat.sch.events";
my $meta = { description => 'events, partitioned',
             schema => { columns => [ col('id', 0), col('day', 1, 'DATE') ] },
             properties => { properties => { 'io.unitycatalog.tableId' => $t->{table_id},
                                             'delta.appendOnly' => 'true' } } };
is_ok_json(commit($t, 7, metadata => $meta), 'commit 7 changes the metadata');
$j = json_of(api(GET => "/tables/$full")) || {};
ok(($j->{comment} // '') eq 'events, partitioned'
   && join(',', map { $_->{name} } @{ $j->{columns} || [] }) eq 'id,day'
   && ($j->{properties}{'delta.appendOnly'} // '') eq 'true'
   && !exists $j->{properties}{'delta.enableInCommitTimestamps'}
   && ($j->{properties}{'delta.feature.catalogManaged'} // '') eq 'supported',
   'comment, columns and the whole property set changed; the feature stays')
    or diag explain $j;
my $before = $j;
is_ok_json(commit($t, 7, metadata => { description => 'a replay says nothing' }),
           'a replay of 7 with other metadata: 200');
is_deeply(json_of(api(GET => "/tables/$full")), { %$before, comment => 'events, partitioned' },
          'a replay changes nothing');
is_error(commit($t, 8, metadata => {}), 400, 'INVALID_PARAMETER_VALUE', 'empty metadata: 400',
         message => qr/At least one of description, properties, or schema/);
is_error(commit($t, 8, metadata => { properties => { properties => { a => 'b' } } }),
         400, 'INVALID_PARAMETER_VALUE', 'properties that do not name the table: 400',
         message => qr/io\.unitycatalog\.tableId/);
is_deeply(versions_of(get_commits($t)), [7, 6], 'a refused commit ratifies nothing');

# --- the shape of requests -----------------------------------------------------------------
my $good = commit_body($t, 8);
my @bad = (
    [ 'no table_id', { %$good, table_id => undef } ],
    [ 'version 0', { %$good, commit_info => { %{ $good->{commit_info} }, version => 0 } } ],
    [ 'a file_name with a slash', { %$good, commit_info => { %{ $good->{commit_info} },
                                                          file_name => '../00000000000000000008.json' } } ],
    [ 'file_size 0', { %$good, commit_info => { %{ $good->{commit_info} }, file_size => 0 } } ],
    [ 'no timestamp', { %$good, commit_info => { %{ $good->{commit_info} }, timestamp => undef } } ],
    [ 'neither commit_info nor latest_backfilled_version', { %$good, commit_info => undef } ],
    [ 'uniform on a table without Iceberg',
      { %$good, uniform => { iceberg => { metadata_location => "$t->{storage_location}/metadata/m.json",
                                          converted_delta_version => 8,
                                          converted_delta_timestamp => '2026-12-07T09:00:00Z' } } } ],
);
for my $case (@bad) {
    is_error(post_commit($case->[1]), 400, undef, "$case->[0]: 400");
}
is_deeply(versions_of(get_commits($t)), [7, 6], 'nothing of them ratified');
is_error(api(GET => $COMMITS, body => { table_id => $t->{table_id} }), 400,
         'INVALID_PARAMETER_VALUE', 'GET without start_version: 400');
is_error(get_commits($t, 5, 4), 400, 'INVALID_PARAMETER_VALUE', 'GET with end before start: 400');
is_error(api(GET => $COMMITS, raw => '{"table_id":', content_type => 'application/json'),
         400, undef, 'GET with a body that is not JSON: 400');

# --- UniForm: the Iceberg metadata of a commit ----------------------------------------------
my $ice = coordinated(\%in, 'ice', 'delta.universalFormat.enabledFormats' => 'iceberg',
                      'delta.enableIcebergCompatV2' => 'true');
sub uniform_of {
    my ($v, %o) = @_;
    return { iceberg => { metadata_location => "$ice->{storage_location}/metadata/v$v.metadata.json",
                          converted_delta_version => $v,
                          converted_delta_timestamp => '2026-12-07T09:00:00.250Z', %o } };
}
sub ice_commit { my ($v, $u) = @_; post_commit({ %{ commit_body($ice, $v) }, uniform => $u }) }
is_error(commit($ice, 1), 400, 'INVALID_PARAMETER_VALUE', 'an Iceberg table\'s commit without uniform: 400',
         message => qr/Uniform metadata must be set/);
is_error(ice_commit(1, uniform_of(1, converted_delta_version => 2)), 400, 'INVALID_PARAMETER_VALUE',
         'uniform of another version: 400', message => qr/must equal commit version/);
is_error(ice_commit(1, uniform_of(1, metadata_location => "s3://bucket/$p/elsewhere/v1.json")), 400,
         'INVALID_PARAMETER_VALUE', 'Iceberg metadata outside the table: 400', message => qr/subpath/);
is_error(ice_commit(1, uniform_of(1, converted_delta_timestamp => 'yesterday')), 400,
         'INVALID_PARAMETER_VALUE', 'a timestamp that is not ISO-8601: 400');
is_error(ice_commit(1, {}), 400, 'INVALID_PARAMETER_VALUE', 'uniform without iceberg: 400');
is_ok_json(ice_commit(1, uniform_of(1)), 'a commit with its Iceberg metadata');
my $kept = db_query("SELECT details FROM securables WHERE id = '$ice->{table_id}'");
like($kept, qr/"uniform_iceberg":\{"metadata_location":"\Q$ice->{storage_location}\E\/metadata\/v1\.metadata\.json","converted_delta_version":1,"converted_delta_timestamp":1796634000250\}/,
     'kept with the table, its time in epoch milliseconds');
$j = json_of(api(GET => "/tables/$cat.sch.ice")) || {};
ok($kept =~ /uniform_iceberg/ && $j->{table_id} && !grep({ /uniform/ } keys %$j),
   'and not in the table\'s answer') or diag explain $j;

# --- tables the coordinator does not serve ------------------------------------------------
my $plain = managed_table(\%in, 'plain');
is_error(commit($plain, 1), 400, 'INVALID_PARAMETER_VALUE',
         'a managed table without the feature: 400', message => qr/not catalog-managed/);
is_error(get_commits($plain), 400, 'INVALID_PARAMETER_VALUE', 'and no commits to read');
my $view = create_object('/tables', { name => 'view_of_one', %in, table_type => 'VIEW',
                                      data_source_format => 'DELTA',
                                      view_definition => 'SELECT 1', columns => [ col('one', 0) ] });
is_error(commit({ %$view, storage_location => "s3://bucket/$p/v" }, 1), 400,
         'INVALID_PARAMETER_VALUE', 'a view: 400', message => qr/Only managed tables/);
my $missing = commit({ table_id => $UNKNOWN, storage_location => "s3://bucket/$p/x" }, 1);
is_error($missing, 404, 'TABLE_NOT_FOUND', 'an unknown table: 404');
my $st = create_object('/staging-tables', { name => 'pending', %in });
as_missing_table(commit({ table_id => $st->{id}, storage_location => $st->{staging_location} }, 1),
                 $missing, 'an open staging reservation is no table yet', $st->{id});

# --- privileges --------------------------------------------------------------------------
for my $u (qw(alice bob carol)) {
    grant(catalog => $cat, $u, 'USE CATALOG');
    grant(schema => "$cat.sch", $u, 'USE SCHEMA');
}
grant(table => $full, alice => 'SELECT');
grant(table => $full, bob => 'MODIFY');
$res = get_commits($t, 0, undef, user => 'alice');
ok($res->code == 200 && "@{ versions_of($res) }" eq '7 6', 'SELECT reads the commits')
    or diag $res->content;
is_error(commit($t, 8, user => 'alice'), 403, 'PERMISSION_DENIED', 'SELECT alone does not commit',
         message => qr/MODIFY/);
is_ok_json(commit($t, 8, user => 'bob'), 'MODIFY commits');
is_error(get_commits($t, 0, undef, user => 'bob'), 403, 'PERMISSION_DENIED',
         'MODIFY alone does not read the commits', message => qr/SELECT/);
my $missing_read = api(GET => $COMMITS, user => 'carol',
                       body => { table_id => $UNKNOWN, start_version => 0 });
as_missing_table(commit($t, 9, user => 'carol'),
                 commit({ table_id => $UNKNOWN, storage_location => 'x' }, 9, user => 'carol'),
                 'a hidden table answers a commit as a missing one', $t->{table_id});
as_missing_table(get_commits($t, 0, undef, user => 'carol'), $missing_read,
                 'and a read of its commits too', $t->{table_id});
as_missing_table(get_commits($t, 0, undef, user => 'dave'),
                 api(GET => $COMMITS, user => 'dave',
                     body => { table_id => $UNKNOWN, start_version => 0 }),
                 'for a caller with nothing in the catalog too', $t->{table_id});
is_deeply(versions_of(get_commits($t)), [8, 7, 6], 'only the allowed commit was ratified');

# --- the bound on commits not backfilled ---------------------------------------------------
my $busy = coordinated(\%in, 'busy');
my @codes = map { commit($busy, $_)->code } 1 .. 10;
is("@codes", join(' ', (200) x 10), 'ten commits not backfilled');
is_error(commit($busy, 11), 429, 'RESOURCE_EXHAUSTED', 'the eleventh: 429',
         message => qr/Max number of commits per table reached/);
is_ok_json(backfilled($busy, 6), 'the writer backfills and reports it');
@codes = map { commit($busy, $_)->code } 11 .. 16;
is("@codes", join(' ', (200) x 6), 'six more');
is_error(commit($busy, 17), 429, 'RESOURCE_EXHAUSTED', 'ten waiting again: 429');
is_ok_json(commit($busy, 17, lbv => 16), 'a commit that reports the backfill with it');
is_deeply(versions_of(get_commits($busy)), [17], 'only it waits');

# --- writers racing for one version ---------------------------------------------------------
my $raced = coordinated(\%in, 'raced');
my $ROUNDS = 5;
for my $v (1 .. $ROUNDS) {
    my @out = race(map { my $w = $_; sub { commit($raced, $v, file => staged($v, "w$w")) } } 1 .. 8);
    one_winner('409 COMMIT_VERSION_CONFLICT', "version $v: one writer of 8 wins, the others 409", @out);
}
$res = get_commits($raced);
is_deeply(versions_of($res), [reverse 1 .. $ROUNDS], 'versions dense, each once');
my @held = @{ (json_of($res) || {})->{commits} || [] };
ok(@held == $ROUNDS && !grep({ $_->{file_name} !~ /^\d{20}\.w[1-8]\.json$/ } @held),
   'each version holds one writer\'s file') or diag $res->content;

# --- a second server: the directive, and races across the servers ------------------------
my $node_b = own_httpd(<<"CONF");
Include "$t_conf/backend.conf"
DBDMin 1
DBDKeep 4
DBDMax 25
UnicatDeltaMaxUnbackfilledCommits 3
${\ catalog_mount()}
CONF
my $B = "$node_b->{url}/api/2.1/unity-catalog";
ok($node_b->{up}, 'node B serves the same catalog') or diag $node_b->{log}->();
my $small = coordinated(\%in, 'small');
@codes = map { commit($small, $_, base => $B)->code } 1 .. 3;
is("@codes", '200 200 200', 'node B: three commits not backfilled');
is_error(commit($small, 4, base => $B), 429, 'RESOURCE_EXHAUSTED',
         'UnicatDeltaMaxUnbackfilledCommits 3: the fourth is 429');
is_ok_json(commit($small, 4), 'node A keeps the default of 10');
my $across = coordinated(\%in, 'across');
for my $v (1 .. $ROUNDS) {
    my @out = race(map { my $w = $_; sub {
        commit($across, $v, file => staged($v, "w$w"), lbv => $v - 1,
               $w % 2 ? (base => $B) : ()) } } 1 .. 8);
    one_winner('409 COMMIT_VERSION_CONFLICT',
               "version $v across two servers: one winner", @out);
}
is(latest_of(get_commits($across, 0, undef, base => $B)), $ROUNDS,
   'every version ratified once across the servers');
$node_b->{stop}->();

# --- a table's commits go with it ---------------------------------------------------------------
api(DELETE => "/tables/$full")->code == 200 or die "setup: the table was not deleted";
is_error(get_commits($t), 404, 'TABLE_NOT_FOUND', 'its commits are gone with it');
