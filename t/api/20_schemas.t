# SPDX-License-Identifier: Apache-2.0
# Schemas: create, get, list, update; full names, catalog renames.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Time::HiRes ();
use Unicat::Test;

plan tests => 77;

my $p = "s20_$$";
my ($cat, $cat2, $empty) = ("cat_$p", "cat2_$p", "empty_$p");
my @cleanup = ($cat, $cat2, $empty, "moved_$p");
END { drop_catalog($_) for @cleanup }
create_catalog($_) for ($cat, $cat2, $empty);
# Non-admins act here with privileges granted by admin (t/api/72_authz.t
# tests the authorization rules themselves).
grant('catalog', $cat, 'alice', 'USE CATALOG', 'CREATE SCHEMA');
grant('catalog', $cat, 'bob', 'USE CATALOG');

# --- create ------------------------------------------------------------------
my $res = api(POST => '/schemas', user => 'alice',
              body => { name => 'Sch_A', catalog_name => uc $cat,
                        comment => 'sa', properties => { k => 'v' } });
is_schema($res, { name => 'sch_a', catalog_name => $cat,
                  full_name => "$cat.sch_a", comment => 'sa',
                  properties => { k => 'v' }, owner => 'alice',
                  created_by => 'alice', updated_by => 'alice',
                  storage_root => undef, storage_location => undef },
          'create schema: object shape, names lower-cased');
my $sa = json_of($res) || {};
ok(defined $sa->{created_at}
   && $sa->{created_at} == ($sa->{updated_at} // -1),
   'created_at == updated_at on create');
grant('schema', "$cat.sch_a", 'bob', 'USE SCHEMA');
is_deeply(json_of(api(GET => "/schemas/\U$cat.SCH_A", user => 'bob')), $sa,
          'GET /schemas/CAT.SCH_A returns what create returned');

is_error(api(POST => '/schemas',
             body => { name => 'sch_a', catalog_name => $cat }),
         400, 'SCHEMA_ALREADY_EXISTS', 'duplicate schema -> 400');
is_error(api(POST => '/schemas',
             body => { name => 'SCH_A', catalog_name => $cat }),
         400, 'SCHEMA_ALREADY_EXISTS', 'duplicate in other case -> 400');

$res = api(POST => '/schemas', body => { name => 'sch_a', catalog_name => $cat2 });
is_schema($res, { full_name => "$cat2.sch_a", owner => 'admin',
                  comment => undef, properties => {} },
          'same schema name in another catalog is fine');
isnt((json_of($res) || {})->{schema_id}, $sa->{schema_id},
     'it is a different schema');

my $sb = create_schema($cat, 'sch_b');
is_schema($sb, { full_name => "$cat.sch_b", properties => {},
                 comment => undef }, 'minimal schema');

is_error(api(POST => '/schemas', body => { name => 'sch_c' }),
         400, 'INVALID_PARAMETER_VALUE', 'missing catalog_name -> 400',
         message => qr/catalog_name/);
is_error(api(POST => '/schemas', body => { catalog_name => $cat }),
         400, 'INVALID_PARAMETER_VALUE', 'missing name -> 400',
         message => qr/\bname\b/);
is_error(api(POST => '/schemas',
             body => { name => 'sch_c', catalog_name => "nocat_$p" }),
         404, 'CATALOG_NOT_FOUND', 'schema in a missing catalog -> 404');
is_error(api(POST => '/schemas',
             body => { name => 'sch-c', catalog_name => $cat }),
         400, 'INVALID_PARAMETER_VALUE', 'invalid schema name -> 400');
is_error(api(POST => '/schemas',
             body => { name => 'sch_c', catalog_name => 'a-b' }),
         400, 'INVALID_PARAMETER_VALUE', 'invalid catalog_name -> 400');
is_error(api(POST => '/schemas',
             body => { name => 'sch_c', catalog_name => 5 }),
         400, 'INVALID_PARAMETER_VALUE', 'catalog_name of the wrong type',
         message => qr/catalog_name/);
is_error(api(GET => "/schemas/$cat.sch_c"), 404, 'SCHEMA_NOT_FOUND',
         'failed creates created nothing');

# --- storage_root ------------------------------------------------------------
$res = api(POST => '/schemas', body => { name => 'fsx', catalog_name => $cat,
                                         storage_root => '/tmp//y/' });
is_schema($res, { storage_root => 'file:///tmp/y' },
          'schema storage_root normalised, location under it');
my $fs = json_of($res) || {};
is($fs->{storage_location},
   'file:///tmp/y/__unitystorage/schemas/' . ($fs->{schema_id} // ''),
   'storage_location = root/__unitystorage/schemas/<schema_id>');
$res = api(POST => '/schemas', body => { name => 'sthree', catalog_name => $cat,
                                         storage_root => 's3://bkt/a//b/' });
is_schema($res, { storage_root => 's3://bkt/a/b' }, 's3 root normalised');
for my $bad ('s3a://b/p', 'rel/path', 's3://b/__unitystorage') {
    is_error(api(POST => '/schemas',
                 body => { name => 'badroot', catalog_name => $cat,
                           storage_root => $bad }),
             400, 'INVALID_PARAMETER_VALUE', "schema storage_root '$bad' -> 400");
}

# a schema does not inherit the catalog's storage_root in its own fields
my $rooted = "rooted_$p";
push @cleanup, $rooted;
create_catalog($rooted, storage_root => 's3://bkt/cat');
is_schema(api(POST => '/schemas', body => { name => 'plain', catalog_name => $rooted }),
          { storage_root => undef, storage_location => undef },
          'schema without storage_root: storage_root/location null');

# --- get: full names -------------------------------------------------------
for my $bad ('abc', "$cat.sch_a.x", 'a.b', "$cat.", ".sch_a", "$cat..sch_a",
             "$cat.sch-a") {
    is_error(api(GET => "/schemas/$bad"), 400, 'INVALID_PARAMETER_VALUE',
             "GET /schemas/$bad -> 400");
}
is_error(api(GET => "/schemas/$cat.nope"), 404, 'SCHEMA_NOT_FOUND',
         'missing schema -> 404 SCHEMA_NOT_FOUND');
is_error(api(GET => "/schemas/nocat_$p.sch_a"), 404, 'CATALOG_NOT_FOUND',
         'schema of a missing catalog -> 404 CATALOG_NOT_FOUND');
is_schema(api(GET => "/schemas/$cat.sch_a",
              query => { include_browse => 'true' }),
          { full_name => "$cat.sch_a" }, 'include_browse=true accepted');
is_error(api(GET => "/schemas/$cat.sch_a",
             query => { include_browse => 'bad' }),
         400, 'INVALID_PARAMETER_VALUE', 'include_browse=bad -> 400');

# --- list --------------------------------------------------------------------
$res = api(GET => '/schemas', query => { catalog_name => $cat });
is_ok_json($res, 'list schemas');
my $list = json_of($res) || {};
is_deeply([map { $_->{full_name} } @{ $list->{schemas} || [] }],
          ["$cat.fsx", "$cat.sch_a", "$cat.sch_b", "$cat.sthree"],
          'exactly the catalog\'s schemas, by name');
ok(exists $list->{next_page_token} && !defined $list->{next_page_token},
   'single page: next_page_token null');
my ($listed_a) = grep { $_->{name} eq 'sch_a' } @{ $list->{schemas} || [] };
is_deeply($listed_a, $sa, 'listed schema equals the GET');
is_ok_json(api(GET => '/schemas',
               query => { catalog_name => uc $cat, include_browse => 'true' }),
           'list with include_browse=true and an upper-case catalog');
is_error(api(GET => '/schemas',
             query => { catalog_name => $cat, include_browse => 'bad' }),
         400, 'INVALID_PARAMETER_VALUE', 'list include_browse=bad -> 400');

$res = api(GET => '/schemas', query => { catalog_name => $empty });
is_ok_json($res, 'list schemas of an empty catalog');
is(to_json_text(json_of($res)), '{"next_page_token":null,"schemas":[]}',
   'empty list: {"schemas":[],"next_page_token":null}');
is_error(api(GET => '/schemas'), 400, 'INVALID_PARAMETER_VALUE',
         'list without catalog_name -> 400', message => qr/catalog_name/);
is_error(api(GET => '/schemas', query => { catalog_name => '' }), 400,
         'INVALID_PARAMETER_VALUE', 'list with empty catalog_name -> 400');
is_error(api(GET => '/schemas', query => { catalog_name => "nocat_$p" }),
         404, 'CATALOG_NOT_FOUND', 'list of a missing catalog -> 404');

# --- update -------------------------------------------------------------------
# bob owns sch_b, so he may change its owner too.
die "setup: owner of $cat.sch_b" unless api(PATCH => "/schemas/$cat.sch_b",
                                            body => { owner => 'bob' })->code == 200;
Time::HiRes::sleep(0.02);
$res = api(PATCH => "/schemas/$cat.sch_b", user => 'bob',
           body => { comment => 'b2', properties => { x => 'y' },
                     owner => 'alice' });
is_schema($res, { full_name => "$cat.sch_b", schema_id => $sb->{schema_id},
                  comment => 'b2', properties => { x => 'y' },
                  owner => 'alice', updated_by => 'bob',
                  created_by => 'admin', created_at => $sb->{created_at} },
          'PATCH schema comment/properties/owner');
my $pb = json_of($res) || {};
ok(($pb->{updated_at} // 0) > $sb->{created_at}, 'updated_at bumped');
is_deeply(json_of(api(PATCH => "/schemas/$cat.sch_b", body => {})), $pb,
          'empty PATCH returns the schema unchanged');
$res = api(PATCH => "/schemas/$cat.sch_b", body => { properties => { z => '1' } });
is_schema($res, { properties => { z => '1' }, comment => 'b2' },
          'PATCH properties replaces the whole map');
$pb = json_of($res) || {};

$res = api(PATCH => "/schemas/$cat.sch_b",
           body => { name => 'other', full_name => "$cat2.other",
                     catalog_name => $cat2 });
is_schema($res, { full_name => "$cat.sch_b", catalog_name => $cat },
          'name/full_name/catalog_name in PATCH neither rename nor move');
is_error(api(GET => "/schemas/$cat2.other"), 404, 'SCHEMA_NOT_FOUND',
         '... nothing appeared elsewhere');

$res = api(PATCH => "/schemas/$cat.sch_b", body => { new_name => 'Sch_New' });
is_schema($res, { name => 'sch_new', full_name => "$cat.sch_new",
                  schema_id => $sb->{schema_id} },
          'PATCH new_name renames the schema');
is_error(api(GET => "/schemas/$cat.sch_b"), 404, 'SCHEMA_NOT_FOUND',
         'old schema name is gone');
my $renamed = json_of(api(GET => "/schemas/$cat.sch_new")) || {};
is($renamed->{schema_id}, $sb->{schema_id}, 'new schema name is found');

my $a_before = json_of(api(GET => "/schemas/$cat.sch_a"));
is_error(api(PATCH => "/schemas/$cat.sch_new",
             body => { new_name => 'sch_a', comment => 'must not stick' }),
         400, 'SCHEMA_ALREADY_EXISTS', 'rename onto an existing schema -> 400');
is_deeply(json_of(api(GET => "/schemas/$cat.sch_new")), $renamed,
          'the schema is unchanged (comment too)');
is_deeply(json_of(api(GET => "/schemas/$cat.sch_a")), $a_before,
          'the existing schema is unchanged');
is_error(api(PATCH => "/schemas/$cat.sch_new", body => { new_name => 'x' }),
         400, 'INVALID_PARAMETER_VALUE', 'invalid new_name -> 400');
is_error(api(PATCH => "/schemas/$cat.nope", body => { comment => 'x' }),
         404, 'SCHEMA_NOT_FOUND', 'PATCH a missing schema -> 404');
is_error(api(PATCH => "/schemas/nocat_$p.sch_a", body => { comment => 'x' }),
         404, 'CATALOG_NOT_FOUND', 'PATCH in a missing catalog -> 404');
is_error(api(PATCH => "/schemas/abc", body => { comment => 'x' }),
         400, 'INVALID_PARAMETER_VALUE', 'PATCH with a bad full name -> 400');
# renaming inside one catalog does not collide with another catalog's names
$res = api(PATCH => "/schemas/$cat2.sch_a", body => { new_name => 'sch_new' });
is_schema($res, { full_name => "$cat2.sch_new" },
          'rename to a name used in another catalog is fine');

# --- renaming the catalog keeps its schemas reachable ----------------------
$res = api(PATCH => "/catalogs/$cat", body => { new_name => "moved_$p" });
is_catalog($res, { name => "moved_$p" }, 'rename the parent catalog');
$res = api(GET => "/schemas/moved_$p.sch_a");
is_schema($res, { catalog_name => "moved_$p", full_name => "moved_$p.sch_a",
                  schema_id => $sa->{schema_id}, comment => 'sa' },
          'GET /schemas/<new catalog>.sch_a works');
is_error(api(GET => "/schemas/$cat.sch_a"), 404, 'CATALOG_NOT_FOUND',
         'old full name -> 404 CATALOG_NOT_FOUND');
$res = api(GET => '/schemas', query => { catalog_name => "moved_$p" });
is_deeply([map { $_->{full_name} } @{ (json_of($res) || {})->{schemas} || [] }],
          ["moved_$p.fsx", "moved_$p.sch_a", "moved_$p.sch_new",
           "moved_$p.sthree"],
          'list under the new catalog name');
is_error(api(GET => '/schemas', query => { catalog_name => $cat }), 404,
         'CATALOG_NOT_FOUND', 'list under the old catalog name -> 404');
is_schema(api(PATCH => "/schemas/moved_$p.sch_a", body => { comment => 'm' }),
          { full_name => "moved_$p.sch_a", comment => 'm' },
          'PATCH a schema under the new catalog name');
is_schema(create_schema("moved_$p", 'sch_late'),
          { full_name => "moved_$p.sch_late" },
          'create a schema in the renamed catalog');
is_deleted(api(DELETE => "/schemas/moved_$p.sch_late"),
           'DELETE a schema under the new catalog name');
# rename back and forth keeps working
is_catalog(api(PATCH => "/catalogs/moved_$p", body => { new_name => $cat }),
           { name => $cat }, 'rename the catalog back');
is_schema(api(GET => "/schemas/$cat.sch_a"), { full_name => "$cat.sch_a" },
          'schemas follow');

# --- delete a schema -----------------------------------------------------------
is_deleted(api(DELETE => "/schemas/$cat.fsx"), 'DELETE /schemas/cat.fsx');
is_error(api(GET => "/schemas/$cat.fsx"), 404, 'SCHEMA_NOT_FOUND',
         'deleted schema is gone');
is_error(api(DELETE => "/schemas/$cat.fsx"), 404, 'SCHEMA_NOT_FOUND',
         'delete it again -> 404');
is_error(api(DELETE => "/schemas/nocat_$p.fsx"), 404, 'CATALOG_NOT_FOUND',
         'delete in a missing catalog -> 404');
is_error(api(DELETE => "/schemas/$cat"), 400, 'INVALID_PARAMETER_VALUE',
         'delete with a bad full name -> 400');
is_schema(create_schema($cat, 'fsx'), { full_name => "$cat.fsx" },
          'the name can be used again');
