# SPDX-License-Identifier: Apache-2.0
# Functions over HTTP: the function_info envelope and the flat body,
# properties as a map or JSON text, parameters, update, list, delete.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 22;

my $p = "f92_$$";
my $cat = "cat_$p";
my @cleanup = ($cat);
END { drop_catalog($_) for @cleanup }
create_catalog($cat);
create_schema($cat, 'sch');
my %in = (catalog_name => $cat, schema_name => 'sch');
my %fields = (data_type => 'INT', full_data_type => 'int',
              parameter_style => 'S', is_deterministic => JSON::PP::true(),
              sql_data_access => 'NO_SQL', is_null_call => JSON::PP::false(),
              security_type => 'DEFINER', routine_body => 'SQL');

my @KEYS = qw(name catalog_name schema_name full_name input_params data_type
    full_data_type return_params routine_body routine_definition
    routine_dependencies parameter_style is_deterministic sql_data_access
    is_null_call security_type specific_name routine_body_language
    external_language comment properties owner created_at created_by
    updated_at updated_by function_id metastore_id browse_only);

# The Java client's body.
my $res = api(POST => '/functions', body => { function_info => {
    name => 'add_one', %in, %fields, routine_definition => 'x + 1',
    properties => '{"owner_team":"data"}', comment => 'adds one',
    external_language => 'python',
    input_params => { parameters => [
        { name => 'x', type_text => 'int', type_name => 'INT',
          type_json => '{"name":"x","type":"integer"}', position => 0 } ] },
    return_params => { parameters => [] } } });
is_ok_json($res, 'POST /functions with the function_info envelope');
my $f = json_of($res) || {};
has_keys($f, \@KEYS, 'function: every field');
ok(is_uuid($f->{function_id}) && $f->{full_name} eq "$cat.sch.add_one"
   && $f->{properties}{owner_team} eq 'data'
   && $f->{routine_body_language} eq 'python'
   && $f->{input_params}{parameters}[0]{parameter_mode} eq 'IN'
   && JSON::PP::is_bool($f->{is_deterministic}) && $f->{is_deterministic}
   && $f->{specific_name} eq 'add_one',
   'envelope unwrapped, properties text read as a map, defaults filled')
    or diag explain $f;
is_deeply(json_of(api(GET => "/functions/$cat.sch.add_one")), $f,
          'GET /functions/{name} returns what create returned');
# The spec's flat body.
$res = api(POST => '/functions', body => { name => 'flat', %in, %fields,
                                           properties => { a => 'b' },
                                           return_params => 'int' });
is_ok_json($res, 'POST /functions with a flat body');
$f = json_of($res) || {};
ok($f->{properties}{a} eq 'b' && $f->{return_params} eq 'int'
   && !defined $f->{input_params}, 'map properties, text return_params')
    or diag explain $f;

is_error(api(POST => '/functions', body => { name => 'flat', %in, %fields }),
         400, 'RESOURCE_ALREADY_EXISTS', 'duplicate function -> 400');
my %missing = %fields;
delete $missing{is_deterministic};
is_error(api(POST => '/functions', body => { name => 'nodet', %in, %missing }),
         400, 'INVALID_PARAMETER_VALUE', 'a required field missing',
         message => qr/is_deterministic/);
is_error(api(POST => '/functions', body => { name => 'badenum', %in, %fields,
                                             sql_data_access => 'WRITES' }),
         400, 'INVALID_PARAMETER_VALUE', 'an enum value outside the spec',
         message => qr/sql_data_access/);
is_error(api(POST => '/functions', body => { name => 'badprops', %in, %fields,
                                             properties => 'not json' }),
         400, 'INVALID_PARAMETER_VALUE', 'properties text that is no JSON',
         message => qr/properties/);
is_error(api(POST => '/functions', body => { name => 'badparam', %in, %fields,
    input_params => { parameters => [ { name => 'x', type_text => 'int' } ] } }),
         400, 'INVALID_PARAMETER_VALUE', 'a parameter without type_name',
         message => qr/input_params\[0\]/);
is_error(api(POST => '/functions', body => { function_info => 'x' }),
         400, 'INVALID_PARAMETER_VALUE', 'function_info must be an object');
is_error(api(POST => '/functions', body => { name => 'nowhere',
                                             catalog_name => $cat,
                                             schema_name => 'nope', %fields }),
         404, 'SCHEMA_NOT_FOUND', 'function in a missing schema');

$res = api(PATCH => "/functions/$cat.sch.add_one",
           body => { owner => 'alice', new_name => 'renamed' });
is_ok_json($res, 'PATCH /functions/{name}');
$f = json_of($res) || {};
ok($f->{owner} eq 'alice' && $f->{name} eq 'add_one',
   'PATCH changes the owner only') or diag explain $f;
grant('catalog', $cat, 'bob', 'USE CATALOG');
grant('schema', "$cat.sch", 'bob', 'USE SCHEMA');
grant('function', "$cat.sch.flat", 'bob', 'EXECUTE');
my $list = json_of(api(GET => '/functions', query => { %in })) || {};
is_deeply([ map { $_->{name} } @{ $list->{functions} || [] } ],
          [qw(add_one flat)], 'GET /functions');
$list = json_of(api(GET => '/functions', user => 'bob', query => { %in })) || {};
is_deeply([ map { $_->{name} } @{ $list->{functions} || [] } ], ['flat'],
          'a list shows the functions the caller may execute');
is_error(api(GET => "/functions/$cat.sch.add_one", user => 'bob'), 404,
         'NOT_FOUND', 'a function without EXECUTE is not there');
is_error(api(DELETE => "/functions/$cat.sch.flat", query => { force => 'often' }),
         400, 'INVALID_PARAMETER_VALUE', 'force is a boolean');
is_deleted(api(DELETE => "/functions/$cat.sch.flat", query => { force => 'true' }),
           'DELETE /functions/{name}');
is_error(api(GET => "/functions/$cat.sch.flat"), 404, 'NOT_FOUND',
         'deleted function is gone');
is_error(api(GET => "/functions/$cat.sch.flat", user => undef), 401,
         'UNAUTHENTICATED', 'no credentials -> 401');
