# SPDX-License-Identifier: Apache-2.0
# Volumes over HTTP: managed and external, the volume_type spellings,
# update (rename, comment, owner), list, delete and the errors.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 27;

my $p = "v91_$$";
my ($cat, $bare) = ("cat_$p", "bare_$p");
my @cleanup = ($cat, $bare);
END { drop_catalog($_) for @cleanup }
my $catalog = create_catalog($cat, storage_root => "s3://bucket/$p");
create_schema($cat, 'sch');
my $schema2 = create_schema($cat, 'own', storage_root => "gs://other/$p");
create_catalog($bare);
create_schema($bare, 'sch');
my %in = (catalog_name => $cat, schema_name => 'sch');

my @KEYS = qw(name catalog_name schema_name full_name volume_type
    storage_location comment owner created_at created_by updated_at updated_by
    volume_id metastore_id browse_only);

my $res = api(POST => '/volumes', body => { name => 'Raw', %in,
                                            volume_type => 'MANAGED',
                                            comment => 'landing' });
is_ok_json($res, 'POST /volumes MANAGED');
my $v = json_of($res) || {};
has_keys($v, \@KEYS, 'volume: every field, no properties');
ok(is_uuid($v->{volume_id}) && $v->{name} eq 'raw'
   && $v->{full_name} eq "$cat.sch.raw" && $v->{volume_type} eq 'MANAGED'
   && $v->{storage_location} eq
      "$catalog->{storage_location}/volumes/$v->{volume_id}"
   && is_json_int($v->{created_at}) && $v->{owner} eq 'admin',
   'managed volume under the catalog storage') or diag explain $v;
is_deeply(json_of(api(GET => "/volumes/$cat.sch.raw")), $v,
          'GET /volumes/{name} returns what create returned');
$v = json_of(api(POST => '/volumes', body => {
    name => 'raw', catalog_name => $cat, schema_name => 'own',
    volume_type => 'VOLUME_TYPE_MANAGED' })) || {};
ok(($v->{volume_type} // '') eq 'MANAGED'
   && index($v->{storage_location} // '', "$schema2->{storage_location}/volumes/") == 0,
   'the protobuf spelling is taken; the schema storage comes first')
    or diag explain $v;
$res = api(POST => '/volumes', body => { name => 'ext', %in,
                                         volume_type => 'EXTERNAL',
                                         storage_location => "/srv/$p/ext/" });
is_ok_json($res, 'POST /volumes EXTERNAL');
is((json_of($res) || {})->{storage_location}, "file:///srv/$p/ext",
   'external location normalised');

is_error(api(POST => '/volumes', body => { name => 'x_1', %in,
                                           volume_type => 'MANAGED',
                                           storage_location => 's3://a/b' }),
         400, 'INVALID_PARAMETER_VALUE', 'managed volume with a location',
         message => qr/should not be specified/);
is_error(api(POST => '/volumes', body => { name => 'x_1', %in,
                                           volume_type => 'EXTERNAL' }),
         400, 'INVALID_PARAMETER_VALUE', 'external volume without a location',
         message => qr/required/);
is_error(api(POST => '/volumes', body => { name => 'x_1', %in,
                                           volume_type => 'EXTERNAL',
                                           storage_location => "/srv/$p/ext/a" }),
         400, 'INVALID_PARAMETER_VALUE', 'external volume inside another',
         message => qr/overlaps/);
is_error(api(POST => '/volumes', body => { name => 'x_1', %in,
                                           volume_type => 'SHARED' }),
         400, 'INVALID_PARAMETER_VALUE', 'unknown volume_type',
         message => qr/volume_type/);
is_error(api(POST => '/volumes', body => { name => 'x_1', %in }),
         400, 'INVALID_PARAMETER_VALUE', 'volume_type is required',
         message => qr/volume_type/);
is_error(api(POST => '/volumes', body => { name => 'raw', %in,
                                           volume_type => 'MANAGED' }),
         400, 'RESOURCE_ALREADY_EXISTS', 'duplicate volume -> 400');
is_error(api(POST => '/volumes', body => { name => 'x_1', catalog_name => $bare,
                                           schema_name => 'sch',
                                           volume_type => 'MANAGED' }),
         400, 'FAILED_PRECONDITION', 'no managed storage anywhere',
         message => qr/storage_root/);
$v = json_of(api(POST => '/volumes', base => '/envgroups/api/2.1/unity-catalog',
                 body => { name => 'x_1', catalog_name => $bare,
                           schema_name => 'sch', volume_type => 'MANAGED' })) || {};
is($v->{storage_location} // '',
   "file:///srv/unicat-test/root/__unitystorage/volumes/" . ($v->{volume_id} // ''),
   'UnicatManagedStorageRoot: the metastore storage as the last resort');
is_error(api(POST => '/volumes', body => { name => 'x_1', catalog_name => $cat,
                                           schema_name => 'nope',
                                           volume_type => 'MANAGED' }),
         404, 'SCHEMA_NOT_FOUND', 'volume in a missing schema');

$res = api(PATCH => "/volumes/$cat.sch.raw",
           body => { new_name => 'Landing', comment => 'renamed',
                     name => 'ignored' });
is_ok_json($res, 'PATCH /volumes/{name}');
$v = json_of($res) || {};
ok($v->{name} eq 'landing' && $v->{full_name} eq "$cat.sch.landing"
   && $v->{comment} eq 'renamed', 'renamed, comment changed, name ignored')
    or diag explain $v;
is_error(api(GET => "/volumes/$cat.sch.raw"), 404, 'NOT_FOUND',
         'the old name is gone (404, not 500)');
is_error(api(PATCH => "/volumes/$cat.sch.landing", body => { new_name => 'ext' }),
         400, 'RESOURCE_ALREADY_EXISTS', 'renaming onto a sibling -> 400');
is((json_of(api(PATCH => "/volumes/$cat.sch.landing",
                body => { owner => 'alice' })) || {})->{owner}, 'alice',
   'owner change');

grant('catalog', $cat, 'bob', 'USE CATALOG');
grant('schema', "$cat.sch", 'bob', 'USE SCHEMA');
grant('volume', "$cat.sch.ext", 'bob', 'READ VOLUME');
my $list = json_of(api(GET => '/volumes', query => { %in })) || {};
is_deeply([ map { $_->{name} } @{ $list->{volumes} || [] } ],
          [qw(ext landing)], 'GET /volumes in name order');
$list = json_of(api(GET => '/volumes', user => 'bob', query => { %in })) || {};
is_deeply([ map { $_->{name} } @{ $list->{volumes} || [] } ], ['ext'],
          'a list shows the volumes the caller may read');
is_error(api(PATCH => "/volumes/$cat.sch.ext", user => 'bob',
             body => { comment => 'x' }),
         403, 'PERMISSION_DENIED', 'READ VOLUME does not update');
is_deleted(api(DELETE => "/volumes/$cat.sch.ext"), 'DELETE /volumes/{name}');
is_error(api(DELETE => "/volumes/$cat.sch.ext"), 404, 'NOT_FOUND',
         'deleting twice -> 404');
is_error(api(GET => "/volumes/$cat.sch"), 400, 'INVALID_PARAMETER_VALUE',
         'a two-part volume name -> 400');
