# SPDX-License-Identifier: Apache-2.0
# Routing, methods, authentication, HEAD, metastore_summary and the shape
# of the module's errors (httpd's own refusals: 01_httpd_errors.t).
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 38;

# --- metastore_summary -------------------------------------------------
my $res = api(GET => '/metastore_summary');
is_ok_json($res, 'GET /metastore_summary');
my $ms = json_of($res) || {};
ok(is_uuid($ms->{metastore_id}), 'metastore_id is a UUID')
    or diag explain $ms;
is_deeply([sort keys %$ms], ['metastore_id'], 'summary has only metastore_id');
my $again = json_of(api(GET => '/metastore_summary', user => 'bob')) || {};
is($again->{metastore_id}, $ms->{metastore_id}, 'metastore_id is stable');

# --- HEAD on GET routes (raw socket: LWP never reads a HEAD body) -------
for my $path ('/metastore_summary', '/catalogs') {
    my $r = raw_http(plain_request_text(HEAD => "$BASE$path"));
    ok($r->{status} == 200 && $r->{body} eq ''
       && ($r->{headers}{'content-type'} // '') =~ m{^application/json},
       "HEAD $path -> 200 application/json, no body")
        or diag explain $r;
}
my $head404 = raw_http(plain_request_text(HEAD => "$BASE/catalogs/nope_$$"));
ok($head404->{status} == 404 && $head404->{body} eq '',
   'HEAD on a missing catalog -> 404, no body') or diag explain $head404;

# --- unknown routes -> 404 ENDPOINT_NOT_FOUND ---------------------------
for my $path ('/nope', '/catalogs/abc/def', '/schemas/abc.def/x', '',
              '/metastore_summary/x') {
    is_error(api(GET => $path), 404, 'ENDPOINT_NOT_FOUND',
             "GET $BASE$path -> 404 ENDPOINT_NOT_FOUND");
}
is_error(api(POST => '/nope', body => {}), 404, 'ENDPOINT_NOT_FOUND',
         'POST to an unknown route -> 404');

# --- wrong methods -> 405 with Allow --------------------------------------
my @wrong = (
    [PUT    => '/catalogs',          'GET HEAD POST'],
    [DELETE => '/catalogs',          'GET HEAD POST'],
    [PATCH  => '/catalogs',          'GET HEAD POST'],
    [POST   => '/catalogs/abc',      'DELETE GET HEAD PATCH'],
    [PUT    => '/catalogs/abc',      'DELETE GET HEAD PATCH'],
    [PUT    => '/schemas',           'GET HEAD POST'],
    [POST   => '/schemas/abc.def',   'DELETE GET HEAD PATCH'],
    [POST   => '/metastore_summary', 'GET HEAD'],
    [DELETE => '/metastore_summary', 'GET HEAD'],
);
for my $w (@wrong) {
    my ($m, $path, $allow) = @$w;
    $res = api($m => $path, ($m =~ /^(?:PUT|POST|PATCH)$/ ? (body => {}) : ()));
    is_error($res, 405, 'METHOD_NOT_ALLOWED', "$m $path -> 405 JSON");
    ok(allow_set($res) eq $allow
       && ($res->header('Allow') // '') =~ /^[A-Z]+(?:, ?[A-Z]+)*$/,
       "$m $path: Allow is a comma-separated list of $allow")
        or diag 'Allow: ' . ($res->header('Allow') // 'none');
}

# --- authentication (httpd's 401 rendered as JSON) -------------------------
$res = api(GET => '/catalogs', user => undef);
is_error($res, 401, 'UNAUTHENTICATED', 'no credentials -> 401 JSON');
like($res->header('WWW-Authenticate') // '', qr/^Basic realm=/i,
     '401 keeps WWW-Authenticate');
is_error(api(GET => '/catalogs', user => 'alice', password => 'wrong'),
         401, 'UNAUTHENTICATED', 'wrong password -> 401 JSON');
is_error(api(GET => '/catalogs', user => 'mallory'),
         401, 'UNAUTHENTICATED', 'unknown user -> 401 JSON');
is_error(api(POST => '/catalogs', user => undef, body => { name => 'noauth' }),
         401, 'UNAUTHENTICATED', 'POST without credentials -> 401 JSON');
is_error(api(GET => '/catalogs/noauth'), 404, 'CATALOG_NOT_FOUND',
         'the unauthenticated POST created nothing');

# --- the error location itself ------------------------------------------
$res = raw_http(plain_request_text(GET => '/.unicat-error'));
ok($res->{status} == 404
   && ($res->{headers}{'content-type'} // '') =~ m{^application/json},
   'the error location requested directly -> 404 JSON') or diag explain $res;

