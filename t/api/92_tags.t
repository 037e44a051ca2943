# SPDX-License-Identifier: Apache-2.0
# Governed tags over HTTP: tag policies (create, get, list, update with
# update_mask, delete, values in use) and entity tag assignments on
# catalogs, schemas, tables, columns and volumes, with the authorization
# of both, renames, cascading deletes and concurrent assignments.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use URI::Escape qw(uri_escape_utf8);
use Unicat::Test;

plan tests => 58;

my $p = "t96_$$";
my $cat = "cat_$p";
my $key = "PII Level $p";          # blanks and capitals: kept as given
my $ekey = uri_escape_utf8($key);
my @policies = ($key, "open_$p", "third_$p", "pii level $p");
END {
    drop_catalog($cat);
    api(DELETE => '/tag-policies/' . uri_escape_utf8($_)) for @policies;
    revoke('metastore', 'metastore', 'alice', 'CREATE TAG POLICY');
}
create_catalog($cat, storage_root => "s3://bucket/$p");
create_schema($cat, 'sch');
create_object('/tables', { name => 'orders', catalog_name => $cat,
                           schema_name => 'sch', table_type => 'EXTERNAL',
                           data_source_format => 'DELTA',
                           storage_location => "s3://bucket/$p/orders",
                           columns => [ { name => 'Email', type_text => 'string',
                                          type_name => 'STRING', position => 0,
                                          type_json => '{"name":"Email","type":"string","nullable":true,"metadata":{}}' } ] });
create_object('/volumes', { name => 'raw', catalog_name => $cat,
                            schema_name => 'sch', volume_type => 'MANAGED' });

# --- tag policies ---------------------------------------------------------------
my $res = api(POST => '/tag-policies', body => { tag_policy => {
    tag_key => $key, description => 'how sensitive',
    values => [ { name => 'low' }, { name => 'high' } ] } });
is_ok_json($res, 'POST /tag-policies');
my $tp = json_of($res) || {};
has_keys($tp, [qw(tag_key description values id created_at updated_at)],
         'TagPolicy: the spec\'s fields');
ok($tp->{tag_key} eq $key && is_uuid($tp->{id})
   && is_json_int($tp->{created_at})
   && join(',', map { $_->{name} } @{ $tp->{values} || [] }) eq 'low,high',
   'tag key kept as given, values in order') or diag explain $tp;
is_deeply(json_of(api(GET => "/tag-policies/$ekey")), $tp,
          'GET /tag-policies/{tag_key} answers what create did');
is_error(api(POST => '/tag-policies', body => { tag_policy => { tag_key => $key } }),
         409, 'ALREADY_EXISTS', 'a second policy of the key: 409');
is_ok_json(api(POST => '/tag-policies', body => { tag_key => lc $key }),
           'keys are case-sensitive (and the envelope is optional)');
is_error(api(GET => '/tag-policies/' . uri_escape_utf8("missing $p")), 404,
         'NOT_FOUND', 'an unknown tag policy: 404');
for my $bad ('a.b', ' lead', 'x=y', 'x' x 257) {
    is_error(api(POST => '/tag-policies', body => { tag_policy => { tag_key => $bad } }),
             400, 'INVALID_PARAMETER_VALUE', 'tag key refused: ' . substr($bad, 0, 12));
}
is_error(api(POST => '/tag-policies', body => { tag_policy => {
    tag_key => "dup_$p", values => [ { name => 'a' }, { name => 'a' } ] } }),
    400, 'INVALID_PARAMETER_VALUE', 'a value listed twice: 400',
    message => qr/twice/);
is_error(api(POST => '/tag-policies', body => { tag_policy => {
    tag_key => "many_$p", values => [ map { { name => "v$_" } } 1 .. 501 ] } }),
    400, 'INVALID_PARAMETER_VALUE', 'more than 500 values: 400');
create_object('/tag-policies', { tag_policy => { tag_key => "open_$p" } });
create_object('/tag-policies', { tag_policy => { tag_key => "third_$p" } });

my (@seen, $token, $pages);
do {
    my $page = json_of(api(GET => '/tag-policies', query => {
        max_results => 1, defined $token ? (page_token => $token) : () })) || {};
    push @seen, map { $_->{tag_key} } @{ $page->{tag_policies} || [] };
    $token = $page->{next_page_token};
    $pages++;
} while (defined $token && $pages < 100);
is(scalar(grep { my $k = $_; grep { $_ eq $k } @seen } @policies), 4,
   'paging one at a time lists every policy once') or diag explain \@seen;

$res = api(PATCH => "/tag-policies/$ekey", body => {
    tag_policy => { description => 'sensitivity', values => [] },
    update_mask => 'description' });
$tp = json_of($res) || {};
ok($res->code == 200 && $tp->{description} eq 'sensitivity'
   && @{ $tp->{values} } == 2, 'update_mask: only the description changes')
    or diag explain $tp;
is_error(api(PATCH => "/tag-policies/$ekey", body => {
    tag_policy => { tag_key => "other_$p" } }), 400, 'INVALID_PARAMETER_VALUE',
    'the tag key cannot change');
is_error(api(PATCH => "/tag-policies/$ekey", body => {
    tag_policy => {}, update_mask => 'owner' }), 400, 'INVALID_PARAMETER_VALUE',
    'an update_mask field a tag policy lacks: 400');

# --- authorization of tag policies -----------------------------------------------
is_error(api(POST => '/tag-policies', user => 'alice',
             body => { tag_policy => { tag_key => "alice_$p" } }),
         403, 'PERMISSION_DENIED', 'creating a tag policy needs CREATE TAG POLICY');
grant('metastore', 'metastore', 'alice', 'CREATE TAG POLICY');
push @policies, "alice_$p";
is_ok_json(api(POST => '/tag-policies', user => 'alice',
               body => { tag_policy => { tag_key => "alice_$p" } }),
           'with CREATE TAG POLICY on the metastore alice creates one');
is_ok_json(api(GET => "/tag-policies/$ekey", user => 'bob'),
           'every caller reads tag policies');
is_error(api(PATCH => "/tag-policies/alice_$p", user => 'bob',
             body => { tag_policy => { description => 'x' } }),
         403, 'PERMISSION_DENIED', 'bob may not change alice\'s policy');
is_ok_json(api(PATCH => "/tag-policies/alice_$p", user => 'alice',
               body => { tag_policy => { description => 'mine' } }),
           'its owner changes it');
grant('tag_policy', "alice_$p", 'bob', 'MANAGE');
is_ok_json(api(DELETE => "/tag-policies/alice_$p", user => 'bob'),
           'MANAGE on the policy deletes it');

# --- assignments ------------------------------------------------------------------
sub assign {
    my ($type, $name, $k, $v, %opt) = @_;
    return api(POST => '/entity-tag-assignments', %opt, body => { tag_assignment => {
        entity_type => $type, entity_name => $name, tag_key => $k,
        defined $v ? (tag_value => $v) : () } });
}
sub tags_path { my ($type, $name) = @_; "/entity-tag-assignments/$type/$name/tags" }

for my $e ([catalogs => $cat], [schemas => "$cat.sch"], [tables => "$cat.sch.orders"],
           [volumes => "$cat.sch.raw"]) {
    my $a = json_of(assign(@$e, "team_$p", 'finance')) || {};
    is_deeply($a, { entity_type => $e->[0], entity_name => $e->[1],
                    tag_key => "team_$p", tag_value => 'finance' },
              "an ungoverned tag on $e->[0]");
}
$res = assign(columns => "$cat.sch.orders.EMAIL", $key, 'high');
is_deeply(json_of($res), { entity_type => 'columns',
                           entity_name => "$cat.sch.orders.Email",
                           tag_key => $key, tag_value => 'high' },
          'a governed tag on a column, named as the table spells it');
is_error(assign(columns => "$cat.sch.orders.nope", "team_$p", 'x'), 404,
         'NOT_FOUND', 'a column the table lacks: 404');
is_error(assign(tables => "$cat.sch.orders", $key, 'medium'), 400,
         'INVALID_PARAMETER_VALUE', 'a governed key takes only its values',
         message => qr/low.*high/);
is_error(assign(tables => "$cat.sch.orders", $key, undef), 400,
         'INVALID_PARAMETER_VALUE', 'a governed key with values needs one');
is_ok_json(assign(tables => "$cat.sch.orders", "open_$p", 'anything'),
           'a governed key without values takes any value');
is_ok_json(assign(tables => "$cat.sch.orders", "flag_$p", undef),
           'a key-only tag');
is_error(assign(tables => "$cat.sch.orders", "team_$p", 'ops'), 409,
         'ALREADY_EXISTS', 'a second value of one key: 409');
is_error(assign(things => "$cat.sch.orders", "k_$p", 'x'), 400,
         'INVALID_PARAMETER_VALUE', 'an unknown entity type: 400');
is_error(assign(tables => "$cat.sch.gone", "k_$p", 'x'), 404,
         'TABLE_NOT_FOUND', 'a missing entity: 404');

my $tp_orders = tags_path(tables => "$cat.sch.orders");
my @keys;
$token = undef;
do {
    my $page = json_of(api(GET => $tp_orders, query => {
        max_results => 2, defined $token ? (page_token => $token) : () })) || {};
    push @keys, map { $_->{tag_key} } @{ $page->{tag_assignments} || [] };
    $token = $page->{next_page_token};
} while (defined $token);
is_deeply(\@keys, [ sort "team_$p", "open_$p", "flag_$p" ],
          'the table\'s tags, paged by key');
is_deeply(json_of(api(GET => "$tp_orders/open_$p")),
          { entity_type => 'tables', entity_name => "$cat.sch.orders",
            tag_key => "open_$p", tag_value => 'anything' },
          'GET one tag by key');
$res = api(PATCH => "$tp_orders/team_$p", body => {
    tag_assignment => { tag_value => 'ops' }, update_mask => 'tag_value' });
is((json_of($res) || {})->{tag_value}, 'ops', 'PATCH changes the value');
is_ok_json(api(DELETE => "$tp_orders/flag_$p"), 'DELETE a tag');
is_error(api(GET => "$tp_orders/flag_$p"), 404, 'NOT_FOUND',
         'a deleted tag is gone');

# --- values in use -------------------------------------------------------------------
is_error(api(PATCH => "/tag-policies/$ekey", body => {
    tag_policy => { values => [ { name => 'low' } ] } }), 400,
    'INVALID_PARAMETER_VALUE', 'dropping a value an entity uses: 400 with the count',
    message => qr/^1 entity /);
is_ok_json(api(PATCH => "/tag-policies/$ekey", query => { force => 'true' },
               body => { tag_policy => { values => [ { name => 'low' }, { name => 'high' },
                                                       { name => 'secret' } ] } }),
           'adding values is no change to entities; force was not needed');

# --- authorization of assignments ----------------------------------------------------
is_error(api(GET => $tp_orders, user => 'alice'), 404, 'CATALOG_NOT_FOUND',
         'reading tags needs what reading the entity needs');
grant('catalog', $cat, 'alice', 'USE CATALOG');
grant('schema', "$cat.sch", 'alice', 'USE SCHEMA');
grant('table', "$cat.sch.orders", 'alice', 'SELECT');
is_ok_json(api(GET => $tp_orders, user => 'alice'), 'SELECT on the table reads its tags');
is_error(assign(tables => "$cat.sch.orders", "alice_$p", 'x', user => 'alice'),
         403, 'PERMISSION_DENIED', 'assigning needs MANAGE on the entity');
grant('table', "$cat.sch.orders", 'alice', 'MANAGE');
is_ok_json(assign(tables => "$cat.sch.orders", "alice_$p", 'x', user => 'alice'),
           'MANAGE on the table assigns an ungoverned tag');
is_error(assign(columns => "$cat.sch.orders.email", "open_$p", 'x', user => 'alice'),
         403, 'PERMISSION_DENIED', 'a governed key also needs ASSIGN on its policy',
         message => qr/ASSIGN/);
grant('tag_policy', "open_$p", 'alice', 'ASSIGN');
is_ok_json(assign(columns => "$cat.sch.orders.email", "open_$p", 'x', user => 'alice'),
           'with ASSIGN on the policy alice assigns the governed key');

# --- renames, deletes, concurrency ---------------------------------------------------
is_ok_json(api(PATCH => "/volumes/$cat.sch.raw", body => { new_name => 'landing' }),
           'rename the volume');
is((json_of(api(GET => tags_path(volumes => "$cat.sch.landing") . "/team_$p")) || {})
       ->{tag_value}, 'finance', 'its tags follow the rename');
my @out = race(map { my $i = $_; sub {
    assign(schemas => "$cat.sch", "race_$p", "v$i") } } 1 .. 8);
one_winner('409 ALREADY_EXISTS', 'eight concurrent assignments of one key: one wins',
           @out);
is_ok_json(api(DELETE => "/tag-policies/open_$p"), 'delete a tag policy');
is((json_of(api(GET => "$tp_orders/open_$p")) || {})->{tag_value}, 'anything',
   'its assignments stay, ungoverned');
is_ok_json(api(DELETE => "/schemas/$cat.sch", query => { force => 'true' }),
           'drop the schema with its objects');
create_schema($cat, 'sch');
create_object('/volumes', { name => 'landing', catalog_name => $cat,
                            schema_name => 'sch', volume_type => 'MANAGED' });
is_deeply((json_of(api(GET => tags_path(volumes => "$cat.sch.landing"))) || {})
              ->{tag_assignments}, [], 'a new volume of the name has no tags');
is((json_of(api(GET => tags_path(catalogs => $cat))) || {})->{tag_assignments}[0]{tag_key},
   "team_$p", 'the catalog keeps its own');
assign(volumes => "$cat.sch.landing", "k${_}_$p", undef) for 1 .. 50;
is_error(assign(volumes => "$cat.sch.landing", "k51_$p", undef), 400,
         'INVALID_PARAMETER_VALUE', 'an entity holds at most 50 tags',
         message => qr/50 tags/);
