# SPDX-License-Identifier: Apache-2.0
# Authorization service: POST /management/v1/action/batch-check (Lakekeeper's
# batch-check answered from the catalog's grants). Mapping, rules per action,
# identity (self, others, roles), not-found handling, ordering and ids,
# validation, Lakekeeper's error shape, and one large request.
#
# Users (t/TEST.PL): admin (UnicatMetastoreAdmin), alice, bob, carol, dave;
# groups (UnicatGroupFile): analysts = carol, auditors = dave carol.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;
use Time::HiRes ();

plan tests => 86;

my $MB = '/management/v1';
my $NIL = '00000000-0000-0000-0000-000000000000';
my $OTHER = '0f0f0f0f-1111-4222-8333-444455556666';
my $p = "a80_$$";
my ($c, $c2, $big) = ("bc_$p", "bc2_$p", "bcbig_$p");
END {
    drop_catalog($_) for $c, $c2, $big;
    api(PATCH => '/permissions/metastore/metastore',
        body => { changes => [ { principal => 'bob',
                                 remove => ['CREATE CATALOG'] } ] });
}

# bc(\@checks, %opt): the batch-check request; opt user, extra (top-level
# fields), anything else api() takes.
sub bc {
    my ($checks, %opt) = @_;
    my $extra = delete $opt{extra} || {};
    return api(POST => '/action/batch-check', base => $MB,
               body => { checks => $checks, %$extra }, %opt);
}

# The "allowed" answers as a string "1 0 1 ..." ('?' when not a boolean).
sub answers {
    my ($res) = @_;
    my $j = json_of($res);
    return 'status ' . $res->code . ': ' . $res->content
        unless $res->code == 200 && ref $j eq 'HASH'
            && ref $j->{results} eq 'ARRAY';
    return join ' ', map {
        ref $_ eq 'HASH' && JSON::PP::is_bool($_->{allowed})
            ? ($_->{allowed} ? 1 : 0) : '?'
    } @{ $j->{results} };
}

# is_lk_error($res, $status, $type, $name): Lakekeeper's error shape
# {"error":{"message","type","code"}} with code = status, as JSON.
# $type undef accepts any non-empty type.
sub is_lk_error {
    my ($res, $status, $type, $name) = @_;
    my @p;
    push @p, 'status ' . $res->code . ", expected $status"
        unless $res->code == $status;
    push @p, "Content-Type '" . ($res->header('Content-Type') // '')
           . "', expected application/json"
        unless ($res->header('Content-Type') // '') =~ m{^application/json\b}i;
    my $j = json_of($res);
    my $e = ref $j eq 'HASH' ? $j->{error} : undef;
    if (ref $e ne 'HASH') {
        push @p, 'body has no "error" object';
    }
    else {
        push @p, 'extra top-level keys: ' . join(' ', grep { $_ ne 'error' }
                                                       sort keys %$j)
            if keys %$j != 1;
        push @p, 'message missing or empty'
            unless defined $e->{message} && !ref $e->{message}
                && length $e->{message};
        push @p, 'type missing or empty'
            unless defined $e->{type} && !ref $e->{type} && length $e->{type};
        push @p, "type '" . ($e->{type} // 'undef') . "', expected '$type'"
            if defined $type && ($e->{type} // '') ne $type;
        push @p, 'code is not the JSON integer ' . $status
            unless is_json_int($e->{code}) && $e->{code} == $status;
    }
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    ok(!@p, $name) or diag(join("\n", @p) . "\n-> " . $res->code . ' '
                          . substr($res->content, 0, 400));
}

# Check builders.
sub wh {
    my ($action, $wid, %x) = @_;
    return { %x, operation => { warehouse => {
        action => { action => $action }, 'warehouse-id' => $wid } } };
}
sub ns_id {
    my ($action, $wid, $nid, %x) = @_;
    return { %x, operation => { namespace => {
        action => { action => $action }, 'warehouse-id' => $wid,
        'namespace-id' => $nid } } };
}
sub ns_name {
    my ($action, $wid, $path, %x) = @_;
    return { %x, operation => { namespace => {
        action => { action => $action }, 'warehouse-id' => $wid,
        namespace => $path } } };
}
sub server {
    my ($action, %x) = @_;
    return { %x, operation => { server => { action => { action => $action } } } };
}
sub project {
    my ($action, $pid, %x) = @_;
    my $op = { action => { action => $action } };
    $op->{'project-id'} = $pid if defined $pid;
    return { %x, operation => { project => $op } };
}
sub tabular {
    my ($kind, $action, $wid, %x) = @_;
    return { %x, operation => { $kind => {
        action => { action => $action }, 'warehouse-id' => $wid,
        namespace => ['sc1'], $kind => 't1' } } };
}

# --- setup ----------------------------------------------------------------------
my $cid = create_catalog($c)->{id};
my $s1 = create_schema($c, 'sc1')->{schema_id};
my $s2 = create_schema($c, 'sc2')->{schema_id};
my $c2id = create_catalog($c2)->{id};
my $t2 = create_schema($c2, 'tt2')->{schema_id};
my $msid = json_of(api(GET => '/metastore_summary'))->{metastore_id};
grant('catalog', $c, 'alice', 'USE CATALOG');
grant('schema', "$c.sc1", 'alice', 'USE SCHEMA', 'CREATE TABLE');
grant('catalog', $c, 'bob', 'USE CATALOG', 'CREATE SCHEMA');
grant('catalog', $c2, 'analysts', 'USE CATALOG');
grant('catalog', $c2, 'alice', 'MANAGE');

# --- warehouse (catalog), self ------------------------------------------------------
my @wa = qw(use get_config get_metadata include_in_list list_namespaces
            create_namespace list_everything delete rename);
my @wchecks = map { wh($_, $cid) } @wa;
is(answers(bc(\@wchecks, user => 'alice')), '1 1 1 1 1 0 0 0 0',
   'warehouse: USE CATALOG gives the reads, not create/list_everything/manage');
is(answers(bc(\@wchecks, user => 'bob')), '1 1 1 1 1 1 0 0 0',
   'warehouse: USE CATALOG + CREATE SCHEMA gives create_namespace');
is(answers(bc(\@wchecks, user => 'dave')), '0 0 0 0 0 0 0 0 0',
   'warehouse: nothing held -> all false');
is(answers(bc(\@wchecks)), '1 1 1 1 1 1 1 1 1', 'warehouse: admin -> all true');
is(answers(bc([ map { wh($_, $c2id) } qw(use delete create_namespace) ],
              user => 'alice')), '0 1 0',
   'warehouse: MANAGE alone gives delete but not use');
is(answers(bc([ wh('use', $c2id) ], user => 'carol')), '1',
   'warehouse: USE CATALOG granted to a group (UnicatGroupFile) applies');
is(answers(bc([ wh('use', uc $cid), ns_id('get_metadata', uc $cid, uc $s1),
                project('get_metadata', uc $msid) ], user => 'alice')),
   '1 1 1', 'ids in upper case (accepted as UUIDs) name the same objects');

# --- namespace (schema), self -------------------------------------------------------
my @na = qw(get_metadata include_in_list list_tables list_views
            list_namespaces create_table create_view create_generic_table
            list_everything delete update_properties create_namespace);
is(answers(bc([ map { ns_id($_, $cid, $s1) } @na ], user => 'alice')),
   '1 1 1 1 1 1 1 1 0 0 0 0',
   'namespace by id: USE CATALOG + USE SCHEMA + CREATE TABLE');
is(answers(bc([ map { ns_name($_, $cid, ['sc1']) } @na ], user => 'alice')),
   '1 1 1 1 1 1 1 1 0 0 0 0', 'namespace by name: the same answers');
is(answers(bc([ ns_name('get_metadata', $cid, ['SC1']),
                ns_name('create_table', $cid, ['SC1']) ], user => 'alice')),
   '1 1', 'namespace names are case-insensitive');
is(answers(bc([ ns_id('get_metadata', $cid, $s2),
                ns_name('get_metadata', $cid, ['sc2']) ], user => 'alice')),
   '0 0', 'namespace without USE SCHEMA -> false');
is(answers(bc([ ns_id('get_metadata', $cid, $s1) ], user => 'bob')), '0',
   'namespace: USE CATALOG alone is not enough');
is(answers(bc([ map { ns_id($_, $cid, $s1) } @na ])),
   '1 1 1 1 1 1 1 1 1 1 1 0',
   'namespace: admin -> all true except create_namespace (schemas do not nest)');
is(answers(bc([ ns_name('get_metadata', $cid, ['sc1', 'sc1']),
                ns_name('get_metadata', $cid, []) ])),
   '0 0', 'namespace paths of length 2 or 0 name nothing');
is(answers(bc([ ns_id('get_metadata', $c2id, $s1),
                ns_id('get_metadata', $cid, $t2),
                ns_id('get_metadata', $cid, $cid) ])),
   '0 0 0', 'namespace-id outside its warehouse or not a schema -> false');
is(answers(bc([ ns_name('get_metadata', $cid, ["nope_$p"]),
                ns_id('get_metadata', $cid, $OTHER) ])),
   '0 0', 'missing namespace -> false');
is_lk_error(bc([ ns_name('get_metadata', $cid, ["nope_$p"]) ],
               extra => { 'error-on-not-found' => JSON::PP::true() }),
            404, 'NoSuchNamespaceException',
            'missing namespace + error-on-not-found -> 404');

# --- server and project (the metastore) -------------------------------------------
my @sp = (server('list_users'), server('create_project'),
          project('delete'), project('list_roles'));
is(answers(bc(\@sp)), '1 1 1 1', 'server/project admin actions: admin true');
is(answers(bc(\@sp, user => 'alice')), '0 0 0 0',
   'server/project admin actions: others false');
is(answers(bc([ map { project($_) } qw(get_metadata list_warehouses
                                         include_in_list create_warehouse) ],
              user => 'dave')), '1 1 1 0',
   'project reads open to everyone; create_warehouse needs CREATE CATALOG');
grant('metastore', 'metastore', 'bob', 'CREATE CATALOG');
is(answers(bc([ project('create_warehouse') ], user => 'bob')), '1',
   'project.create_warehouse with CREATE CATALOG on the metastore');
is(answers(bc([ project('delete', undef), project('delete', $NIL),
                project('delete', $msid), project('delete', $OTHER) ])),
   '1 1 1 0', 'project-id: absent, nil UUID, metastore id -> metastore; '
   . 'another -> false');
is(answers(bc([ project('get_metadata', $OTHER) ], user => 'dave')), '0',
   'another project is not found even for open actions');

# --- order and ids ---------------------------------------------------------------------
my $res = bc([ wh('use', $cid, id => 'a'), wh('delete', $cid),
               ns_id('get_metadata', $cid, $s1, id => 'third'),
               server('list_users', id => '') ], user => 'alice');
is_ok_json($res, 'mixed batch: 200 JSON');
is(to_json_text(json_of($res)),
   '{"results":[{"allowed":true,"id":"a"},{"allowed":false},'
   . '{"allowed":true,"id":"third"},{"allowed":false,"id":""}]}',
   'results in request order, id echoed only when given');
$res = bc([]);
is_ok_json($res, 'empty checks: 200');
is($res->content =~ s/\s+//gr, '{"results":[]}', 'empty checks -> {"results":[]}');

# --- tables, views, generic tables -----------------------------------------------
is(answers(bc([ tabular('table', 'get_metadata', $cid),
                tabular('table', 'read_data', $cid),
                tabular('view', 'select', $cid),
                tabular('generic-table', 'drop', $cid) ])),
   '0 0 0 0', 'table/view/generic-table checks of a missing table -> false');
my $eonf = { 'error-on-not-found' => JSON::PP::true() };
is_lk_error(bc([ tabular('table', 'get_metadata', $cid) ], extra => $eonf),
            404, 'NoSuchTableException', 'table + error-on-not-found -> 404');
is_lk_error(bc([ tabular('view', 'select', $cid) ], extra => $eonf),
            404, 'NoSuchViewException', 'view + error-on-not-found -> 404');
is_lk_error(bc([ tabular('generic-table', 'read_data', $cid) ],
               extra => $eonf),
            404, 'NoSuchGenericTableException',
            'generic-table + error-on-not-found -> 404');
is(answers(bc([ wh('use', $cid) ],
              extra => { 'error-on-not-found' => JSON::PP::false() })),
   '1', 'error-on-not-found false: normal answers');

# --- tables that exist -------------------------------------------------------------
my $orders = create_object('/tables', {
    name => 'orders', catalog_name => $c, schema_name => 'sc1',
    table_type => 'EXTERNAL', data_source_format => 'DELTA',
    storage_location => "s3://bc_$$/orders" })->{table_id};
create_object('/tables', { name => 'daily', catalog_name => $c,
                           schema_name => 'sc1', table_type => 'VIEW',
                           data_source_format => 'DELTA',
                           view_definition => 'SELECT 1' });
grant('table', "$c.sc1.orders", 'alice', 'SELECT');
sub named {
    my ($kind, $action, $name) = @_;
    return { operation => { $kind => {
        action => { action => $action }, 'warehouse-id' => $cid,
        namespace => ['sc1'], $kind => $name } } };
}
is(answers(bc([ named('table', 'get_metadata', 'orders'),
                named('table', 'read_data', 'ORDERS'),
                named('table', 'write_data', 'orders'),
                named('table', 'drop', 'orders'),
                named('generic-table', 'read_data', 'orders'),
                named('view', 'get_metadata', 'orders'),
                named('view', 'select', 'daily'),
                { operation => { table => { action => { action => 'read_data' },
                                            'warehouse-id' => $cid,
                                            'table-id' => uc $orders } } } ],
              user => 'alice')),
   '1 1 0 0 1 0 0 1',
   'tables: SELECT reads, by name or id; a table is not a view');
is(answers(bc([ named('view', 'select', 'daily'),
                named('table', 'drop', 'orders') ])), '1 1',
   'tables: admin -> true');
is_lk_error(bc([ named('table', 'get_metadata', 'daily') ], extra => $eonf),
            404, 'NoSuchTableException',
            'a table check on a view + error-on-not-found -> 404');

# --- unknown warehouse -----------------------------------------------------------
is(answers(bc([ wh('use', $OTHER), wh('use', $s1) ])), '0 0',
   'unknown warehouse (or a schema id) -> false');
is_lk_error(bc([ wh('use', $cid), wh('use', $OTHER) ], extra => $eonf),
            404, 'NoSuchWarehouseException',
            'unknown warehouse + error-on-not-found -> 404');

# --- identity ----------------------------------------------------------------------------
my $as_alice = { user => 'oidc~alice' };
is(answers(bc([ wh('use', $cid, identity => $as_alice),
                wh('create_namespace', $cid, identity => $as_alice),
                ns_name('create_table', $cid, ['sc1'], identity => $as_alice),
                wh('use', $c2id, identity => $as_alice),
                server('list_users', identity => $as_alice),
                wh('delete', $cid) ])),
   '1 0 1 0 0 1', 'admin with identity alice: alice\'s answers (own check mixed in)');
is_lk_error(bc([ wh('use', $cid, identity => $as_alice) ], user => 'bob'),
            403, 'CannotInspectPermissions',
            'identity of someone else without MANAGE -> 403');
is_lk_error(bc([ wh('use', $c2id), wh('use', $cid, identity => $as_alice) ],
               user => 'bob'),
            403, 'CannotInspectPermissions',
            '... for the whole request, even with self checks in it');
is_lk_error(bc([ server('list_users', identity => { user => 'oidc~bob' }) ],
               user => 'alice'),
            403, 'CannotInspectPermissions',
            'identity for server actions needs an admin');
is(answers(bc([ wh('use', $cid, identity => $as_alice),
                wh('delete', $cid, identity => $as_alice),
                server('list_users', identity => { user => 'x~alice' }) ],
              user => 'alice')), '1 0 0',
   'identity equal to the caller (any idp) collapses to self');
is(answers(bc([ wh('use', $c2id, identity => { user => 'oidc~carol' }),
                wh('use', $c2id, identity => { user => 'oidc~bob' }) ],
              user => 'alice')), '1 0',
   'MANAGE on the catalog: may inspect others there; groups from the group file apply');
is(answers(bc([ wh('use', $c2id, identity => { user => 'oidc~carol' }),
                wh('use', $c2id, identity => { user => 'oidc~dave' }) ])),
   '1 0', 'admin: carol (analysts) true, dave false');
is_lk_error(bc([ wh('use', $cid, identity => { role => $OTHER }) ]),
            404, 'RoleIdNotFound', 'identity role -> 404 RoleIdNotFound');

# --- hidden is missing ------------------------------------------------------------
# What the caller may not know of answers as a missing object does, whatever
# the mode and whoever is checked; messages name only what the caller sent.
sub same_miss {
    my ($hidden, $missing, $type, $name, %opt) = @_;
    my ($h, $m) = (bc([ $hidden ], %opt, extra => $eonf),
                   bc([ $missing ], %opt, extra => $eonf));
    is_lk_error($h, 404, $type, "$name: 404 $type");
    my ($hm, $mm) = map { (json_of($_) || {})->{error}{message} // '' } $h, $m;
    is($hm =~ s/[0-9a-f-]{36}/<id>/gr, $mm =~ s/[0-9a-f-]{36}/<id>/gr,
       "$name: the same answer as a missing one");
    is(answers(bc([ $hidden, $missing ], %opt)), '0 0',
       "$name: false without error-on-not-found");
}
same_miss(wh('use', $c2id), wh('use', $OTHER), 'NoSuchWarehouseException',
          'a catalog bob holds nothing on', user => 'bob');
same_miss(ns_id('get_metadata', $cid, $s2), ns_id('get_metadata', $cid, $OTHER),
          'NoSuchNamespaceException', 'a schema bob holds nothing on',
          user => 'bob');
same_miss(named('view', 'get_metadata', 'daily'),
          named('view', 'get_metadata', "nope_$p"), 'NoSuchViewException',
          'a view alice holds nothing on', user => 'alice');
is(answers(bc([ wh('use', $c2id, identity => $as_alice) ], user => 'bob')), '0',
   'identity check on a catalog hidden from the caller: false, not 403');
is_lk_error(bc([ wh('use', $c2id, identity => $as_alice) ], user => 'bob',
               extra => $eonf),
            404, 'NoSuchWarehouseException', '... and 404 with error-on-not-found');
is(answers(bc([ named('view', 'select', 'daily',),
                { %{ named('view', 'select', 'daily') },
                  identity => { user => 'oidc~carol' } } ], user => 'alice')),
   '0 0', 'identity check on a table hidden from the caller: false');
grant('table', "$c.sc1.orders", 'bob', 'SELECT');
$res = bc([ { %{ named('table', 'get_metadata', 'orders') },
              identity => $as_alice } ], user => 'bob');
is_lk_error($res, 403, 'CannotInspectPermissions',
            'a visible table bob may not manage: 403');
my $msg = (json_of($res) || {})->{error}{message} // '';
ok($msg =~ /'orders'/ && $msg =~ /\Q$cid\E/ && $msg !~ /\Q$orders\E/,
   'whose message names the table as bob named it (its warehouse id included), '
   . 'not by the id it resolved to')
    or diag $msg;

# --- many checks of one large object -------------------------------------------
my %heavy = map { sprintf('p%02d', $_) => 'x' x 16000 } 1 .. 56;
my $heavy = create_object('/tables', {
    name => 'heavy', catalog_name => $c, schema_name => 'sc1',
    table_type => 'EXTERNAL', data_source_format => 'DELTA',
    storage_location => "s3://bc_$$/heavy", properties => \%heavy,
    comment => 'c' x 60000 })->{table_id};
grant('table', "$c.sc1.heavy", 'alice', 'SELECT');
my @many = map {
    $_ % 2 ? named('table', 'read_data', 'heavy')
           : { operation => { table => { action => { action => 'read_data' },
                                         'warehouse-id' => $cid,
                                         'table-id' => $heavy } } }
} 1 .. 1000;
$res = bc(\@many, user => 'alice');
is(answers($res), join(' ', ('1') x 1000),
   '1,000 checks of a 900 KB table, by name and by id: all answered');
is(answers(bc(\@many, user => 'bob')), join(' ', ('0') x 1000),
   '... and all false for who holds nothing on it');

# --- limits and validation ---------------------------------------------------------
is_lk_error(bc([ map { wh('use', $cid) } 1 .. 1001 ]), 400, 'TooManyChecks',
            '1001 checks -> 400 TooManyChecks');
my @bad = (
    [ { operation => { catalog => { action => { action => 'use' },
                                    'warehouse-id' => $cid } } },
      'unknown operation key' ],
    [ { operation => {} }, 'empty operation' ],
    [ { operation => { server => { action => { action => 'list_users' } },
                       project => { action => { action => 'delete' } } } },
      'operation with two keys' ],
    [ wh('fly', $cid), 'unknown warehouse action' ],
    [ server('use'), 'action of another resource' ],
    [ { operation => { warehouse => { action => { action => 'use' } } } },
      'missing warehouse-id' ],
    [ wh('use', 'not-a-uuid'), 'invalid warehouse-id' ],
    [ ns_id('get_metadata', $cid, 'x'), 'invalid namespace-id' ],
    [ { operation => { namespace => { action => { action => 'get_metadata' },
                                      'warehouse-id' => $cid } } },
      'namespace without id or name' ],
    [ wh('use', $cid, identity => { user => 'oidc~alice', role => $OTHER }),
      'identity with both keys' ],
    [ wh('use', $cid, identity => {}), 'identity with no key' ],
    [ wh('use', $cid, identity => { user => 'alice' }),
      'identity user without ~' ],
    [ wh('use', $cid, id => 5), 'id not a string' ],
);
for my $b (@bad) {
    is_lk_error(bc([ wh('use', $cid), $b->[0] ]), 422, 'UnprocessableEntity',
                "$b->[1] -> 422");
}
is_lk_error(api(POST => '/action/batch-check', base => $MB,
                body => { nochecks => [] }),
            422, 'UnprocessableEntity', 'no checks array -> 422');
is_lk_error(api(POST => '/action/batch-check', base => $MB, raw => '{"checks":[',
                content_type => 'application/json'),
            400, undef, 'non-JSON body -> 400');
is_lk_error(api(POST => '/action/batch-check', base => $MB, body => { checks => [] },
                content_type => 'text/plain'),
            415, undef, 'wrong Content-Type -> 415');
$res = api(POST => '/action/batch-check', base => $MB, body => { checks => [] },
           user => undef);
is_lk_error($res, 401, undef, 'no credentials -> 401');
ok(defined $res->header('WWW-Authenticate'), '... with WWW-Authenticate');
is_lk_error(api(POST => '/action/batch-check', base => $MB, user => 'alice',
                password => 'wrong', body => { checks => [] }),
            401, undef, 'wrong password -> 401');

# --- a large request -------------------------------------------------------------------
my $bigid = create_catalog($big)->{id};
grant('catalog', $big, 'alice', 'USE CATALOG');
my (@sids, @names);
for my $i (0 .. 49) {
    my $n = sprintf 'sch_%02d', $i;
    push @names, $n;
    push @sids, create_schema($big, $n)->{schema_id};
    grant('schema', "$big.$n", 'alice', 'USE SCHEMA') if $i % 2 == 0;
}
my (@checks, @want);
for my $k (0 .. 999) {
    my $i = $k % 50;
    if ($k % 3 == 0) {
        push @checks, ns_id('get_metadata', $bigid, $sids[$i], id => "c$k");
        push @want, $i % 2 == 0 ? 1 : 0;
    }
    elsif ($k % 3 == 1) {
        push @checks, ns_name('list_tables', $bigid, [ uc $names[$i] ],
                              id => "c$k");
        push @want, $i % 2 == 0 ? 1 : 0;
    }
    else {
        push @checks, wh($k % 2 ? 'use' : 'delete', $bigid, id => "c$k");
        push @want, $k % 2 ? 1 : 0;
    }
}
my $t0 = Time::HiRes::time();
$res = bc(\@checks, user => 'alice');
my $elapsed = Time::HiRes::time() - $t0;
is_ok_json($res, '1000 checks over 50 schemas: 200');
my $r = (json_of($res) || {})->{results} || [];
is(scalar @$r, 1000, '... 1000 results');
is(join(',', map { ref $_ eq 'HASH' ? $_->{id} // '' : '' } @$r),
   join(',', map { "c$_" } 0 .. 999), '... in request order (ids)');
is(answers($res), join(' ', @want), '... with the expected answers');
ok($elapsed < 10, sprintf('... answered in %.2f s', $elapsed));
diag(sprintf 'batch-check of 1000: %.3f s', $elapsed);
