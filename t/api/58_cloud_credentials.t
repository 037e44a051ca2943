# SPDX-License-Identifier: Apache-2.0
# Temporary credentials vended by real peers, and used on them: S3 keys
# from the STS stand-in, read from s3rver through the SigV4-checking proxy
# (inside the prefix only, writes only when asked for); Azure SAS tokens
# signed with an account key and with a service principal's user
# delegation key, used on azurite; a downscoped Google token the token
# stand-in judges. The harnesses (t/s3/with-s3.sh, t/azure/with-azurite.sh,
# t/gcp/with-gcp.sh) start the peers; without them the parts are skipped.
# No secret that was sent shows in an answer or in the error log.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 45;

my $p = "c62_$$";
my $cat = "cat_$p";
my (@sent, @vended);
END {
    drop_catalog($cat);
}
sub table_at { external_table($cat, 'sch', @_) }
sub vend {
    my ($table, $op, %opt) = @_;
    my $res = call(POST => '/temporary-table-credentials', %opt,
                   body => { table_id => $table->{table_id},
                             operation => $op });
    return ($res, json_of($res) || {});
}
create_catalog($cat);
create_schema($cat, 'sch');

# --- S3 through STS ----------------------------------------------------------
SKIP: {
    skip 'no STS stand-in (t/s3/with-s3.sh)', 21
        unless $ENV{UNICAT_STS_ENDPOINT};
    my ($bucket, $s3) = @ENV{qw(UNICAT_S3_BUCKET UNICAT_S3_ENDPOINT)};
    push @sent, $ENV{UNICAT_S3_SECRET};
    my $c = made_credential("aws_$p", aws_iam_role => {
        role_arn => $ENV{UNICAT_STS_ROLE_ARN},
        region => $ENV{UNICAT_S3_REGION},
        access_key_id => $ENV{UNICAT_S3_KEY},
        secret_access_key => $ENV{UNICAT_S3_SECRET} });
    # The role's administrator trusts the credential's external id.
    is(curl_status('--aws-sigv4', "aws:amz:$ENV{UNICAT_S3_REGION}:sts",
                   '--user', "$ENV{UNICAT_S3_KEY}:$ENV{UNICAT_S3_SECRET}",
                   '--data', "Action=TrustExternalId&RoleArn="
                   . "$ENV{UNICAT_STS_ROLE_ARN}&ExternalId="
                   . $c->{aws_iam_role}{external_id},
                   "$ENV{UNICAT_STS_ENDPOINT}/"), '200',
       "the role trusts the credential's external_id");
    made_location("s3_$p", "s3://$bucket/fixtures", "aws_$p");
    my $t = table_at('simple', "s3://$bucket/fixtures/simple_table");
    my ($res, $j) = vend($t, 'READ');
    is_ok_json($res, 'READ of an s3 table');
    my $k = $j->{aws_temp_credentials} || {};
    ok($k->{access_key_id} && $k->{secret_access_key} && $k->{session_token}
       && !defined $j->{azure_user_delegation_sas}
       && !defined $j->{gcp_oauth_token}
       && $j->{url} eq "s3://$bucket/fixtures/simple_table"
       && $j->{expiration_time} > time * 1000 + 3000_000,
       'aws_temp_credentials, the url, an hour') or diag explain $j;
    push @vended, $k->{secret_access_key}, $k->{session_token};
    my @as = ('--aws-sigv4', "aws:amz:$ENV{UNICAT_S3_REGION}:s3",
              '--user', "$k->{access_key_id}:$k->{secret_access_key}",
              '-H', "x-amz-security-token: $k->{session_token}",
              '-H', 'x-amz-content-sha256: UNSIGNED-PAYLOAD');
    my $log = "fixtures/simple_table/_delta_log/00000000000000000000.json";
    is(curl_status(@as, "$s3/$bucket/$log"), '200',
       'the keys read the table on S3');
    is(curl_status(@as, "$s3/$bucket/fixtures/simple_table_with_checkpoint/"
                        . "_delta_log/00000000000000000000.json"), '403',
       'and nothing of the sibling prefix');
    is(curl_status(@as, '-X', 'PUT', '--data-binary', 'x',
                   "$s3/$bucket/fixtures/simple_table/new.txt"), '403',
       'nor write with READ');
    my ($res2, $j2) = vend($t, 'READ');
    is(($j2->{aws_temp_credentials} || {})->{access_key_id},
       $k->{access_key_id}, 'a second request is served from the cache');
    # A credential updated is another identity: nothing kept for the one
    # before is answered for it. A wrong secret makes STS refuse the next
    # READ, the right one again makes new keys.
    my $changed = "changed-$p-secret";
    push @sent, $changed;
    my $update = sub {
        return call(PATCH => "/credentials/aws_$p", body => {
            force => JSON::PP::true(),
            aws_iam_role => { secret_access_key => $_[0] } });
    };
    is_ok_json($update->($changed), 'the credential takes another secret');
    ($res2) = vend($t, 'READ');
    is_error($res2, 502, 'STORAGE_ERROR',
             'the next READ is vended with it, not taken from the cache');
    is_ok_json($update->($ENV{UNICAT_S3_SECRET}), 'and the right one again');
    ($res2, $j2) = vend($t, 'READ');
    my $again = $j2->{aws_temp_credentials} || {};
    push @vended, $again->{secret_access_key} // '',
         $again->{session_token} // '';
    ok($res2->code == 200 && $again->{access_key_id} &&
       $again->{access_key_id} ne $k->{access_key_id},
       'which vends new keys') or diag explain $j2;
    ($res, $j) = vend($t, 'READ_WRITE');
    my $w = $j->{aws_temp_credentials} || {};
    push @vended, $w->{secret_access_key} // '', $w->{session_token} // '';
    ok($w->{access_key_id} && $w->{access_key_id} ne $k->{access_key_id},
       'READ_WRITE vends other keys') or diag explain $j;
    is(curl_status('--aws-sigv4', "aws:amz:$ENV{UNICAT_S3_REGION}:s3",
                   '--user', "$w->{access_key_id}:$w->{secret_access_key}",
                   '-H', "x-amz-security-token: $w->{session_token}",
                   '-H', 'x-amz-content-sha256: UNSIGNED-PAYLOAD',
                   '-X', 'PUT', '--data-binary', 'x',
                   "$s3/$bucket/fixtures/simple_table/vended-$$.txt"), '200',
       'which write in the prefix');
    # A credential whose base secret is wrong: STS refuses, the answer
    # says so and quotes nothing secret.
    my $bad = "wrong-$p-secret";
    push @sent, $bad;
    made_credential("awsbad_$p", aws_iam_role => {
        role_arn => $ENV{UNICAT_STS_ROLE_ARN},
        access_key_id => $ENV{UNICAT_S3_KEY}, secret_access_key => $bad });
    made_location("s3bad_$p", "s3://$bucket/other", "awsbad_$p");
    ($res) = vend(table_at('bad', "s3://$bucket/other/t"), 'READ');
    is_error($res, 502, 'STORAGE_ERROR', 'STS refuses a wrong secret',
             message => qr/AWS STS refused the request.*SignatureDoesNotMatch/);
    # The location of a table whose keys are kept takes that credential:
    # the next READ is vended with it, not answered with what was kept for
    # the location as it was; with its own again, the kept keys come back.
    my $use = sub {
        return call(PATCH => "/external-locations/s3_$p",
                    body => { credential_name => $_[0] });
    };
    is_ok_json($use->("awsbad_$p"), 'the location takes the wrong one');
    ($res) = vend($t, 'READ');
    is_error($res, 502, 'STORAGE_ERROR', 'the next READ is vended with it');
    is_ok_json($use->("aws_$p"), 'and its own again');
    ($res, $j) = vend($t, 'READ');
    is(($j->{aws_temp_credentials} || {})->{access_key_id},
       $again->{access_key_id}, 'whose keys were kept');
    # Without base keys there is nothing to call STS with.
    made_credential("awsnokey_$p", aws_iam_role => {
        role_arn => $ENV{UNICAT_STS_ROLE_ARN} });
    made_location("s3nokey_$p", "s3://$bucket/nokey", "awsnokey_$p");
    ($res) = vend(table_at('nokey', "s3://$bucket/nokey/t"), 'READ');
    is_error($res, 400, 'FAILED_PRECONDITION', 'a role without base keys',
             message => qr/no access key/);
    ($res) = call(POST => '/temporary-path-credentials', body => {
        url => "s3://$bucket/fixtures/simple_table/_delta_log",
        operation => 'PATH_READ' });
    is_ok_json($res, 'path credentials inside the table');
    ($res) = call(POST => '/temporary-path-credentials', body => {
        url => "s3://$bucket", operation => 'PATH_READ' });
    is_error($res, 400, 'INVALID_PARAMETER_VALUE', 'not for a bucket root');
}

# --- R2 through Cloudflare's API ------------------------------------------------
SKIP: {
    skip "no Cloudflare stand-in (t/s3/with-s3.sh)", 6
        unless $ENV{UNICAT_R2_API_BASE};
    my ($bucket, $s3, $acct) =
        @ENV{qw(UNICAT_S3_BUCKET UNICAT_S3_ENDPOINT UNICAT_R2_ACCOUNT_ID)};
    push @sent, $ENV{UNICAT_R2_API_TOKEN}, $ENV{UNICAT_S3_SECRET};
    made_credential("r2_$p", cloudflare_api_token => {
        account_id => $acct, access_key_id => $ENV{UNICAT_R2_PARENT_KEY},
        secret_access_key => $ENV{UNICAT_S3_SECRET},
        api_token => $ENV{UNICAT_R2_API_TOKEN} });
    my $base = "r2://$bucket\@$acct.r2.cloudflarestorage.com";
    made_location("r2loc_$p", "$base/fixtures/simple_table_with_checkpoint",
             "r2_$p");
    my $t = table_at('r2table', "$base/fixtures/simple_table_with_checkpoint");
    my ($res, $j) = vend($t, 'READ');
    is_ok_json($res, 'READ of an R2 table');
    my $k = $j->{r2_temp_credentials} || {};
    push @vended, $k->{secret_access_key} // '', $k->{session_token} // '';
    ok($k->{access_key_id} && $k->{session_token}
       && exists $j->{aws_temp_credentials}
       && !defined $j->{aws_temp_credentials}, 'r2_temp_credentials')
        or diag explain $j;
    # The proxy stands for R2 in the harness's region.
    my @as = ('--aws-sigv4', "aws:amz:$ENV{UNICAT_S3_REGION}:s3", '--user',
              "$k->{access_key_id}:" . ($k->{secret_access_key} // ''),
              '-H', "x-amz-security-token: " . ($k->{session_token} // ''),
              '-H', 'x-amz-content-sha256: UNSIGNED-PAYLOAD');
    my $log = '_delta_log/00000000000000000000.json';
    is(curl_status(@as, "$s3/$bucket/fixtures/simple_table_with_checkpoint/"
                        . $log), '200', 'the keys read the table');
    is(curl_status(@as, "$s3/$bucket/fixtures/simple_table/$log"), '403',
       'and nothing outside its prefix');
    made_credential("r2bad_$p", cloudflare_api_token => {
        account_id => $acct, access_key_id => $ENV{UNICAT_R2_PARENT_KEY},
        api_token => "wrong-$p-token" });
    push @sent, "wrong-$p-token";
    made_location("r2badloc_$p", "$base/other", "r2bad_$p");
    ($res) = vend(table_at('r2bad', "$base/other/t"), 'READ');
    is_error($res, 502, 'STORAGE_ERROR', 'Cloudflare refuses a wrong token',
             message => qr/Cloudflare.*10000/);
    ($res) = call(POST => '/external-locations', body => {
        name => "r2x_$p", url => "$base/x", credential_name => "aws_$p" });
    is_error($res, 400, 'INVALID_PARAMETER_VALUE',
             'an AWS credential does not read r2://',
             message => qr/cannot read/);
}

# --- Azure -----------------------------------------------------------------
SKIP: {
    skip 'no azurite (t/azure/with-azurite.sh)', 10
        unless $ENV{UNICAT_AZURE_OAUTH_ENDPOINT};
    my ($acct, $ctr, $blob) =
        @ENV{qw(UNICAT_AZURE_ACCOUNT UNICAT_AZURE_CONTAINER UNICAT_AZURE_BLOB)};
    (my $blob_path = $blob) =~ s/ /%20/g;
    push @sent, $ENV{UNICAT_AZURE_KEY}, $ENV{UNICAT_AZURE_CLIENT_SECRET};
    made_credential("azkey_$p", azure_storage_key => {
        account_name => $acct, account_key => $ENV{UNICAT_AZURE_KEY} });
    made_location("az_$p", "abfss://$ctr\@$acct.dfs.core.windows.net/tables",
             "azkey_$p");
    my $t = table_at('aztable',
                     "abfss://$ctr\@$acct.dfs.core.windows.net/tables/t1");
    my ($res, $j) = vend($t, 'READ');
    is_ok_json($res, 'READ of an Azure table');
    my $sas = ($j->{azure_user_delegation_sas} || {})->{sas_token} // '';
    push @vended, $sas;
    ok($sas =~ /(?:^|&)sig=/ && $sas =~ /(?:^|&)sp=rl(?:&|$)/
       && !defined $j->{aws_temp_credentials}, 'a read SAS')
        or diag explain $j;
    # The SAS holds for HTTPS only: azurite's HTTPS instance, with the
    # harness's CA.
    my $url = "$ENV{UNICAT_AZURE_OAUTH_ENDPOINT}/$ctr/$blob_path";
    my @ca = ('--cacert', $ENV{UNICAT_AZURE_CA_FILE});
    is(curl_status(@ca, "$url?$sas"), '200', 'azurite serves the blob with it');
    (my $tampered = $sas) =~ s/sig=([^&])/'sig=' . ($1 eq 'A' ? 'B' : 'A')/e;
    is(curl_status(@ca, "$url?$tampered"), '403', 'and refuses it changed');
    is(curl_status(@ca, '-X', 'PUT', '-H', 'x-ms-blob-type: BlockBlob',
                   '--data-binary', 'x', "$url-new?$sas"), '403',
       'a read SAS does not write');
    is(curl_status("$ENV{UNICAT_AZURE_ENDPOINT}/$ctr/$blob_path?$sas"), '403',
       'nor does it hold over plain HTTP');

    made_credential("azsp_$p", azure_service_principal => {
        directory_id => $ENV{UNICAT_AZURE_TENANT_ID},
        application_id => $ENV{UNICAT_AZURE_CLIENT_ID},
        client_secret => $ENV{UNICAT_AZURE_CLIENT_SECRET} });
    is_ok_json(call(PATCH => "/external-locations/az_$p", body => {
        credential_name => "azsp_$p" }), 'the location now uses a principal');
    ($res, $j) = vend($t, 'READ');
    $sas = ($j->{azure_user_delegation_sas} || {})->{sas_token} // '';
    push @vended, $sas;
    ok($sas =~ /(?:^|&)skoid=/ && $sas =~ /(?:^|&)sig=/,
       'a user delegation SAS') or diag explain $j;
    is(curl_status(@ca, "$url?$sas"), '200', 'azurite serves the blob with it');
    ($res, $j) = vend($t, 'READ_WRITE');
    $sas = ($j->{azure_user_delegation_sas} || {})->{sas_token} // '';
    push @vended, $sas;
    is(curl_status(@ca, '-X', 'PUT', '-H', 'x-ms-blob-type: BlockBlob',
                   '--data-binary', 'x', "$url-$$?$sas"), '201',
       'READ_WRITE writes');
}

# --- GCS ------------------------------------------------------------------
SKIP: {
    skip 'no Google token stand-in (t/gcp/with-gcp.sh)', 5
        unless $ENV{UNICAT_GCP_TOKEN_URI};
    my $key = do { local (@ARGV, $/) = ($ENV{UNICAT_GCP_PRIVATE_KEY_FILE}); <> };
    push @sent, $key;
    made_credential("gcp_$p", databricks_gcp_service_account => {
        email => $ENV{UNICAT_GCP_CLIENT_EMAIL},
        private_key_id => $ENV{UNICAT_GCP_PRIVATE_KEY_ID},
        private_key => $key });
    made_location("gs_$p", "gs://bucket-$$/data", "gcp_$p");
    my $t = table_at('gstable', "gs://bucket-$$/data/t1");
    my ($res, $j) = vend($t, 'READ');
    is_ok_json($res, 'READ of a GCS table');
    my $token = ($j->{gcp_oauth_token} || {})->{oauth_token} // '';
    push @vended, $token;
    my $check = sub {
        my ($name, $action) = @_;
        return curl_status("$ENV{UNICAT_GCP_CHECK_URI}?token=$token"
                           . "&bucket=bucket-$$&name=$name&action=$action");
    };
    is($check->('data/t1/part-0.parquet', 'read'), '200',
       'the token reads the table');
    is($check->('data/t10/x', 'read'), '403', 'not a sibling prefix');
    is($check->('data/t1/part-0.parquet', 'write'), '403', 'nor writes');
    ($res, $j) = vend($t, 'READ_WRITE');
    my $rw = ($j->{gcp_oauth_token} || {})->{oauth_token} // '';
    push @vended, $rw;
    is(curl_status("$ENV{UNICAT_GCP_CHECK_URI}?token=$rw&bucket=bucket-$$"
                   . "&name=data/t1/new&action=write"), '200',
       'READ_WRITE writes');
}

# --- nothing secret anywhere ---------------------------------------------------
secrets_kept(answers_kept(), [grep { defined && length > 8 } @sent],
             [grep { defined && length > 8 } @vended]);
