# SPDX-License-Identifier: Apache-2.0
# Principal names are one spelling (trimmed, ASCII lower case) wherever they
# are compared or stored: grants, owners, ?principal=, groups. Names with
# control characters, invisible format characters (Unicode's category Cf),
# bytes that are not UTF-8 or only blanks are refused. A create-time owner is a
# transfer. BROWSE shows metadata without locations on every route.
#
# Users (t/TEST.PL): admin (UnicatMetastoreAdmin), alice, bob, carol, dave;
# groups: analysts = carol.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 43;

my $p = "pr72_$$";
my $c = "cat_$p";
my @cleanup = ($c, "owned_$p", "bad_$p");
END { drop_catalog($_) for @cleanup }
create_catalog($c, storage_root => "s3://pr72-$$/root");
create_schema($c, 'sch');

sub change {
    my ($principal, $add, %opt) = @_;
    return api(PATCH => "/permissions/catalog/$c", %opt,
               body => { changes => [ { principal => $principal,
                                        add => $add } ] });
}
sub grants_of {
    my $j = json_of(api(GET => "/permissions/catalog/$c")) || {};
    return join '; ',
        map { "$_->{principal}: " . join(',', sort @{ $_->{privileges} }) }
        sort { $a->{principal} cmp $b->{principal} }
        @{ $j->{privilege_assignments} || [] };
}

# --- MANAGE may not grant to oneself, however the name is spelt -------------
grant('catalog', $c, 'bob', 'USE CATALOG', 'MANAGE');
for my $me ('Bob', 'bob ', ' BOB', '  bob  ', 'bOB  ') {
    is_error(change($me, ['CREATE SCHEMA'], user => 'bob'), 403,
             'PERMISSION_DENIED', "bob granting '$me' -> 403");
}
is(grants_of(), 'bob: MANAGE,USE CATALOG', '... and nothing was granted');

# --- grants and owners are stored in the one spelling ------------------------
is_ok_json(change(' Alice ', ['USE CATALOG']), 'granting to " Alice "');
is(grants_of(), 'alice: USE CATALOG; bob: MANAGE,USE CATALOG',
   'is a grant to alice');
is_ok_json(api(GET => "/catalogs/$c", user => 'alice'),
           'which alice holds');
is((json_of(api(GET => "/permissions/catalog/$c",
                query => { principal => 'ALICE' })) || {})
       ->{privilege_assignments}[0]{principal} // '', 'alice',
   '?principal= is compared in the same spelling');
is_ok_json(change('Analysts', ['USE CATALOG', 'USE SCHEMA']),
           'granting to a group as "Analysts"');
is_ok_json(api(GET => "/schemas/$c.sch", user => 'carol',
               query => {}), 'reaches carol through the group file')
    or diag grants_of();
my $owned = json_of(api(POST => '/catalogs',
                        body => { name => "owned_$p", owner => 'Dave ' }));
is($owned->{owner}, 'dave', 'a create-time owner is normalised');
is_ok_json(api(PATCH => "/catalogs/owned_$p", user => 'dave',
               body => { comment => 'mine' }),
           'and owns it');
is_catalog(api(PATCH => "/catalogs/owned_$p", body => { owner => 'CAROL' }),
           { owner => 'carol' }, 'an owner set by PATCH is normalised');

# --- names that are not names ---------------------------------------------------
for my $bad ("bob\nadmin", "\e[31mred", '   ', '', "x\x7f", "\x{9b}2J") {
    (my $shown = $bad) =~ s/([^\x20-\x7e])/sprintf '\\x{%x}', ord $1/ge;
    is_error(change($bad, ['USE CATALOG']), 400, 'INVALID_PARAMETER_VALUE',
             "grant to principal '$shown' -> 400", message => qr/principal/);
}
for my $bad ("bob\nadmin", "\e[2J", '  ') {
    (my $shown = $bad) =~ s/([^\x20-\x7e])/sprintf '\\x{%x}', ord $1/ge;
    is_error(api(POST => '/catalogs', body => { name => "bad_$p", owner => $bad }),
             400, 'INVALID_PARAMETER_VALUE', "create with owner '$shown' -> 400",
             message => qr/owner/);
}
is_error(api(GET => "/catalogs/bad_$p"), 404, 'CATALOG_NOT_FOUND',
         'no refused create left a catalog');
is_error(api(PATCH => "/catalogs/$c", body => { owner => "carol\r\n" }), 400,
         'INVALID_PARAMETER_VALUE', 'PATCH owner with CR LF -> 400',
         message => qr/owner/);

# Invisible: "bob" and a zero-width space would show as bob. A zero-width
# space, a BOM, a soft hyphen, a right-to-left override, a word joiner and
# a language tag.
for my $bad ("bob\x{200b}", "\x{feff}bob", "b\x{ad}ob", "bo\x{202e}b",
             "bob\x{2060}", "bob\x{e0001}") {
    my $shown = sprintf 'U+%04X', ord(($bad =~ /([^\x20-\x7e])/)[0]);
    is_error(change($bad, ['USE CATALOG']), 400, 'INVALID_PARAMETER_VALUE',
             "grant to a principal with $shown -> 400",
             message => qr/principal.*\Q$shown\E/);
}
is_error(api(POST => '/catalogs', body => { name => "bad_$p",
                                            owner => "dave\x{200d}" }),
         400, 'INVALID_PARAMETER_VALUE', 'create with a zero-width joiner in '
         . 'the owner -> 400', message => qr/owner/);
is_error(api(PATCH => "/catalogs/$c", body => { owner => "carol\x{2066}" }),
         400, 'INVALID_PARAMETER_VALUE', 'PATCH owner with a bidi isolate -> 400',
         message => qr/owner/);
is_error(api(GET => "/permissions/catalog/$c", query => 'principal=bob%E2%80%8B'),
         400, 'INVALID_PARAMETER_VALUE', '?principal= with a zero-width space -> 400');
is_error(api(GET => "/permissions/catalog/$c", query => 'principal=bob%FF'),
         400, 'INVALID_PARAMETER_VALUE', '?principal= that is not UTF-8 -> 400',
         message => qr/UTF-8/);
is_ok_json(change("Zo\x{eb}", ['USE CATALOG']),
           'letters beyond ASCII are names like any other');

# --- BROWSE: metadata, never locations -------------------------------------------
create_schema($c, 'rooted', storage_root => "s3://pr72-$$/rooted");
grant('catalog', $c, 'dave', 'BROWSE');
my $listed = json_of(api(GET => '/schemas', user => 'dave',
                         query => { catalog_name => $c, include_browse => 'true' }))
    || {};
my ($in_list) = grep { $_->{name} eq 'rooted' } @{ $listed->{schemas} || [] };
ok($in_list && $in_list->{browse_only}, 'dave sees the schema through BROWSE');
my $res = api(GET => "/schemas/$c.rooted", user => 'dave',
              query => { include_browse => 'true' });
is_schema($res, { name => 'rooted', browse_only => JSON::PP::true(),
                  storage_root => undef, storage_location => undef,
                  properties => {} },
          'GET of that schema answers it the same way');
is_error(api(GET => "/schemas/$c.rooted", user => 'dave'), 403,
         'PERMISSION_DENIED', 'without include_browse it is 403, not 404');
create_object('/models', { name => 'mdl', catalog_name => $c, schema_name => 'sch' });
create_object('/models/versions', { catalog_name => $c, schema_name => 'sch',
                                    model_name => 'mdl',
                                    source => 's3://secret-runs/1/model' });
my $v = json_of(api(GET => "/models/$c.sch.mdl/versions/1", user => 'dave',
                    query => { include_browse => 'true' })) || {};
ok($v->{browse_only} && !defined $v->{source} && !defined $v->{storage_location}
   && $v->{version} == 1, 'a model version through BROWSE: no source, no location')
    or diag explain $v;
my $vl = json_of(api(GET => "/models/$c.sch.mdl/versions", user => 'dave',
                     query => { include_browse => 'true' })) || {};
my ($first) = @{ $vl->{model_versions} || [] };
ok($first && !defined $first->{source}, '... and in the list of versions')
    or diag explain $vl;
is((json_of(api(GET => "/models/$c.sch.mdl/versions/1")) || {})->{source},
   's3://secret-runs/1/model', 'the admin sees the source');
