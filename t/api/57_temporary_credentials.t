# SPDX-License-Identifier: Apache-2.0
# Temporary credentials over HTTP, on local paths (which need no cloud
# object): the answer's shape, tables (and staging tables by id), volumes,
# model versions and paths, each with its authorization, and the refusals
# (bucket roots, read-only locations, no covering location, views), where
# what the caller may not know of answers as if it were not there.
# Cloud credentials are vended in t/api/58_cloud_credentials.t.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 47;

my $p = "t61_$$";
my $d = "/srv/unicat-t61-$$";
my $cat = "cat_$p";
END {
    drop_catalog($cat);
    api(DELETE => "/external-locations/$_", query => { force => 'true' })
        for ("files_$p", "ro_$p");
}
create_object('/external-locations', { name => "files_$p", url => $d });
create_object('/external-locations', { name => "ro_$p", url => "$d-ro",
                                        read_only => JSON::PP::true() });
create_catalog($cat, storage_root => "$d/managed");
create_schema($cat, 'sch');
my %in = (catalog_name => $cat, schema_name => 'sch');
my %ext = (%in, table_type => 'EXTERNAL', data_source_format => 'DELTA',
           columns => []);
my $t = create_object('/tables', { %ext, name => 'tab1',
                                   storage_location => "$d/ext/t1" });
my $ro = create_object('/tables', { %ext, name => 'rot',
                                    storage_location => "$d-ro/t" });
my $cloud = create_object('/tables', { %ext, name => 'cloudt',
                                       storage_location => "s3://nobody-$$/t" });
my $vol = create_object('/volumes', { %in, name => 'vol1',
                                      volume_type => 'EXTERNAL',
                                      storage_location => "$d/vol" });
# A table of a schema bob never holds anything on.
create_schema($cat, 'hid');
create_object('/tables', { %ext, schema_name => 'hid', name => 'secret',
                           storage_location => "$d/hid/secret" });
my $unknown = '6f1b7e36-0000-4000-8000-000000000000';

sub table_creds {
    my ($id, $op, %opt) = @_;
    return api(POST => '/temporary-table-credentials', %opt,
               body => { table_id => $id, operation => $op });
}
sub is_local {
    my ($res, $url, $name) = @_;
    my $j = json_of($res) || {};
    my $now = time * 1000;
    ok($res->code == 200 && exists $j->{aws_temp_credentials}
       && !defined $j->{aws_temp_credentials}
       && exists $j->{azure_user_delegation_sas}
       && !defined $j->{azure_user_delegation_sas}
       && exists $j->{gcp_oauth_token} && !defined $j->{gcp_oauth_token}
       && is_json_int($j->{expiration_time})
       && $j->{expiration_time} > $now + 3500_000
       && $j->{expiration_time} < $now + 3700_000
       && $j->{url} eq $url, $name)
        or diag $res->code . ' ' . $res->content;
}

# --- tables -----------------------------------------------------------------
is_local(table_creds($t->{table_id}, 'READ'), "file://$d/ext/t1",
         'READ of a local table: the url, no cloud object, an hour');
is_local(table_creds($t->{table_id}, 'READ_WRITE'), "file://$d/ext/t1",
         'READ_WRITE by an admin');
is_error(table_creds($t->{table_id}, 'WRITE'), 400,
         'INVALID_PARAMETER_VALUE', 'an unknown operation',
         message => qr/operation/);
is_error(api(POST => '/temporary-table-credentials',
             body => { operation => 'READ' }),
         400, 'INVALID_PARAMETER_VALUE', 'table_id is required',
         message => qr/table_id/);
is_error(table_creds($unknown, 'READ'), 404, 'TABLE_NOT_FOUND',
         'an unknown table id');
is_error(table_creds($vol->{volume_id}, 'READ'), 404, 'TABLE_NOT_FOUND',
         'a volume id is no table id');
is_error(table_creds($ro->{table_id}, 'READ_WRITE'), 403,
         'PERMISSION_DENIED', 'READ_WRITE through a read-only location',
         message => qr/^The external location covering '[^']+' is read-only/);
is_local(table_creds($ro->{table_id}, 'READ'), "file://$d-ro/t",
         'READ through it');
is_error(table_creds($cloud->{table_id}, 'READ'), 400,
         'FAILED_PRECONDITION', 'a cloud table no location covers',
         message => qr/No external location covers/);
my $st = create_object('/staging-tables', { %in, name => 'staged' });
is_local(table_creds($st->{id}, 'READ_WRITE'), $st->{staging_location},
         'a staging table by its id, for its creator');

# Who may: USE CATALOG, USE SCHEMA and SELECT (MODIFY to write).
# A table bob may not know of is an unknown id: nothing of its names shows.
is_as_missing(table_creds($t->{table_id}, 'READ', user => 'bob'),
              table_creds($unknown, 'READ', user => 'bob'),
              [$t->{table_id}, $unknown], 'bob cannot see the table');
grant('catalog', $cat, 'bob', 'USE CATALOG');
grant('schema', "$cat.sch", 'bob', 'USE SCHEMA');
is_as_missing(table_creds($t->{table_id}, 'READ', user => 'bob'),
              table_creds($unknown, 'READ', user => 'bob'),
              [$t->{table_id}, $unknown], 'nor with the namespaces alone');
grant('table', "$cat.sch.tab1", 'bob', 'MODIFY');
is_error(table_creds($t->{table_id}, 'READ', user => 'bob'), 403,
         'PERMISSION_DENIED', 'MODIFY alone does not read',
         message => qr/SELECT/);
grant('table', "$cat.sch.tab1", 'bob', 'SELECT');
is_local(table_creds($t->{table_id}, 'READ_WRITE', user => 'bob'),
         "file://$d/ext/t1", 'SELECT and MODIFY: READ_WRITE');
revoke('table', "$cat.sch.tab1", 'bob', 'MODIFY');
is_error(table_creds($t->{table_id}, 'READ_WRITE', user => 'bob'), 403,
         'PERMISSION_DENIED', 'SELECT alone does not write',
         message => qr/MODIFY/);
is_local(table_creds($t->{table_id}, 'READ', user => 'bob'),
         "file://$d/ext/t1", 'SELECT: READ');
is_error(table_creds($st->{id}, 'READ', user => 'bob'), 404,
         'TABLE_NOT_FOUND', "another caller's staging table is hidden");

# --- volumes -------------------------------------------------------------------
sub volume_creds {
    my ($op, %opt) = @_;
    return api(POST => '/temporary-volume-credentials', %opt,
               body => { volume_id => $vol->{volume_id}, operation => $op });
}
is_local(volume_creds('READ_VOLUME'), "file://$d/vol", 'READ_VOLUME');
is_local(volume_creds('WRITE_VOLUME'), "file://$d/vol", 'WRITE_VOLUME');
is_as_missing(volume_creds('READ_VOLUME', user => 'bob'),
              api(POST => '/temporary-volume-credentials', user => 'bob',
                  body => { volume_id => $unknown,
                            operation => 'READ_VOLUME' }),
              [$vol->{volume_id}, $unknown],
              'bob holds nothing on the volume: as an unknown id');
grant('volume', "$cat.sch.vol1", 'bob', 'READ VOLUME');
is_local(volume_creds('READ_VOLUME', user => 'bob'), "file://$d/vol",
         'READ VOLUME reads');
is_error(volume_creds('WRITE_VOLUME', user => 'bob'), 403,
         'PERMISSION_DENIED', 'and does not write',
         message => qr/WRITE VOLUME/);
is_error(api(POST => '/temporary-volume-credentials',
             body => { volume_id => $t->{table_id},
                       operation => 'READ_VOLUME' }),
         404, 'NOT_FOUND', 'a table id is no volume id');

# --- model versions --------------------------------------------------------------
create_object('/models', { %in, name => 'mod1' });
my $mv = create_object('/models/versions', { %in, model_name => 'mod1',
                                             source => "$d/runs/1" });
sub model_creds {
    my ($op, %opt) = @_;
    return api(POST => '/temporary-model-version-credentials', %opt,
               body => { %in, model_name => 'mod1', version => $mv->{version},
                         operation => $op });
}
is_local(model_creds('READ_WRITE_MODEL_VERSION'), $mv->{storage_location},
         'READ_WRITE while the version is being registered');
is_ok_json(api(PATCH => "/models/$cat.sch.mod1/versions/$mv->{version}/finalize",
               body => {}), 'the version is finalized');
is_error(model_creds('READ_WRITE_MODEL_VERSION'), 400,
         'INVALID_PARAMETER_VALUE', 'a registered version is read only',
         message => qr/read only/);
is_local(model_creds('READ_MODEL_VERSION'), $mv->{storage_location},
         'READ of a registered version');
is_error(api(POST => '/temporary-model-version-credentials',
             body => { %in, model_name => 'mod1', version => 99,
                       operation => 'READ_MODEL_VERSION' }),
         404, 'NOT_FOUND', 'an unknown version');

# --- paths ---------------------------------------------------------------------
sub path_creds {
    my ($url, $op, %opt) = @_;
    my $dry = delete $opt{dry_run};
    return api(POST => '/temporary-path-credentials', %opt,
               body => { url => $url, operation => $op,
                         defined $dry ? (dry_run => $dry) : () });
}
is_local(path_creds("$d//ext/t1/./part/", 'PATH_READ'),
         "file://$d/ext/t1/part", 'an admin reads any path, normalised');
is_error(path_creds('s3://bucket', 'PATH_READ'), 400,
         'INVALID_PARAMETER_VALUE', 'a bucket root', message => qr/root/);
is_error(path_creds("$d/x", 'PATH_WRITE'), 400, 'INVALID_PARAMETER_VALUE',
         'an unknown operation', message => qr/operation/);
is_local(path_creds("$d/ext/t1/part", 'PATH_READ', user => 'bob'),
         "file://$d/ext/t1/part", 'inside a table bob may SELECT');
is_error(path_creds("$d/ext/t1/part", 'PATH_READ_WRITE', user => 'bob'),
         403, 'PERMISSION_DENIED', 'but not write in it',
         message => qr/MODIFY/);
is_error(path_creds("$d/ext", 'PATH_READ', user => 'bob'), 403,
         'PERMISSION_DENIED', 'a path above a table',
         message => qr/overlaps with other entities/);
# A path in a table bob may not know of answers as if the table were not
# there, except that it is never vended: where the location would let him,
# it is refused as a path above data is.
is_as_missing(path_creds("$d/hid/secret/a", 'PATH_READ', user => 'bob'),
              path_creds("$d/files/a", 'PATH_READ', user => 'bob'),
              ["$d/hid/secret/a", "$d/files/a"],
              'a location bob holds nothing on covers nothing for him');
is_as_missing(path_creds("$d/hid/secret/a", 'PATH_READ', user => 'bob'),
              path_creds("/srv/elsewhere-$$/a", 'PATH_READ', user => 'bob'),
              ["$d/hid/secret/a", "/srv/elsewhere-$$/a"],
              '... as where no location covers a path');
grant('external_location', "files_$p", 'bob', 'BROWSE');
is_error(path_creds("$d/files/a", 'PATH_READ', user => 'bob'), 403,
         'PERMISSION_DENIED', 'in a location he knows of, without READ FILES',
         message => qr/READ FILES needed on external_location 'files_$p'/);
is_as_missing(path_creds("$d/hid/secret/a", 'PATH_READ', user => 'bob'),
              path_creds("$d/files/a", 'PATH_READ', user => 'bob'),
              ["$d/hid/secret/a", "$d/files/a"],
              'in a hidden table: the same refusal');
grant('external_location', "files_$p", 'bob', 'READ FILES');
is_local(path_creds("$d/files/a", 'PATH_READ', user => 'bob'),
         "file://$d/files/a", 'READ FILES reads');
is_as_missing(path_creds("$d/hid/secret/a", 'PATH_READ', user => 'bob'),
              path_creds("$d/hid", 'PATH_READ', user => 'bob'),
              ["$d/hid/secret/a", "$d/hid"],
              'in a hidden table: refused as a path above data, naming nothing');
is_error(path_creds("$d/files/a", 'PATH_READ_WRITE', user => 'bob'), 403,
         'PERMISSION_DENIED', 'writing needs WRITE FILES too',
         message => qr/WRITE FILES/);
is_error(path_creds("$d/files/a", 'PATH_CREATE_TABLE', user => 'bob'), 403,
         'PERMISSION_DENIED', 'a new table needs CREATE EXTERNAL TABLE',
         message => qr/CREATE EXTERNAL TABLE/);
grant('external_location', "files_$p", 'bob', 'WRITE FILES',
      'CREATE EXTERNAL TABLE');
is_local(path_creds("$d/files/a", 'PATH_READ_WRITE', user => 'bob'),
         "file://$d/files/a", 'with WRITE FILES');
is_ok_json(path_creds("$d/files/new", 'PATH_CREATE_TABLE', user => 'bob'),
           'with CREATE EXTERNAL TABLE');
my $dry = json_of(path_creds("$d/files/b", 'PATH_READ', user => 'bob',
                             dry_run => JSON::PP::true())) || {};
ok(exists $dry->{url} && !defined $dry->{aws_temp_credentials},
   'dry_run: checked, nothing vended') or diag explain $dry;
is_error(path_creds("/srv/elsewhere-$$/a", 'PATH_READ', user => 'bob'), 403,
         'PERMISSION_DENIED', 'no location covers the path',
         message => qr/No external location covers/);
is_error(path_creds("$d/managed/__unitystorage/x", 'PATH_READ'), 400,
         'INVALID_PARAMETER_VALUE', 'managed storage is not a path to ask for',
         message => qr/__unitystorage/);
