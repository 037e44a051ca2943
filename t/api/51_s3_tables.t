# SPDX-License-Identifier: Apache-2.0
# The server reads Delta tables on S3 itself, with read-only credentials
# vended for them through the external location covering them: a share's
# table options are checked against S3 logs (change data feed, versions,
# partition columns) as against local ones, the reads go to the store of
# UnicatS3Endpoint (s3rver behind the SigV4-checking proxy of
# t/s3/with-s3.sh) signed with vended session keys, and a log that cannot
# be read says why with the right status. Skipped without the harness. No
# secret that was sent shows in an answer or in the error log.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 15;

my $p = "s55_$$";
my ($cat, $share) = ("cat_$p", "shr_$p");
my @sent;
END {
    api(DELETE => "/shares/$share");
    drop_catalog($cat);
}
sub table_at { external_table($cat, 'sch', @_) }
sub update {
    my ($action, $name, %fields) = @_;
    return call(PATCH => "/shares/$share", body => { updates => [ {
        action => $action, data_object => {
            name => "$cat.sch.$name", data_object_type => 'TABLE',
            %fields } } ] });
}
sub lines_of {
    my ($path) = @_;
    open my $fh, '<', $path or die "cannot read $path: $!";
    return <$fh>;
}

SKIP: {
    skip 'no S3 store nor STS stand-in (t/s3/with-s3.sh)', 15
        unless $ENV{UNICAT_S3_ENDPOINT} && $ENV{UNICAT_STS_ENDPOINT};
    my $bucket = $ENV{UNICAT_S3_BUCKET};
    my $fx = "s3://$bucket/fixtures";
    create_catalog($cat);
    create_schema($cat, 'sch');
    create_object('/shares', { name => $share });
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
    made_location("s3_$p", $fx, "aws_$p");
    table_at('cdf', "$fx/cdf-table");
    table_at('simple', "$fx/simple_table");
    table_at('part', "$fx/delta-0.8.0-partitioned");
    table_at('nolog', "$fx/no-such-table-$p");
    table_at('outside', "s3://$bucket/outside-$p/t");

    # --- options against the log on S3 ---------------------------------------
    my $proxy_before = () = lines_of($ENV{UNICAT_S3_PROXY_LOG});
    is_ok_json(update(ADD => 'cdf', enable_cdf => \1, start_version => 3),
               'ADD a CDF table on S3 with enable_cdf at its latest version');
    my @proxy = lines_of($ENV{UNICAT_S3_PROXY_LOG});
    my @reads = grep { m{^verified GET path \S+ /\Q$bucket\E[/?]\S*cdf-table}
                       && / token:signed$/ } @proxy[$proxy_before .. $#proxy];
    ok(@reads, "the server read its log from UnicatS3Endpoint, path-style, "
       . 'with vended session keys') or diag "no such line";
    my $sts_before = () = lines_of($ENV{UNICAT_STS_LOG});
    is_error(update(UPDATE => 'cdf', start_version => 4), 400,
             'INVALID_PARAMETER_VALUE', 'start_version past the latest',
             message => qr/Version 4 of table '\Q$cat\E\.sch\.cdf' does not exist: its latest is 3/);
    is(scalar(() = lines_of($ENV{UNICAT_STS_LOG})), $sts_before,
       'the credentials of the first read were kept: STS was not called');
    is_error(update(ADD => 'simple', enable_cdf => \1), 400,
             'INVALID_PARAMETER_VALUE', 'enable_cdf on a table without CDF',
             message => qr/has no change data feed/);
    my $year = [ { values => [ { name => 'year', op => 'EQUAL',
                                 value => '2020' } ] } ];
    is_ok_json(update(ADD => 'part', partitions => $year),
               'ADD with a partition on a partition column');
    is_error(update(UPDATE => 'part', partitions => [ { values => [
                 { name => 'nope', op => 'EQUAL', value => '1' } ] } ]),
             400, 'INVALID_PARAMETER_VALUE',
             'a partition on a column that does not partition',
             message => qr/'nope' is not a partition column/);

    # --- logs that cannot be read --------------------------------------------
    is_error(update(ADD => 'outside', enable_cdf => \1), 400,
             'FAILED_PRECONDITION', 'a table no external location covers',
             message => qr/No external location covers/);
    is_error(update(ADD => 'nolog', start_version => 0), 400,
             'INVALID_PARAMETER_VALUE', 'a location without _delta_log',
             message => qr/Delta log of table '\Q$cat\E\.sch\.nolog' cannot be read/);
    # A credential whose base secret is wrong: STS refuses, the status
    # stays the cloud's and nothing secret is quoted.
    my $bad = "wrong-$p-secret";
    push @sent, $bad;
    made_credential("awsbad_$p", aws_iam_role => {
        role_arn => $ENV{UNICAT_STS_ROLE_ARN},
        access_key_id => $ENV{UNICAT_S3_KEY}, secret_access_key => $bad });
    made_location("s3bad_$p", "s3://$bucket/bad-$p", "awsbad_$p");
    table_at('bad', "s3://$bucket/bad-$p/t");
    is_error(update(ADD => 'bad', enable_cdf => \1), 502, 'STORAGE_ERROR',
             'STS refusing is a 502', message => qr/AWS STS refused/);
    my %objects = map { $_->{name} => 1 } @{ (json_of(call(GET =>
        "/shares/$share", query => { include_shared_data => 'true' })) || {})
        ->{objects} || [] };
    is_deeply(\%objects, { "$cat.sch.cdf" => 1, "$cat.sch.part" => 1 },
              'only the tables whose options held are shared');

    secrets_kept(answers_kept(), [grep { defined && length > 8 } @sent]);
}
