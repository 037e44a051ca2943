# SPDX-License-Identifier: Apache-2.0
# Directives httpd checks while it reads the configuration: a value out of
# range stops httpd, naming the directive, before any child starts. Each
# case is `httpd -t` on this suite's configuration with one more
# configuration line (-c). The running server's children have set the
# Delta reader up with the values of t/conf/extra.conf.in. Last, an httpd
# of its own without UnicatSecretKeyFile (a process-wide setting the
# suite's server has) serves credentials: only those without a secret.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Apache::TestConfig ();
use File::Temp ();
use HTTP::Tiny ();
use JSON::PP ();
use MIME::Base64 ();
use Unicat::Test qw(own_httpd catalog_mount);

plan tests => 103;

my $httpd = Apache::Test::vars('httpd');
my $conf = Apache::Test::vars('t_conf_file');

# httpd -t with the suite's configuration and `@lines` after it: its exit
# status and what it printed.
sub config_test {
    my @lines = @_;
    my $pid = open(my $out, '-|') // die "fork: $!";
    if (!$pid) {
        open(STDERR, '>&', \*STDOUT) or die "dup: $!";
        exec($httpd, '-t', '-f', $conf, map { ('-c', $_) } @lines)
            or exit 127;
    }
    local $/;
    my $text = <$out> // '';
    close($out);
    return ($? >> 8, $text);
}

sub accepted {
    my ($name, @lines) = @_;
    my ($rc, $text) = config_test(@lines);
    ok($rc == 0 && $text =~ /Syntax OK/, $name) or diag $text;
}

sub refused {
    my ($name, $message, @lines) = @_;
    my ($rc, $text) = config_test(@lines);
    ok($rc != 0 && index($text, $message) >= 0, $name) or diag $text;
}

accepted('UnicatRequestThreads 1', 'UnicatRequestThreads 1');
accepted('UnicatRequestThreads 64', 'UnicatRequestThreads 64');
accepted('UnicatDeltaDecodeThreads 1', 'UnicatDeltaDecodeThreads 1');
accepted('UnicatDeltaDecodeThreads 8', 'UnicatDeltaDecodeThreads 8');
accepted('UnicatSharingAnswerThreads 1', 'UnicatSharingAnswerThreads 1');
accepted('UnicatSharingAnswerThreads 8', 'UnicatSharingAnswerThreads 8');
my $answer = 'UnicatSharingAnswerThreads takes a number of threads from 1 '
           . 'to 8';
refused('UnicatSharingAnswerThreads 0', "$answer, not '0'",
        'UnicatSharingAnswerThreads 0');
refused('UnicatSharingAnswerThreads 9', "$answer, not '9'",
        'UnicatSharingAnswerThreads 9');

my $request = 'UnicatRequestThreads takes a number of threads from 1 to 64';
refused('UnicatRequestThreads 0', "$request, not '0'",
        'UnicatRequestThreads 0');
refused('UnicatRequestThreads 65', "$request, not '65'",
        'UnicatRequestThreads 65');
refused('UnicatRequestThreads two', "$request, not 'two'",
        'UnicatRequestThreads two');
refused('UnicatRequestThreads 4x', "$request, not '4x'",
        'UnicatRequestThreads 4x');
refused('UnicatRequestThreads 99999999999999999999', $request,
        'UnicatRequestThreads 99999999999999999999');

my $decode = 'UnicatDeltaDecodeThreads takes a number of threads from 1 to 8';
refused('UnicatDeltaDecodeThreads 0', "$decode, not '0'",
        'UnicatDeltaDecodeThreads 0');
refused('UnicatDeltaDecodeThreads 9', "$decode, not '9'",
        'UnicatDeltaDecodeThreads 9');

# Process-wide: the main server's, not a virtual host's.
refused('UnicatRequestThreads in a <VirtualHost>',
        'UnicatRequestThreads cannot occur within <VirtualHost> section',
        '<VirtualHost 127.0.0.1:1>', 'UnicatRequestThreads 2',
        '</VirtualHost>');

# Key files: 64 hex digits, open to their owner only; several rotate.
my $keys = File::Temp::tempdir('unicat-keys-XXXXXX', TMPDIR => 1,
                                CLEANUP => 1);
sub key_file {
    my ($name, $text, $mode) = @_;
    my $path = "$keys/$name";
    open(my $k, '>', $path) or die "$path: $!";
    print $k $text;
    close($k);
    chmod($mode, $path) or die "chmod $path: $!";
    return $path;
}
my $key_a = key_file('a.key', ('0123456789abcdef' x 4) . "\n", 0600);
my $key_b = key_file('b.key', ('fedcba9876543210' x 4), 0400);
my $short = key_file('short.key', '0123456789abcdef', 0600);
my $open = key_file('open.key', ('0123456789abcdef' x 4), 0644);
accepted('UnicatSecretKeyFile with one key', "UnicatSecretKeyFile $key_a");
accepted('UnicatSecretKeyFile with a new key before the old one',
         "UnicatSecretKeyFile $key_b $key_a");
refused('UnicatSecretKeyFile with a missing file',
        "UnicatSecretKeyFile: Cannot read the key file $keys/none.key",
        "UnicatSecretKeyFile $keys/none.key");
my ($rc, $text) = config_test("UnicatSecretKeyFile $short");
ok($rc != 0 && index($text, "$short does not hold a key") >= 0
   && index($text, '0123456789abcdef') < 0,
   'UnicatSecretKeyFile on a file without a key, its content not shown')
    or diag $text;
refused('UnicatSecretKeyFile on a file others may read',
        'may be read or written by others than its owner',
        "UnicatSecretKeyFile $open");
refused('UnicatSecretKeyFile naming a key twice', 'is given twice',
        "UnicatSecretKeyFile $key_a $key_a");
refused('UnicatSecretKeyFile in a <VirtualHost>',
        'UnicatSecretKeyFile cannot occur within <VirtualHost> section',
        '<VirtualHost 127.0.0.1:1>', "UnicatSecretKeyFile $key_a",
        '</VirtualHost>');
refused('UnicatSecretKeyFile without a file',
        'UnicatSecretKeyFile', 'UnicatSecretKeyFile');
unlink($key_a, $key_b, $short, $open);

# The server's own AWS identity: an ARN, in one word.
my $arn = "UnicatAwsIamArn takes the ARN of the server's own AWS identity";
accepted('UnicatAwsIamArn with an ARN',
         'UnicatAwsIamArn arn:aws:iam::210987654321:role/other');
refused('UnicatAwsIamArn without arn:', $arn,
        'UnicatAwsIamArn aws:iam::210987654321:role/other');
refused('UnicatAwsIamArn with a blank', $arn,
        'UnicatAwsIamArn "arn:aws:iam::210987654321:role/a b"');
# httpd cuts -c lines this long: these come from a file.
sub included {
    my ($name, $text) = @_;
    return ("Include " . key_file($name, "$text\n", 0644));
}
accepted('UnicatAwsIamArn of 2048 bytes',
         included('arn2048.conf', 'UnicatAwsIamArn arn:' . ('x' x 2044)));
refused('UnicatAwsIamArn longer than 2048 bytes', $arn,
        included('arn2049.conf', 'UnicatAwsIamArn arn:' . ('x' x 2045)));
unlink("$keys/arn2048.conf", "$keys/arn2049.conf");

# Cloud endpoints: absolute http or https URLs without a query.
for my $d (qw(UnicatAwsStsEndpoint UnicatAzureAuthority UnicatGcpTokenUri
              UnicatGcpStsUri)) {
    accepted("$d https://", "$d https://cloud.example.com/v1");
    for my $bad ('https://cloud.example.com/v1?a=b',
                 'ftp://cloud.example.com/') {
        refused("$d $bad", "$d takes an http:// or https:// URL, not '$bad'",
                "$d $bad");
    }
}
accepted('UnicatAwsStsEndpoint http:// with a port',
         'UnicatAwsStsEndpoint http://127.0.0.1:9000/');
for my $bad ('https://cloud.example.com/#top', 'cloud.example.com') {
    refused("UnicatAwsStsEndpoint $bad",
            "UnicatAwsStsEndpoint takes an http:// or https:// URL, "
            . "not '$bad'", "UnicatAwsStsEndpoint $bad");
}
# The S3 store tables are read from: a cloud URL, then how buckets are
# addressed.
accepted('UnicatS3Endpoint alone', 'UnicatS3Endpoint https://s3.example.com');
accepted('UnicatS3Endpoint path-style',
         'UnicatS3Endpoint http://127.0.0.1:9000 path-style');
accepted('UnicatS3Endpoint virtual-host',
         'UnicatS3Endpoint https://s3.example.com virtual-host');
refused('UnicatS3Endpoint with another style',
        "UnicatS3Endpoint addresses buckets path-style or virtual-host, "
        . "not 'bucket-first'",
        'UnicatS3Endpoint https://s3.example.com bucket-first');
refused('UnicatS3Endpoint not a URL',
        "UnicatS3Endpoint takes an http:// or https:// URL, not "
        . "'s3.example.com'", 'UnicatS3Endpoint s3.example.com');
# A blob endpoint also says where the account's name goes.
accepted('UnicatAzureBlobEndpoint with {account} in the host',
         'UnicatAzureBlobEndpoint https://{account}.blob.core.windows.net');
accepted('UnicatAzureBlobEndpoint with {account} in the path',
         'UnicatAzureBlobEndpoint http://127.0.0.1:10000/{account}');
refused('UnicatAzureBlobEndpoint without {account}',
        "UnicatAzureBlobEndpoint must say where the storage account's name "
        . 'goes: {account}',
        'UnicatAzureBlobEndpoint https://blob.core.windows.net');
refused('UnicatAzureBlobEndpoint with a query',
        'UnicatAzureBlobEndpoint takes an http:// or https:// URL',
        'UnicatAzureBlobEndpoint https://{account}.example.com/?sv=1');

# Certificate authorities for the calls to the clouds: a file.
my $ca = key_file('ca.pem', "-----BEGIN CERTIFICATE-----\n", 0644);
accepted('UnicatCloudCAFile on a file', "UnicatCloudCAFile $ca");
refused('UnicatCloudCAFile on a missing file',
        "UnicatCloudCAFile: $keys/none.pem is not a readable file",
        "UnicatCloudCAFile $keys/none.pem");
refused('UnicatCloudCAFile on a directory',
        "UnicatCloudCAFile: $keys is not a readable file",
        "UnicatCloudCAFile $keys");

my $timeout = 'UnicatCloudTimeout takes a number of seconds from 1 to 300';
accepted('UnicatCloudTimeout 1', 'UnicatCloudTimeout 1');
accepted('UnicatCloudTimeout 300', 'UnicatCloudTimeout 300');
refused('UnicatCloudTimeout 0', "$timeout, not '0'", 'UnicatCloudTimeout 0');
refused('UnicatCloudTimeout 301', "$timeout, not '301'",
        'UnicatCloudTimeout 301');
refused('UnicatCloudTimeout ten', "$timeout, not 'ten'",
        'UnicatCloudTimeout ten');

my $lifetime = 'UnicatTemporaryCredentialLifetime takes a number of seconds '
             . 'from 900 to 43200';
accepted('UnicatTemporaryCredentialLifetime 900',
         'UnicatTemporaryCredentialLifetime 900');
accepted('UnicatTemporaryCredentialLifetime 43200',
         'UnicatTemporaryCredentialLifetime 43200');
refused('UnicatTemporaryCredentialLifetime 899', "$lifetime, not '899'",
        'UnicatTemporaryCredentialLifetime 899');
refused('UnicatTemporaryCredentialLifetime 43201', "$lifetime, not '43201'",
        'UnicatTemporaryCredentialLifetime 43201');

# Each child's answer cache (0: none), the main server's.
my $answers = 'UnicatAnswerCacheSize takes a number of KiB from 0 to 1048576';
accepted('UnicatAnswerCacheSize 0', 'UnicatAnswerCacheSize 0');
accepted('UnicatAnswerCacheSize 1048576', 'UnicatAnswerCacheSize 1048576');
for my $bad ('-1', 'x', '1048577', '4M') {
    refused("UnicatAnswerCacheSize '$bad'", "$answers, not '$bad'",
            "UnicatAnswerCacheSize '$bad'");
}
refused('UnicatAnswerCacheSize in a <VirtualHost>',
        'UnicatAnswerCacheSize cannot occur within <VirtualHost> section',
        '<VirtualHost 127.0.0.1:1>', 'UnicatAnswerCacheSize 16',
        '</VirtualHost>');
# Whether a mount's lists are kept: On or Off, in a <Location>.
accepted('UnicatAnswerCache Off in a <Location>',
         '<Location /x>', 'UnicatAnswerCache Off', '</Location>');
refused('UnicatAnswerCache Maybe', 'UnicatAnswerCache must be On or Off',
        '<Location /x>', 'UnicatAnswerCache Maybe', '</Location>');
refused('UnicatAnswerCache outside a <Location>',
        'UnicatAnswerCache not allowed here', 'UnicatAnswerCache Off');

# One audit log for the process (its children inherit it open).
accepted('UnicatAuditLog a file', 'UnicatAuditLog logs/other-audit.log');
refused('UnicatAuditLog | (no program)',
        'UnicatAuditLog takes a file or a |program', 'UnicatAuditLog |');
refused('UnicatAuditLog in a <VirtualHost>',
        'UnicatAuditLog cannot occur within <VirtualHost> section',
        '<VirtualHost 127.0.0.1:1>', 'UnicatAuditLog logs/v.log',
        '</VirtualHost>');
refused('UnicatAuditLog in a <Location>',
        'UnicatAuditLog not allowed in <Location> context',
        '<Location /x>', 'UnicatAuditLog logs/l.log', '</Location>');

# The clouds are called by the process, whichever host the request is for:
# these are the main server's, with values accepted above.
my %cloud = (
    UnicatAwsIamArn => 'arn:aws:iam::210987654321:role/other',
    UnicatAwsStsEndpoint => 'https://cloud.example.com/v1',
    UnicatAzureAuthority => 'https://cloud.example.com/v1',
    UnicatAzureBlobEndpoint => 'https://{account}.blob.core.windows.net',
    UnicatGcpTokenUri => 'https://cloud.example.com/v1',
    UnicatGcpStsUri => 'https://cloud.example.com/v1',
    UnicatCloudCAFile => $ca,
    UnicatCloudTimeout => 10,
    UnicatTemporaryCredentialLifetime => 3600,
);
for my $d (sort keys %cloud) {
    refused("$d in a <VirtualHost>",
            "$d cannot occur within <VirtualHost> section",
            '<VirtualHost 127.0.0.1:1>', "$d $cloud{$d}", '</VirtualHost>');
    refused("$d in a <Location>", "$d not allowed in <Location> context",
            '<Location /x>', "$d $cloud{$d}", '</Location>');
}
unlink($ca);

my $log = Apache::Test::vars('t_logs') . '/error_log';
open(my $fh, '<', $log) or die "$log: $!";
my @lines = grep { /UC010[56]/ } <$fh>;
close($fh);
my @failed = grep { /UC0105/ } @lines;
my @set_up = grep {
    /UC0106: Delta reader set up: 3 decode threads, 2 answer threads, at most 2 threads a request/
} @lines;
ok(!@failed && @set_up, 'the children set the Delta reader up as configured')
    or diag @lines;

# --- an httpd without UnicatSecretKeyFile -----------------------------------

# The suite's modules and users, the catalog API, a database of its own.
my $own = own_httpd(<<"CONF");
StartServers 1
DBDriver sqlite3
DBDParams "\@DIR\@/unicat.db"
# httpd's piped-log convention: |\$ runs the command through the shell.
UnicatAuditLog "|\$exec cat >> \@DIR\@/piped-audit.log"
${\ catalog_mount()}
CONF
sub own_log { $own->{log}->() }
my $ua = HTTP::Tiny->new(timeout => 30, default_headers => {
    Authorization => 'Basic ' . MIME::Base64::encode_base64('admin:admin',
                                                             ''),
    'Content-Type' => 'application/json',
});
my $url = "$own->{url}/api/2.1/unity-catalog/credentials";
ok($own->{up} && $ua->get($url)->{status} != 599,
   'an httpd without UnicatSecretKeyFile starts') or diag own_log();

my $json = JSON::PP->new->utf8(1);
# One test of an answer: `$good` judges its status and JSON body; when it
# fails, the answer and the server's log are shown.
sub answer {
    my ($res, $name, $good) = @_;
    my $body = eval { $json->decode($res->{content}) } // {};
    ok($good->($res->{status}, $body), $name)
        or diag "$res->{status} $res->{content}\n", own_log();
}

answer($ua->post($url, { content =>
    '{"name":"c_nokey","azure_storage_key":'
    . '{"account_name":"acct01","account_key":"QUJDRA=="}}' }),
    'without a key, a credential holding a secret is refused, naming '
    . 'UnicatSecretKeyFile', sub {
        my ($status, $body) = @_;
        $status == 400
            && ($body->{error_code} // '') eq 'INVALID_PARAMETER_VALUE'
            && ($body->{message} // '') =~ /UnicatSecretKeyFile/;
    });
answer($ua->get("$url/c_nokey"), 'and it is not stored',
       sub { $_[0] == 404 });
answer($ua->post($url, { content =>
    '{"name":"c_nokey2","azure_managed_identity":'
    . '{"access_connector_id":"x"}}' }),
    'without a key, a credential without a secret is stored', sub {
        my ($status, $body) = @_;
        $status == 200 && ($body->{name} // '') eq 'c_nokey2';
    });

# The piped logger got the two creates (the read writes nothing), in the
# order they were made.
my @piped;
for (1 .. 100) {
    @piped = ();
    if (open(my $pl, '<', "$own->{dir}/piped-audit.log")) {
        @piped = map { scalar eval { $json->decode($_) } } <$pl>;
    }
    last if @piped >= 2;
    select(undef, undef, undef, 0.05);
}
ok(@piped == 2 && ($piped[0]{operation} // '') eq 'CREATE'
   && ($piped[0]{outcome} // '') eq 'failure' && $piped[0]{status} == 400
   && ($piped[1]{full_name} // '') eq 'c_nokey2'
   && ($piped[1]{securable_type} // '') eq 'credential'
   && ($piped[1]{outcome} // '') eq 'success',
   'UnicatAuditLog |program: the piped logger gets a line for each change')
    or diag scalar(@piped) . ' lines: ' . join ' ', map {
        $json->encode($_ // {}) } @piped;
$own->{stop}->();
