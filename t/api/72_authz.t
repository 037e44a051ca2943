# SPDX-License-Identifier: Apache-2.0
# Authorization: grants (GET/PATCH /permissions, /effective-permissions),
# what each privilege allows, hidden (404) versus denied (403), ownership,
# groups (UnicatGroupFile, UnicatGroupsFromEnv) and refused escalation.
#
# Users (t/TEST.PL): admin (UnicatMetastoreAdmin), alice, bob, carol, dave;
# groups of the main mount: analysts = carol, auditors = dave carol.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 83;

my $p = "a70_$$";
my ($c, $c2, $ac, $gc) = ("az_$p", "az2_$p", "alicecat_$p", "grp_$p");
my @cleanup = ($c, $c2, $ac, $gc, "alice2_$p", "nope_$p", "envcat_$p");
END {
    drop_catalog($_) for @cleanup;
    api(PATCH => '/permissions/metastore/metastore',
        body => { changes => [ map { { principal => $_,
                                       remove => ['CREATE CATALOG'] } }
                               qw(alice bob carol dave analysts) ] });
}

# The direct grants on an object as admin sees them: "principal: P1,P2; ...".
sub grants_of {
    my ($type, $name) = @_;
    my $j = json_of(api(GET => "/permissions/$type/$name")) || {};
    return join '; ',
        map { "$_->{principal}: " . join(',', sort @{ $_->{privileges} }) }
        sort { $a->{principal} cmp $b->{principal} }
        @{ $j->{privilege_assignments} || [] };
}

sub change {
    my ($type, $name, $principal, $add, $remove, %opt) = @_;
    return api(PATCH => "/permissions/$type/$name", %opt,
               body => { changes => [ { principal => $principal,
                                        add => $add || [],
                                        remove => $remove || [] } ] });
}

sub names_of {
    my ($res, $key) = @_;
    my $j = json_of($res) || {};
    return join ' ', sort map { $_->{name} } @{ $j->{$key} || [] };
}

# Start clean whatever ran before (other files grant CREATE CATALOG).
api(PATCH => '/permissions/metastore/metastore',
    body => { changes => [ map { { principal => $_,
                                   remove => ['CREATE CATALOG'] } }
                           qw(alice bob carol dave analysts) ] });
create_catalog($c, storage_root => 's3://bucket/az',
               properties => { secret => 'x' });
create_schema($c, 'sc1');
create_schema($c, 'sc2');
create_catalog($c2);

# --- metastore ----------------------------------------------------------------
is_ok_json(api(GET => '/metastore_summary', user => 'dave'),
           'metastore_summary: any authenticated user');
is_error(api(POST => '/catalogs', user => 'alice', body => { name => "nope_$p" }),
         403, 'PERMISSION_DENIED', 'create catalog without CREATE CATALOG -> 403');
is_error(api(GET => "/catalogs/nope_$p"), 404, 'CATALOG_NOT_FOUND',
         '... and nothing was created');

my $res = change('metastore', 'metastore', 'alice', ['CREATE_CATALOG']);
is_ok_json($res, 'admin grants CREATE_CATALOG (underscore form) on the metastore');
is(to_json_text(json_of($res)),
   '{"privilege_assignments":[{"principal":"alice","privileges":["CREATE CATALOG"]}]}',
   '... answer: the touched principal, privilege with a space');
is(grants_of('metastore', 'any_name'), 'alice: CREATE CATALOG',
   'the metastore answers under any name');
$res = api(POST => '/catalogs', user => 'alice', body => { name => $ac });
is_catalog($res, { name => $ac, owner => 'alice', created_by => 'alice' },
           'with CREATE CATALOG alice creates a catalog and owns it');
is_catalog(api(GET => "/catalogs/$ac", user => 'alice'), { owner => 'alice' },
           'the owner reads it without any grant');
is_error(api(GET => "/catalogs/$ac", user => 'bob'), 404, 'CATALOG_NOT_FOUND',
         'bob holds nothing on it: hidden (404)');

# --- permissions endpoint: validation ----------------------------------------
is_error(api(GET => "/permissions/bogus/$c"), 400, 'INVALID_PARAMETER_VALUE',
         'unknown securable type -> 400');
is_error(change('catalog', $c, 'bob', ['CREATE CATALOG']), 400,
         'INVALID_PARAMETER_VALUE', 'CREATE CATALOG on a catalog -> 400');
is_error(change('catalog', $c, 'bob', ['FLY']), 400,
         'INVALID_PARAMETER_VALUE', 'unknown privilege -> 400');
is_error(api(GET => "/permissions/catalog/nocat_$p"), 404, 'CATALOG_NOT_FOUND',
         'permissions of a missing catalog -> 404');
is(grants_of('catalog', $c), '', '... none of those changed anything');

# --- catalog: USE CATALOG, BROWSE ---------------------------------------------
$res = change('catalog', $c, 'bob', ['USE CATALOG']);
is(to_json_text(json_of($res)),
   '{"privilege_assignments":[{"principal":"bob","privileges":["USE CATALOG"]}]}',
   'PATCH /permissions/catalog: USE CATALOG for bob');
is_catalog(api(GET => "/catalogs/$c", user => 'bob'),
           { name => $c, storage_root => 's3://bucket/az',
             properties => { secret => 'x' } },
           'USE CATALOG: GET the catalog, full object');
change('catalog', $c, 'dave', ['BROWSE']);
is_error(api(GET => "/catalogs/$c", user => 'dave'), 403, 'PERMISSION_DENIED',
         'BROWSE only: GET without include_browse -> 403');
is_catalog(api(GET => "/catalogs/$c", user => 'dave',
               query => { include_browse => 'true' }),
           { name => $c, browse_only => JSON::PP::true(), storage_root => undef,
             storage_location => undef, properties => {} },
           'BROWSE + include_browse=true: browse_only, no storage, no properties');
is_catalog(api(GET => "/catalogs/$c", user => 'bob',
               query => { include_browse => 'true' }),
           { browse_only => JSON::PP::false(), storage_root => 's3://bucket/az' },
           'USE CATALOG + include_browse=true: browse_only false');

my $list = api(GET => '/catalogs', user => 'bob', query => { max_results => 1000 });
is(names_of($list, 'catalogs'), $c, 'bob lists only the catalog he may use');
$list = api(GET => '/catalogs', user => 'alice', query => { max_results => 1000 });
is(names_of($list, 'catalogs'), $ac, 'alice lists only the catalog she owns');
$list = api(GET => '/catalogs', user => 'dave', query => { max_results => 1000 });
is(names_of($list, 'catalogs'), '', 'BROWSE alone does not list it');

# --- GET /permissions: who sees what ------------------------------------------
$res = api(GET => "/permissions/catalog/$c", user => 'bob');
is(to_json_text(json_of($res)),
   '{"privilege_assignments":[{"principal":"bob","privileges":["USE CATALOG"]}]}',
   'a non-manager sees only its own grants');
$res = api(GET => "/permissions/catalog/$c", query => { principal => 'dave' });
is(to_json_text(json_of($res)),
   '{"privilege_assignments":[{"principal":"dave","privileges":["BROWSE"]}]}',
   '?principal= filters');
is(grants_of('catalog', $c), 'bob: USE CATALOG; dave: BROWSE',
   'admin sees every principal');

# --- catalog: PATCH / DELETE / owner ------------------------------------------
is_error(api(PATCH => "/catalogs/$c", user => 'bob', body => { comment => 'b' }),
         403, 'PERMISSION_DENIED', 'USE CATALOG alone: PATCH -> 403');
is_error(api(DELETE => "/catalogs/$c", user => 'bob'), 403,
         'PERMISSION_DENIED', 'USE CATALOG alone: DELETE -> 403');
is_error(api(PATCH => "/catalogs/$c2", user => 'bob', body => { comment => 'b' }),
         404, 'CATALOG_NOT_FOUND', 'PATCH of a catalog holding nothing on -> 404');
change('catalog', $c, 'bob', ['MANAGE']);
is_catalog(api(PATCH => "/catalogs/$c", user => 'bob', body => { comment => 'b' }),
           { comment => 'b', updated_by => 'bob', owner => 'admin' },
           'MANAGE: PATCH comment');
is_error(api(PATCH => "/catalogs/$c", user => 'bob', body => { owner => 'bob' }),
         403, 'PERMISSION_DENIED', 'MANAGE: changing the owner -> 403');
is_catalog(api(GET => "/catalogs/$c"), { owner => 'admin', comment => 'b' },
           '... the owner is unchanged');

# Escalation through /permissions.
is_error(change('catalog', $c, 'bob', ['CREATE SCHEMA'], [], user => 'bob'),
         403, 'PERMISSION_DENIED', 'a MANAGE holder granting itself -> 403');
is_error(change('catalog', $c, 'alice', ['USE CATALOG'], [], user => 'alice'),
         404, 'CATALOG_NOT_FOUND', 'alice (nothing on it) granting herself -> 404');
is_error(change('catalog', $c, 'dave', ['USE CATALOG'], [], user => 'dave'),
         403, 'PERMISSION_DENIED', 'dave (BROWSE, no MANAGE) granting himself -> 403');
is_error(change('catalog', $c, 'carol', ['USE CATALOG'], [], user => 'dave'),
         403, 'PERMISSION_DENIED', 'dave granting others without MANAGE -> 403');
is_error(change('metastore', 'metastore', 'bob', ['CREATE CATALOG'], [],
                user => 'bob'),
         403, 'PERMISSION_DENIED', 'bob granting himself CREATE CATALOG -> 403');
is(grants_of('catalog', $c), 'bob: MANAGE,USE CATALOG; dave: BROWSE',
   'refused escalations changed nothing on the catalog');
is(grants_of('metastore', 'metastore'), 'alice: CREATE CATALOG',
   '... nor on the metastore');
$res = change('catalog', $c, 'carol', ['USE CATALOG'], [], user => 'bob');
is(to_json_text(json_of($res)),
   '{"privilege_assignments":[{"principal":"carol","privileges":["USE CATALOG"]}]}',
   'a MANAGE holder grants to someone else');
change('catalog', $c, 'carol', [], ['USE CATALOG']);

# The owner hands its catalog over; then it holds nothing there.
is_error(api(PATCH => "/catalogs/$ac", user => 'bob', body => { owner => 'bob' }),
         404, 'CATALOG_NOT_FOUND', 'taking over a catalog holding nothing -> 404');
change('catalog', $ac, 'bob', ['USE CATALOG']);
is_error(api(PATCH => "/catalogs/$ac", user => 'bob', body => { owner => 'bob' }),
         403, 'PERMISSION_DENIED', 'taking over with USE CATALOG -> 403');
is_catalog(api(GET => "/catalogs/$ac"), { owner => 'alice' },
           '... alice still owns it');
is_catalog(api(PATCH => "/catalogs/$ac", user => 'alice', body => { owner => 'bob' }),
           { owner => 'bob', updated_by => 'alice' },
           'the owner transfers ownership');
is_error(api(GET => "/catalogs/$ac", user => 'alice'), 404, 'CATALOG_NOT_FOUND',
         'the former owner holds nothing: hidden');

# --- schemas ------------------------------------------------------------------
# MANAGE on the catalog would apply to its schemas: bob keeps USE CATALOG.
change('catalog', $c, 'bob', [], ['MANAGE']);
is_error(api(POST => '/schemas', user => 'bob',
             body => { name => 'bsc', catalog_name => $c }),
         403, 'PERMISSION_DENIED', 'create schema without CREATE SCHEMA -> 403');
is_error(api(POST => '/schemas', user => 'alice',
             body => { name => "asc", catalog_name => $c }),
         404, 'CATALOG_NOT_FOUND', 'create schema in a hidden catalog -> 404');
change('catalog', $c, 'bob', ['CREATE SCHEMA']);
is_schema(api(POST => '/schemas', user => 'bob',
              body => { name => 'bsc', catalog_name => $c }),
          { full_name => "$c.bsc", owner => 'bob', created_by => 'bob' },
          'USE CATALOG + CREATE SCHEMA: create, the creator owns it');
change('catalog', $c, 'alice', ['CREATE SCHEMA']);
is_error(api(POST => '/schemas', user => 'alice',
             body => { name => "asc", catalog_name => $c }),
         403, 'PERMISSION_DENIED', 'CREATE SCHEMA without USE CATALOG -> 403');
change('catalog', $c, 'alice', [], ['CREATE SCHEMA']);

is(names_of(api(GET => '/schemas', user => 'bob',
                query => { catalog_name => $c }), 'schemas'),
   'bsc', 'list: only the schemas bob may use (his own)');
change('schema', "$c.sc1", 'bob', ['USE SCHEMA']);
is(names_of(api(GET => '/schemas', user => 'bob',
                query => { catalog_name => $c }), 'schemas'),
   'bsc sc1', 'list: USE SCHEMA on sc1 adds it');
is_schema(api(GET => "/schemas/$c.sc1", user => 'bob'), { full_name => "$c.sc1" },
          'USE CATALOG + USE SCHEMA: GET schema');
is_error(api(GET => "/schemas/$c.sc2", user => 'bob'), 404, 'SCHEMA_NOT_FOUND',
         'a schema bob holds nothing on: hidden (404)');
is_error(api(GET => '/schemas', user => 'dave', query => { catalog_name => $c }),
         403, 'PERMISSION_DENIED', 'list with BROWSE only -> 403');
is_error(api(GET => '/schemas', user => 'alice', query => { catalog_name => $c }),
         404, 'CATALOG_NOT_FOUND', 'list in a hidden catalog -> 404');

# A missing name tells no more than a hidden one: what is missing under a
# catalog or schema the caller may not know of answers as that one hidden.
is_as_missing(api(GET => "/schemas/$c.sc1", user => 'alice'),
              api(GET => "/schemas/$c.nope", user => 'alice'), undef,
              'a missing schema of a hidden catalog: as a hidden one');
is_as_missing(api(GET => "/tables/$c.sc1.nope", user => 'alice'),
              api(GET => "/tables/nocat_$p.sc1.nope", user => 'alice'),
              [$c, "nocat_$p"], 'a missing table there: as in a missing catalog');
is_as_missing(api(GET => '/tables', user => 'alice',
                  query => { catalog_name => $c, schema_name => 'nope' }),
              api(GET => '/tables', user => 'alice',
                  query => { catalog_name => "nocat_$p", schema_name => 'nope' }),
              [$c, "nocat_$p"],
              'a list in a missing schema there: as in a missing catalog');
is_as_missing(api(GET => "/tables/$c.sc2.nope", user => 'bob'),
              api(GET => "/tables/$c.nosc.nope", user => 'bob'),
              ["$c.sc2", "$c.nosc"],
              'a missing table of a hidden schema: as in a missing one');

# Inheritance: USE SCHEMA on the catalog applies to all its schemas.
change('catalog', $c, 'carol', ['USE CATALOG', 'USE SCHEMA']);
is(names_of(api(GET => '/schemas', user => 'carol',
                query => { catalog_name => $c }), 'schemas'),
   'bsc sc1 sc2', 'USE SCHEMA on the catalog: every schema listed');
is_schema(api(GET => "/schemas/$c.sc2", user => 'carol'), { full_name => "$c.sc2" },
          '... and readable');
$res = api(GET => "/effective-permissions/schema/$c.sc2",
           query => { principal => 'carol' });
is_ok_json($res, 'GET /effective-permissions/schema');
my ($eff) = grep { $_->{principal} eq 'carol' }
    @{ (json_of($res) || {})->{privilege_assignments} || [] };
my ($use) = grep { $_->{privilege} eq 'USE SCHEMA' } @{ ($eff || {})->{privileges} || [] };
is_deeply($use, { privilege => 'USE SCHEMA', inherited_from_type => 'catalog',
                  inherited_from_name => $c },
          'USE SCHEMA inherited from the catalog, with its source')
    or diag to_json_text(json_of($res));
change('catalog', $c, 'carol', [], ['USE CATALOG', 'USE SCHEMA']);

# PATCH / DELETE schema.
is_error(api(PATCH => "/schemas/$c.sc1", user => 'bob', body => { comment => 'x' }),
         403, 'PERMISSION_DENIED', 'USE SCHEMA alone: PATCH schema -> 403');
change('schema', "$c.sc1", 'bob', ['MANAGE']);
is_schema(api(PATCH => "/schemas/$c.sc1", user => 'bob', body => { comment => 'x' }),
          { comment => 'x', updated_by => 'bob' }, 'MANAGE on the schema: PATCH');
is_error(api(PATCH => "/schemas/$c.sc1", user => 'bob', body => { owner => 'bob' }),
         403, 'PERMISSION_DENIED', 'MANAGE on the schema: owner change -> 403');
is_schema(api(GET => "/schemas/$c.sc1"), { owner => 'admin' },
          '... the owner is unchanged');
is_schema(api(PATCH => "/schemas/$c.bsc", user => 'bob', body => { comment => 'mine' }),
          { comment => 'mine' }, 'the schema owner patches it');
is_deleted(api(DELETE => "/schemas/$c.bsc", user => 'bob'),
           'the schema owner deletes it');
# Ownership at catalog level covers its schemas.
create_schema($ac, 'bobs');    # admin creates it in bob's catalog
is_schema(api(PATCH => "/schemas/$ac.bobs", user => 'bob',
              body => { owner => 'carol', comment => 'o' }),
          { owner => 'carol', comment => 'o', updated_by => 'bob' },
          'the catalog owner patches (and hands over) a schema it does not own');
is_deleted(api(DELETE => "/schemas/$ac.bobs", user => 'bob'),
           'the catalog owner deletes it');

# --- groups (UnicatGroupFile: analysts = carol) --------------------------------
create_catalog($gc);
create_schema($gc, 'gsc');
is_error(api(GET => "/catalogs/$gc", user => 'carol'), 404, 'CATALOG_NOT_FOUND',
         'before the group grant: hidden from carol');
change('catalog', $gc, 'analysts', ['USE CATALOG', 'USE SCHEMA', 'MANAGE']);
is_catalog(api(GET => "/catalogs/$gc", user => 'carol'), { name => $gc },
           'a grant to analysts applies to carol');
is_schema(api(GET => "/schemas/$gc.gsc", user => 'carol'), { full_name => "$gc.gsc" },
          '... inherited down to the schemas');
is_error(api(GET => "/catalogs/$gc", user => 'bob'), 404, 'CATALOG_NOT_FOUND',
         '... not to non-members');
is_error(change('catalog', $gc, 'analysts', ['CREATE SCHEMA'], [], user => 'carol'),
         403, 'PERMISSION_DENIED',
         'MANAGE through a group: granting that group (hence itself) -> 403');
is(grants_of('catalog', $gc), 'analysts: MANAGE,USE CATALOG,USE SCHEMA',
   '... nothing changed');
is_deleted(api(DELETE => "/catalogs/$gc", user => 'carol',
               query => { force => 'true' }),
           'MANAGE through a group: DELETE the catalog');
change('metastore', 'metastore', 'analysts', ['CREATE CATALOG']);
is_catalog(api(POST => '/catalogs', user => 'carol', body => { name => $gc }),
           { owner => 'carol' }, 'CREATE CATALOG through a group');
is_error(api(POST => '/catalogs', user => 'dave', body => { name => "nope_$p" }),
         403, 'PERMISSION_DENIED', '... not for non-members');

# --- groups from the request environment (UnicatGroupsFromEnv) ------------------
my $env = '/envgroups/api/2.1/unity-catalog';
change('catalog', $c2, 'envgrp', ['USE CATALOG']);
is_error(api(GET => "/catalogs/$c2", user => 'dave', base => $env), 404,
         'CATALOG_NOT_FOUND', 'env groups: without the header, hidden');
is_catalog(api(GET => "/catalogs/$c2", user => 'dave', base => $env,
               headers => [ 'X-Test-Groups' => 'x,envgrp' ]),
           { name => $c2 }, 'env groups "x,envgrp": the group grant applies');
is_catalog(api(GET => "/catalogs/$c2", user => 'dave', base => $env,
               headers => [ 'X-Test-Groups' => '["envgrp"]' ]),
           { name => $c2 }, 'env groups as a JSON list');
is_error(api(GET => "/catalogs/$c2", user => 'dave',
             headers => [ 'X-Test-Groups' => 'envgrp' ]),
         404, 'CATALOG_NOT_FOUND', 'the main mount ignores the header');
