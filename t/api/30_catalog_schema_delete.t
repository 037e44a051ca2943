# SPDX-License-Identifier: Apache-2.0
# DELETE of catalogs and schemas: empty answers, CATALOG_NOT_EMPTY,
# force=true cascades.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 36;

my $p = "d30_$$";
my ($full, $empty, $other) = ("full_$p", "empty_$p", "other_$p");
my @cleanup = ($full, $empty, $other);
END { drop_catalog($_) for @cleanup }

my $cat = create_catalog($full, comment => 'has children');
my @names = map { sprintf 'sch_%02d', $_ } 1 .. 12;
my %old_id;
for my $n (@names) { $old_id{$n} = create_schema($full, $n)->{schema_id} }
create_catalog($other);
my $other_sch = create_schema($other, 'sch_01');

# --- an empty catalog ----------------------------------------------------------
create_catalog($empty);
my $res = api(DELETE => "/catalogs/$empty");
is_deleted($res, 'DELETE an empty catalog -> 200 {}');
like($res->header('Content-Type') // '', qr{^application/json}, 'DELETE answers application/json');
is_error(api(GET => "/catalogs/$empty"), 404, 'CATALOG_NOT_FOUND',
         'deleted catalog is gone');
is_error(api(DELETE => "/catalogs/$empty"), 404, 'CATALOG_NOT_FOUND',
         'delete it again -> 404');
my $list = json_of(api(GET => '/catalogs', query => { max_results => 1000 }))
         || {};
ok(!grep({ ($_->{name} // '') eq $empty } @{ $list->{catalogs} || [] }),
   'deleted catalog is not listed');
is_error(api(DELETE => '/catalogs/a-b'), 400, 'INVALID_PARAMETER_VALUE',
         'DELETE with an invalid name -> 400');
is_error(api(DELETE => "/catalogs/nope_$p", query => { force => 'true' }),
         404, 'CATALOG_NOT_FOUND', 'force-delete a missing catalog -> 404');

# --- a catalog with schemas ------------------------------------------------
is_error(api(DELETE => "/catalogs/$full"), 400, 'CATALOG_NOT_EMPTY',
         'DELETE a catalog with schemas -> 400 CATALOG_NOT_EMPTY');
is_error(api(DELETE => "/catalogs/$full", query => { force => 'false' }), 400,
         'CATALOG_NOT_EMPTY', 'force=false -> 400 CATALOG_NOT_EMPTY');
is_error(api(DELETE => "/catalogs/$full", query => { force => 'maybe' }), 400,
         'INVALID_PARAMETER_VALUE', 'force=maybe -> 400');
is_catalog(api(GET => "/catalogs/$full"), { name => $full, id => $cat->{id} },
           'catalog still there');
$res = api(GET => '/schemas', query => { catalog_name => $full });
is_deeply([map { $_->{name} } @{ (json_of($res) || {})->{schemas} || [] }],
          \@names, 'all schemas still there');

# --- force=true removes the subtree -----------------------------------------
is_deleted(api(DELETE => "/catalogs/\U$full", query => { force => 'true' }),
           'DELETE ?force=true -> 200 {}');
is_error(api(GET => "/catalogs/$full"), 404, 'CATALOG_NOT_FOUND',
         'catalog gone');
for my $n (@names[0, 5, 11]) {
    is_error(api(GET => "/schemas/$full.$n"), 404, 'CATALOG_NOT_FOUND',
             "schema $n gone with it");
}
is_error(api(GET => '/schemas', query => { catalog_name => $full }), 404,
         'CATALOG_NOT_FOUND', 'list of the deleted catalog -> 404');
is_schema(api(GET => "/schemas/$other.sch_01"),
          { schema_id => $other_sch->{schema_id} },
          "another catalog's schema of the same name survives");

# --- the same names can be created again, empty ------------------------------
$res = api(POST => '/catalogs', body => { name => $full });
is_catalog($res, { name => $full, comment => undef },
           'recreate the catalog');
isnt((json_of($res) || {})->{id}, $cat->{id}, 'it is a new catalog');
$res = api(GET => '/schemas', query => { catalog_name => $full });
is(to_json_text(json_of($res)), '{"next_page_token":null,"schemas":[]}',
   'the recreated catalog has no schemas (nothing resurrected)');
my $again = api(POST => '/schemas',
                body => { name => $names[0], catalog_name => $full });
is_schema($again, { full_name => "$full.$names[0]" },
          'recreate a schema of the same name');
isnt((json_of($again) || {})->{schema_id}, $old_id{ $names[0] },
     'it is a new schema');
create_schema($full, $_) for @names[1 .. $#names];
$res = api(GET => '/schemas', query => { catalog_name => $full });
is(scalar @{ (json_of($res) || {})->{schemas} || [] }, scalar @names,
   'all names usable again');

# --- deleting schemas -------------------------------------------------------
is_deleted(api(DELETE => "/schemas/$full.$names[0]"), 'DELETE a schema');
is_error(api(GET => "/schemas/$full.$names[0]"), 404, 'SCHEMA_NOT_FOUND',
         'schema gone');
is_error(api(DELETE => "/schemas/$full.$names[1]", query => { force => 'maybe' }),
         400, 'INVALID_PARAMETER_VALUE', 'schema force=maybe -> 400');
is_schema(api(GET => "/schemas/$full.$names[1]"), { name => $names[1] },
          'schema still there after the bad request');
is_deleted(api(DELETE => "/schemas/$full.$names[1]", query => { force => 'true' }),
           'DELETE a schema with force=true');
is_error(api(DELETE => "/schemas/$full.$names[1]"), 404, 'SCHEMA_NOT_FOUND',
         'delete it again -> 404');
is_catalog(api(GET => "/catalogs/$full"), { name => $full },
           'deleting schemas leaves the catalog');

# removing the last schemas makes the catalog deletable without force
is_error(api(DELETE => "/catalogs/$full"), 400, 'CATALOG_NOT_EMPTY',
         'still not empty');
api(DELETE => "/schemas/$full.$_") for @names[2 .. $#names];
is(to_json_text(json_of(api(GET => '/schemas',
                            query => { catalog_name => $full }))),
   '{"next_page_token":null,"schemas":[]}', 'all schemas deleted one by one');
is_deleted(api(DELETE => "/catalogs/$full"),
           'now DELETE without force succeeds');
is_error(api(DELETE => "/catalogs/$full", user => undef), 401,
         'UNAUTHENTICATED', 'DELETE without credentials -> 401');
