# SPDX-License-Identifier: Apache-2.0
# Credentials over HTTP: the five types, their checks, rename, update,
# delete with and without force, who may do what, and that no secret that
# was sent ever comes back: not in an answer, not in the error log, not in
# clear in the database.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Apache::TestUtil qw(t_cmp);
use Unicat::Test;

plan tests => 51;

my $p = "c58_$$";

# Secrets sent, each unmistakable in a log or a file.
my %secret = (
    aws_secret  => "aws-SECRET-$p/With+Chars=",
    aws_token   => "aws-TOKEN-$p-session",
    azure_cs    => "azure-CLIENT-SECRET-$p",
    azure_key   => 'QVpVUkUtS0VZLWM1OC1rZXktYnl0ZXMtZm9yLXRoZS10ZXN0cw==',
    gcp_key     => scalar `openssl genpkey -algorithm RSA \
                               -pkeyopt rsa_keygen_bits:2048 2>/dev/null`,
);
die "setup: openssl made no RSA key\n"
    unless $secret{gcp_key} =~ /BEGIN PRIVATE KEY/;
my $role = 'arn:aws:iam::123456789012:role/unicat-reader';
my @names;
END {
    api(DELETE => "/external-locations/${_}", query => { force => 'true' })
        for ("loc_$p");
    api(DELETE => "/credentials/$_", query => { force => 'true' }) for @names;
}
sub credential {
    my ($name, %body) = @_;
    push @names, $name;
    return call(POST => '/credentials', body => { name => $name, %body });
}

my @KEYS = qw(name full_name id purpose read_only used_for_managed_storage
    comment owner created_at created_by updated_at updated_by metastore_id
    browse_only);

# --- the five types ---------------------------------------------------------
my $res = credential("aws_$p", purpose => 'STORAGE', comment => 'reader',
                     aws_iam_role => {
                         role_arn => $role, region => 'eu-west-1',
                         access_key_id => 'AKIDC58',
                         secret_access_key => $secret{aws_secret},
                         session_token => $secret{aws_token} });
is_ok_json($res, 'POST /credentials aws_iam_role');
my $aws = json_of($res) || {};
has_keys($aws, [@KEYS, 'aws_iam_role'], 'credential: every field');
my $r = $aws->{aws_iam_role} || {};
ok($r->{role_arn} eq $role && is_uuid($r->{external_id})
   && $r->{unity_catalog_iam_arn} eq
      'arn:aws:iam::123456789012:role/unicat-server'
   && $r->{region} eq 'eu-west-1' && !exists $r->{secret_access_key}
   && !exists $r->{session_token} && !exists $r->{access_key_id},
   'aws_iam_role: role, generated external_id, server identity, no keys')
    or diag explain $r;
ok($aws->{purpose} eq 'STORAGE' && !$aws->{read_only}
   && !$aws->{used_for_managed_storage} && $aws->{full_name} eq "aws_$p"
   && is_uuid($aws->{id}) && $aws->{owner} eq 'admin'
   && is_json_int($aws->{created_at}), 'the common fields')
    or diag explain $aws;
is_deeply(json_of(call(GET => "/credentials/aws_$p")), $aws,
          'GET /credentials/{name} returns what create returned');

is_ok_json(credential("sp_$p", azure_service_principal => {
    directory_id => '72f988bf-86f1-41af-91ab-2d7cd011db47',
    application_id => '11111111-2222-3333-4444-555555555555',
    client_secret => $secret{azure_cs} }), 'azure_service_principal');
is_ok_json(credential("mi_$p", azure_managed_identity => {
    access_connector_id => '/subscriptions/x/resourceGroups/rg/providers/'
                         . 'Microsoft.Databricks/accessConnectors/c' }),
           'azure_managed_identity');
$res = credential("key_$p", read_only => JSON::PP::true(),
                  azure_storage_key => { account_name => 'devstoreaccount1',
                                         account_key => $secret{azure_key} });
is_ok_json($res, 'azure_storage_key');
my $key = json_of($res) || {};
ok($key->{read_only} && $key->{azure_storage_key}{account_name} eq
   'devstoreaccount1' && !exists $key->{azure_storage_key}{account_key},
   'read_only kept; the account key is not answered') or diag explain $key;
$res = credential("gcp_$p", purpose => 'SERVICE',
                  databricks_gcp_service_account => {
                      email => 'sa@project.iam.gserviceaccount.com',
                      private_key_id => 'kid1',
                      private_key => $secret{gcp_key} });
is_ok_json($res, 'databricks_gcp_service_account with a private key');
is_error(call(POST => '/credentials', body => {
    name => "badkey_$p", databricks_gcp_service_account => {
        email => 'sa@p.iam.gserviceaccount.com',
        private_key => "-----BEGIN PRIVATE KEY-----\nnot a key\n"
                     . "-----END PRIVATE KEY-----\n" } }),
         400, 'INVALID_PARAMETER_VALUE', 'a private key that does not sign',
         message => qr/not an RSA private key/);
my $gcp = (json_of($res) || {})->{databricks_gcp_service_account} || {};
ok($gcp->{email} && is_uuid($gcp->{credential_id})
   && !exists $gcp->{private_key}, 'GCP: email, credential_id, no key')
    or diag explain $gcp;

# --- what is refused ---------------------------------------------------------
is_error(credential("dup_$p"), 400, 'INVALID_PARAMETER_VALUE',
         'no type', message => qr/No credentials provided/);
is_error(call(POST => '/credentials', body => {
    name => "two_$p", aws_iam_role => { role_arn => $role },
    azure_managed_identity => { access_connector_id => 'x' } }),
         400, 'INVALID_PARAMETER_VALUE', 'two types',
         message => qr/one type/);
for my $arn ('arn:aws:iam::12345:role/x', 'arn:aws:iam::123456789012:user/x',
             'arn:aws:s3:::bucket', 'role') {
    is_error(call(POST => '/credentials', body => {
        name => "bad_$p", aws_iam_role => { role_arn => $arn } }),
             400, 'INVALID_PARAMETER_VALUE', "bad ARN $arn",
             message => qr/role_arn/);
}
is_error(call(POST => '/credentials', body => {
    name => "bad_$p", aws_iam_role => { role_arn => $role,
                                        secret_key => 'x' } }),
         400, 'INVALID_PARAMETER_VALUE', 'unknown member of a type',
         message => qr/Unknown field 'aws_iam_role.secret_key'/);
is_error(call(POST => '/credentials', body => {
    name => "bad_$p", aws_iam_role => { role_arn => $role,
                                        access_key_id => 'AKID' } }),
         400, 'INVALID_PARAMETER_VALUE', 'an access key without its secret',
         message => qr/go together/);
is_error(call(POST => '/credentials', body => {
    name => "bad_$p", azure_storage_key => { account_name => 'acc',
                                             account_key => 'not base64!' } }),
         400, 'INVALID_PARAMETER_VALUE', 'an account key that is not base64',
         message => qr/base64/);
is_error(call(POST => '/credentials', body => {
    name => "bad_$p", azure_service_principal => {
        directory_id => 'd', application_id => 'a' } }),
         400, 'INVALID_PARAMETER_VALUE', 'a service principal without secret',
         message => qr/client_secret is required/);
is_error(call(POST => '/credentials', body => {
    name => "bad_$p", purpose => 'SERVICE', read_only => JSON::PP::true(),
    azure_managed_identity => { access_connector_id => 'x' } }),
         400, 'INVALID_PARAMETER_VALUE', 'read_only on a SERVICE credential',
         message => qr/STORAGE/);
is_error(call(POST => '/credentials', body => {
    name => "bad_$p", purpose => 'OTHER',
    azure_managed_identity => { access_connector_id => 'x' } }),
         400, 'INVALID_PARAMETER_VALUE', 'unknown purpose',
         message => qr/purpose/);
is_error(call(POST => '/credentials', body => {
    name => "aws_$p", aws_iam_role => { role_arn => $role } }),
         400, 'STORAGE_CREDENTIAL_ALREADY_EXISTS', 'a taken name');
# A body that is not JSON, broken right after a secret: the error tells
# where, and quotes nothing of it (the secret scan below covers it).
is_error(call(POST => '/credentials', content_type => 'application/json',
              raw => qq({"name":"raw_$p","aws_iam_role":{"role_arn":"$role",)
                   . qq("secret_access_key":"$secret{aws_secret}" "x"}})),
         400, 'INVALID_PARAMETER_VALUE', 'malformed JSON after a secret',
         message => qr/line 1, column \d+/);
is_error(call(GET => "/credentials/none_$p"), 404, 'NOT_FOUND',
         'GET of a missing credential', message => qr/Credential not found/);

# --- list, purpose filter -----------------------------------------------------
my $list = json_of(call(GET => '/credentials',
                        query => { max_results => 1000 })) || {};
my %listed = map { $_->{name} => 1 } @{ $list->{credentials} || [] };
ok((5 == grep { $listed{$_} } "aws_$p", "sp_$p", "mi_$p", "key_$p", "gcp_$p"),
   'GET /credentials lists them all') or diag explain $list;
$list = json_of(call(GET => '/credentials',
                     query => { purpose => 'SERVICE', max_results => 1000 }))
      || {};
%listed = map { $_->{name} => 1 } @{ $list->{credentials} || [] };
ok($listed{"gcp_$p"} && !$listed{"aws_$p"}, 'purpose=SERVICE filters')
    or diag explain $list;

# --- update ------------------------------------------------------------------
$res = call(PATCH => "/credentials/aws_$p",
            body => { new_name => "aws2_$p", comment => 'renamed',
                      aws_iam_role => { role_arn => "${role}2" } });
is_ok_json($res, 'PATCH: rename, comment and a new role');
push @names, "aws2_$p";
my $upd = json_of($res) || {};
ok($upd->{name} eq "aws2_$p" && $upd->{comment} eq 'renamed'
   && $upd->{aws_iam_role}{role_arn} eq "${role}2"
   && $upd->{aws_iam_role}{external_id} eq $r->{external_id}
   && $upd->{id} eq $aws->{id}, 'renamed; the external_id stays')
    or diag explain $upd;
is_error(call(GET => "/credentials/aws_$p"), 404, 'NOT_FOUND',
         'the old name is gone');
is_error(call(PATCH => "/credentials/aws2_$p",
              body => { new_name => "sp_$p" }),
         400, 'STORAGE_CREDENTIAL_ALREADY_EXISTS', 'rename onto a taken name');

# --- in use by an external location -------------------------------------------
is_ok_json(call(POST => '/external-locations', body => {
    name => "loc_$p", url => "s3://bucket-$p/data",
    credential_name => "aws2_$p" }), 'a location uses the credential');
is_error(call(DELETE => "/credentials/aws2_$p"), 400,
         'INVALID_PARAMETER_VALUE', 'delete of a credential in use',
         message => qr/used by external location 'loc_$p'/);
is_error(call(PATCH => "/credentials/aws2_$p",
              body => { aws_iam_role => { role_arn => $role } }),
         400, 'INVALID_PARAMETER_VALUE', 'a new identity for one in use',
         message => qr/force/);
is_ok_json(call(PATCH => "/credentials/aws2_$p",
                body => { comment => 'only the comment' }),
           'a comment may change while in use');
is(call(DELETE => "/credentials/aws2_$p", query => { force => 'true' })->code,
   200, 'DELETE with force');
my $loc = json_of(call(GET => "/external-locations/loc_$p")) || {};
ok(!defined $loc->{credential_name} && !defined $loc->{credential_id},
   'the location has lost its credential') or diag explain $loc;

# --- who may do what --------------------------------------------------------
is_error(call(POST => '/credentials', user => 'bob', body => {
    name => "bob_$p", azure_managed_identity => { access_connector_id => 'x' } }),
         403, 'PERMISSION_DENIED', 'creating needs CREATE STORAGE CREDENTIAL');
grant('metastore', 'metastore', 'bob', 'CREATE STORAGE CREDENTIAL');
grant('metastore', 'metastore', 'alice', 'CREATE EXTERNAL LOCATION');
push @names, "bob_$p";
$res = call(POST => '/credentials', user => 'bob', body => {
    name => "bob_$p", azure_managed_identity => { access_connector_id => 'x' } });
is_ok_json($res, 'with it bob creates one');
is((json_of($res) || {})->{owner}, 'bob', 'and owns it');
is_error(call(GET => "/credentials/bob_$p", user => 'alice'), 404,
         'NOT_FOUND', 'a metastore privilege does not show credentials');
grant('storage_credential', "bob_$p", 'alice', 'CREATE EXTERNAL LOCATION');
is_ok_json(call(GET => "/credentials/bob_$p", user => 'alice'),
           'CREATE EXTERNAL LOCATION on it shows it');
is_error(call(PATCH => "/credentials/bob_$p", user => 'alice',
              body => { comment => 'x' }),
         403, 'PERMISSION_DENIED', 'changing needs MANAGE or ownership');
grant('credential', "bob_$p", 'alice', 'MANAGE');
is_ok_json(call(PATCH => "/credentials/bob_$p", user => 'alice',
                body => { comment => 'managed' }), 'MANAGE lets alice');
my $perms = json_of(call(GET => "/permissions/credential/bob_$p")) || {};
my %of = map { $_->{principal} => join(',', sort @{ $_->{privileges} }) }
         @{ $perms->{privilege_assignments} || [] };
is($of{alice}, 'CREATE EXTERNAL LOCATION,MANAGE',
   'GET /permissions/credential/{name}') or diag explain $perms;
is_error(call(PATCH => "/permissions/credential/bob_$p", body => {
    changes => [ { principal => 'carol', add => ['SELECT'] } ] }),
         400, undef, 'a privilege credentials do not take');
revoke('metastore', 'metastore', 'bob', 'CREATE STORAGE CREDENTIAL');
revoke('metastore', 'metastore', 'alice', 'CREATE EXTERNAL LOCATION');

# --- no secret anywhere -------------------------------------------------------
secrets_kept(answers_kept(), [values %secret]);
