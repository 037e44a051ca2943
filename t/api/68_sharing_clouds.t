# SPDX-License-Identifier: Apache-2.0
# The Delta Sharing server over tables in the clouds' stores. On S3: the
# server reads their logs with read-only credentials vended for the
# external location covering them, and hands recipients SigV4 pre-signed
# URLs of UnicatS3Endpoint (path style), which the SigV4-checking proxy of
# t/s3/with-s3.sh in front of s3rver accepts: the bytes are the fixture's,
# ranges are 206, a tampered URL is refused, the URLs expire when the
# answer says. A table no location covers is refused without telling the
# recipient the provider's set-up. On Azure (azurite, which checks every
# SAS): the server signs its own SAS with the location's storage key or a
# user delegation key of its service principal, and hands out per-blob
# read SAS that open one blob and list nothing; directory access and
# volumes get a SAS of their directory (sr=d), which azurite, having no
# hierarchical namespace, refuses. On Cloud Storage (a
# stand-in that checks tokens and V4 signatures): the server reads with
# its service account's downscoped token and hands out V4 signed URLs.
# Each part is skipped without its harness. No secret that was sent shows
# in an answer.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use JSON::PP ();
use Time::Local ();
use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 57;

my $p = "s68_$$";
my ($cat, $share, $recipient) = ("cat_$p", "shr_$p", "rcp_$p");
my $fixtures = "$FindBin::Bin/../delta/fixtures";
my (@answers, @sent, @creds, @locs);
END {
    api(DELETE => "/shares/$share");
    api(DELETE => "/recipients/$recipient");
    drop_catalog($cat);
    api(DELETE => "/external-locations/$_", query => { force => 'true' })
        for @locs;
    api(DELETE => "/credentials/$_", query => { force => 'true' })
        for @creds;
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
    my $r = sharing_api(delete $opt{token}, $method, $path, %opt);
    push @answers, $r->content;
    return $r;
}
sub share_tables {     # the answer of adding [name, options...] as $schema.name
    my ($schema, @tables) = @_;
    return api(PATCH => "/shares/$share", body => { updates => [ map {
        { action => 'ADD', data_object => { name => "$cat.sch.$_->[0]",
                                            shared_as => "$schema.$_->[0]",
                                            @$_[1 .. $#$_] } } } @tables ] });
}
# How many of the file lines' URLs GET the bytes of the fixture `table`,
# of the size the line says (curl given @args too).
sub fixture_bytes {
    my ($files, $table, @args) = @_;
    my $same = 0;
    for my $f (@$files) {
        my ($code, $body) = curl($f->{url}, @args);
        my $want = slurp("$fixtures/$table/"
                         . ($f->{url} =~ m{/\Q$table\E/([^?]+)})[0]);
        $same++ if $code eq '200' && defined $want && $body eq $want
                   && length($body) == $f->{size};
    }
    return $same;
}
# The add, cdf and remove actions of a changes answer, and those of them
# whose URL answers a Range read with 206.
sub changes_read {
    my ($res, @args) = @_;
    my @changes = map { $_->{cdf} || $_->{add} || $_->{remove} }
                  grep { $_->{cdf} || $_->{add} || $_->{remove} }
                  @{ answer_lines($res) };
    return (scalar @changes, scalar grep {
        (curl($_->{url}, @args, '-o', '/dev/null', '-r', '0-3'))[0] eq '206'
    } @changes);
}
my %ext = (catalog_name => $cat, schema_name => 'sch',
           table_type => 'EXTERNAL', data_source_format => 'DELTA',
           columns => []);

create_catalog($cat);
create_schema($cat, 'sch');
create_object('/shares', { name => $share });
create_object('/recipients', { name => $recipient,
                               authentication_type => 'TOKEN' });
api(PATCH => "/shares/$share/permissions", body => { changes => [
    { principal => $recipient, add => ['SELECT'] } ] });
my $token = token_of_recipient($recipient);
push @sent, $token;

SKIP: {
    skip 'no S3 store nor STS stand-in (t/s3/with-s3.sh)', 24
        unless $ENV{UNICAT_S3_ENDPOINT} && $ENV{UNICAT_STS_ENDPOINT};
    my $bucket = $ENV{UNICAT_S3_BUCKET};
    my $fx = "s3://$bucket/fixtures";
    push @sent, $ENV{UNICAT_S3_SECRET};
    my $cred = "aws_$p";
    push @creds, $cred;
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
    my $loc = "s3_$p";
    push @locs, $loc;
    create_object('/external-locations', { name => $loc, url => $fx,
                                           credential_name => $cred });
    create_object('/tables', { %ext, name => $_->[0],
                               storage_location => $_->[1] })
        for [simple => "$fx/simple_table"], [cdf => "$fx/cdf-table"],
            [outside => "s3://$bucket/outside-$p/t"];
    my $res = share_tables('cloud', [ 'simple' ],
        [ 'cdf', enable_cdf => \1, history_data_sharing_status => 'ENABLED' ]);
    is($res->code . $trust, '200200',
       'a provider shares two tables on S3, its role trusting the credential')
        or diag $res->content;
    # Not checked when added: nothing about the table needs its log.
    share_tables('cloud', [ 'outside' ]);
    my $T = "/shares/$share/schemas/cloud/tables";

    # --- a snapshot's files --------------------------------------------------
    $res = ds(HEAD => "$T/simple/version", token => $token);
    is($res->header('Delta-Table-Version'), '4',
       'the version of a table on S3, read with vended keys');
    my $before = time;
    $res = ds(POST => "$T/simple/query", token => $token, body => {});
    my $l = answer_lines($res);
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
    is(fixture_bytes(\@files, 'simple_table'), scalar @files, 'every URL '
       . 'GETs the fixture\'s bytes, of the size the line says');
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
                @{ answer_lines($res) };
    is(join(',', sort map { $_->{id} } @again),
       join(',', sort map { $_->{id} } @files), 'ids stable across queries');

    # --- the delta format and the change data feed ---------------------------
    $res = ds(POST => "$T/simple/query", token => $token, body => {},
              headers => [ 'delta-sharing-capabilities'
                           => 'responseformat=delta' ]);
    my @delta = map { $_->{file}{deltaSingleAction}{add} } grep { $_->{file} }
                @{ answer_lines($res) };
    ok(@delta && !(grep { index($_->{path} // '', $endpoint) } @delta),
       'the delta format: the actions\' paths are pre-signed URLs')
        or diag substr($res->content, 0, 300);
    $res = ds(GET => "$T/cdf/changes", token => $token,
              query => { startingVersion => 0 });
    my ($changes, $read) = changes_read($res);
    ok($changes && $read == $changes
       && ($res->header('Delta-Table-Version') // '') eq '0',
       'changes: every add, cdf and remove URL reads from the store')
        or diag $res->code . " $read of $changes";
    $res = ds(GET => "$T/cdf/metadata", token => $token);
    $l = answer_lines($res);
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

    # --- directory access: the cdf table is shared whole, simple in part
    my $listed = json_of(ds(GET => $T, token => $token)) || {};
    my %mode = map { $_->{name} => join(',', @{ $_->{accessModes} || [] })
                     . ' ' . ($_->{location} // '-') } @{ $listed->{items} || [] };
    is("$mode{cdf} | $mode{simple}", "url,dir $fx/cdf-table | url -",
       'a table shared whole is offered by directory, with its location; one '
       . 'shared in part by URL only, its location kept');
    $res = ds(POST => "$T/cdf/temporary-table-credentials", token => $token,
              body => { location => "$fx/cdf-table/" });
    my $dir = (json_of($res) || {})->{credentials} || {};
    my $aws = $dir->{awsTempCredentials} || {};
    ok($res->code == 200 && ($dir->{location} // '') eq "$fx/cdf-table"
       && $aws->{accessKeyId} && $aws->{secretAccessKey} && $aws->{sessionToken}
       && ($dir->{expirationTime} // 0) > time * 1000,
       'temporary-table-credentials: read keys for the table\'s root, and '
       . 'their expiry') or diag $res->content;
    my @as = ('-o', '/dev/null', '--aws-sigv4', "aws:amz:$ENV{UNICAT_S3_REGION}:s3",
              '--user', "$aws->{accessKeyId}:$aws->{secretAccessKey}",
              '-H', "x-amz-security-token: $aws->{sessionToken}",
              '-H', 'x-amz-content-sha256: UNSIGNED-PAYLOAD');
    my $log = '_delta_log/00000000000000000000.json';
    my ($in) = curl("$ENV{UNICAT_S3_ENDPOINT}/$bucket/fixtures/cdf-table/$log", @as);
    my ($beside) = curl("$ENV{UNICAT_S3_ENDPOINT}/$bucket/fixtures/simple_table/$log", @as);
    is("$in $beside", '200 403', 'with them the recipient reads the table\'s '
       . 'log, and nothing beside it');
    ds_error(ds(POST => "$T/cdf/temporary-table-credentials", token => $token,
                body => { location => $fx }), 400, 'INVALID_PARAMETER_VALUE',
             'a location other than the table\'s');
    ds_error(ds(POST => "$T/simple/temporary-table-credentials",
                token => $token), 400, 'UNSUPPORTED_OPERATION',
             'a table shared in part: URL access only', qr/url access only/);
    # --- a volume on S3: its location, and keys for it alone
    create_object('/volumes', { catalog_name => $cat, schema_name => 'sch',
        name => 's3vol', volume_type => 'EXTERNAL',
        storage_location => "$fx/delta-0.8.0-partitioned" });
    share_tables('cloud', [ 's3vol', data_object_type => 'VOLUME' ]);
    my $vols = json_of(ds(GET => "/shares/$share/all-volumes", token => $token)) || {};
    is(join(',', map { "$_->{schema}.$_->{name} " . ($_->{storageLocation} // '-') }
                 @{ $vols->{items} || [] }),
       "cloud.s3vol $fx/delta-0.8.0-partitioned",
       'a volume on S3 is listed with its location');
    $res = ds(POST => "/shares/$share/schemas/cloud/volumes/s3vol/"
                      . 'temporary-volume-credentials', token => $token);
    my $vk = (json_of($res) || {})->{awsTempCredentials} || {};
    my @vs = ('-o', '/dev/null', '--aws-sigv4', "aws:amz:$ENV{UNICAT_S3_REGION}:s3",
              '--user', "$vk->{accessKeyId}:$vk->{secretAccessKey}",
              '-H', "x-amz-security-token: $vk->{sessionToken}",
              '-H', 'x-amz-content-sha256: UNSIGNED-PAYLOAD');
    my ($vin) = curl("$ENV{UNICAT_S3_ENDPOINT}/$bucket/fixtures/delta-0.8.0-partitioned/$log", @vs);
    my ($vout) = curl("$ENV{UNICAT_S3_ENDPOINT}/$bucket/fixtures/simple_table/$log", @vs);
    ok($res->code == 200 && (json_of($res) || {})->{expirationTime} && "$vin $vout" eq '200 403',
       'temporary-volume-credentials: flat keys that read the volume and nothing beside it')
        or diag $res->content . " $vin $vout";
    # --- an agent skill on S3: its files listed and read with its own keys
    create_object('/agent-skills', { catalog_name => $cat,
        schema_name => 'sch', name => 's3skill', agent_skill_type => 'EXTERNAL',
        storage_location => "$fx/table-with-dv-small", description => 'reads dvs' });
    share_tables('cloud', [ 's3skill', data_object_type => 'AGENT_SKILL' ]);
    $res = ds(POST => "/shares/$share/schemas/cloud/skills/s3skill/"
                      . 'temporary-skill-credentials', token => $token);
    my $kk = (json_of($res) || {})->{awsTempCredentials} || {};
    my @ks = ('--aws-sigv4', "aws:amz:$ENV{UNICAT_S3_REGION}:s3",
              '--user', "$kk->{accessKeyId}:$kk->{secretAccessKey}",
              '-H', "x-amz-security-token: $kk->{sessionToken}",
              '-H', 'x-amz-content-sha256: UNSIGNED-PAYLOAD');
    my ($lc, $skill_list) = curl("$ENV{UNICAT_S3_ENDPOINT}/$bucket?list-type=2"
                             . '&prefix=fixtures%2Ftable-with-dv-small%2F', @ks);
    my @keys = $skill_list =~ m{<Key>fixtures/table-with-dv-small/([^<]+)</Key>}g;
    my $equal = grep { my ($c, $b) = curl("$ENV{UNICAT_S3_ENDPOINT}/$bucket/fixtures/table-with-dv-small/$_", @ks);
                       $c eq '200' && $b eq (slurp("$fixtures/table-with-dv-small/$_") // "\0") }
                @keys;
    my ($lbeside) = curl("$ENV{UNICAT_S3_ENDPOINT}/$bucket?list-type=2"
                         . '&prefix=fixtures%2Fsimple_table%2F', @ks);
    ok($res->code == 200 && $lc eq '200' && @keys == 4 && $equal == @keys
       && $lbeside eq '403',
       'temporary-skill-credentials: keys that list the skill\'s files and read each byte for byte, '
       . 'and list nothing beside it')
        or diag $res->content . " list $lc, " . scalar(@keys) . " keys, $equal equal, beside $lbeside";
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
}

# --- Azure ---------------------------------------------------------------------
# The module's blob endpoint is azurite's HTTPS instance: it checks every
# SAS, of the account key and of user delegation keys alike.
SKIP: {
    skip 'no azurite (t/azure/with-azurite.sh)', 17
        unless $ENV{UNICAT_AZURE_OAUTH_ENDPOINT};
    my ($acct, $ctr) = @ENV{qw(UNICAT_AZURE_ACCOUNT UNICAT_AZURE_CONTAINER)};
    my $fx = "abfss://$ctr\@$acct.dfs.core.windows.net/fixtures";
    my @ca = ('--cacert', $ENV{UNICAT_AZURE_CA_FILE});
    push @sent, $ENV{UNICAT_AZURE_KEY}, $ENV{UNICAT_AZURE_CLIENT_SECRET};
    push @creds, "azkey_$p", "azsp_$p";
    push @locs, "az_$p";
    create_object('/credentials', { name => "azkey_$p", azure_storage_key => {
        account_name => $acct, account_key => $ENV{UNICAT_AZURE_KEY} } });
    create_object('/credentials', { name => "azsp_$p",
        azure_service_principal => {
            directory_id => $ENV{UNICAT_AZURE_TENANT_ID},
            application_id => $ENV{UNICAT_AZURE_CLIENT_ID},
            client_secret => $ENV{UNICAT_AZURE_CLIENT_SECRET} } });
    create_object('/external-locations', { name => "az_$p", url => $fx,
                                           credential_name => "azkey_$p" });
    create_object('/tables', { %ext, name => $_->[0],
                               storage_location => $_->[1] })
        for [azsimple => "$fx/simple_table"], [azcdf => "$fx/cdf-table"];
    # The change data feed makes the share check the table's log.
    my $res = share_tables('azure', [ 'azsimple' ],
        [ 'azcdf', enable_cdf => \1, history_data_sharing_status => 'ENABLED' ]);
    is($res->code, 200, 'a provider shares two tables on Azure, the log of '
       . 'one read with the storage key') or diag $res->content;
    my $T = "/shares/$share/schemas/azure/tables";
    $res = ds(HEAD => "$T/azsimple/version", token => $token);
    is($res->header('Delta-Table-Version'), '4',
       'the version of a table on Azure');

    my $files_of = sub {
        my ($r) = @_;
        return [ map { $_->{file} } grep { $_->{file} } @{ answer_lines($r) } ];
    };
    $res = ds(POST => "$T/azsimple/query", token => $token, body => {});
    my $files = $files_of->($res);
    my $blobs = "$ENV{UNICAT_AZURE_OAUTH_ENDPOINT}/$ctr/fixtures/simple_table/";
    my @signed = grep { index($_->{url}, $blobs) == 0
                        && $_->{url} =~ /[?&]sr=b(&|$)/
                        && $_->{url} =~ /[?&]sp=r(&|$)/
                        && $_->{url} =~ /[?&]sig=/ } @$files;
    ok($res->code == 200 && @$files && @signed == @$files,
       'every URL is the blob\'s own, with a SAS that reads that blob only')
        or diag $res->code . ' ' . substr($res->content, 0, 400);
    is(fixture_bytes($files, 'simple_table', @ca), scalar @$files, 'azurite '
       . 'serves every URL: the fixture\'s bytes, of the size the line says');
    my $url = $files->[0]{url} // '';
    my ($code, $body) = curl($url, @ca, '-r', '0-3');
    is("$code $body", '206 PAR1', 'a Range read of a SAS URL is a 206');
    (my $tampered = $url) =~ s/sig=([^&])/'sig=' . ($1 eq 'A' ? 'B' : 'A')/e;
    is((curl($tampered, @ca, '-o', '/dev/null'))[0], '403',
       'azurite refuses a tampered SAS');
    (my $other = $url) =~ s{/simple_table/[^?]+}
        {/simple_table/_delta_log/00000000000000000000.json};
    is((curl($other, @ca, '-o', '/dev/null'))[0], '403',
       'the SAS of one blob opens no other');
    my ($sas) = $url =~ /\?(.*)\z/;
    is((curl("$ENV{UNICAT_AZURE_OAUTH_ENDPOINT}/$ctr?restype=container"
             . "&comp=list&$sas", @ca, '-o', '/dev/null'))[0], '403',
       'nor lists the container');
    my ($se) = $url =~ /[?&]se=([^&]+)/;
    (my $until = $se // '') =~ s/%3A/:/gi;
    my $expiry = $files->[0]{expirationTimestamp} // 0;
    ok($until =~ /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)Z$/
       && abs($expiry / 1000 - Time::Local::timegm($6, $5, $4, $3, $2 - 1, $1))
          < 2, 'expirationTimestamp: when the SAS expires')
        or diag "$se $expiry";

    # Directory access: azcdf is shared whole; its credentials are a SAS of
    # the table's directory (sr=d), which needs a hierarchical namespace.
    # azurite has none and refuses every such SAS: they open nothing of a
    # flat account, its container least of all. Their signature is
    # checked against Microsoft's SDK in t/unit/test_azure_sas.c.
    my %mode = map { $_->{name} => join(',', @{ $_->{accessModes} || [] })
                     . ' ' . ($_->{location} // '-') }
        @{ (json_of(ds(GET => $T, token => $token)) || {})->{items} || [] };
    is("$mode{azcdf} | $mode{azsimple}", "url,dir $fx/cdf-table | url -",
       'Azure: a table shared whole is offered by directory, with its location');
    my $dir_sas = sub {        # the SAS of an answer, and what it says
        my ($r, $wrapped) = @_;
        my $j = json_of($r) || {};
        $j = $j->{credentials} || {} if $wrapped;
        my $sas = ($j->{azureUserDelegationSas} || {})->{sasToken} // '';
        my %q = map { split /=/, $_, 2 } split /&/, $sas;
        return ($sas, \%q, $j);
    };
    $res = ds(POST => "$T/azcdf/temporary-table-credentials", token => $token);
    my ($dsas, $dq, $dj) = $dir_sas->($res, 1);
    ok($res->code == 200 && ($dj->{location} // '') eq "$fx/cdf-table"
       && ($dq->{sr} // '') eq 'd' && ($dq->{sdd} // '') eq '2'
       && ($dq->{sp} // '') eq 'rl' && $dq->{sig}
       && ($dj->{expirationTime} // 0) > time * 1000,
       'temporary-table-credentials on Azure: a SAS that reads and lists the '
       . 'table\'s directory (sr=d, sdd=2, sp=rl)') or diag $res->content;
    is((curl("$ENV{UNICAT_AZURE_OAUTH_ENDPOINT}/$ctr?restype=container"
             . "&comp=list&$dsas", @ca, '-o', '/dev/null'))[0], '403',
       'azurite (no hierarchical namespace) refuses it: it lists no container');
    create_object('/volumes', { catalog_name => $cat, schema_name => 'sch',
        name => 'azvol', volume_type => 'EXTERNAL',
        storage_location => "$fx/delta-0.8.0-partitioned" });
    share_tables('azure', [ 'azvol', data_object_type => 'VOLUME' ]);
    my $azvols = json_of(ds(GET => "/shares/$share/schemas/azure/volumes",
                            token => $token)) || {};
    $res = ds(POST => "/shares/$share/schemas/azure/volumes/azvol/"
                      . 'temporary-volume-credentials', token => $token);
    my (undef, $vq) = $dir_sas->($res, 0);
    ok($res->code == 200 && ($vq->{sr} // '') eq 'd' && ($vq->{sdd} // '') eq '2'
       && (($azvols->{items} || [])->[0]{storageLocation} // '') eq
          "$fx/delta-0.8.0-partitioned",
       'an Azure volume: listed with its location, its credentials a SAS of '
       . 'its directory') or diag $res->content;
    $res = ds(GET => "$T/azcdf/changes", token => $token,
              query => { startingVersion => 0 });
    my ($changes, $read) = changes_read($res, @ca);
    ok($changes && $read == $changes, 'changes: every add, cdf and remove '
       . 'URL reads from azurite') or diag $res->code . ' ' . $res->content;

    # A service principal: user delegation keys sign the store's SAS.
    $res = api(PATCH => "/external-locations/az_$p",
               body => { credential_name => "azsp_$p" });
    diag $res->content if $res->code != 200;
    my $before = time;
    $res = ds(POST => "$T/azsimple/query", token => $token, body => {});
    $files = $files_of->($res);
    my @delegated = grep { $_->{url} =~ /[?&]skoid=\Q$ENV{UNICAT_AZURE_OBJECT_ID}\E(&|$)/
                           && (curl($_->{url}, @ca, '-o', '/dev/null'))[0]
                              eq '200' } @$files;
    ok($res->code == 200 && @$files && @delegated == @$files,
       'with a service principal: user delegation SAS that azurite accepts')
        or diag $res->code . ' ' . substr($res->content, 0, 400);
    $expiry = $files->[0]{expirationTimestamp} // 0;
    ok($expiry > ($before + 60) * 1000 && $expiry <= (time + 3600 + 5) * 1000,
       'their expiry is within the delegation key\'s lifetime') or diag $expiry;
    # The key is kept: the next answer's SAS are signed with the same one
    # (its start and expiry in skt and ske), and still last their span.
    my $key_of = sub { join ' ', map { ($_[0] =~ /[?&]$_=([^&]+)/)[0] // '' }
                                 qw(skt ske) };
    my $first = $key_of->($files->[0]{url} // '');
    sleep 1;    # a new key would start a second later
    $res = ds(POST => "$T/azsimple/query", token => $token, body => {});
    my $again = $files_of->($res);
    ok($first =~ /\S \S/ && $key_of->($again->[0]{url} // '') eq $first
       && ($again->[0]{expirationTimestamp} // 0) >= $expiry,
       'the next answer reuses the delegation key') or diag "$first";
}
# --- Google Cloud Storage --------------------------------------------------------
# The stand-in of t/gcp/with-gcp.sh serves the fixtures from a bucket to
# the tokens it minted (the server's, downscoped to the table) and to V4
# URLs whose RSA signature it checks with the service account's public
# key.
SKIP: {
    skip 'no Google stand-in (t/gcp/with-gcp.sh)', 12
        unless $ENV{UNICAT_GCS_ENDPOINT};
    my $bucket = $ENV{UNICAT_GCS_BUCKET};
    my $fx = "gs://$bucket/fixtures";
    my $key = slurp($ENV{UNICAT_GCP_PRIVATE_KEY_FILE});
    push @sent, $key;
    push @creds, "gcp_$p";
    push @locs, "gs_$p";
    create_object('/credentials', { name => "gcp_$p",
        databricks_gcp_service_account => {
            email => $ENV{UNICAT_GCP_CLIENT_EMAIL},
            private_key_id => $ENV{UNICAT_GCP_PRIVATE_KEY_ID},
            private_key => $key } });
    create_object('/external-locations', { name => "gs_$p", url => $fx,
                                           credential_name => "gcp_$p" });
    create_object('/tables', { %ext, name => $_->[0],
                               storage_location => $_->[1] })
        for [gssimple => "$fx/simple_table"], [gscdf => "$fx/cdf-table"];
    my $res = share_tables('gcs', [ 'gssimple' ],
        [ 'gscdf', enable_cdf => \1, history_data_sharing_status => 'ENABLED' ]);
    is($res->code, 200, 'a provider shares two tables on Cloud Storage, the '
       . 'log of one read with the service account\'s token')
        or diag $res->content;
    my $T = "/shares/$share/schemas/gcs/tables";
    $res = ds(HEAD => "$T/gssimple/version", token => $token);
    is($res->header('Delta-Table-Version'), '4',
       'the version of a table on Cloud Storage (its log listed page by page)');

    # Directory access: gscdf is shared whole; the token is downscoped to it.
    $res = ds(POST => "$T/gscdf/temporary-table-credentials", token => $token);
    my $dir = (json_of($res) || {})->{credentials} || {};
    my $oauth = ($dir->{gcpOauthToken} || {})->{oauthToken} // '';
    my $api = "$ENV{UNICAT_GCS_ENDPOINT}/storage/v1/b/$bucket/o/";
    my $log = '%2F_delta_log%2F00000000000000000000.json?alt=media';
    my ($in) = curl("${api}fixtures%2Fcdf-table$log", '-o', '/dev/null',
                    '-H', "Authorization: Bearer $oauth");
    my ($beside) = curl("${api}fixtures%2Fsimple_table$log", '-o', '/dev/null',
                        '-H', "Authorization: Bearer $oauth");
    ok($res->code == 200 && ($dir->{location} // '') eq "$fx/cdf-table"
       && $oauth && "$in $beside" =~ /^200 40[13]$/,
       'Cloud Storage: a token downscoped to the table\'s directory, which '
       . 'reads its log and nothing beside it') or diag $res->content . " $in $beside";
    my $before = time;
    $res = ds(POST => "$T/gssimple/query", token => $token, body => {});
    my $files = [ map { $_->{file} } grep { $_->{file} }
                  @{ answer_lines($res) } ];
    my $objects = "$ENV{UNICAT_GCS_ENDPOINT}/$bucket/fixtures/simple_table/";
    my @signed = grep { index($_->{url}, $objects) == 0
                        && $_->{url} =~ /[?&]X-Goog-Algorithm=GOOG4-RSA-SHA256(&|$)/
                        && $_->{url} =~ /[?&]X-Goog-Signature=[0-9a-f]+(&|$)/ }
                 @$files;
    ok($res->code == 200 && @$files && @signed == @$files,
       'every URL is a V4 signed URL of its object')
        or diag $res->code . ' ' . substr($res->content, 0, 400);
    is(fixture_bytes($files, 'simple_table'), scalar @$files, 'the stand-in '
       . 'serves every URL, its signature checked: the fixture\'s bytes, of '
       . 'the size the line says');
    my $url = $files->[0]{url} // '';
    my ($code, $body) = curl($url, '-r', '0-3');
    is("$code $body", '206 PAR1', 'a Range read of a signed URL is a 206');
    (my $tampered = $url) =~ s/(X-Goog-Signature=)(.)/$1 . ($2 eq 'a' ? 'b' : 'a')/e;
    is((curl($tampered, '-o', '/dev/null'))[0], '403',
       'a tampered signature is refused');
    (my $other = $url) =~ s{/simple_table/[^?]+}
        {/simple_table/_delta_log/00000000000000000000.json};
    is((curl($other, '-o', '/dev/null'))[0], '403',
       'the URL of one object opens no other');
    my ($expires) = $url =~ /[?&]X-Goog-Expires=(\d+)/;
    my $expiry = $files->[0]{expirationTimestamp} // 0;
    ok(defined $expires && $expires <= 604800
       && abs($expiry / 1000 - ($before + $expires)) < 5,
       'expirationTimestamp: when the signed URL expires')
        or diag "$url $expiry";
    $res = ds(GET => "$T/gscdf/changes", token => $token,
              query => { startingVersion => 0 });
    my ($changes, $read) = changes_read($res);
    ok($changes && $read == $changes, 'changes: every add, cdf and remove '
       . 'URL reads from the stand-in') or diag $res->code . ' ' . $res->content;
    # Deletion vectors: the delta format signs their files too.
    create_object('/tables', { %ext, name => 'gsdv',
                               storage_location => "$fx/table-with-dv-small" });
    share_tables('gcs', [ 'gsdv' ]);
    $res = ds(POST => "$T/gsdv/query", token => $token, body => {},
              headers => [ 'delta-sharing-capabilities' =>
                           'responseformat=delta;readerfeatures=deletionvectors' ]);
    my @dv = map { $_->{file}{deltaSingleAction}{add}{deletionVector} }
             grep { $_->{file} } @{ answer_lines($res) };
    my @dv_read = grep { ($_->{storageType} // '') eq 'p'
        && (curl($_->{pathOrInlineDv}, '-o', '/dev/null'))[0] eq '200' }
        grep { defined } @dv;
    ok(@dv_read && @dv_read == grep({ defined } @dv),
       'delta format: the deletion vectors\' signed URLs read too')
        or diag $res->code . ' ' . substr($res->content, 0, 600);
    # A table of the bucket that the location does not cover: no token.
    create_object('/tables', { %ext, name => 'gsoutside',
                               storage_location => "gs://$bucket/other-$p/t" });
    share_tables('gcs', [ 'gsoutside' ]);
    $res = ds(POST => "$T/gsoutside/query", token => $token, body => {});
    my $j = json_of($res) || {};
    ok($res->code == 400 && ($j->{errorCode} // '') eq 'MALFORMED_REQUEST'
       && ($j->{message} // '') =~ /cannot be reached; please contact your share provider/
       && $res->content !~ /other-|external location|gs:/,
       'a table no location covers: a 400 that tells nothing of the set-up')
        or diag $res->code . ' ' . $res->content;
}
secrets_kept(\@answers, [ grep { defined && length > 8 } @sent ]);
