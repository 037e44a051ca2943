# SPDX-License-Identifier: Apache-2.0
# Shares over HTTP: create, get (with and without include_shared_data),
# list, rename, owner transfer and delete; data objects added, updated and
# removed by PATCH updates[] (all or none), their errors, what dropped and
# renamed objects become, options checked against real local Delta logs
# (partition columns, change data feed, versions), who may do what (what
# the caller may not know of answers as missing), and concurrent additions
# of one object.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use File::Temp ();
use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 84;

my $p = "s63_$$";
my ($cat, $share) = ("cat_$p", "shr_$p");
my $fixtures = "$FindBin::Bin/../delta/fixtures";
my $tmp = File::Temp::tempdir("unicat-s63-XXXXXX", TMPDIR => 1,
                              CLEANUP => 1);
chmod 0755, $tmp;
system('cp', '-r', "$fixtures/delta-0.8.0-partitioned", "$tmp/part") == 0
    && system('cp', '-r', "$fixtures/cdf-table", "$tmp/cdf") == 0
    or die "setup: cannot copy the Delta fixtures";
my @shares = ($share, "alice_$p", "race_$p", "ren_$p");
END {
    api(DELETE => "/shares/$_") for @shares;
    drop_catalog($cat);
    api(PATCH => '/permissions/metastore/metastore', body => { changes => [
        map { { principal => $_, remove => ['CREATE SHARE', 'USE SHARE'] } }
        qw(alice bob) ] });
}

sub update {
    my ($name, @updates) = @_;
    my %opt = ref $updates[-1] eq 'HASH' && $updates[-1]{user}
              ? %{ pop @updates } : ();
    return api(PATCH => "/shares/$name", body => { updates => \@updates },
               %opt);
}
sub add    { { action => 'ADD', data_object => { @_ } } }
sub change { { action => 'UPDATE', data_object => { @_ } } }
sub remove { { action => 'REMOVE', data_object => { @_ } } }
sub table  { (name => "$cat.sch.$_[0]", data_object_type => 'TABLE') }
sub objects_of {
    my ($name) = @_;
    my $s = json_of(api(GET => "/shares/$name",
                        query => { include_shared_data => 'true' })) || {};
    return { map { $_->{shared_as} => $_ } @{ $s->{objects} || [] } };
}

create_catalog($cat);
create_schema($cat, 'sch');
my %ext = (catalog_name => $cat, schema_name => 'sch',
           table_type => 'EXTERNAL', data_source_format => 'DELTA',
           columns => []);
create_object('/tables', { %ext, name => $_,
                           storage_location => "s3://sh-$$/$_" })
    for qw(tb1 tb2 tb3);
create_object('/volumes', { catalog_name => $cat, schema_name => 'sch',
                            name => 'vol', volume_type => 'EXTERNAL',
                            storage_location => "s3://sh-$$/vol" });
create_object('/tables', { %ext, name => 'part',
                           storage_location => "file://$tmp/part" });
create_object('/tables', { %ext, name => 'cdf',
                           storage_location => "file://$tmp/cdf" });

my @KEYS = qw(name comment owner created_at created_by updated_at updated_by
    id metastore_id browse_only);

# --- the share itself -------------------------------------------------------
my $res = api(POST => '/shares', body => { name => $share,
                                           comment => 'for partners' });
is_ok_json($res, 'POST /shares');
my $s = json_of($res) || {};
has_keys($s, \@KEYS, 'share: every field, no objects on create');
ok(is_uuid($s->{id}) && $s->{owner} eq 'admin'
   && $s->{comment} eq 'for partners', 'its id, owner and comment')
    or diag explain $s;
is_error(api(POST => '/shares', body => { name => $share }), 400,
         'RESOURCE_ALREADY_EXISTS', 'a taken name', message => qr/$share/);
is_error(api(POST => '/shares', body => { name => 'Bad-Name' }), 400,
         'INVALID_PARAMETER_VALUE', 'an invalid name');
is_deeply(json_of(api(GET => "/shares/$share")), $s,
          'GET without include_shared_data: as created, no objects');
$res = api(GET => "/shares/$share", query => { include_shared_data => 'true' });
is_deeply((json_of($res) || {})->{objects}, [],
          'include_shared_data=true: an empty objects list');
is_error(api(GET => "/shares/nope_$p"), 404, undef, 'a missing share: 404');

# --- adding, updating, removing ----------------------------------------------
$res = update($share, add(table('tb1'), comment => 'orders'));
is_ok_json($res, 'ADD a table');
my ($o) = @{ (json_of($res) || {})->{objects} || [] };
ok($o && $o->{name} eq "$cat.sch.tb1" && $o->{shared_as} eq 'sch.tb1'
   && $o->{data_object_type} eq 'TABLE' && $o->{comment} eq 'orders'
   && $o->{added_by} eq 'admin' && is_json_int($o->{added_at})
   && !$o->{enable_cdf} && $o->{history_data_sharing_status} eq 'DISABLED',
   'the answer shows the object with its defaults') or diag explain $o;
ok((json_of($res) || {})->{updated_at} >= $s->{updated_at},
   'the share is updated');
is_error(update($share, add(table('tb1'))), 400, 'RESOURCE_ALREADY_EXISTS',
         'ADD of an object already shared', message => qr/$cat\.sch\.tb1/);
is_error(update($share, add(table('tb2'), shared_as => 'sch.tb1')), 400,
         'RESOURCE_ALREADY_EXISTS', 'ADD under a shared_as taken',
         message => qr/sch\.tb1/);
is_error(update($share, add(table('tb2'), shared_as => 'a.b.c')), 400,
         'INVALID_PARAMETER_VALUE', 'shared_as must be schema.table');
is_ok_json(update($share, add(table('tb2'), shared_as => 'Pub.Tb2')),
           'ADD under its own shared_as');
ok(objects_of($share)->{'pub.tb2'}, 'shared_as normalised to lower case');
is_ok_json(update($share, add(name => "$cat.sch",
                              data_object_type => 'SCHEMA')),
           'ADD a schema');
is(objects_of($share)->{sch}{data_object_type}, 'SCHEMA',
   'the schema is shared as itself');
my %vol = (name => "$cat.sch.vol", data_object_type => 'VOLUME');
is_ok_json(update($share, add(%vol)), 'ADD a volume');
is(objects_of($share)->{'sch.vol'}{data_object_type}, 'VOLUME',
   'shared as schema.volume');
is_ok_json(api(POST => '/agent-skills', body => {
    name => 'skl', catalog_name => $cat, schema_name => 'sch',
    agent_skill_type => 'EXTERNAL', storage_location => "s3://sh-$$/skl" }),
    'an agent skill to share');
my %skl = (name => "$cat.sch.skl", data_object_type => 'AGENT_SKILL');
is_ok_json(update($share, add(%skl)), 'ADD an agent skill');
is(objects_of($share)->{'sch.skl'}{data_object_type}, 'AGENT_SKILL',
   'shared as schema.skill');
is_error(update($share, change(%skl, start_version => 0)), 400,
         'INVALID_PARAMETER_VALUE', 'a skill takes no table options');
is_error(update($share, change(%vol, enable_cdf => \1)), 400,
         'INVALID_PARAMETER_VALUE', 'a volume takes no table options');
is_error(update($share, add(name => "$cat.sch", data_object_type => 'SCHEMA',
                            shared_as => 'other', enable_cdf => \1)),
         400, undef, 'a schema takes no table options');
is_ok_json(update($share, change(table('tb1'), comment => 'orders v2',
                                 history_data_sharing_status => 'ENABLED')),
           'UPDATE a shared table');
$o = objects_of($share)->{'sch.tb1'};
ok($o->{comment} eq 'orders v2' && $o->{history_data_sharing_status} eq
   'ENABLED', 'its fields changed') or diag explain $o;
is_error(update($share, change(table('tb1'), shared_as => 'xxx.yyy')), 400,
         'INVALID_PARAMETER_VALUE', 'shared_as cannot change');
is_error(update($share, change(table('tb3'))), 404,
         'RESOURCE_DOES_NOT_EXIST', 'UPDATE of an object not in the share');
is_error(update($share, remove(table('tb3'))), 404,
         'RESOURCE_DOES_NOT_EXIST', 'REMOVE of an object not in the share');
is_error(update($share, add(table('nope'))), 404, undef,
         'ADD of a missing table');
is_error(update($share, { action => 'ACTION_UNSPECIFIED',
                          data_object => { table('tb3') } }),
         400, 'INVALID_PARAMETER_VALUE', 'an unknown action');
is_error(update($share, { action => 'ADD' }), 400,
         'INVALID_PARAMETER_VALUE', 'an update without its data_object');

# All or none: a good ADD and REMOVE before a bad one change nothing.
my $before = objects_of($share);
is_error(update($share, add(table('tb3')), remove(table('tb2')),
                add(table('tb1'))),
         400, 'RESOURCE_ALREADY_EXISTS', 'one bad update among good ones');
is_deeply(objects_of($share), $before, 'nothing changed');
is_ok_json(update($share, remove(table('tb2'))), 'REMOVE');
ok(!objects_of($share)->{'pub.tb2'}, 'the object is gone from the share');

# --- options against the Delta log -------------------------------------------
my $year = [ { values => [ { name => 'year', op => 'EQUAL',
                             value => '2020' } ] } ];
$res = update($share, add(table('part'), partitions => $year));
is_ok_json($res, 'ADD with a partition on a partition column');
is_deeply(objects_of($share)->{'sch.part'}{partitions}, $year,
          'the partitions come back');
is_error(update($share, change(table('part'), partitions => [
    { values => [ { name => 'nope', op => 'EQUAL', value => '1' } ] } ])),
    400, 'INVALID_PARAMETER_VALUE', 'a column that does not partition',
    message => qr/nope/);
is_error(update($share, change(table('part'), partitions => [
    { values => [ { name => 'year', op => 'LIKE',
                    recipient_property_key => 'k' } ] } ])),
    400, 'INVALID_PARAMETER_VALUE', 'LIKE needs a value');
is_error(update($share, change(table('part'), enable_cdf => \1)), 400,
         'INVALID_PARAMETER_VALUE', 'enable_cdf on a table without CDF',
         message => qr/change data feed/);
is_error(update($share, change(table('part'), start_version => 1)), 400,
         'INVALID_PARAMETER_VALUE', 'a start_version the log does not have');
is_ok_json(update($share, add(table('cdf'), enable_cdf => \1,
                              start_version => 3)),
           'ADD a CDF table with enable_cdf and its latest version');
$o = objects_of($share)->{'sch.cdf'};
ok($o->{enable_cdf} && $o->{start_version} == 3, 'enable_cdf, start_version')
    or diag explain $o;
is_error(update($share, change(table('cdf'), start_version => 4)), 400,
         'INVALID_PARAMETER_VALUE', 'start_version past the latest');

# --- renamed and dropped objects ---------------------------------------------
is_ok_json(api(PATCH => "/schemas/$cat.sch", body => { new_name => 'sch2' }),
           'rename the schema of shared tables');
$o = objects_of($share);
ok($o->{'sch.tb1'}{name} eq "$cat.sch2.tb1" && $o->{sch}{name} eq "$cat.sch2",
   'their current names, the same shared_as') or diag explain $o;
is_ok_json(api(PATCH => "/schemas/$cat.sch2", body => { new_name => 'sch' }),
           'and back');
api(DELETE => "/tables/$cat.sch.tb1");
ok(!objects_of($share)->{'sch.tb1'}, 'a dropped table leaves the share');

# --- the share's own fields ----------------------------------------------------
$res = api(PATCH => "/shares/$share", body => { new_name => "ren_$p",
                                                owner => 'bob' });
is_ok_json($res, 'rename and transfer');
ok((json_of($res) || {})->{owner} eq 'bob' && objects_of("ren_$p")->{sch},
   'new name and owner, objects kept') or diag explain json_of($res);
is_ok_json(api(PATCH => "/shares/ren_$p", body => { new_name => $share,
                                                    owner => 'admin' }),
           'and back');
create_object('/shares', { name => "race_$p" });
$res = api(GET => '/shares', query => { max_results => 1 });
ok(@{ (json_of($res) || {})->{shares} || [] } == 1
   && (json_of($res) || {})->{next_page_token}, 'lists are paged')
    or diag explain json_of($res);

# --- authorization -------------------------------------------------------------
is_error(api(POST => '/shares', body => { name => "alice_$p" },
             user => 'alice'),
         403, 'PERMISSION_DENIED', 'CREATE SHARE is needed');
grant('metastore', 'metastore', 'alice', 'CREATE SHARE');
$res = api(POST => '/shares', body => { name => "alice_$p" },
           user => 'alice');
ok($res->code == 200 && (json_of($res) || {})->{owner} eq 'alice',
   'with CREATE SHARE: alice owns hers');
my @names = map { $_->{name} } @{ (json_of(api(GET => '/shares',
                                                user => 'alice')) || {})
                                  ->{shares} || [] };
is_deeply(\@names, ["alice_$p"], 'alice lists her own share only');
is_error(api(GET => "/shares/$share", user => 'alice'), 404, undef,
         "another's share is hidden");

# What alice may not know of answers as missing, whichever data object
# names it and at whichever level she holds nothing.
sub as_alice { update("alice_$p", @_, { user => 'alice' }) }
sub hidden_as_missing {
    my ($type, $name, $missing, $swap, $what) = @_;
    is_as_missing(as_alice(add(name => $name, data_object_type => $type)),
                  as_alice(add(name => $missing, data_object_type => $type)),
                  $swap, "ADD of a hidden $type $what");
}
for ([TABLE => 'tb3'], [VOLUME => 'vol'], [AGENT_SKILL => 'skl']) {
    my ($type, $object) = @$_;
    hidden_as_missing($type, "$cat.sch.$object", "$cat.sch.nope", undef,
                      'answers as a missing one');
    hidden_as_missing($type, "$cat.sch.$object", "gone_$p.sch.$object",
                      [$cat, "gone_$p"], 'answers as in a missing catalog');
}
hidden_as_missing('SCHEMA', "$cat.sch", "gone_$p.sch", [$cat, "gone_$p"],
                  'answers as in a missing catalog');
is_as_missing(as_alice(remove(table('tb3'))), as_alice(remove(table('nope'))),
              undef, 'REMOVE of a hidden table not shared: as a missing one');
is_as_missing(as_alice(change(table('tb3'))), as_alice(change(table('nope'))),
              undef, 'UPDATE of a hidden table not shared: as a missing one');
grant('catalog', $cat, 'alice', 'USE CATALOG');
hidden_as_missing('TABLE', "$cat.sch.tb3", "$cat.nosch.tb3",
                  ["$cat.sch", "$cat.nosch"], 'in a visible catalog');
hidden_as_missing('SCHEMA', "$cat.sch", "$cat.nosch",
                  ["$cat.sch", "$cat.nosch"], 'in a visible catalog');
grant('schema', "$cat.sch", 'alice', 'USE SCHEMA');
for ([TABLE => 'tb3'], [VOLUME => 'vol'], [AGENT_SKILL => 'skl']) {
    my ($type, $object) = @$_;
    hidden_as_missing($type, "$cat.sch.$object", "$cat.sch.nope",
                      ["$cat.sch.$object", "$cat.sch.nope"],
                      'in a visible schema');
}
grant('table', "$cat.sch.tb3", 'alice', 'MODIFY');
is_error(as_alice(add(table('tb3'))), 403, 'PERMISSION_DENIED',
         'a table she knows of: adding it needs SELECT on it',
         message => qr/SELECT/);
grant('table', "$cat.sch.tb3", 'alice', 'SELECT');
is_ok_json(as_alice(add(table('tb3'))),
           'with SELECT, USE SCHEMA and USE CATALOG');
is_ok_json(update("alice_$p", add(table('tb2'))),
           'the admin shares a table alice holds nothing on in her share');
is_ok_json(as_alice(remove(table('tb2'))),
           'she removes it: the share showed it to her');
grant('metastore', 'metastore', 'bob', 'USE SHARE');
my %seen = map { $_->{name} => 1 } @{ (json_of(api(GET => '/shares',
                                                    user => 'bob')) || {})
                                      ->{shares} || [] };
ok($seen{$share} && $seen{"alice_$p"}, 'USE SHARE lists every share');
is_ok_json(api(GET => "/shares/alice_$p", user => 'bob'),
           'USE SHARE reads a share');
is_error(api(PATCH => "/shares/alice_$p", body => { comment => 'x' },
             user => 'bob'),
         403, 'PERMISSION_DENIED', 'but cannot change it');

# --- concurrent additions --------------------------------------------------------
one_winner('400 RESOURCE_ALREADY_EXISTS', 'concurrent ADDs: one wins',
           race(map { sub { update("race_$p", add(table('tb3'))) } } 1 .. 3));
is(scalar keys %{ objects_of("race_$p") }, 1, 'the object is shared once');

# --- delete ----------------------------------------------------------------------
is_ok_json(api(DELETE => "/shares/$share"), 'DELETE /shares');
is_error(api(GET => "/shares/$share"), 404, undef, 'gone');
