# SPDX-License-Identifier: Apache-2.0
# Providers over HTTP: create, get, list, update (a new profile replaces
# the old), rename, delete; the profile files refused; who may do what;
# their shares listed from a stand-in Delta Sharing server this file runs
# (a forked child on the loopback host that answers only the provider's
# token; the main mount allows it with UnicatProviderPrivateAddresses, the
# /small mount keeps the default, which refuses every internal address as
# a profile is taken and again as a call connects); and that no bearer
# token or client secret that was sent ever comes back: not in an answer,
# not in the error log, not in clear in the database.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use File::Temp ();
use IO::Socket::INET ();
use JSON::PP ();
use POSIX ();
use Unicat::Test;
use MIME::Base64 ();

plan tests => 88;

my $p = "p65_$$";

my %secret = (
    token   => "bearer-TOKEN-$p-one",
    token2  => "bearer-TOKEN-$p-two",
    wrong   => "bearer-TOKEN-$p-wrong",
    client  => "client-SECRET-$p",
);

# --- the stand-in sharing server ------------------------------------------
# It notes every connection it takes in this file, a line each.
my $taken = File::Temp->new;
sub connections_taken {
    open my $f, '<', $taken->filename or return 0;
    my @lines = <$f>;
    return scalar @lines;
}

# GET <prefix>/shares with the expected token: two shares, one per page
# when maxResults=1 (the last page with an empty token); /broken/shares
# what is not JSON; anything else a 401.
my $listen = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0,
                                   Listen => 8, ReuseAddr => 1)
    or die "setup: no stand-in socket: $!\n";
my $port = $listen->sockport;
my $server = fork;
die "setup: fork: $!\n" unless defined $server;
if (!$server) {
    serve_shares($listen);
    POSIX::_exit(0);    # the parent's END blocks are not the child's
}
close $listen;

sub stand_in_answer {
    my ($request, $auth, $body) = @_;
    return token_answer($auth, $body) if $request =~ m{^POST /oauth/token };
    my ($path, $query) = $request =~ m{^GET (/[^? ]*)\??(\S*) HTTP/}
        or return (400, '{}');
    return (200, 'not json') if $path eq '/broken/shares';
    return (404, '{}') unless $path eq '/delta-sharing/shares';
    return (401, '{"errorCode":"UNAUTHENTICATED","message":"leak-me"}')
        unless ($auth // '') eq "Bearer $secret{token2}";
    return (200, '{"items":[{"name":"second","id":"2"}],'
                 . '"nextPageToken":""}')
        if $query =~ /(?:^|&)pageToken=tok%2F2(?:&|$)/;
    return (200, '{"items":[{"name":"first","id":"1"}],'
                 . '"nextPageToken":"tok/2"}')
        if $query =~ /(?:^|&)maxResults=1(?:&|$)/;
    return (200, '{"items":[{"name":"first","id":"1"},'
                 . '{"name":"second","id":"2"}]}');
}

# POST /oauth/token: the client credentials grant of the OAuth
# provider's profile, which buys the token the share listing takes.
sub token_answer {
    my ($auth, $body) = @_;
    my $basic = 'Basic ' . MIME::Base64::encode_base64(
        "client-$p:$secret{client}", '');
    return (401, '{"error":"invalid_client","error_description":"leak-me"}')
        unless ($auth // '') eq $basic
            && ($body // '') eq 'grant_type=client_credentials&scope=sharing';
    return (200, qq({"access_token":"$secret{token2}","token_type":"bearer",)
                 . '"expires_in":3600}');
}

sub serve_shares {
    my ($sock) = @_;
    while (my $c = $sock->accept) {
        if (open my $note, '>>', $taken->filename) {
            print $note "taken\n";
            close $note;
        }
        my ($request, $auth, $line, $length, $sent) = (scalar <$c>);
        while (defined($line = <$c>) && $line =~ /\S/) {
            $auth = $1 if $line =~ /^Authorization:\s*(.*?)\r?$/i;
            $length = $1 if $line =~ /^Content-Length:\s*(\d+)/i;
        }
        read($c, $sent, $length) if $length;
        my ($status, $body) = stand_in_answer($request // '', $auth, $sent);
        print $c "HTTP/1.1 $status X\r\nContent-Type: application/json\r\n"
            . "Content-Length: " . length($body) . "\r\n"
            . "Connection: close\r\n\r\n$body";
        close $c;
    }
}

# A port nothing listens on.
my $closed = do {
    my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0,
                                  Listen => 1) or die "setup: $!\n";
    my $n = $s->sockport;
    close $s;
    $n;
};

my @names;
END {
    local $?;    # the stand-in's end is not this file's status
    api(DELETE => "/providers/$_") for @names;
    if ($server) {
        kill 'TERM', $server;
        waitpid $server, 0;
    }
}

sub profile_v1 {
    my ($token, $endpoint, %more) = @_;
    return to_json_text({ shareCredentialsVersion => 1,
                          endpoint => $endpoint, bearerToken => $token,
                          %more });
}
# POST /providers, on the mount `base` names (the main one by default).
sub provider {
    my ($name, %body) = @_;
    my %on = exists $body{base} ? (base => delete $body{base}) : ();
    push @names, $name;
    return call(POST => '/providers', %on, body => { name => $name, %body });
}

my $endpoint = "http://127.0.0.1:$port/delta-sharing/";
my @KEYS = qw(name id authentication_type comment properties
    recipient_profile_str owner created_at created_by updated_at updated_by
    metastore_id browse_only);

# --- create, get, list ------------------------------------------------------
my $res = provider("prv_$p", authentication_type => 'TOKEN',
                   comment => 'upstream', properties => { team => 'data' },
                   recipient_profile_str => profile_v1(
                       $secret{token}, 'https://sharing.example/ds/',
                       expirationTime => '2031-11-12T00:12:29.0Z'));
is_ok_json($res, 'POST /providers (TOKEN, profile version 1)');
my $prv = json_of($res) || {};
has_keys($prv, \@KEYS, 'provider: every field');
my $shown = eval { JSON::PP->new->decode($prv->{recipient_profile_str}) }
    // {};
is_deeply($shown, { shareCredentialsVersion => 1,
                    endpoint => 'https://sharing.example/ds/',
                    expirationTime => '2031-11-12T00:12:29.0Z' },
          'the profile is answered without its token') or diag explain $prv;
ok($prv->{authentication_type} eq 'TOKEN' && is_uuid($prv->{id})
   && $prv->{owner} eq 'admin' && $prv->{comment} eq 'upstream'
   && $prv->{properties}{team} eq 'data' && is_json_int($prv->{created_at}),
   'the common fields') or diag explain $prv;
is_deeply(json_of(call(GET => "/providers/prv_$p")), $prv,
          'GET /providers/{name} returns what create returned');
my $list = json_of(call(GET => '/providers')) || {};
ok((grep { $_->{name} eq "prv_$p" } @{ $list->{providers} || [] }),
   'GET /providers lists it') or diag explain $list;
is_error(provider("prv_$p", authentication_type => 'TOKEN',
                  recipient_profile_str => profile_v1('x', $endpoint)),
         400, undef, 'a taken name');

# Paged.
is_ok_json(provider("prv2_$p", authentication_type => 'TOKEN',
                    recipient_profile_str => profile_v1($secret{token},
                                                        $endpoint)),
           'a second provider');
my (%seen, $token, $pages);
do {
    my $page = json_of(call(GET => '/providers', query => {
        max_results => 1, defined $token ? (page_token => $token) : () }))
        || {};
    $seen{$_->{name}}++ for @{ $page->{providers} || [] };
    $token = $page->{next_page_token};
    $pages++;
} while (defined $token && $pages < 100);
ok($seen{"prv_$p"} == 1 && $seen{"prv2_$p"} == 1 && $pages >= 2,
   'max_results=1 pages through every provider once');

# OAuth client credentials (profile version 2), at the stand-in.
sub oauth_provider {
    my ($name, %profile) = @_;
    return provider($name, authentication_type => 'OAUTH_CLIENT_CREDENTIALS',
                    recipient_profile_str => to_json_text({
                        shareCredentialsVersion => 2,
                        type => 'oauth_client_credentials',
                        endpoint => $endpoint,
                        tokenEndpoint => "http://127.0.0.1:$port/oauth/token",
                        clientId => "client-$p", %profile }));
}
$res = oauth_provider("oauth_$p", clientSecret => $secret{client},
                      scope => 'sharing');
is_ok_json($res, 'POST /providers (OAUTH_CLIENT_CREDENTIALS, version 2)');
my $oauth = json_of($res) || {};
like($oauth->{recipient_profile_str} // '', qr/"clientId":"client-$p"/,
     'its profile shows the client id');
unlike($oauth->{recipient_profile_str} // '', qr/clientSecret/,
       'and no client secret');
$res = call(GET => "/providers/oauth_$p/shares");
is_ok_json($res, 'its shares, with the access token its credentials buy');
is_deeply([map { $_->{name} } @{ (json_of($res) || {})->{shares} || [] }],
          [qw(first second)], '... from the sharing server');
is_ok_json(oauth_provider("oauthx_$p", clientSecret => 'wrong-secret'),
           'an OAuth provider with a wrong secret');
$res = call(GET => "/providers/oauthx_$p/shares");
is_error($res, 502, undef, 'the token endpoint refuses it: 502',
         message => qr/token endpoint.*401/);
unlike($res->content, qr/leak-me|invalid_client/,
       'the token endpoint\'s own words are not passed on');

# --- profiles refused -------------------------------------------------------
my @bad = (
    [ 'not JSON', "{not json $secret{token}" ],
    [ 'version 3', to_json_text({ shareCredentialsVersion => 3,
                                  endpoint => $endpoint,
                                  bearerToken => $secret{token} }) ],
    [ 'no endpoint', to_json_text({ shareCredentialsVersion => 1,
                                    bearerToken => $secret{token} }) ],
    [ 'no token', to_json_text({ shareCredentialsVersion => 1,
                                 endpoint => $endpoint }) ],
    [ 'http to another host',
      profile_v1($secret{token}, 'http://sharing.example/ds/') ],
    [ 'a bad expirationTime',
      profile_v1($secret{token}, $endpoint, expirationTime => 'soon') ],
);
for my $b (@bad) {
    is_error(provider("bad_$p", authentication_type => 'TOKEN',
                      recipient_profile_str => $b->[1]),
             400, 'INVALID_PARAMETER_VALUE', "refused: $b->[0]");
}
is_error(provider("bad_$p", authentication_type => 'TOKEN'), 400,
         'INVALID_PARAMETER_VALUE', 'refused: no profile');
is_error(provider("bad_$p", authentication_type => 'OAUTH_CLIENT_CREDENTIALS',
                  recipient_profile_str => profile_v1($secret{token},
                                                      $endpoint)),
         400, 'INVALID_PARAMETER_VALUE', 'refused: a version 1 profile for '
         . 'OAuth', message => qr/version 2/);

# --- update, rename ---------------------------------------------------------
$res = call(PATCH => "/providers/prv_$p", body => {
    comment => 'moved', recipient_profile_str => profile_v1($secret{token2},
                                                            $endpoint) });
is_ok_json($res, 'PATCH: a new profile and comment');
my $upd = json_of($res) || {};
ok($upd->{comment} eq 'moved' && $upd->{id} eq $prv->{id}
   && index($upd->{recipient_profile_str} // '', $endpoint) >= 0
   && index($upd->{recipient_profile_str} // '', 'expirationTime') < 0,
   'the new profile replaces the old one') or diag explain $upd;
is_error(call(PATCH => "/providers/prv_$p", body => {
    recipient_profile_str => '[]' }), 400, 'INVALID_PARAMETER_VALUE',
         'PATCH with a profile that is not one');
$res = call(PATCH => "/providers/prv_$p", body => { new_name => "prvx_$p" });
is_ok_json($res, 'PATCH: rename');
push @names, "prvx_$p";
is_error(call(GET => "/providers/prv_$p"), 404, 'NOT_FOUND',
         'the old name is gone');
is((json_of(call(GET => "/providers/prvx_$p")) || {})->{id}, $prv->{id},
   'the new name is the same provider');

# --- its shares -------------------------------------------------------------
$res = call(GET => "/providers/prvx_$p/shares");
is_ok_json($res, 'GET /providers/{name}/shares');
is_deeply(json_of($res), { shares => [ { name => 'first' },
                                       { name => 'second' } ],
                           next_page_token => undef },
          'the stand-in was called with the token and its shares answered');
$res = call(GET => "/providers/prvx_$p/shares", query => { max_results => 1 });
my $page1 = json_of($res) || {};
$res = call(GET => "/providers/prvx_$p/shares",
            query => { page_token => $page1->{next_page_token} // '' });
is_deeply([ $page1, json_of($res) ],
          [ { shares => [ { name => 'first' } ], next_page_token => 'tok/2' },
            { shares => [ { name => 'second' } ], next_page_token => undef } ],
          'max_results and page_token are passed on');
is_ok_json(call(PATCH => "/providers/prvx_$p", body => {
    recipient_profile_str => profile_v1($secret{wrong}, $endpoint) }),
           'a wrong token');
$res = call(GET => "/providers/prvx_$p/shares");
is_error($res, 502, undef, 'the stand-in refuses it: 502',
         message => qr/HTTP 401/);
unlike($res->content, qr/leak-me/, 'without the text of its answer');
is_ok_json(call(PATCH => "/providers/prvx_$p", body => {
    recipient_profile_str => profile_v1($secret{token2},
                                        "http://127.0.0.1:$closed/ds") }),
           'an endpoint nothing listens on');
is_error(call(GET => "/providers/prvx_$p/shares"), 503, undef,
         'unreachable: 503');
is_ok_json(call(PATCH => "/providers/prvx_$p", body => {
    recipient_profile_str => profile_v1($secret{token2},
                                        "http://127.0.0.1:$port/broken") }),
           'an endpoint that answers what is not JSON');
is_error(call(GET => "/providers/prvx_$p/shares"), 502, undef,
         'its answer: 502', message => qr/not a list of shares/);
is_error(call(GET => "/providers/nope_$p/shares"), 404, 'NOT_FOUND',
         'the shares of no provider');

# --- internal addresses, where the mount does not allow them ----------------
my $strict = '/small/api/2.1/unity-catalog';
my @internal = (
    "http://127.0.0.1:$port/delta-sharing/", "http://localhost:$port/ds/",
    "http://[::1]:$port/ds/", 'https://127.0.0.1/ds/',
    'https://2130706433/ds/', 'https://0x7f.0.0.1/ds/',
    'https://017700000001/ds/', 'https://127.1/ds/',
    'https://[::ffff:127.0.0.1]/ds/', 'https://0.0.0.0/ds/', 'https://0/ds/',
    'https://10.20.30.40/ds/', 'https://172.16.0.1/ds/',
    'https://192.168.1.1/ds/', 'https://100.64.0.1/ds/',
    'https://169.254.169.254/latest/', 'https://[fe80::1]/ds/',
    'https://[fd00::1]/ds/', 'https://localhost/ds/',
);
my $before = connections_taken();
for my $url (@internal) {
    is_error(provider("int_$p", base => $strict, authentication_type => 'TOKEN',
                      recipient_profile_str => profile_v1($secret{token}, $url)),
             400, 'INVALID_PARAMETER_VALUE', "an endpoint at $url -> 400",
             message => qr/endpoint is at a loopback, private, link-local or unspecified/);
}
is_error(provider("int_$p", base => $strict,
                  authentication_type => 'OAUTH_CLIENT_CREDENTIALS',
                  recipient_profile_str => to_json_text({
                      shareCredentialsVersion => 2,
                      type => 'oauth_client_credentials',
                      endpoint => 'https://192.0.2.10/ds/',
                      tokenEndpoint => "http://127.0.0.1:$port/oauth/token",
                      clientId => "client-$p", clientSecret => $secret{client} })),
         400, 'INVALID_PARAMETER_VALUE', 'a tokenEndpoint on this host -> 400',
         message => qr/tokenEndpoint is at a loopback/);
for my $url ('https://192.0.2.10/ds/', 'https://172.32.0.1/ds/',
             'https://sharing.example/ds/') {
    (my $n = $url) =~ s/\W+/_/g;
    is_ok_json(provider("pub${n}_$p", base => $strict, authentication_type => 'TOKEN',
                        recipient_profile_str => profile_v1($secret{token}, $url)),
               "an endpoint at $url is taken (a name that does not resolve too)");
}
is_error(call(PATCH => "/providers/prvx_$p", base => $strict, body => {
    recipient_profile_str => profile_v1($secret{token2}, $endpoint) }),
         400, 'INVALID_PARAMETER_VALUE', 'PATCH to a loopback endpoint -> 400');
like((json_of(call(GET => "/providers/prvx_$p")) || {})->{recipient_profile_str}
     // '', qr{/broken}, '... and the profile stays');

# Providers the main mount took are refused where each call connects, with
# the same answer whether anything listens there or not.
is_ok_json(provider("lo_open_$p", authentication_type => 'TOKEN',
                    recipient_profile_str => profile_v1($secret{token2},
                                                        $endpoint)),
           'the main mount takes a provider on this host');
is_ok_json(provider("lo_closed_$p", authentication_type => 'TOKEN',
                    recipient_profile_str => profile_v1(
                        $secret{token2}, "http://127.0.0.1:$closed/ds")),
           'and one at a port nothing listens on');
my $open = call(GET => "/providers/lo_open_$p/shares", base => $strict);
is_error($open, 400, 'FAILED_PRECONDITION',
         'its shares from the strict mount: 400', message => qr/loopback/);
my $shut = call(GET => "/providers/lo_closed_$p/shares", base => $strict);
is_error($shut, 400, 'FAILED_PRECONDITION', 'the closed port: the same 400');
(my $open_text = $open->content) =~ s/lo_open_/lo_X_/g;
(my $shut_text = $shut->content) =~ s/lo_closed_/lo_X_/g;
is($open_text, $shut_text, 'open and closed ports answer alike');
is_error(call(GET => "/providers/oauth_$p/shares", base => $strict), 400,
         'FAILED_PRECONDITION', 'an OAuth provider: its token endpoint is '
         . 'refused', message => qr/token endpoint/);
is(connections_taken(), $before, 'the stand-in was never reached from there');
is_ok_json(call(GET => "/providers/lo_open_$p/shares"),
           'the main mount lists its shares');

# --- who may do what --------------------------------------------------------
my $bob_profile = profile_v1($secret{token}, $endpoint);
is_error(call(POST => '/providers', user => 'bob', body => {
    name => "bob_$p", authentication_type => 'TOKEN',
    recipient_profile_str => $bob_profile }),
         403, 'PERMISSION_DENIED', 'creating needs CREATE PROVIDER');
grant('metastore', 'metastore', 'bob', 'CREATE PROVIDER');
$res = call(POST => '/providers', user => 'bob', body => {
    name => "bob_$p", authentication_type => 'TOKEN',
    recipient_profile_str => $bob_profile });
push @names, "bob_$p";
is((json_of($res) || {})->{owner}, 'bob', 'with it bob creates one and owns '
   . 'it');
is_error(call(GET => "/providers/bob_$p", user => 'alice'), 404,
         'NOT_FOUND', 'hidden from alice');
$list = json_of(call(GET => '/providers', user => 'alice')) || {};
ok(!grep({ $_->{name} =~ /_$p$/ } @{ $list->{providers} || [] }),
   'alice lists none of them') or diag explain $list;
grant('metastore', 'metastore', 'alice', 'USE PROVIDER');
is_ok_json(call(GET => "/providers/bob_$p", user => 'alice'),
           'USE PROVIDER on the metastore shows it');
$list = json_of(call(GET => '/providers', user => 'alice')) || {};
%seen = map { $_->{name} => 1 } @{ $list->{providers} || [] };
ok($seen{"bob_$p"} && $seen{"prvx_$p"} && $seen{"oauth_$p"},
   'and lists every provider') or diag explain $list;
is_error(call(PATCH => "/providers/bob_$p", user => 'alice',
              body => { comment => 'x' }),
         403, 'PERMISSION_DENIED', 'changing needs MANAGE or ownership');
grant('provider', "bob_$p", 'alice', 'MANAGE');
is_ok_json(call(PATCH => "/providers/bob_$p", user => 'alice',
                body => { comment => 'managed' }), 'MANAGE lets alice');
revoke('metastore', 'metastore', 'bob', 'CREATE PROVIDER');
revoke('metastore', 'metastore', 'alice', 'USE PROVIDER');

# --- delete -----------------------------------------------------------------
is(call(DELETE => "/providers/prv2_$p")->code, 200, 'DELETE');
is_error(call(GET => "/providers/prv2_$p"), 404, 'NOT_FOUND', 'gone');

# --- no secret anywhere -----------------------------------------------------
secrets_kept(answers_kept(), [values %secret]);
