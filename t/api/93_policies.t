# SPDX-License-Identifier: Apache-2.0
# ABAC policies over HTTP: row-filter and column-mask policies on
# catalogs, schemas and tables, their checks (type, function, aliases),
# include_inherited and paging, update_mask, authorization, renames and
# deletes, and the refusal to share data a policy governs.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 43;

my $p = "p97_$$";
my ($cat, $other, $free, $share) = ("cat_$p", "oth_$p", "free_$p", "shr_$p");
END { api(DELETE => "/shares/$share"); drop_catalog($_) for $cat, $other, $free }

my %fn = (data_type => 'BOOLEAN', full_data_type => 'boolean',
          parameter_style => 'S', is_deterministic => JSON::PP::true(),
          sql_data_access => 'NO_SQL', is_null_call => JSON::PP::false(),
          security_type => 'DEFINER', routine_body => 'SQL',
          routine_definition => 'true');
sub world {
    my ($c, $s, @tables) = @_;
    create_catalog($c);
    create_schema($c, $s);
    create_object('/tables', { name => $_, catalog_name => $c, schema_name => $s,
                               table_type => 'EXTERNAL', data_source_format => 'DELTA',
                               storage_location => "s3://pol-$$/$c/$_",
                               columns => [] }) for @tables;
    create_object('/functions', { function_info => {
        name => 'filt', catalog_name => $c, schema_name => $s, %fn } });
}
world($cat, 'sch', 'orders', 'items');
world($other, 'sch');
world($free, 'pub', 'open');

sub policy {
    my (%f) = @_;
    return { name => 'pii_rows', policy_type => 'POLICY_TYPE_ROW_FILTER',
             to_principals => ['analysts'], except_principals => ['admins'],
             when_condition => "hasTagValue('pii','high')",
             match_columns => [ { alias => 'e', condition => "hasTag('pii')" } ],
             row_filter => { function_name => uc "$cat.sch.filt",
                             using => [ { alias => 'e' }, { constant => '1' } ] },
             comment => 'hide pii rows', %f };
}
my $tbl = "/policies/tables/$cat.sch.orders";

my $res = api(POST => $tbl, body => policy());
is_ok_json($res, 'POST a row-filter policy on a table');
my $pol = json_of($res) || {};
has_keys($pol, [qw(name id on_securable_type on_securable_fullname policy_type
                   to_principals except_principals when_condition match_columns
                   row_filter comment created_at updated_at)], 'PolicyInfo fields');
ok(is_uuid($pol->{id}) && $pol->{on_securable_type} eq 'tables'
   && $pol->{on_securable_fullname} eq "$cat.sch.orders"
   && $pol->{row_filter}{function_name} eq "$cat.sch.filt"
   && $pol->{when_condition} eq "hasTagValue('pii','high')"
   && is_json_int($pol->{created_at}), 'stored as sent, the function named in full')
    or diag explain $pol;
is_deeply(json_of(api(GET => "$tbl/pii_rows")), $pol, 'GET answers what create did');
is_error(api(POST => $tbl, body => policy()), 409, 'ALREADY_EXISTS',
         'a name taken on the securable: 409');
is_ok_json(api(POST => $tbl, body => { policy_info => policy(name => 'wrapped') }),
           'the policy_info envelope is taken too');

my @bad = (
    [ { policy_type => 'POLICY_TYPE_UNSPECIFIED' }, qr/policy_type/, 'an unspecified type' ],
    [ { column_mask => { function_name => "$cat.sch.filt" } }, qr/column_mask/,
      'a row filter with a column mask' ],
    [ { row_filter => { function_name => "$cat.sch.nope" } }, qr/does not exist/,
      'a missing function' ],
    [ { row_filter => { function_name => "$other.sch.filt" } }, qr/not in catalog/,
      'a function of another catalog' ],
    [ { row_filter => { function_name => "$cat.sch.filt", using => [ { alias => 'z' } ] } },
      qr/not bound/, 'an alias match_columns does not bind' ],
    [ { row_filter => { function_name => "$cat.sch.filt",
                        using => [ { alias => 'e', constant => '1' } ] } },
      qr/alias or a constant/, 'an argument both alias and constant' ],
    [ { on_securable_fullname => "$cat.sch.items" }, qr/must name/,
      'a body naming another securable' ],
    [ { to_principals => ["analysts\x{200b}"] }, qr/to_principals.*U\+200B/,
      'a principal with a zero-width space' ],
    [ { except_principals => ["ad\x{202e}mins"] }, qr/except_principals.*U\+202E/,
      'a principal with a right-to-left override' ],
);
for my $b (@bad) {
    is_error(api(POST => $tbl, body => policy(name => 'bad_one', %{ $b->[0] })),
             400, undef, "refused: $b->[2]", message => $b->[1]);
}
is_error(api(POST => "/policies/volumes/$cat.sch.orders", body => policy()),
         400, 'INVALID_PARAMETER_VALUE', 'policies are not defined on volumes');

is_ok_json(api(POST => "/policies/schemas/$cat.sch", body => {
    name => 'mask_all', policy_type => 'POLICY_TYPE_COLUMN_MASK',
    column_mask => { function_name => "$cat.sch.filt" } }), 'a column mask on the schema');
is_ok_json(api(POST => "/policies/catalogs/$cat", body => policy(name => 'cat_rows')),
           'a row filter on the catalog');

my $own = json_of(api(GET => $tbl)) || {};
is_deeply([ map { "$_->{on_securable_type}:$_->{name}" } @{ $own->{policies} || [] } ],
          [qw(tables:pii_rows tables:wrapped)], 'a table lists its own policies');
is_deeply([ map { "$_->{on_securable_fullname}:$_->{name}" } @{
              (json_of(api(GET => "/policies/schemas/$cat.sch")) || {})->{policies} || [] } ],
          [ "$cat.sch:mask_all" ], 'a schema lists its own, not its tables\' ones');
my $all = json_of(api(GET => $tbl, query => { include_inherited => 'true' })) || {};
is_deeply([ map { "$_->{on_securable_type}:$_->{on_securable_fullname}:$_->{name}" }
            @{ $all->{policies} || [] } ],
          [ "catalogs:$cat:cat_rows", "schemas:$cat.sch:mask_all",
            "tables:$cat.sch.orders:pii_rows", "tables:$cat.sch.orders:wrapped" ],
          'include_inherited: ancestors first, each naming where it is defined');
my (@names, $token, $pages);
do {
    my $page = json_of(api(GET => $tbl, query => { include_inherited => 'true',
        max_results => 1, defined $token ? (page_token => $token) : () })) || {};
    push @names, map { $_->{name} } @{ $page->{policies} || [] };
    $token = $page->{next_page_token};
    $pages++;
} while (defined $token && $pages < 10);
is_deeply(\@names, [qw(cat_rows mask_all pii_rows wrapped)],
          'paged one at a time, the same policies in the same order');

$res = api(PATCH => "$tbl/pii_rows", body => { policy_info => {
    comment => 'rows with pii', when_condition => 'ignored' }, update_mask => 'comment' });
my $up = json_of($res) || {};
ok($res->code == 200 && $up->{comment} eq 'rows with pii'
   && $up->{when_condition} eq "hasTagValue('pii','high')", 'update_mask: only the comment')
    or diag explain $up;
is_error(api(PATCH => "$tbl/pii_rows", body => { policy_info => {
    policy_type => 'POLICY_TYPE_COLUMN_MASK' } }), 400, undef,
    'the updated policy is checked whole (a column mask needs its function)');
is_error(api(PATCH => "$tbl/pii_rows", body => { policy_info => { name => 'other' } }),
         400, 'INVALID_PARAMETER_VALUE', 'the name cannot change');
is_error(api(GET => "$tbl/nope"), 404, 'NOT_FOUND', 'a missing policy: 404');

# --- authorization ------------------------------------------------------------
is_error(api(GET => $tbl, user => 'alice'), 404, 'CATALOG_NOT_FOUND',
         'reading policies needs what reading the table needs');
grant('catalog', $cat, 'alice', 'USE CATALOG');
grant('schema', "$cat.sch", 'alice', 'USE SCHEMA');
grant('table', "$cat.sch.orders", 'alice', 'SELECT');
is_ok_json(api(GET => $tbl, user => 'alice'), 'SELECT on the table reads them');
is_error(api(POST => $tbl, user => 'alice', body => policy(name => 'alices')), 403,
         'PERMISSION_DENIED', 'defining one needs MANAGE');
grant('table', "$cat.sch.orders", 'alice', 'MANAGE');
is_error(api(POST => $tbl, user => 'alice', body => policy(name => 'alices')), 400,
         'INVALID_PARAMETER_VALUE', 'and EXECUTE on its function: one she holds '
         . 'nothing on is as missing', message => qr/does not exist/);
is_as_missing(api(POST => $tbl, user => 'alice', body => policy(
                  name => 'alices',
                  row_filter => { function_name => "$other.sch.filt" })),
              api(POST => $tbl, user => 'alice', body => policy(
                  name => 'alices',
                  row_filter => { function_name => "$other.sch.nope" })),
              ["$other.sch.filt", "$other.sch.nope"],
              'a function of another catalog she may not know of: as missing');
grant('function', "$cat.sch.filt", 'alice', 'EXECUTE');
is_ok_json(api(POST => $tbl, user => 'alice', body => policy(name => 'alices')),
           'with MANAGE and EXECUTE alice defines it');
is_ok_json(api(DELETE => "$tbl/alices", user => 'alice'), 'and deletes it');
is_error(api(GET => "$tbl/alices"), 404, 'NOT_FOUND', 'a deleted policy is gone');

# --- sharing ----------------------------------------------------------------------
create_object('/shares', { name => $share });
sub add_to_share {
    my ($name) = @_;
    api(PATCH => "/shares/$share", body => { updates => [ {
        action => 'ADD', data_object => { name => $name,
                                          data_object_type => 'TABLE' } } ] });
}
is_error(add_to_share("$cat.sch.items"), 400, 'FAILED_PRECONDITION',
         'a table a catalog policy governs is not shared', message => qr/cat_rows/);
is_ok_json(add_to_share("$free.pub.open"), 'a table no policy governs is');
for my $scope ("catalogs/$free", "schemas/$free.pub", "tables/$free.pub.open") {
    is_error(api(POST => "/policies/$scope", body => policy(
                 row_filter => { function_name => "$free.pub.filt" },
                 match_columns => [])), 400, 'FAILED_PRECONDITION',
             "no policy over shared data: $scope", message => qr/$share/);
}

# --- renames and deletes ------------------------------------------------------------
is_ok_json(api(PATCH => "/schemas/$cat.sch", body => { new_name => 'renamed' }),
           'rename the schema');
my $moved = json_of(api(GET => "/policies/tables/$cat.renamed.orders/pii_rows")) || {};
is($moved->{on_securable_fullname}, "$cat.renamed.orders",
   'the policy stays attached, under the new name');
is_ok_json(api(DELETE => "/tables/$cat.renamed.orders"), 'drop the table');
create_object('/tables', { name => 'orders', catalog_name => $cat, schema_name => 'renamed',
                           table_type => 'EXTERNAL', data_source_format => 'DELTA',
                           storage_location => "s3://pol-$$/$cat/orders2", columns => [] });
is_deeply((json_of(api(GET => "/policies/tables/$cat.renamed.orders")) || {})->{policies},
          [], 'a new table of the name has none of the old one\'s policies');
