# SPDX-License-Identifier: Apache-2.0
# Tables over HTTP: staging tables and managed tables, external tables,
# views, columns, get/list with their flags, existence, summaries, delete,
# and what callers without full rights see.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 62;

my $p = "t90_$$";
my $cat = "cat_$p";
my @cleanup = ($cat);
END { drop_catalog($_) for @cleanup }
my $catalog = create_catalog($cat, storage_root => "s3://bucket/$p");
create_schema($cat, 'sch');
create_schema($cat, 'other');
my %in = (catalog_name => $cat, schema_name => 'sch');

my @TABLE_KEYS = qw(name catalog_name schema_name full_name table_type
    data_source_format columns view_definition view_dependencies
    storage_credential_name storage_location comment properties owner
    created_at created_by updated_at updated_by table_id metastore_id
    deleted_at browse_only);
my @COLUMN_KEYS = qw(name type_text type_json type_name type_precision
    type_scale type_interval_type position comment nullable partition_index
    column_id);

sub col {
    my ($name, %more) = @_;
    return { name => $name, type_text => 'INT', type_name => 'INT',
             type_json => qq({"name":"$name","type":"integer","nullable":true,"metadata":{}}),
             %more };
}

# --- staging tables and managed tables ----------------------------------------
my $res = api(POST => '/staging-tables', body => { name => 'Events', %in });
is_ok_json($res, 'POST /staging-tables');
my $st = json_of($res) || {};
has_keys($st, [qw(name catalog_name schema_name id staging_location
                  created_at created_by stage_committed)],
         'staging table: every field');
ok(is_uuid($st->{id}) && $st->{name} eq 'events'
   && $st->{staging_location} eq
      "$catalog->{storage_location}/tables/$st->{id}"
   && JSON::PP::is_bool($st->{stage_committed}) && !$st->{stage_committed},
   'staging table: id, lower-cased name, location under the catalog storage')
    or diag explain $st;

my %managed = (name => 'events', %in, table_type => 'MANAGED',
               data_source_format => 'DELTA',
               storage_location => $st->{staging_location},
               properties => { 'io.unitycatalog.tableId' => $st->{id} },
               columns => [ col('id', position => 0),
                            col('day', position => 1, partition_index => 0,
                                type_text => 'DATE', type_name => 'DATE',
                                type_json => '{"name":"day","type":"date"}') ]);
$res = api(POST => '/tables', body => \%managed);
is_ok_json($res, 'POST /tables MANAGED with the staging location');
my $t = json_of($res) || {};
has_keys($t, \@TABLE_KEYS, 'table: every field');
has_keys($t->{columns}[0] // {}, \@COLUMN_KEYS, 'column: every field');
ok(($t->{table_id} // '') eq $st->{id}
   && $t->{storage_location} eq $st->{staging_location}
   && $t->{full_name} eq "$cat.sch.events" && $t->{table_type} eq 'MANAGED'
   && $t->{columns}[1]{type_text} eq 'date'
   && is_json_int($t->{columns}[1]{partition_index})
   && is_json_int($t->{created_at}) && $t->{owner} eq 'admin',
   'managed table: the staging id and location, columns normalised')
    or diag explain $t;
is_deeply(json_of(api(GET => "/tables/$cat.sch.events")), $t,
          'GET /tables/{full_name} returns what create returned');
is_error(api(POST => '/tables', body => \%managed), 400,
         'FAILED_PRECONDITION', 'a staging table is committed once',
         message => qr/already committed/);
is_error(api(POST => '/tables', body => { %managed, name => 'ghost',
                                          storage_location => "s3://bucket/$p/x" }),
         404, 'NOT_FOUND', 'no staging table at that location');
is_error(api(POST => '/tables', body => { %managed, data_source_format => 'CSV' }),
         400, 'INVALID_PARAMETER_VALUE', 'managed tables are Delta tables',
         message => qr/Delta/);
grant('catalog', $cat, 'alice', 'USE CATALOG');
grant('schema', "$cat.sch", 'alice', 'USE SCHEMA', 'CREATE TABLE');
my $st2 = create_object('/staging-tables', { name => 'mine', %in });
(my $nowhere = $st2->{staging_location})
    =~ s/[0-9a-f-]{36}$/00000000-0000-4000-8000-000000000000/;
is_as_missing(api(POST => '/tables', user => 'alice',
                  body => { %managed, name => 'mine',
                            storage_location => $st2->{staging_location},
                            properties => {} }),
              api(POST => '/tables', user => 'alice',
                  body => { %managed, name => 'mine',
                            storage_location => $nowhere, properties => {} }),
              [$st2->{staging_location}, $nowhere],
              "another caller's staging table: as none at that location");
is_error(api(POST => '/staging-tables', body => { name => 'events', %in }),
         400, 'TABLE_ALREADY_EXISTS', 'no staging table for an existing name');

# --- external tables ---------------------------------------------------------------
my %ext = (%in, table_type => 'EXTERNAL', data_source_format => 'PARQUET');
$res = api(POST => '/tables', body => { %ext, name => 'ext',
                                       storage_location => "s3://data_$$//ext/" });
is_ok_json($res, 'POST /tables EXTERNAL');
is((json_of($res) || {})->{storage_location}, "s3://data_$$/ext",
   'external location normalised');
is_error(api(POST => '/tables', body => { %ext, name => 'inner',
                                          storage_location => "s3://data_$$/ext/in" }),
         400, 'INVALID_PARAMETER_VALUE', 'a location inside another table -> 400',
         message => qr/overlaps/);
is_error(api(POST => '/tables', body => { %ext, name => 'outer',
                                          storage_location => "s3://bucket/$p" }),
         400, 'INVALID_PARAMETER_VALUE', 'a location above managed storage -> 400',
         message => qr/managed storage/);
is_error(api(POST => '/tables', body => { %ext, name => 'root',
                                          storage_location => "s3://data_$$" }),
         400, 'INVALID_PARAMETER_VALUE', 'a bucket root -> 400');
is_error(api(POST => '/tables', body => { %ext, name => 'noloc' }),
         400, 'INVALID_PARAMETER_VALUE', 'EXTERNAL without storage_location',
         message => qr/storage_location/);

# --- views ---------------------------------------------------------------------
# A metric view as the Rust client posts it.
$res = api(POST => '/tables', body => {
    name => 'revenue', %in, table_type => 'METRIC_VIEW',
    data_source_format => 'DELTA', comment => 'Metric view lifecycle test',
    view_definition => "version: \"1.1\"\nsource: $cat.sch.events\n"
                     . "measures:\n  - name: revenue\n    expr: SUM(price)\n" });
is_ok_json($res, 'POST /tables METRIC_VIEW');
$t = json_of($res) || {};
ok($t->{table_type} eq 'METRIC_VIEW' && $t->{view_definition} =~ /^version/
   && !defined $t->{storage_location} && ref $t->{columns} eq 'ARRAY',
   'metric view: definition kept, no storage') or diag explain $t;
$res = api(POST => '/tables', body => {
    name => 'v_daily', %in, table_type => 'VIEW', data_source_format => 'DELTA',
    view_definition => 'SELECT 1',
    view_dependencies => { dependencies => [
        { table => { table_full_name => uc "$cat.sch.events" } } ] } });
is_ok_json($res, 'POST /tables VIEW with dependencies');
is((json_of($res) || {})->{view_dependencies}{dependencies}[0]{table}{table_full_name},
   "$cat.sch.events", 'dependency names lower-cased');
is_error(api(POST => '/tables', body => { name => 'v_none', %in,
                                          table_type => 'VIEW',
                                          data_source_format => 'DELTA' }),
         400, 'INVALID_PARAMETER_VALUE', 'a view needs view_definition',
         message => qr/view_definition/);
is_error(api(POST => '/tables', body => { name => 'v_bad', %in,
             table_type => 'VIEW', data_source_format => 'DELTA',
             view_definition => 'x',
             view_dependencies => { dependencies => [ { table => {} } ] } }),
         400, 'INVALID_PARAMETER_VALUE', 'a dependency without a name',
         message => qr/view_dependencies\[0\]/);
is_error(api(POST => '/tables', body => { name => 'v_bad', %in,
                                          table_type => 'SNAPSHOT',
                                          data_source_format => 'DELTA' }),
         400, 'INVALID_PARAMETER_VALUE', 'unknown table_type',
         message => qr/table_type/);
is_error(api(POST => '/tables', body => { name => 'v_bad', %in,
                                          table_type => 'VIEW',
                                          view_definition => 'x' }),
         400, 'INVALID_PARAMETER_VALUE', 'data_source_format is required',
         message => qr/data_source_format/);

# --- columns -------------------------------------------------------------------
my %view = (%in, table_type => 'VIEW', data_source_format => 'DELTA',
            view_definition => 'SELECT 1');
is_error(api(POST => '/tables', body => { %view, name => 'cols',
                                          columns => [ col('a'), col('A') ] }),
         400, 'INVALID_PARAMETER_VALUE', 'column names are unique',
         message => qr/columns/);
is_error(api(POST => '/tables', body => { %view, name => 'cols',
             columns => [ col('a', position => 0), col('b', position => 2) ] }),
         400, 'INVALID_PARAMETER_VALUE', 'positions 0 to n-1',
         message => qr/positions/);
is_error(api(POST => '/tables', body => { %view, name => 'cols',
             columns => [ col('a', partition_index => 1) ] }),
         400, 'INVALID_PARAMETER_VALUE', 'partition indexes without gaps',
         message => qr/partition/);
is_error(api(POST => '/tables', body => { %view, name => 'cols',
             columns => [ col('a', type_name => 'NUMBER') ] }),
         400, 'INVALID_PARAMETER_VALUE', 'type_name from the enum',
         message => qr/columns\[0\].*type_name/);
is_error(api(POST => '/tables', body => { %view, name => 'cols',
             columns => [ col('a', type_json => '{"name":"b"}') ] }),
         400, 'INVALID_PARAMETER_VALUE', 'type_json describes the column',
         message => qr/type_json/);
is_error(api(POST => '/tables', body => { %view, name => 'events' }),
         400, 'TABLE_ALREADY_EXISTS', 'a taken name -> 400');

# --- get and list ----------------------------------------------------------------
for my $i (1 .. 4) {
    create_object('/tables', { %view, name => "page_$i", schema_name => 'other',
                               properties => { k => "v$i" },
                               columns => [ col('x') ] });
}
$res = api(GET => '/tables', query => { catalog_name => $cat,
                                         schema_name => 'other',
                                         max_results => 3 });
is_ok_json($res, 'GET /tables page 1');
my $page = json_of($res) || {};
ok(@{ $page->{tables} || [] } == 3 && $page->{tables}[0]{name} eq 'page_1'
   && defined $page->{next_page_token},
   'page 1: three tables in name order and a token');
$page = json_of(api(GET => '/tables', query => {
    catalog_name => $cat, schema_name => 'other', max_results => 3,
    page_token => $page->{next_page_token} })) || {};
ok(@{ $page->{tables} || [] } == 1 && $page->{tables}[0]{name} eq 'page_4'
   && exists $page->{next_page_token} && !defined $page->{next_page_token},
   'page 2: the rest, next_page_token null');
$page = json_of(api(GET => '/tables', query => {
    catalog_name => $cat, schema_name => 'other', omit_columns => 'true',
    omit_properties => 'true', omit_username => 'true',
    include_delta_metadata => 'true',
    include_manifest_capabilities => 'true' })) || {};
my $first = $page->{tables}[0] || {};
ok(!exists $first->{columns} && !exists $first->{properties}
   && !exists $first->{owner} && !exists $first->{created_by}
   && !exists $first->{updated_by} && exists $first->{created_at},
   'omit_columns, omit_properties and omit_username leave those out')
    or diag explain $first;
is_error(api(GET => '/tables', query => { catalog_name => $cat,
                                           schema_name => 'other',
                                           include_delta_metadata => 'maybe' }),
         400, 'INVALID_PARAMETER_VALUE', 'a flag is true or false');
is_error(api(GET => '/tables', query => { catalog_name => $cat }),
         400, 'INVALID_PARAMETER_VALUE', 'list needs schema_name',
         message => qr/schema_name/);
is_error(api(GET => "/tables/$cat.sch.nothing"), 404, 'TABLE_NOT_FOUND',
         'missing table -> 404 TABLE_NOT_FOUND');
is_error(api(GET => "/tables/$cat.sch"), 400, 'INVALID_PARAMETER_VALUE',
         'a two-part table name -> 400');

# --- existence and summaries ----------------------------------------------------
is_deeply(json_of(api(GET => "/tables/$cat.sch.events/exists")),
          { table_exists => JSON::PP::true() }, 'exists: true');
is_deeply(json_of(api(GET => "/tables/$cat.sch.nothing/exists")),
          { table_exists => JSON::PP::false() }, 'exists: false');
$res = api(GET => '/table-summaries', query => { catalog_name => $cat });
is_ok_json($res, 'GET /table-summaries');
my $sum = json_of($res) || {};
ok(@{ $sum->{tables} || [] } >= 8
   && $sum->{tables}[0]{full_name} eq "$cat.other.page_1"
   && $sum->{tables}[0]{table_type} eq 'VIEW'
   && exists $sum->{next_page_token},
   'summaries: full names and types, across schemas in order')
    or diag explain $sum;
$sum = json_of(api(GET => '/table-summaries', query => {
    catalog_name => $cat, schema_name_pattern => 'oth%',
    table_name_pattern => 'page\\_%' })) || {};
is(scalar @{ $sum->{tables} || [] }, 4, 'LIKE patterns select');
$sum = json_of(api(GET => '/table-summaries', query => {
    catalog_name => $cat, table_name_pattern => "x' OR '1'='1" })) || {};
is(scalar @{ $sum->{tables} || [] }, 0, 'a pattern is data, never SQL');
is_error(api(GET => '/table-summaries'), 400, 'INVALID_PARAMETER_VALUE',
         'summaries need catalog_name');

# --- who sees what ---------------------------------------------------------------
grant('table', "$cat.sch.events", 'alice', 'SELECT');
$page = json_of(api(GET => '/tables', user => 'alice',
                    query => { %in })) || {};
is_deeply([ map { $_->{name} } @{ $page->{tables} || [] } ], ['events'],
          'a list shows the tables the caller may read');
is_error(api(GET => "/tables/$cat.sch.ext", user => 'alice'), 404,
         'TABLE_NOT_FOUND', 'a table without privileges is not there');
is_deeply(json_of(api(GET => "/tables/$cat.sch.ext/exists", user => 'alice')),
          { table_exists => JSON::PP::false() },
          '... nor does it exist for the caller');
grant('catalog', $cat, 'bob', 'BROWSE');
is_error(api(GET => "/tables/$cat.sch.events", user => 'bob'), 403,
         'PERMISSION_DENIED', 'BROWSE alone: 403 without include_browse',
         message => qr/include_browse/);
$t = json_of(api(GET => "/tables/$cat.sch.events", user => 'bob',
                 query => { include_browse => 'true' })) || {};
ok($t->{browse_only} && !defined $t->{columns} && !defined $t->{storage_location}
   && !%{ $t->{properties} || { x => 1 } } && $t->{table_type} eq 'MANAGED',
   'BROWSE with include_browse: metadata only') or diag explain $t;
is(scalar @{ (json_of(api(GET => '/table-summaries', user => 'alice',
                          query => { catalog_name => $cat })) || {})->{tables}
             || [] }, 1, 'summaries show the tables the caller may read');
$res = api(GET => "/permissions/table/$cat.sch.events");
is_ok_json($res, 'GET /permissions/table/{full_name}');
is_deeply(json_of($res), { privilege_assignments => [
    { principal => 'alice', privileges => ['SELECT'] } ] },
    'grants on a table');
$res = api(GET => "/effective-permissions/table/$cat.sch.events",
           user => 'alice');
my @inherited = map { $_->{inherited_from_type} // 'table' }
    map { @{ $_->{privileges} } } @{ (json_of($res) || {})->{privilege_assignments} || [] };
is_deeply(\@inherited, ['table'], 'effective permissions on a table');

# --- delete ----------------------------------------------------------------------
is_deleted(api(DELETE => "/tables/$cat.sch.ext"), 'DELETE /tables/{full_name}');
is_error(api(GET => "/tables/$cat.sch.ext"), 404, 'TABLE_NOT_FOUND',
         'deleted table is gone');
is_error(api(DELETE => "/tables/$cat.sch.events", user => 'alice'), 403,
         'PERMISSION_DENIED', 'deleting needs MANAGE or ownership');
$res = api(PATCH => "/tables/$cat.sch.events", body => { comment => 'x' });
is_error($res, 405, 'METHOD_NOT_ALLOWED', 'tables have no PATCH');
is(allow_set($res), 'DELETE GET HEAD', 'Allow lists the table methods');
