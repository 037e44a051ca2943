# SPDX-License-Identifier: Apache-2.0
# Catalogs: create, get, list, update; names, storage roots, object shape.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Time::HiRes ();
use Unicat::Test;

plan tests => 75;

my $p = "c10_$$";             # unique to this file and run
my @cleanup;
END { drop_catalog($_) for @cleanup;
      revoke('metastore', 'metastore', 'alice', 'CREATE CATALOG') }

# Non-admins act here with privileges granted by admin (t/api/72_authz.t
# tests the authorization rules themselves).
grant('metastore', 'metastore', 'alice', 'CREATE CATALOG');

# --- create: shape, lower-casing, defaults ---------------------------------
my $res = api(POST => '/catalogs', user => 'alice',
              body => { name => "Sales_$p", comment => 'first',
                        properties => { k => 'v', k2 => 'v2' } });
push @cleanup, "sales_$p";
is_catalog($res, { name => "sales_$p", comment => 'first',
                   properties => { k => 'v', k2 => 'v2' },
                   owner => 'alice', created_by => 'alice',
                   updated_by => 'alice', catalog_type => 'MANAGED_CATALOG',
                   provider_name => undef, share_name => undef,
                   storage_root => undef, storage_location => undef },
           'create Sales_...: catalog object, name lower-cased');
my $sales = json_of($res) || {};
ok(defined $sales->{created_at}
   && $sales->{created_at} == ($sales->{updated_at} // -1),
   'created_at == updated_at on create');

grant('catalog', "sales_$p", 'bob', 'USE CATALOG');
$res = api(GET => "/catalogs/SALES_\U$p", user => 'bob');
is_catalog($res, { name => "sales_$p", id => $sales->{id},
                   owner => 'alice', comment => 'first' },
           'GET /catalogs/SALES_... finds the catalog (case-insensitive)');
$res = api(GET => "/catalogs/sales_$p");
is_deeply(json_of($res), $sales, 'GET returns exactly what create returned');

is_error(api(POST => '/catalogs', body => { name => "sales_$p" }),
         400, 'CATALOG_ALREADY_EXISTS', 'duplicate name -> 400');
is_error(api(POST => '/catalogs', body => { name => "SALES_\U$p" }),
         400, 'CATALOG_ALREADY_EXISTS', 'duplicate in other case -> 400');

$res = api(POST => '/catalogs', body => { name => "min_$p" });
push @cleanup, "min_$p";
is_catalog($res, { name => "min_$p", comment => undef, properties => {},
                   owner => 'admin', created_by => 'admin',
                   updated_by => 'admin', storage_root => undef,
                   storage_location => undef,
                   catalog_type => 'MANAGED_CATALOG', provider_name => undef,
                   share_name => undef },
           'minimal create: null comment, {} properties, owner = caller');
my $min = json_of($res) || {};
isnt($min->{id}, $sales->{id}, 'each catalog gets its own id');

# null optional fields are treated as absent; unknown fields are ignored
$res = api(POST => '/catalogs',
           body => { name => "nulls_$p", comment => undef,
                     properties => undef, storage_root => undef,
                     provider_name => undef, share_name => undef,
                     owner => undef, no_such_field => [1, 2],
                     id => 'not-used', created_by => 'mallory' });
push @cleanup, "nulls_$p";
is_catalog($res, { name => "nulls_$p", comment => undef, properties => {},
                   storage_root => undef, owner => 'admin',
                   created_by => 'admin', catalog_type => 'MANAGED_CATALOG' },
           'nulls are absent, unknown and read-only fields ignored');
isnt((json_of($res) || {})->{id}, 'not-used', 'id is not taken from input');

# --- names -------------------------------------------------------------------
my @bad_names = ('ab', '1abc', '_abc', 'abc_', 'ab-c', 'ab c', 'abc.def',
                 "ab\x{e9}c", 'a' x 256, '', 'abc!', 'ab/c', '9');
for my $n (@bad_names) {
    my $shown = length $n > 20 ? substr($n, 0, 10) . '...(' . length($n) . ')'
                               : $n;
    is_error(api(POST => '/catalogs', body => { name => $n }), 400,
             'INVALID_PARAMETER_VALUE', "invalid name '$shown' -> 400");
}
my $long = 'n' . ('x' x 250) . substr($$ . '0000', 0, 4);   # 255 chars
$res = api(POST => '/catalogs', body => { name => uc $long });
push @cleanup, $long;
is_catalog($res, { name => $long }, '255-character name accepted');
is(length((json_of($res) || {})->{name} // ''), 255, 'name kept whole');
$res = api(POST => '/catalogs', body => { name => "A1_b2$$" });
push @cleanup, "a1_b2$$";
is_catalog($res, { name => "a1_b2$$" }, 'letters, digits and _ accepted');
is_error(api(GET => '/catalogs/a-bc'), 400, 'INVALID_PARAMETER_VALUE',
         'GET with an invalid name in the path -> 400');
is_error(api(GET => '/catalogs/ab'), 400, 'INVALID_PARAMETER_VALUE',
         'GET with a too short name -> 400');
is_error(api(GET => "/catalogs/missing_$p"), 404, 'CATALOG_NOT_FOUND',
         'GET a missing catalog -> 404');

# --- storage_root ------------------------------------------------------------
$res = api(POST => '/catalogs',
           body => { name => "fs_$p", storage_root => '/tmp//x/' });
push @cleanup, "fs_$p";
is_catalog($res, { storage_root => 'file:///tmp/x' },
           '/tmp//x/ -> file:///tmp/x, managed location under it');
my $fs = json_of($res) || {};
is($fs->{storage_location},
   'file:///tmp/x/__unitystorage/catalogs/' . ($fs->{id} // ''),
   'storage_location = root/__unitystorage/catalogs/<id>');

$res = api(POST => '/catalogs',
           body => { name => "s3_$p", storage_root => 's3://bucket/path/' });
push @cleanup, "s3_$p";
is_catalog($res, { storage_root => 's3://bucket/path' },
           's3://bucket/path/ -> s3://bucket/path');
my $s3 = json_of($res) || {};
is($s3->{storage_location},
   's3://bucket/path/__unitystorage/catalogs/' . ($s3->{id} // ''),
   's3 storage_location');
is_deeply(json_of(api(GET => "/catalogs/s3_$p")), $s3,
          'storage fields are stored');

for my $bad ('s3a://b/p', 'relative/path', 's3://bucket/__unitystorage/x',
             '/tmp/__unitystorage', 'file:///a/__unitystorage/b', '') {
    $res = api(POST => '/catalogs',
               body => { name => "badroot_$p", storage_root => $bad });
    is_error($res, 400, 'INVALID_PARAMETER_VALUE',
             "storage_root '$bad' -> 400");
}
is_error(api(GET => "/catalogs/badroot_$p"), 404, 'CATALOG_NOT_FOUND',
         'rejected storage roots created nothing');

# --- Delta Sharing catalogs ------------------------------------------------
$res = api(POST => '/catalogs',
           body => { name => "shared_$p", provider_name => 'acme',
                     share_name => 'sales_share' });
push @cleanup, "shared_$p";
is_catalog($res, { catalog_type => 'DELTASHARING_CATALOG',
                   provider_name => 'acme', share_name => 'sales_share' },
           'provider_name + share_name -> DELTASHARING_CATALOG');
is_catalog(api(GET => "/catalogs/shared_$p"),
           { catalog_type => 'DELTASHARING_CATALOG',
             provider_name => 'acme', share_name => 'sales_share' },
           'sharing source is stored');

# --- list ---------------------------------------------------------------------
$res = api(GET => '/catalogs', query => { max_results => 1000 });
is_ok_json($res, 'GET /catalogs');
my $list = json_of($res) || {};
ok(ref $list->{catalogs} eq 'ARRAY' && exists $list->{next_page_token},
   'list has catalogs array and next_page_token key');
my %listed = map { ($_->{name} // '') => $_ } @{ $list->{catalogs} || [] };
is_deeply($listed{"sales_$p"}, $sales, 'listed catalog equals the GET');
is_catalog($listed{"s3_$p"} || {}, { storage_root => 's3://bucket/path' },
           'listed catalog has the full shape');
is_catalog($listed{"shared_$p"} || {},
           { catalog_type => 'DELTASHARING_CATALOG', provider_name => 'acme' },
           'listed sharing catalog has the full shape');

# --- update -------------------------------------------------------------------
my $orig = create_catalog("patch_$p", comment => 'c1',
                          properties => { a => '1', b => '2' });
push @cleanup, "patch_$p";
grant('catalog', "patch_$p", 'bob', 'USE CATALOG', 'MANAGE');
Time::HiRes::sleep(0.02);
$res = api(PATCH => "/catalogs/patch_$p", user => 'bob',
           body => { comment => 'c2', properties => { x => 'y' } });
is_catalog($res, { name => "patch_$p", id => $orig->{id}, comment => 'c2',
                   properties => { x => 'y' }, owner => 'admin',
                   created_by => 'admin', updated_by => 'bob',
                   created_at => $orig->{created_at} },
           'PATCH comment + properties (map replaced), updated_by = caller');
my $patched = json_of($res) || {};
ok(($patched->{updated_at} // 0) > $orig->{created_at},
   'updated_at bumped');
is_deeply(json_of(api(GET => "/catalogs/patch_$p")), $patched,
          'PATCH result is stored');

$res = api(PATCH => "/catalogs/patch_$p", body => {});
is_deeply(json_of($res), $patched, 'empty PATCH {} returns it unchanged');
is_deeply(json_of(api(GET => "/catalogs/patch_$p")), $patched,
          'empty PATCH changed nothing');

# Only the owner or an admin may hand a catalog over.
$res = api(PATCH => "/catalogs/patch_$p", body => { owner => 'alice' });
is_catalog($res, { owner => 'alice', updated_by => 'admin', comment => 'c2',
                   properties => { x => 'y' } }, 'PATCH owner');

$res = api(PATCH => "/catalogs/patch_$p",
           body => { comment => undef, properties => undef });
is_catalog($res, { comment => 'c2', properties => { x => 'y' } },
           'PATCH with null fields leaves them unchanged');

$res = api(PATCH => "/catalogs/patch_$p", body => { properties => {} });
is_catalog($res, { properties => {}, comment => 'c2' },
           'PATCH properties {} empties the map');

$res = api(PATCH => "/catalogs/patch_$p",
           body => { name => "other_$p", full_name => "other_$p",
                     id => 'x' });
is_catalog($res, { name => "patch_$p", id => $orig->{id} },
           'PATCH name/full_name/id does not rename');
is_error(api(GET => "/catalogs/other_$p"), 404, 'CATALOG_NOT_FOUND',
         '... and nothing exists under that name');

$res = api(PATCH => "/catalogs/patch_$p", body => { new_name => "patch_$p" });
is_catalog($res, { name => "patch_$p", id => $orig->{id} },
           'new_name = current name is accepted');

$res = api(PATCH => "/catalogs/PATCH_\U$p",
           body => { new_name => "Renamed_$p" });
push @cleanup, "renamed_$p";
is_catalog($res, { name => "renamed_$p", id => $orig->{id},
                   comment => 'c2', owner => 'alice' },
           'PATCH new_name renames (lower-cased), same id');
is_error(api(GET => "/catalogs/patch_$p"), 404, 'CATALOG_NOT_FOUND',
         'old name is gone');
is_catalog(api(GET => "/catalogs/renamed_$p"),
           { name => "renamed_$p", id => $orig->{id} },
           'new name is found');

# rename onto an existing name: refused, nothing changed
my $before = json_of(api(GET => "/catalogs/renamed_$p"));
my $min_before = json_of(api(GET => "/catalogs/min_$p"));
$res = api(PATCH => "/catalogs/renamed_$p",
           body => { new_name => "MIN_\U$p", comment => 'must not stick' });
is_error($res, 400, 'CATALOG_ALREADY_EXISTS',
         'rename onto an existing catalog -> 400');
is_deeply(json_of(api(GET => "/catalogs/renamed_$p")), $before,
          'the renamed catalog is unchanged (comment too)');
is_deeply(json_of(api(GET => "/catalogs/min_$p")), $min_before,
          'the existing catalog is unchanged');

is_error(api(PATCH => "/catalogs/renamed_$p", body => { new_name => '1bad' }),
         400, 'INVALID_PARAMETER_VALUE', 'invalid new_name -> 400');
is_error(api(PATCH => "/catalogs/renamed_$p", body => { new_name => 7 }),
         400, 'INVALID_PARAMETER_VALUE', 'new_name of the wrong type -> 400',
         message => qr/new_name/);
is_error(api(PATCH => "/catalogs/missing_$p", body => { comment => 'x' }),
         404, 'CATALOG_NOT_FOUND', 'PATCH a missing catalog -> 404');
is_deeply(json_of(api(GET => "/catalogs/renamed_$p")), $before,
          'failed PATCHes changed nothing');

# --- include_browse ---------------------------------------------------------
is_catalog(api(GET => "/catalogs/renamed_$p",
               query => { include_browse => 'true' }),
           { name => "renamed_$p" }, 'include_browse=true accepted');
is_catalog(api(GET => "/catalogs/renamed_$p",
               query => { include_browse => 'false' }),
           { name => "renamed_$p" }, 'include_browse=false accepted');
is_error(api(GET => "/catalogs/renamed_$p",
             query => { include_browse => 'bad' }),
         400, 'INVALID_PARAMETER_VALUE', 'include_browse=bad -> 400');

# --- updates keep what they do not touch -------------------------------------
is_catalog(api(PATCH => "/catalogs/shared_$p", body => { comment => 'sc' }),
           { catalog_type => 'DELTASHARING_CATALOG', provider_name => 'acme',
             share_name => 'sales_share', comment => 'sc' },
           'PATCH keeps the sharing source');
$res = api(PATCH => "/catalogs/fs_$p", body => { new_name => "fs2_$p" });
push @cleanup, "fs2_$p";
is_catalog($res, { name => "fs2_$p", id => $fs->{id},
                   storage_root => $fs->{storage_root},
                   storage_location => $fs->{storage_location} },
           'rename keeps storage_root and storage_location');
is_catalog(api(GET => "/catalogs/fs2_$p"),
           { storage_root => 'file:///tmp/x',
             storage_location => $fs->{storage_location} },
           'stored after the rename');
