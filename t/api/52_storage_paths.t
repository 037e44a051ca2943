# SPDX-License-Identifier: Apache-2.0
# Where data lives: every spelling of a storage location comes to one
# normal form before it is checked or stored (dot segments, repeated and
# trailing slashes, scheme and bucket case, escapes of unreserved
# characters), so that no spelling reaches another object's storage or
# managed storage; and the storage_root of catalogs and schemas follows
# the same overlap rules, sharing managed storage only with what the caller
# owns.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 76;

my $p = "sp56_$$";
my $b = "s3://st-$$";                     # a bucket of this file's own
my $cat = "cat_$p";
my @cleanup = ($cat, "alicecat_$p", "bobcat_$p", "admincat_$p",
               "envcat_$p", "envadmin_$p", "bad_$p");
END {
    drop_catalog($_) for @cleanup;
    api(DELETE => "/external-locations/loc_$p", query => { force => 'true' });
    api(DELETE => "/credentials/cred_$p", query => { force => 'true' });
    api(PATCH => '/permissions/metastore/metastore',
        body => { changes => [ map { { principal => $_,
                                       remove => ['CREATE CATALOG'] } }
                               qw(alice bob) ] });
}

create_catalog($cat, storage_root => "$b/managed");
create_schema($cat, 'sch');
my %in = (catalog_name => $cat, schema_name => 'sch');
my %ext = (%in, table_type => 'EXTERNAL', data_source_format => 'DELTA',
           columns => []);
my $hidden = create_object('/tables', { %ext, name => 'hidden',
                                        storage_location => "$b/data/hidden/t" });
is($hidden->{storage_location}, "$b/data/hidden/t", 'the target table');

sub external {
    my ($name, $location, %opt) = @_;
    return api(POST => '/tables', %opt,
               body => { %ext, name => $name, storage_location => $location });
}

# --- other spellings of the same place are the same place ------------------
my @same = ("$b/data/x/../hidden/t", "$b/data/hidden/./t",
            "$b/data/hidden/t/.", "$b/data/hidden/t/sub/..",
            "$b/data//hidden///t/", "$b/data/%68idden/t",
            "$b/data/hidde%6E/t", "$b/data/%2E/hidden/t",
            "$b/data/x/%2e%2e/hidden/t", uc($b) . "/data/hidden/t",
            "S3://St-$$/data/hidden/t");
for my $loc (@same) {
    is_error(external('same', $loc), 400, 'INVALID_PARAMETER_VALUE',
             "'$loc' is the table's own location -> 400",
             message => qr/overlaps/);
}
for my $loc ("$b/data/hidden/t/x/../y", "$b/data/hidden/./t/part",
             "$b/data/x/../hidden") {
    is_error(external('near', $loc), 400, 'INVALID_PARAMETER_VALUE',
             "'$loc' lies inside or above the table -> 400",
             message => qr/overlaps/);
}
is_error(api(POST => '/volumes',
             body => { %in, name => 'vol', volume_type => 'EXTERNAL',
                       storage_location => "$b/data/x/../hidden/t/v" }),
         400, 'INVALID_PARAMETER_VALUE', 'a volume reaching in through .. -> 400',
         message => qr/overlaps/);

# --- managed storage, the root, and what a location may not hold ------------
for my $loc ("$b/managed/x/../__unitystorage/t", "$b/managed/__UNITYSTORAGE/t",
             "$b/managed/__UnityStorage", "$b/managed/%5F_unitystorage/t",
             "$b/managed") {
    is_error(external('managed', $loc), 400, 'INVALID_PARAMETER_VALUE',
             "'$loc' reaches managed storage -> 400");
}
for my $loc ("$b/..", "$b/a/../..", "/..", "file:///../etc", "$b/a%00b",
             "$b/a%0Ab", "$b/a%1B[31m", "$b/a%2Fb", "$b/a%zz", "$b/100%",
             # A port or a user name in the bucket or account.
             "$b:443/base", "s3://user\@st-$$/x", "s3://u:pw\@st-$$/x",
             "gs://u\@st-$$/x", "abfss://u\@c\@acct.dfs.core.windows.net/x",
             "abfss://c\@acct.dfs.core.windows.net:443/x") {
    is_error(external('bad', $loc), 400, 'INVALID_PARAMETER_VALUE',
             "'$loc' -> 400", message => qr/storage_location/);
}
is_error(api(POST => '/catalogs', body => { name => "bad_$p",
                                            storage_root => "$b:443/root" }),
         400, 'INVALID_PARAMETER_VALUE', 'a storage_root with a port -> 400',
         message => qr/storage_root/);
is_error(api(GET => "/tables/$cat.sch.same"), 404, 'TABLE_NOT_FOUND',
         'nothing refused was created');

# --- what is stored is the normal form -------------------------------------
my $t = json_of(external('normal', "S3://St-$$/Other/./x/../y%7E/%41//"));
is($t->{storage_location}, "$b/Other/y~/A", 'the normal form is stored');
is(json_of(api(GET => "/tables/$cat.sch.normal"))->{storage_location},
   "$b/Other/y~/A", 'and read back');
is_error(external('normal2', "$b/Other/y%7e/A"), 400, 'INVALID_PARAMETER_VALUE',
         'and compared: another spelling of it overlaps',
         message => qr/overlaps/);
$t = json_of(api(POST => '/volumes',
                 body => { %in, name => 'vol2', volume_type => 'EXTERNAL',
                           storage_location => "/srv/$p/a/b/../c/" }));
is($t->{storage_location}, "file:///srv/$p/a/c", 'a path comes back normal');

# --- storage_root of catalogs and schemas -----------------------------------
sub schema_root {
    my ($name, $root, %opt) = @_;
    return api(POST => '/schemas', %opt,
               body => { name => $name, catalog_name => $cat,
                         storage_root => $root });
}
for my $root ("$b/data/hidden/t", "$b/data/hidden/t/sub", "$b/data",
              "$b/data/x/../hidden/t/m", "$b/data/hidden/./t") {
    is_error(schema_root('rooted', $root), 400, 'INVALID_PARAMETER_VALUE',
             "schema storage_root '$root' overlaps a table -> 400",
             message => qr/overlaps/);
}
for my $root ('/', 'file:///', '/etc', 'file:///etc/', '/tmp/..', '/etc/./') {
    is_error(schema_root('rooted', $root), 400, 'INVALID_PARAMETER_VALUE',
             "schema storage_root '$root' (a file-system root) -> 400",
             message => qr/file-system root/);
}
is_error(api(POST => '/catalogs', body => { name => "rootcat_$p",
                                             storage_root => '/' }),
         400, 'INVALID_PARAMETER_VALUE', 'catalog storage_root / -> 400');
is_error(api(GET => "/schemas/$cat.rooted"), 404, 'SCHEMA_NOT_FOUND',
         'no refused schema was created');
my $s = json_of(schema_root('okay', "$b/roots/./s1/"));
is($s->{storage_root}, "$b/roots/s1", 'a schema root is stored normalised');
is_error(external('inroot', "$b/roots/s1"), 400, 'INVALID_PARAMETER_VALUE',
         'a table at a schema root overlaps its managed storage',
         message => qr/managed storage/);

# Managed storage is shared only with what the caller owns, inside an
# external location that lets the caller put managed storage there.
create_object('/credentials', { name => "cred_$p", aws_iam_role => {
    role_arn => 'arn:aws:iam::123456789012:role/st' } });
create_object('/external-locations', { name => "loc_$p", url => $b,
                                       credential_name => "cred_$p" });
grant('metastore', 'metastore', $_, 'CREATE CATALOG') for qw(alice bob);
grant('external_location', "loc_$p", $_, 'CREATE MANAGED STORAGE')
    for qw(alice bob);
my $ac = json_of(api(POST => '/catalogs', user => 'alice',
                     body => { name => "alicecat_$p",
                               storage_root => "$b/people/alice" }));
is($ac->{owner}, 'alice', 'alice has a catalog with a root');
for my $root ("$b/people/alice", "$b/people/alice/x", "$b/people",
              "$b/people/alice/x/../") {
    is_error(api(POST => '/catalogs', user => 'bob',
                 body => { name => "bobcat_$p", storage_root => $root }),
             400, 'INVALID_PARAMETER_VALUE',
             "bob may not share alice's managed storage ($root)",
             message => qr/does not own/);
}
is_ok_json(api(POST => '/schemas', user => 'alice',
               body => { name => 'nested', catalog_name => "alicecat_$p",
                         storage_root => "$b/people/alice/nested" }),
           "alice nests a schema root in her own catalog's");
grant('catalog', "alicecat_$p", 'bob', 'USE CATALOG', 'CREATE SCHEMA');
is_error(api(POST => '/schemas', user => 'bob',
             body => { name => 'bobs', catalog_name => "alicecat_$p",
                       storage_root => "$b/people/alice/bobs" }),
         400, 'INVALID_PARAMETER_VALUE',
         "bob's schema in alice's catalog may not use her storage",
         message => qr/does not own/);
is_ok_json(api(POST => '/schemas', user => 'bob',
               body => { name => 'bobs', catalog_name => "alicecat_$p",
                         storage_root => "$b/bob" }),
           'bob may create it with storage of his own');
is_ok_json(api(POST => '/catalogs',
               body => { name => "admincat_$p",
                         storage_root => "$b/people/alice/a" }),
           'an admin owns every managed storage');
is_ok_json(api(POST => '/catalogs', user => 'bob',
               body => { name => "bobcat_$p", storage_root => "$b/bobcat" }),
           'bob may use storage nobody holds');

# The metastore's managed storage (UnicatManagedStorageRoot of the
# /envgroups mount: /srv/unicat-test/root) is the admins'.
my $env = '/envgroups/api/2.1/unity-catalog';
for my $root ('/srv/unicat-test/root/x', '/srv/unicat-test/root',
              '/srv/unicat-test', '/srv/unicat-test/x/../root/y') {
    is_error(api(POST => '/catalogs', user => 'alice', base => $env,
                 body => { name => "envcat_$p", storage_root => $root }),
             400, 'INVALID_PARAMETER_VALUE',
             "a user's root may not overlap the metastore's ($root)",
             message => qr/managed storage/);
}
is_ok_json(api(POST => '/catalogs', base => $env,
               body => { name => "envadmin_$p",
                         storage_root => '/srv/unicat-test/root/admins' }),
           "an admin's may");
create_schema("envadmin_$p", 'sch');
for my $loc ('/srv/unicat-test/root', '/srv/unicat-test/x/../root',
             'file:///srv//unicat-test/root/') {
    is_error(api(POST => '/tables', base => $env,
                 body => { %ext, catalog_name => "envadmin_$p",
                           name => 'ext', storage_location => $loc }),
             400, 'INVALID_PARAMETER_VALUE',
             "an external table may not hold the metastore's managed storage ($loc)",
             message => qr/managed storage/);
}
