# SPDX-License-Identifier: Apache-2.0
# The Delta Sharing server over tables on S3: the server reads their logs
# with read-only credentials vended for the external location covering
# them, and hands recipients SigV4 pre-signed URLs of UnicatS3Endpoint
# (path style), which the SigV4-checking proxy of t/s3/with-s3.sh in
# front of s3rver accepts: the bytes are the fixture's, ranges are 206,
# a tampered URL is refused, the URLs expire when the answer says. A
# table no location covers is refused without telling the recipient the
# provider's set-up. Skipped without the harness. No secret that was sent
# shows in an answer.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use JSON::PP ();
use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 20;

my $p = "s68_$$";
my ($cat, $share, $recipient) = ("cat_$p", "shr_$p", "rcp_$p");
my $fixtures = "$FindBin::Bin/../delta/fixtures";
my (@answers, @sent, $cred, $loc);
END {
    api(DELETE => "/shares/$share");
    api(DELETE => "/recipients/$recipient");
    drop_catalog($cat);
    api(DELETE => "/external-locations/$loc", query => { force => 'true' })
        if $loc;
    api(DELETE => "/credentials/$cred", query => { force => 'true' })
        if $cred;
}

sub curl {     # status and body of a GET of `url`
    my ($url, @args) = @_;
    open my $fh, '-|', 'curl', '-s', '--max-time', '10', '-w',
        '\n%{http_code}', @args, $url or die "cannot run curl: $!";
    local $/;
    my $out = <$fh> // '';
    close $fh;
    my ($body, $code) = $out =~ /\A(.*)\n(\d{3})\z/s;
    return ($code // '000', $body // '');
}
sub slurp {
    my ($path) = @_;
    open my $fh, '<:raw', $path or return undef;
    local $/;
    return <$fh>;
}
sub ds {
    my ($method, $path, %opt) = @_;
    my $tok = delete $opt{token};
    my @h = (Authorization => "Bearer $tok", @{ delete $opt{headers} || [] });
    my $r = api($method, $path, base => '/delta-sharing', user => undef,
                headers => \@h, %opt);
    push @answers, $r->content;
    return $r;
}
sub lines {     # the answer's lines, decoded; [] when one is no JSON
    my ($r) = @_;
    return eval { [ map { JSON::PP::decode_json($_) } split /\n/, $r->content ] }
        || [];
}

SKIP: {
    skip 'no S3 store nor STS stand-in (t/s3/with-s3.sh)', 20
        unless $ENV{UNICAT_S3_ENDPOINT} && $ENV{UNICAT_STS_ENDPOINT};
    my $bucket = $ENV{UNICAT_S3_BUCKET};
    my $fx = "s3://$bucket/fixtures";
    push @sent, $ENV{UNICAT_S3_SECRET};
    create_catalog($cat);
    create_schema($cat, 'sch');
    $cred = "aws_$p";
    my $c = create_object('/credentials', { name => $cred, aws_iam_role => {
        role_arn => $ENV{UNICAT_STS_ROLE_ARN},
        region => $ENV{UNICAT_S3_REGION},
        access_key_id => $ENV{UNICAT_S3_KEY},
        secret_access_key => $ENV{UNICAT_S3_SECRET} } });
    my ($trust) = curl("$ENV{UNICAT_STS_ENDPOINT}/", '-o', '/dev/null',
        '--aws-sigv4', "aws:amz:$ENV{UNICAT_S3_REGION}:sts",
        '--user', "$ENV{UNICAT_S3_KEY}:$ENV{UNICAT_S3_SECRET}",
        '--data', "Action=TrustExternalId&RoleArn=$ENV{UNICAT_STS_ROLE_ARN}"
        . "&ExternalId=$c->{aws_iam_role}{external_id}");
    $loc = "s3_$p";
    create_object('/external-locations', { name => $loc, url => $fx,
                                           credential_name => $cred });
    my %ext = (catalog_name => $cat, schema_name => 'sch',
               table_type => 'EXTERNAL', data_source_format => 'DELTA',
               columns => []);
    create_object('/tables', { %ext, name => $_->[0],
                               storage_location => $_->[1] })
        for [simple => "$fx/simple_table"], [cdf => "$fx/cdf-table"],
            [outside => "s3://$bucket/outside-$p/t"];
    create_object('/shares', { name => $share });
    my $res = api(PATCH => "/shares/$share", body => { updates => [ map {
        { action => 'ADD', data_object => { name => "$cat.sch.$_->[0]",
                                            shared_as => "cloud.$_->[0]",
                                            @$_[1 .. $#$_] } } }
        [ 'simple' ],
        [ 'cdf', enable_cdf => \1, history_data_sharing_status => 'ENABLED' ],
    ] });
    is($res->code . $trust, '200200',
       'a provider shares two tables on S3, its role trusting the credential')
        or diag $res->content;
    # Not checked when added: nothing about the table needs its log.
    api(PATCH => "/shares/$share", body => { updates => [ { action => 'ADD',
        data_object => { name => "$cat.sch.outside",
                         shared_as => 'cloud.outside' } } ] });
    create_object('/recipients', { name => $recipient,
                                   authentication_type => 'TOKEN' });
    api(PATCH => "/shares/$share/permissions", body => { changes => [
        { principal => $recipient, add => ['SELECT'] } ] });
    my $token = token_of_recipient($recipient);
    push @sent, $token;
    my $T = "/shares/$share/schemas/cloud/tables";

    # --- a snapshot's files --------------------------------------------------
    $res = ds(HEAD => "$T/simple/version", token => $token);
    is($res->header('Delta-Table-Version'), '4',
       'the version of a table on S3, read with vended keys');
    my $before = time;
    $res = ds(POST => "$T/simple/query", token => $token, body => {});
    my $l = lines($res);
    my @files = map { $_->{file} } grep { $_->{file} } @$l;
    ok($res->code == 200 && $l->[0]{protocol} && $l->[1]{metaData}
       && @files, 'query: protocol, metaData and the files')
        or diag $res->code . ' ' . $res->content;
    my $endpoint = "$ENV{UNICAT_S3_ENDPOINT}/$bucket/fixtures/simple_table/";
    my @signed = grep { index($_->{url}, $endpoint) == 0
                        && $_->{url} =~ /[?&]X-Amz-Signature=[0-9a-f]{64}(&|$)/
                        && $_->{url} =~ /[?&]X-Amz-Security-Token=/ } @files;
    is(scalar @signed, scalar @files || -1, 'every URL is pre-signed, path style, '
       . 'on UnicatS3Endpoint, with the vended session token')
        or diag join "\n", map { $_->{url} } @files;
    my ($expires_in) = $files[0]{url} =~ /[?&]X-Amz-Expires=(\d+)/;
    my $expiry = $files[0]{expirationTimestamp} // 0;
    ok($expires_in && $expiry > ($before + 60) * 1000
       && $expiry <= (time + 3600 + 5) * 1000
       && abs($expiry / 1000 - (time + $expires_in)) < 30
       && !(grep { ($_->{expirationTimestamp} // 0) != $expiry } @files),
       'expirationTimestamp: what X-Amz-Expires says, within the lifetime')
        or diag "$expiry $expires_in";
    my $same = 0;
    for my $f (@files) {
        my ($code, $body) = curl($f->{url});
        my $want = slurp("$fixtures/simple_table/"
                         . ($f->{url} =~ m{/simple_table/([^?]+)})[0]);
        $same++ if $code eq '200' && defined $want && $body eq $want
                   && length($body) == $f->{size};
    }
    is($same, scalar @files, 'every URL GETs the fixture\'s bytes, of the '
       . 'size the line says');
    my ($code, $body) = curl($files[0]{url}, '-r', '0-3');
    is("$code $body", '206 PAR1', 'a Range read of a URL is a 206');
    (my $tampered = $files[0]{url}) =~ s/(X-Amz-Signature=)(.)/
        $1 . ($2 eq 'a' ? 'b' : 'a')/e;
    ($code) = curl($tampered, '-o', '/dev/null');
    is($code, '403', 'a tampered URL is refused by the store');
    (my $other = $files[0]{url}) =~ s{/simple_table/[^?]+}
        {/simple_table/_delta_log/00000000000000000000.json};
    ($code) = curl($other, '-o', '/dev/null');
    is($code, '403', 'the signature of one file opens no other');
    $res = ds(POST => "$T/simple/query", token => $token, body => {});
    my @again = map { $_->{file} } grep { $_->{file} }
                @{ lines($res) };
    is(join(',', sort map { $_->{id} } @again),
       join(',', sort map { $_->{id} } @files), 'ids stable across queries');

    # --- the delta format and the change data feed ---------------------------
    $res = ds(POST => "$T/simple/query", token => $token, body => {},
              headers => [ 'delta-sharing-capabilities'
                           => 'responseformat=delta' ]);
    my @delta = map { $_->{file}{deltaSingleAction}{add} } grep { $_->{file} }
                @{ lines($res) };
    ok(@delta && !(grep { index($_->{path} // '', $endpoint) } @delta),
       'the delta format: the actions\' paths are pre-signed URLs')
        or diag substr($res->content, 0, 300);
    $res = ds(GET => "$T/cdf/changes", token => $token,
              query => { startingVersion => 0 });
    my @changes = grep { $_->{cdf} || $_->{add} || $_->{remove} }
                  @{ lines($res) };
    my @ok = grep { my ($c) = curl($_->{url}, '-o', '/dev/null',
                                   '-r', '0-3'); $c eq '206' }
             map { $_->{cdf} || $_->{add} || $_->{remove} } @changes;
    ok(@changes && @ok == @changes
       && ($res->header('Delta-Table-Version') // '') eq '0',
       'changes: every add, cdf and remove URL reads from the store')
        or diag $res->code . ' ' . scalar(@ok) . ' of ' . scalar(@changes);
    $res = ds(GET => "$T/cdf/metadata", token => $token);
    $l = lines($res);
    is($l->[1]{metaData}{configuration}{enableChangeDataFeed}, 'true',
       'metadata of a table on S3');

    # --- refusals ------------------------------------------------------------
    $res = ds(POST => "$T/outside/query", token => $token, body => {});
    my $j = json_of($res) || {};
    ok($res->code == 400 && ($j->{errorCode} // '') eq 'MALFORMED_REQUEST'
       && ($j->{message} // '') =~ /cannot be reached; please contact your share provider/
       && $res->content !~ /outside-|external location|s3:/,
       'a table no location covers: a 400 that tells nothing of the set-up')
        or diag $res->code . ' ' . $res->content;
    $res = ds(GET => "$T/outside/version", token => $token);
    is($res->code, 400, 'its version too');
    $res = api(PATCH => "/credentials/$cred", body => { force => \1,
        aws_iam_role => {
            role_arn => $ENV{UNICAT_STS_ROLE_ARN},
            access_key_id => $ENV{UNICAT_S3_KEY},
            secret_access_key => "wrong-$p-secret" } });
    diag $res->content if $res->code != 200;
    push @sent, "wrong-$p-secret";
    $res = ds(POST => "$T/simple/query", token => $token, body => {});
    $j = json_of($res) || {};
    ok($res->code == 400 && ($j->{errorCode} // '') eq 'MALFORMED_REQUEST',
       'a credential STS refuses: a 400 (retrying changes nothing)')
        or diag $res->code . ' ' . substr($res->content, 0, 300);
    $res = ds(POST => "$T/simple/query", token => "x$token", body => {});
    is($res->code, 401, 'a bad token is a 401 before any storage is read');
    secrets_kept(\@answers, [ grep { defined && length > 8 } @sent ]);
}
