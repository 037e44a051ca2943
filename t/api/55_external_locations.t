# SPDX-License-Identifier: Apache-2.0
# External locations over HTTP: create (file:// without a credential, cloud
# URLs with one of their kind), the overlap rules in each direction, rename
# and update, delete with and without force, who may see and change them,
# and how they govern where non-admins put external tables, volumes and
# managed storage; credentials and locations the caller may not know of
# answer as missing ones.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 65;

my $p = "l59_$$";
my $b = "s3://el-$$";                    # a bucket of this file's own
my $dir = "/srv/unicat-l59-$$";
my ($cat, @locs) = ("cat_$p");
END {
    drop_catalog($cat);
    drop_catalog("bobcat_$p");
    api(DELETE => "/external-locations/$_", query => { force => 'true' })
        for @locs;
    api(DELETE => "/credentials/$_", query => { force => 'true' })
        for ("aws_$p", "az_$p", "svc_$p");
    api(PATCH => '/permissions/metastore/metastore', body => { changes => [
        map { { principal => $_, remove => ['CREATE EXTERNAL LOCATION',
                                            'CREATE CATALOG'] } }
        qw(alice bob) ] });
}
sub location {
    my (%body) = @_;
    my $user = delete $body{user};
    push @locs, $body{name};
    return api(POST => '/external-locations', body => \%body,
               defined $user ? (user => $user) : ());
}

create_object('/credentials', { name => "aws_$p", aws_iam_role => {
    role_arn => 'arn:aws:iam::123456789012:role/el' } });
create_object('/credentials', { name => "az_$p", azure_managed_identity => {
    access_connector_id => 'c' } });
create_object('/credentials', { name => "svc_$p", purpose => 'SERVICE',
                                aws_iam_role => {
    role_arn => 'arn:aws:iam::123456789012:role/svc' } });
create_catalog($cat, storage_root => "$b/managed");
create_schema($cat, 'sch');
my %ext = (catalog_name => $cat, schema_name => 'sch',
           table_type => 'EXTERNAL', data_source_format => 'DELTA',
           columns => []);
create_object('/tables', { %ext, name => 'inside',
                           storage_location => "$b/tables/t1" });

my @KEYS = qw(name url credential_name credential_id read_only comment owner
    created_at created_by updated_at updated_by external_location_id
    metastore_id browse_only);

# --- create ---------------------------------------------------------------
my $res = location(name => "files_$p", url => "$dir//data/",
                   comment => 'demo data');
is_ok_json($res, 'POST /external-locations file:// without a credential');
my $files = json_of($res) || {};
has_keys($files, \@KEYS, 'external location: every field');
ok($files->{url} eq "file://$dir/data" && !defined $files->{credential_name}
   && !$files->{read_only} && is_uuid($files->{external_location_id})
   && $files->{owner} eq 'admin', 'the URL normalised, no credential')
    or diag explain $files;
is_deeply(json_of(api(GET => "/external-locations/files_$p")), $files,
          'GET returns what create returned');
$res = location(name => "s3_$p", url => "$b/tables", credential_name =>
                "aws_$p", read_only => JSON::PP::true());
is_ok_json($res, 'an s3 location with an AWS credential, over a table');
my $s3 = json_of($res) || {};
ok($s3->{credential_name} eq "aws_$p" && is_uuid($s3->{credential_id})
   && $s3->{read_only}, 'its credential and read_only') or diag explain $s3;
is_ok_json(location(name => "sib_$p", url => "$b/tablesx",
                    credential_name => "aws_$p"),
           'a sibling prefix does not overlap');

is_error(location(name => "x_$p", url => "$b/other"), 400,
         'INVALID_PARAMETER_VALUE', 'a cloud URL needs a credential',
         message => qr/credential_name/);
is_error(location(name => "x_$p", url => "$b/other",
                  credential_name => "none_$p"),
         404, 'NOT_FOUND', 'an unknown credential',
         message => qr/Credential not found/);
is_error(location(name => "x_$p", url => "$b/other",
                  credential_name => "az_$p"),
         400, 'INVALID_PARAMETER_VALUE', 'an Azure credential for s3',
         message => qr/cannot read/);
is_error(location(name => "x_$p", url => "$b/other",
                  credential_name => "svc_$p"),
         400, 'INVALID_PARAMETER_VALUE', 'a SERVICE credential',
         message => qr/STORAGE/);
is_error(location(name => "x_$p", url => 's3a://bucket/x',
                  credential_name => "aws_$p"),
         400, 'INVALID_PARAMETER_VALUE', 's3a:// is refused',
         message => qr/s3a/);
for my $url ('not a url', 's3://', 'ftp://host/x', "$b/a?b=c", "$b/a b",
             "$b/__unitystorage/x") {
    is_error(location(name => "x_$p", url => $url,
                      credential_name => "aws_$p"),
             400, 'INVALID_PARAMETER_VALUE', "a malformed url ($url)",
             message => qr/url/i);
}
is_error(location(name => "x_$p", url => '/'), 400,
         'INVALID_PARAMETER_VALUE', 'the file system root',
         message => qr/root/);
is_error(location(name => "files_$p", url => "$dir/else"), 400,
         'EXTERNAL_LOCATION_ALREADY_EXISTS', 'a taken name');

# --- overlaps ------------------------------------------------------------------
for my $case (["$b/tables", 'the same URL'], ["$b/tables/t1/x", 'inside one'],
              ["$b/tables/", 'the same URL with a slash'], [$b, 'around one'],
              ["$b//tables/./t1/../t2", 'inside one, spelled otherwise']) {
    my ($url, $what) = @$case;
    is_error(location(name => "x_$p", url => $url,
                      credential_name => "aws_$p"),
             400, 'INVALID_PARAMETER_VALUE', "overlap: $what",
             message => qr/overlaps with existing external location 's3_$p'/);
}
is_error(location(name => "x_$p", url => "$b/managed/x",
                  credential_name => "aws_$p"),
         400, 'INVALID_PARAMETER_VALUE', 'inside a catalog storage root',
         message => qr/managed storage/);
is_error(location(name => "x_$p", url => "$b/managed",
                  credential_name => "aws_$p"),
         400, 'INVALID_PARAMETER_VALUE', 'at a catalog storage root',
         message => qr/managed storage/);
my $env = '/envgroups/api/2.1/unity-catalog';
for my $url ('/srv/unicat-test/root/x', '/srv/unicat-test') {
    push @locs, "x_$p";
    is_error(api(POST => '/external-locations', base => $env,
                 body => { name => "x_$p", url => $url }),
             400, 'INVALID_PARAMETER_VALUE',
             "the metastore's managed storage ($url)",
             message => qr/managed storage/);
}
is_ok_json(location(name => "t2_$p", url => "$dir/t2"),
           'a location for a table of its own');
create_object('/tables', { %ext, name => 'intwo',
                           storage_location => "$dir/t2/table" });
is_error(location(name => "x_$p", url => "$dir/t2/table/part"), 400,
         'INVALID_PARAMETER_VALUE', 'inside the data of a table',
         message => qr/overlaps|inside the storage/);

# --- update -------------------------------------------------------------------
$res = api(PATCH => "/external-locations/files_$p",
           body => { new_name => "files2_$p", comment => 'moved',
                     read_only => JSON::PP::true() });
is_ok_json($res, 'PATCH: rename, comment, read_only');
push @locs, "files2_$p";
my $upd = json_of($res) || {};
ok($upd->{name} eq "files2_$p" && $upd->{comment} eq 'moved'
   && $upd->{read_only} && $upd->{external_location_id} eq
      $files->{external_location_id}, 'the same location, renamed')
    or diag explain $upd;
is_error(api(PATCH => "/external-locations/files2_$p",
             body => { url => "$b/tables/x" }),
         400, 'INVALID_PARAMETER_VALUE', 'a new URL overlapping another',
         message => qr/overlaps/);
is_error(api(PATCH => "/external-locations/s3_$p",
             body => { url => "$b/elsewhere" }),
         400, 'INVALID_PARAMETER_VALUE', 'moving away from its tables',
         message => qr/force/);
is_error(api(PATCH => "/external-locations/s3_$p",
             body => { credential_name => "az_$p" }),
         400, 'INVALID_PARAMETER_VALUE', 'a credential of another kind',
         message => qr/cannot read/);
is_ok_json(api(PATCH => "/external-locations/files2_$p",
               body => { url => "$dir/data2" }), 'an unused one may move');

# --- delete -------------------------------------------------------------------
is_error(api(DELETE => "/external-locations/t2_$p"), 400,
         'INVALID_PARAMETER_VALUE', 'delete of a location holding a table',
         message => qr/force/);
is(api(DELETE => "/external-locations/t2_$p", query => { force => 'true' })
   ->code, 200, 'delete with force');
is_error(api(GET => "/external-locations/t2_$p"), 404, 'NOT_FOUND',
         'it is gone', message => qr/External location not found/);

# --- who sees and changes them ---------------------------------------------------
is_error(location(name => "bob_$p", url => "$dir/bob", user => 'bob'), 403,
         'PERMISSION_DENIED', 'creating needs CREATE EXTERNAL LOCATION');
grant('metastore', 'metastore', 'bob', 'CREATE EXTERNAL LOCATION');
is_ok_json(location(name => "bob_$p", url => "$dir/bob", user => 'bob'),
           'a file:// location needs only that');
my $unnamed = 'Cannot accept an external location that duplicates or '
              . 'overlaps with an existing external location.';
is_error(location(name => "x_$p", url => "$dir/data2/x", user => 'bob'), 400,
         'INVALID_PARAMETER_VALUE', 'a location he may not know of that his '
         . 'overlaps is not named', message => qr/^\Q$unnamed\E$/);
is_error(location(name => "x_$p", url => "$dir/bob/x", user => 'bob'), 400,
         'INVALID_PARAMETER_VALUE', 'one he knows of is',
         message => qr/overlaps with existing external location 'bob_$p'/);
is_as_missing(location(name => "bob2_$p", url => "$b/bob", user => 'bob',
                       credential_name => "aws_$p"),
              location(name => "bob2_$p", url => "$b/bob", user => 'bob',
                       credential_name => "none_$p"),
              ["aws_$p", "none_$p"],
              'a credential bob holds nothing on answers as a missing one');
grant('credential', "aws_$p", 'bob', 'READ FILES');
is_error(location(name => "bob2_$p", url => "$b/bob", user => 'bob',
                  credential_name => "aws_$p"),
         403, 'PERMISSION_DENIED', 'one he knows of: he needs more on it',
         message => qr/CREATE EXTERNAL LOCATION needed on credential/);
grant('credential', "aws_$p", 'bob', 'CREATE EXTERNAL LOCATION');
is_ok_json(location(name => "bob2_$p", url => "$b/bob", user => 'bob',
                    credential_name => "aws_$p"),
           'with CREATE EXTERNAL LOCATION on the credential too');
is_as_missing(api(PATCH => "/external-locations/bob2_$p", user => 'bob',
                  body => { credential_name => "az_$p" }),
              api(PATCH => "/external-locations/bob2_$p", user => 'bob',
                  body => { credential_name => "none_$p" }),
              ["az_$p", "none_$p"],
              '... and as an update names it');
is_error(api(GET => "/external-locations/s3_$p", user => 'alice'), 404,
         'NOT_FOUND', 'alice cannot see a location she holds nothing on');
my $list = json_of(api(GET => '/external-locations', user => 'alice',
                       query => { max_results => 1000 })) || {};
ok(!grep({ $_->{name} eq "s3_$p" } @{ $list->{external_locations} || [] }),
   'nor list it') or diag explain $list;
grant('external_location', "s3_$p", 'alice', 'BROWSE');
is_error(api(GET => "/external-locations/s3_$p", user => 'alice'), 403,
         'PERMISSION_DENIED', 'BROWSE alone without include_browse');
my $seen = json_of(api(GET => "/external-locations/s3_$p", user => 'alice',
                       query => { include_browse => 'true' })) || {};
ok($seen->{browse_only}, 'BROWSE with include_browse: metadata only')
    or diag explain $seen;
grant('external_location', "s3_$p", 'alice', 'READ FILES');
$list = json_of(api(GET => '/external-locations', user => 'alice',
                    query => { max_results => 1000 })) || {};
ok(grep({ $_->{name} eq "s3_$p" && !$_->{browse_only} }
        @{ $list->{external_locations} || [] }),
   'READ FILES shows it in lists') or diag explain $list;
is_error(api(PATCH => "/external-locations/s3_$p", user => 'alice',
             body => { comment => 'x' }), 403, 'PERMISSION_DENIED',
         'changing needs MANAGE');
is_error(api(PATCH => '/permissions/external_location/' . "s3_$p", body => {
    changes => [ { principal => 'carol', add => ['SELECT'] } ] }),
         400, undef, 'a privilege locations do not take');

# --- governance of what non-admins place ------------------------------------------
grant('catalog', $cat, 'bob', 'USE CATALOG');
grant('schema', "$cat.sch", 'bob', 'USE SCHEMA', 'CREATE TABLE',
      'CREATE VOLUME');
is_error(api(POST => '/tables', user => 'bob', body => {
    %ext, name => 'nowhere', storage_location => "s3://nobody-$$/t" }),
         403, 'PERMISSION_DENIED', 'no location covers the path',
         message => qr/No external location covers/);
is_as_missing(api(POST => '/tables', user => 'bob', body => {
                  %ext, name => 'bobt',
                  storage_location => "$b/tables/bob" }),
              api(POST => '/tables', user => 'bob', body => {
                  %ext, name => 'bobt',
                  storage_location => "s3://nobody-$$/bob" }),
              ["$b/tables/bob", "s3://nobody-$$/bob"],
              'a covering location bob holds nothing on: as if none did');
grant('external_location', "s3_$p", 'bob', 'BROWSE');
is_error(api(POST => '/tables', user => 'bob', body => {
    %ext, name => 'bobt', storage_location => "$b/tables/bob" }),
         403, 'PERMISSION_DENIED', 'one he knows of grants him nothing',
         message => qr/CREATE EXTERNAL TABLE needed on external_location 's3_$p'/);
grant('external_location', "s3_$p", 'bob', 'CREATE EXTERNAL TABLE');
is_ok_json(api(POST => '/tables', user => 'bob', body => {
    %ext, name => 'bobt', storage_location => "$b/tables/bob" }),
           'CREATE EXTERNAL TABLE on it lets bob');
is_error(api(POST => '/volumes', user => 'bob', body => {
    catalog_name => $cat, schema_name => 'sch', name => 'bobv',
    volume_type => 'EXTERNAL', storage_location => "$b/tables/vol" }),
         403, 'PERMISSION_DENIED', 'a volume needs CREATE EXTERNAL VOLUME',
         message => qr/CREATE EXTERNAL VOLUME/);
grant('external_location', "s3_$p", 'bob', 'CREATE EXTERNAL VOLUME');
is_ok_json(api(POST => '/volumes', user => 'bob', body => {
    catalog_name => $cat, schema_name => 'sch', name => 'bobv',
    volume_type => 'EXTERNAL', storage_location => "$b/tables/vol" }),
           'with it the volume goes there');
is_ok_json(api(POST => '/tables', user => 'bob', body => {
    %ext, name => 'bobown', storage_location => "$dir/bob/t" }),
           "bob's own location lets him, as its owner");
grant('metastore', 'metastore', 'bob', 'CREATE CATALOG');
is_error(api(POST => '/catalogs', user => 'bob', body => {
    name => "bobcat_$p", storage_root => "$b/tables/bobroot" }),
         403, 'PERMISSION_DENIED', 'managed storage needs CREATE MANAGED STORAGE',
         message => qr/CREATE MANAGED STORAGE/);
grant('external_location', "s3_$p", 'bob', 'CREATE MANAGED STORAGE');
is_ok_json(api(POST => '/catalogs', user => 'bob', body => {
    name => "bobcat_$p", storage_root => "$b/tables/bobroot" }),
           'with it bob has a catalog with a root there');
is_ok_json(api(POST => '/tables', body => {
    %ext, name => 'adminany', storage_location => "s3://nobody-$$/a" }),
           'an admin needs no location');
