# SPDX-License-Identifier: Apache-2.0
# The refusals httpd makes itself, around the module: malformed requests,
# request lines over LimitRequestLine, TRACE, Require, and clients that
# stall (mod_reqtimeout). Each comes back as the API's JSON error, with its
# status, through ErrorDocument or the module's own body reader.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Apache::TestRequest ();
use MIME::Base64 ();
use Unicat::Test;

plan tests => 23;

my $auth = 'Authorization: Basic '
         . MIME::Base64::encode_base64('admin:admin', '') . "\r\n";

sub host_line { 'Host: ' . Apache::TestRequest::hostport() . "\r\n" }

sub closes { ($_[0]->{headers}{connection} // '') =~ /\bclose\b/i }

# --- before any <Location> applies: the server's ErrorDocuments ----------
my $j;
my $res = raw_http("GET $BASE/" . ('a' x 9000) . " HTTP/1.1\r\n" . host_line()
                   . "Connection: close\r\n\r\n");
is_error($res, 414, 'URI_TOO_LONG', 'request line over LimitRequestLine -> 414 JSON');
ok(closes($res), '414 closes the connection') or diag explain $res->{headers};

$res = raw_http("GET $BASE/catalogs HTTP/1.1 extra\r\n" . host_line()
                . "Connection: close\r\n\r\n");
is_error($res, 400, 'INVALID_PARAMETER_VALUE', 'malformed request line -> 400 JSON');
ok(closes($res), '400 closes the connection') or diag explain $res->{headers};

$res = raw_http("GET $BASE/catalogs HTTP/1.1\r\n" . host_line() . $auth
                . "no colon here\r\nConnection: close\r\n\r\n");
is_error($res, 400, 'INVALID_PARAMETER_VALUE', 'malformed header line -> 400 JSON');

$res = raw_http("GET $BASE/catalogs HTTP/1.1\r\n${auth}Connection: close\r\n\r\n");
is_error($res, 400, 'INVALID_PARAMETER_VALUE', 'HTTP/1.1 without Host -> 400 JSON');

# Before the <Location>s too, and on any mount: in the dialect of the API
# the URL names.
$res = raw_http("POST /management/v1/action/batch-check HTTP/1.1\r\n"
                . host_line() . $auth . 'X-Big: ' . ('a' x 9000) . "\r\n"
                . "Connection: close\r\n\r\n");
$j = json_of($res);
ok($res->{status} == 400
   && ($res->{headers}{'content-type'} // '') =~ m{^application/json}
   && ref $j eq 'HASH' && ref $j->{error} eq 'HASH'
   && ($j->{error}{type} // '') eq 'INVALID_PARAMETER_VALUE',
   'a header over LimitRequestFieldSize on the batch-check -> 400 in '
   . 'Lakekeeper\'s dialect') or diag explain $res;

# A path httpd cannot decode is refused while the mount's ErrorDocuments
# apply.
is_error(raw_http(plain_request_text(GET => "$BASE/catalogs/a%2Fb")), 404,
         'ENDPOINT_NOT_FOUND', 'an encoded slash in a path -> 404 JSON');
is_error(raw_http(plain_request_text(GET => "$BASE/catalogs/a%00")), 404,
         'ENDPOINT_NOT_FOUND', 'an encoded NUL in a path -> 404 JSON');

# TraceEnable off: httpd refuses TRACE before it walks the <Location>s.
$res = raw_http(plain_request_text(TRACE => "$BASE/catalogs"));
is_error($res, 405, 'METHOD_NOT_ALLOWED', 'TRACE -> 405 JSON');

# --- after the <Location> walk: Require ----------------------------------
$res = raw_http(plain_request_text(GET => "/denied$BASE/catalogs"));
is_error($res, 403, 'PERMISSION_DENIED', 'Require ip refuses -> 403 JSON');
$res = raw_http(plain_request_text(POST => '/denied/management/v1/action/batch-check'));
$j = json_of($res);
ok($res->{status} == 403
   && ($res->{headers}{'content-type'} // '') =~ m{^application/json}
   && ref $j eq 'HASH' && ref $j->{error} eq 'HASH'
   && ($j->{error}{type} // '') eq 'PERMISSION_DENIED'
   && ($j->{error}{code} // 0) == 403,
   'Require ip refuses the batch-check -> 403 in Lakekeeper\'s dialect')
    or diag explain $res;

# --- clients that stall: RequestReadTimeout of 2 s on this vhost -----------
Apache::TestRequest::module('unicat_stall');

$res = stalled_http("GET $BASE/catalogs HTTP/1.1\r\n" . host_line());
is_error($res, 408, 'REQUEST_TIMEOUT', 'headers that stop coming -> 408 JSON');
ok($res->{elapsed} < 10, 'the header timeout answers within seconds')
    or diag "answered after $res->{elapsed} s";

my $post = "POST $BASE/catalogs HTTP/1.1\r\n" . host_line() . $auth
         . "Content-Type: application/json\r\n";
$res = stalled_http($post . "Content-Length: 100\r\n\r\n" . '{"name":');
is_error($res, 408, 'REQUEST_TIMEOUT', 'a body that stops coming -> 408 JSON');
ok($res->{elapsed} < 10, 'the body timeout answers within seconds')
    or diag "answered after $res->{elapsed} s";
ok(closes($res), 'the stalled body closes the connection')
    or diag explain $res->{headers};

$res = stalled_http($post . "Transfer-Encoding: chunked\r\n\r\n" . "8\r\n{\"name\":\r\n");
is_error($res, 408, 'REQUEST_TIMEOUT', 'a chunked body that stops coming -> 408 JSON');

# A route without a body still reads (and drops) one that was announced.
$res = stalled_http("GET $BASE/catalogs HTTP/1.1\r\n" . host_line() . $auth
                    . "Content-Length: 100\r\n\r\n" . 'x');
is_error($res, 408, 'REQUEST_TIMEOUT', 'a stalled body on a GET route -> 408 JSON');

$res = stalled_http("POST /management/v1/action/batch-check HTTP/1.1\r\n"
                    . host_line() . $auth
                    . "Content-Type: application/json\r\n"
                    . "Content-Length: 100\r\n\r\n" . '{"checks":');
$j = json_of($res);
ok($res->{status} == 408
   && ($res->{headers}{'content-type'} // '') =~ m{^application/json}
   && ref $j eq 'HASH' && ref $j->{error} eq 'HASH'
   && ($j->{error}{type} // '') eq 'REQUEST_TIMEOUT'
   && ($j->{error}{code} // 0) == 408,
   'a stalled batch-check body -> 408 in Lakekeeper\'s dialect')
    or diag explain $res;
ok($res->{elapsed} < 10, 'the batch-check body timeout answers within seconds')
    or diag "answered after $res->{elapsed} s";

# The timeout is for clients that stop, not for requests that arrive.
$res = raw_http(plain_request_text(GET => "$BASE/metastore_summary"));
ok($res->{status} == 200, 'a whole request on the same vhost is served')
    or diag explain $res;

Apache::TestRequest::module('default');
$res = raw_http(plain_request_text(GET => "$BASE/metastore_summary"));
ok($res->{status} == 200, 'the main server still answers') or diag explain $res;
