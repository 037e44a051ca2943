# SPDX-License-Identifier: Apache-2.0
# No secret of a URL in any log: not the signature of a files URL, not an
# activation link's nonce, not a token. This test makes the requests that
# carry them, answered and refused, by the module and by httpd before it
# runs (a header over LimitRequestFieldSize, a request line over
# LimitRequestLine or malformed, an encoded slash or NUL, a Range past the
# end, a method the route refuses, a tampered signature, a used link).
# Last in the suite, it then scans every access log of the test server
# (Apache::Test's own, those in the formats of the shipped configurations
# and one of every item that names the URL) and the error log for each of
# these secrets and for every one the tests before it used (Unicat::Test
# records them in t/logs/secrets_used). The requests are in the logs, with
# XXXXXXXX where their secrets were.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use File::Temp ();
use HTTP::Request ();
use JSON::PP ();
use Apache::Test qw(-withtestmore);
use Apache::TestRequest ();
use Time::HiRes ();
use Unicat::Test;

plan tests => 6;

my $p = "t99s_$$";
my ($cat, $share, $rcp) = ("cat_$p", "shr_$p", "rcp_$p");
my $tmp = File::Temp::tempdir("unicat-s99-XXXXXX", TMPDIR => 1,
                              CLEANUP => 1);
system('cp', '-r', "$FindBin::Bin/../delta/fixtures/simple_table",
       "$tmp/simple") == 0 or die "setup: cannot copy the fixture";
system('chmod', '-R', 'a+rX', $tmp);
END {
    api(DELETE => "/shares/$share");
    api(DELETE => "/recipients/$rcp");
    drop_catalog($cat);
}

# --- a shared file table and its recipient ----------------------------------
create_catalog($cat);
create_schema($cat, 'sales');
create_object('/tables', { catalog_name => $cat, schema_name => 'sales',
    name => 'simple', table_type => 'EXTERNAL', data_source_format => 'DELTA',
    columns => [], storage_location => "file://$tmp/simple" });
create_object('/shares', { name => $share });
api(PATCH => "/shares/$share", body => { updates => [ { action => 'ADD',
    data_object => { name => "$cat.sales.simple",
                     shared_as => 'pub.simple' } } ] });
my $r = create_object('/recipients', { name => $rcp,
                                       authentication_type => 'TOKEN' });
api(PATCH => "/shares/$share/permissions", body => { changes => [
    { principal => $rcp, add => ['SELECT'] } ] });
my $link = $r->{tokens}[0]{activation_url} // '';
my ($nonce) = $link =~ m{/data_sharing_activation/([A-Za-z0-9_-]{43})$};
$nonce //= '';
my ($link_path) = $link =~ m{^https?://[^/]+(/.*)$};
$link_path //= '';

my $host = 'Host: ' . Apache::TestRequest::hostport() . "\r\n";
my $big = 'X-Big: ' . ('a' x 9000) . "\r\n";
sub raw { raw_http("$_[0] HTTP/1.1\r\n$host" . ($_[1] // '')
                   . "Connection: close\r\n\r\n") }

# The activation link, refused before it works: too large a header, a
# malformed request line, an encoded slash, a method it does not take.
raw("GET $link_path", $big);
raw_http("GET $link_path HTTP/1.1 extra\r\n${host}Connection: close\r\n\r\n");
raw("GET " . ($link_path =~ s{/([^/]+)$}{%2F$1}r));
raw("POST $link_path", "Content-Length: 0\r\n");
# Then it works, once.
open_api(GET => "/public/data_sharing_activation_info/$nonce", user => undef);
my $profile = json_of(open_api(GET => "/public/data_sharing_activation/$nonce",
                               user => undef)) || {};
my $token = $profile->{bearerToken} // '';
open_api(GET => "/public/data_sharing_activation/$nonce", user => undef);

# The files route: served, ranged, refused by the module and by httpd.
my $query = sharing_api($token, POST => "/shares/$share/schemas/pub/tables/"
                        . "simple/query", body => {});
sharing_api("x$token", GET => '/shares');
my $ua = Apache::TestRequest::user_agent();
my @urls = map { $_->{file}{url} } grep { $_->{file} }
           map { JSON::PP::decode_json($_) } split /\n/, $query->content;
my $url = $urls[0] // '';
my ($file_path) = $url =~ m{^https?://[^/]+(/.*)$};
$file_path //= '';
$ua->get($_) for @urls;
$ua->head($url);
$ua->get($url, Range => 'bytes=0-3');
$ua->get($url, Range => 'bytes=999999999-');
$ua->request(HTTP::Request->new(POST => $url));
$ua->get($url =~ s/sig=([0-9a-f])/'sig=' . ($1 eq '0' ? '1' : '0')/er);
raw("GET $file_path", $big);
raw("GET " . ($file_path =~ s{/([^/?]+)\?}{/x%2F$1?}r));
raw("GET " . ($file_path =~ s{/([^/?]+)\?}{/$1%00?}r));
raw("GET $file_path&pad=" . ('a' x 9000));
raw_http("GET $file_path HTTP/1.1 extra\r\n${host}Connection: close\r\n\r\n");

my @own = grep { defined && length } $nonce, $token,
    map { /\bsig=([0-9a-f]{64})/ ? $1 : () } @urls;
ok(@own >= 3 && $query->code == 200,
   'an activation link, a bearer token and file URLs were used')
    or diag $query->code . ' ' . $query->content;

# mod_log_config writes a line once its answer has gone: the last request's
# line, in the last log written, says every line before it is there.
my $logs = Apache::Test::vars('t_logs');
my $last = "/api/2.1/unity-catalog/metastore_summary?last=$p";
api(GET => "/metastore_summary", query => { last => $p });
sub text_of { my ($f) = @_; local (@ARGV, $/) = ($f); -f $f ? scalar <> : '' }
for (1 .. 100) {
    last if index(text_of("$logs/access_log.urls"), $last) >= 0;
    Time::HiRes::sleep(0.05);
}

my @recorded = split /\n/, text_of("$logs/secrets_used");
my %recorded = map { $_ => 1 } @recorded;
ok(!grep({ !$recorded{$_} } @own),
   'Unicat::Test recorded the secrets this test used')
    or diag scalar(@recorded) . ' recorded';

my @shipped = grep { -f } map { "$logs/access_log.$_" }
    'make_run_unicat',
    -f '/etc/apache2/apache2.conf' ? 'debian_combined' : ();
ok(@shipped && !grep({ index(text_of($_), $last) < 0 } @shipped),
   'the access logs of the shipped formats are written')
    or diag "logs: @shipped";

my @files = ((grep { -f } "$logs/access_log", glob("$logs/access_log.*")),
             "$logs/error_log");
my %secrets = map { $_ => 1 } @own, @recorded;
# grep -F looks for all of them at once in one pass over each log (the logs
# of a whole suite are some 100 MB, the secrets some 20,000).
my $list = File::Temp->new;
print $list map { "$_\n" } sort keys %secrets;
close $list;
open my $grep, '-|', 'grep', '-F', '-o', '-f', $list->filename, @files
    or die "cannot run grep: $!";
my @found = sort { $a cmp $b } do { my %seen; grep { !$seen{$_}++ } <$grep> };
close $grep;
chomp @found;
ok(!@found, 'no log holds a secret of the suite (' . scalar(keys %secrets)
   . ' secrets, ' . scalar(@files) . ' logs)')
    or diag join "\n", @found[0 .. ($#found < 9 ? $#found : 9)];

my $urls = text_of("$logs/access_log.urls");
my @redacted = grep { index($_, $p) < 0 && /XXXXXXXX/ } split /\n/, $urls;
my $links = grep { m{/data_sharing_activation(_info)?/XXXXXXXX} } @redacted;
my $signed = grep { /\bsig=XXXXXXXX/ } @redacted;
ok($links >= 6 && $signed >= 9,
   'the requests are logged, their secrets as XXXXXXXX')
    or diag "$links activation lines, $signed signed lines";

# What the module itself writes of these requests names their path, never
# the nonce (a refusal it logs, UC0115).
my $error_log = text_of("$logs/error_log");
ok($error_log =~ m{UC0115: \S*/data_sharing_activation%2FXXXXXXXX refused},
   'the error log names the refused link without its nonce');
