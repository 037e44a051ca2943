# SPDX-License-Identifier: Apache-2.0
# The share management of the Delta Sharing API (the spec's CreateShare,
# DeleteShare, CreateSchema, DeleteSchema) over HTTP, on the sharing
# handler mounted behind the catalog's authentication
# (/manage/delta-sharing): the ShareInfo and SchemaInfo answers, the same
# shares the catalog API sees, declared schemas that recipients list before
# any table is shared under them, who may do what (CREATE SHARE, MANAGE,
# never a recipient), and the refusals.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use File::Temp ();
use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 48;

my $p = "sm63_$$";
my ($cat, $share, $rcp) = ("cat_$p", "shr_$p", "rcp_$p");
my $M = '/manage/delta-sharing';
my $tmp = File::Temp::tempdir("unicat-sm63-XXXXXX", TMPDIR => 1,
                              CLEANUP => 1);
chmod 0755, $tmp;
system('cp', '-r', "$FindBin::Bin/../delta/fixtures/simple_table",
       "$tmp/simple") == 0 or die "setup: cannot copy the Delta fixture";
system('chmod', '-R', 'a+rX', $tmp);
END {
    api(DELETE => "/shares/$_") for $share, "dave_$p";
    api(DELETE => "/recipients/$rcp");
    drop_catalog($cat);
    api(PATCH => '/permissions/metastore/metastore', body => { changes => [
        { principal => 'dave', remove => ['CREATE SHARE', 'USE SHARE'] } ] });
}

# The management mount, as a principal (admin unless `user` says).
sub manage { my ($method, $path, %opt) = @_;
             api($method, $path, base => $M, %opt) }

# --- CreateShare ---------------------------------------------------------------
my $res = manage(POST => '/shares', body => { name => uc $share,
    description => 'sales for partners', properties => { team => 'bi' } });
my $info = json_of($res) || {};
ok($res->code == 200 && is_uuid($info->{id}) && $info->{name} eq $share
   && $info->{description} eq 'sales for partners'
   && ($info->{properties}{team} // '') eq 'bi'
   && keys(%$info) == 4, 'CreateShare answers the ShareInfo')
    or diag $res->content;
my $uc = json_of(api(GET => "/shares/$share")) || {};
ok(($uc->{id} // '') eq ($info->{id} // 'none')
   && ($uc->{comment} // '') eq 'sales for partners'
   && ($uc->{owner} // '') eq 'admin',
   'the catalog API sees the same share, its description as the comment')
    or diag explain $uc;
ds_error(manage(POST => '/shares', body => { name => $share }), 400,
         'RESOURCE_ALREADY_EXISTS', 'a taken name', qr/\Q$share\E/);
ds_error(manage(POST => '/shares', body => { name => '9bad name' }), 400,
         'INVALID_PARAMETER_VALUE', 'a name off the pattern');
ds_error(manage(POST => '/shares', body => { name => "x_$p",
                                              description => 7 }), 400,
         'INVALID_PARAMETER_VALUE', 'a description that is no string',
         qr/description/);
ds_error(manage(POST => '/shares', body => { description => 'nameless' }),
         400, 'INVALID_PARAMETER_VALUE', 'no name');
ds_error(manage(POST => '/shares', raw => '{"name":', content_type =>
                'application/json'), 400, 'INVALID_PARAMETER_VALUE',
         'a body that is no JSON', qr/Malformed JSON/);
ds_error(manage(POST => '/shares', body => { name => "dave_$p" },
                user => 'dave'), 403, 'PERMISSION_DENIED',
         'CreateShare without CREATE SHARE', qr/CREATE SHARE/);
is(api(GET => "/shares/dave_$p")->code, 404, '... creates nothing');
grant('metastore', 'metastore', 'dave', 'CREATE SHARE');
$res = manage(POST => '/shares', body => { name => "dave_$p" },
              user => 'dave');
ok($res->code == 200 && !defined((json_of($res) || {})->{description}),
   'with CREATE SHARE on the metastore, a share without a description')
    or diag $res->content;
is((json_of(api(GET => "/shares/dave_$p")) || {})->{owner}, 'dave',
   '... owned by its creator');
ds_error(manage(POST => '/shares', body => { name => "z_$p" }, user => undef),
         401, 'UNAUTHENTICATED', 'no credentials: 401');

# --- the data a recipient will read --------------------------------------------
create_catalog($cat);
create_schema($cat, 'sales');
create_object('/tables', { catalog_name => $cat, schema_name => 'sales',
    name => 'simple', table_type => 'EXTERNAL', data_source_format => 'DELTA',
    columns => [], storage_location => "file://$tmp/simple" });
$res = api(PATCH => "/shares/$share", body => { updates => [
    { action => 'ADD', data_object => { name => "$cat.sales.simple",
                                        shared_as => 'pub.simple' } } ] });
is($res->code, 200, 'a table shared as pub.simple') or diag $res->content;
create_object('/recipients', { name => $rcp, authentication_type => 'TOKEN' });
api(PATCH => "/shares/$share/permissions", body => { changes => [
    { principal => $rcp, add => ['SELECT'] } ] });
my $token = token_of_recipient($rcp);
ok(length($token // '') >= 43, 'the recipient holds a bearer token');

# --- CreateSchema -------------------------------------------------------------
$res = manage(POST => "/shares/$share/schemas", body => { name => 'Later',
    description => 'tables to come', properties => { tier => 'gold' },
    share => 'ignored', id => 'ignored' });
my $schema = json_of($res) || {};
ok($res->code == 200 && is_uuid($schema->{id}) && $schema->{id} ne 'ignored'
   && $schema->{name} eq 'later' && $schema->{share} eq $share
   && $schema->{shareId} eq $info->{id}
   && $schema->{description} eq 'tables to come'
   && ($schema->{properties}{tier} // '') eq 'gold',
   'CreateSchema answers the SchemaInfo (read-only fields ignored)')
    or diag $res->content;
$res = sharing_api($token, GET => "/shares/$share/schemas");
is(join(',', map { $_->{name} } @{ (json_of($res) || {})->{items} || [] }),
   'later,pub', 'the recipient lists the declared schema beside pub')
    or diag $res->content;
$res = sharing_api($token, GET => "/shares/$share/schemas/LATER/tables");
ok($res->code == 200 && $res->content eq '{"items":[]}',
   '... which holds no table yet') or diag $res->content;
ds_error(manage(POST => "/shares/$share/schemas", body => { name => 'later' }),
         400, 'RESOURCE_ALREADY_EXISTS', 'a declared name again',
         qr/later/);
ds_error(manage(POST => "/shares/$share/schemas", body => { name => 'pub' }),
         400, 'RESOURCE_ALREADY_EXISTS',
         'the name objects are already shared under');
ds_error(manage(POST => "/shares/$share/schemas", body => { name => 'a b' }),
         400, 'INVALID_PARAMETER_VALUE', 'a schema name off the pattern');
ds_error(manage(POST => "/shares/$share/schemas", body => { name => 'props',
                properties => { k => 1 } }), 400, 'INVALID_PARAMETER_VALUE',
         'properties that are not strings');
ds_error(manage(POST => "/shares/none_$p/schemas", body => { name => 'x1x' }),
         404, 'NOT_FOUND', 'a share that does not exist', qr/none_/);
ds_error(manage(POST => "/shares/$share/schemas", body => { name => 'mine' },
                user => 'dave'), 404, 'NOT_FOUND',
         'CreateSchema without a privilege on the share: not even its name');
# A table shared later under the declared name joins it.
$res = api(PATCH => "/shares/$share", body => { updates => [
    { action => 'ADD', data_object => { name => "$cat.sales",
        data_object_type => 'SCHEMA', shared_as => 'later' } } ] });
is($res->code, 200, 'the schema sales shared as later') or diag $res->content;
$res = sharing_api($token, GET => "/shares/$share/schemas/later/tables");
is(join(',', map { $_->{name} } @{ (json_of($res) || {})->{items} || [] }),
   'simple', '... and the recipient sees its table there')
    or diag $res->content;

# --- recipients do not manage ----------------------------------------------------
for (['POST', '/shares', { name => "r_$p" }],
     ['DELETE', "/shares/$share"],
     ['POST', "/shares/$share/schemas", { name => 'rrr' }],
     ['DELETE', "/shares/$share/schemas/later"]) {
    my ($method, $path, $body) = @$_;
    ds_error(sharing_api($token, $method, $path,
                         $body ? (body => $body) : ()),
             403, 'PERMISSION_DENIED', "a recipient's $method $path",
             qr/catalog principal/);
}
ds_error(sharing_api(undef, POST => '/shares', body => { name => "r_$p" }),
         401, 'UNAUTHENTICATED', 'no bearer token on the recipients\' mount');
ds_error(manage(GET => '/shares'), 401, 'UNAUTHENTICATED',
         "a principal reads no recipient's shares", qr/bearer token/);
ds_error(manage(PUT => '/shares', body => {}), 405, 'METHOD_NOT_ALLOWED',
         'PUT on /shares');

# --- DeleteSchema -------------------------------------------------------------
ds_error(manage(DELETE => "/shares/$share/schemas/later"), 400,
         'SCHEMA_NOT_EMPTY', 'a schema objects are shown under stays',
         qr/1 data object/);
ds_error(manage(DELETE => "/shares/$share/schemas/pub"), 400,
         'SCHEMA_NOT_EMPTY', '... declared or not');
$res = api(PATCH => "/shares/$share", body => { updates => [
    { action => 'REMOVE', data_object => { name => "$cat.sales",
                                           data_object_type => 'SCHEMA' } } ] });
is($res->code, 200, 'the schema object leaves the share') or diag $res->content;
grant('metastore', 'metastore', 'dave', 'USE SHARE');
ds_error(manage(DELETE => "/shares/$share/schemas/later", user => 'dave'),
         403, 'PERMISSION_DENIED', 'DeleteSchema with USE SHARE, no MANAGE',
         qr/MANAGE/);
grant('share', $share, 'dave', 'MANAGE');
$res = manage(DELETE => "/shares/$share/schemas/LATER", user => 'dave');
my $gone = json_of($res) || {};
ok($res->code == 200 && ($gone->{id} // '') eq $schema->{id}
   && $gone->{name} eq 'later' && $gone->{description} eq 'tables to come',
   'with MANAGE, DeleteSchema answers the schema as it was')
    or diag $res->content;
$res = sharing_api($token, GET => "/shares/$share/schemas");
is(join(',', map { $_->{name} } @{ (json_of($res) || {})->{items} || [] }),
   'pub', 'the recipient no longer lists it') or diag $res->content;
ds_error(manage(DELETE => "/shares/$share/schemas/later"), 404,
         'RESOURCE_DOES_NOT_EXIST', 'a second DeleteSchema', qr/later/);
ds_error(sharing_api($token, GET => "/shares/$share/schemas/later/tables"),
         404, 'RESOURCE_DOES_NOT_EXIST', '... nor lists its tables');
$res = manage(POST => "/shares/$share/schemas", body => { name => 'spare' },
              user => 'dave');
is($res->code, 200, 'MANAGE creates schemas too') or diag $res->content;

# --- DeleteShare ------------------------------------------------------------------
ds_error(manage(DELETE => "/shares/$share", user => 'carol'), 404,
         'NOT_FOUND', 'DeleteShare of a share the caller cannot see');
$res = manage(DELETE => "/shares/$share");
$gone = json_of($res) || {};
ok($res->code == 200 && ($gone->{id} // '') eq $info->{id}
   && $gone->{name} eq $share && $gone->{description} eq 'sales for partners',
   'DeleteShare answers the share as it was') or diag $res->content;
is(api(GET => "/shares/$share")->code, 404, 'the catalog API lost it too');
ds_error(sharing_api($token, GET => "/shares/$share"), 404,
         'RESOURCE_DOES_NOT_EXIST', 'the recipient no longer reaches it');
ds_error(manage(DELETE => "/shares/$share"), 404, 'NOT_FOUND',
         'a second DeleteShare');
# Its declared schemas went with it: a new share of that name has none.
manage(POST => '/shares', body => { name => $share });
$res = api(PATCH => "/shares/$share/permissions", body => { changes => [
    { principal => $rcp, add => ['SELECT'] } ] });
$res = sharing_api($token, GET => "/shares/$share/schemas");
is($res->content, '{"items":[]}', 'a new share of the name starts empty')
    or diag $res->content;
$res = manage(DELETE => "/shares/dave_$p", user => 'dave');
is($res->code, 200, 'the owner deletes its share') or diag $res->content;
