# SPDX-License-Identifier: Apache-2.0
# OAUTH_CLIENT_CREDENTIALS recipients: the activation link hands over a
# profile of version 2 (client id and secret, this server's token
# endpoint) once; the token endpoint trades the credentials for access
# tokens of an hour (HTTP Basic or form, client_credentials only, every
# failure of the client the same 401); rotation retires a secret; the
# secret and the access tokens show only in their one answer each.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;
use MIME::Base64 qw(encode_base64);

plan tests => 31;

my $p = "r69_$$";
my @names;
END { api(DELETE => "/recipients/$_") for @names }

my $TOKEN_PATH = '/public/data_sharing_oauth/token';
my $LINK = qr{/public/data_sharing_activation/([A-Za-z0-9_-]{43})$};
sub nonce_of { my ($t) = @_; ($t->{activation_url} // '') =~ $LINK; $1 }
sub basic { 'Basic ' . encode_base64("$_[0]:$_[1]", '') }
sub token_request {
    my (%opt) = @_;
    my $form = exists $opt{form} ? $opt{form}
                                 : 'grant_type=client_credentials';
    return open_api(POST => $TOKEN_PATH, user => undef, raw => $form,
               content_type => $opt{content_type}
                   // 'application/x-www-form-urlencoded',
               headers => $opt{auth} ? [Authorization => $opt{auth}] : []);
}

# --- create and activate ----------------------------------------------------
push @names, "oa_$p";
my $res = call(POST => '/recipients', body => {
    name => "oa_$p", authentication_type => 'OAUTH_CLIENT_CREDENTIALS' });
is_ok_json($res, 'POST /recipients OAUTH_CLIENT_CREDENTIALS');
my $rec = json_of($res) || {};
my $tok = ($rec->{tokens} || [])->[0] || {};
ok($rec->{authentication_type} eq 'OAUTH_CLIENT_CREDENTIALS'
   && @{ $rec->{tokens} } == 1 && is_uuid($tok->{id}) && nonce_of($tok),
   'one client credential with an activation link') or diag explain $rec;

$res = open_api(GET => '/public/data_sharing_activation/' . nonce_of($tok),
           user => undef);
is_ok_json($res, 'activation without credentials');
my $profile = json_of($res) || {};
my ($id, $secret) = @$profile{qw(clientId clientSecret)};
ok($profile->{shareCredentialsVersion} == 2
   && $profile->{type} eq 'oauth_client_credentials'
   && $profile->{endpoint} =~ m{^https?://}
   && $profile->{tokenEndpoint} =~ m{^http://[^/]+/api/2\.1/unity-catalog\Q$TOKEN_PATH\E$}
   && $id eq $tok->{id} && length($secret // '') == 43
   && !exists $profile->{bearerToken},
   'a profile of version 2: the token endpoint, client id and secret')
    or diag explain $profile;
is_error(open_api(GET => '/public/data_sharing_activation/' . nonce_of($tok),
                  user => undef), 404, 'NOT_FOUND', 'the link works once');

# --- the token endpoint -----------------------------------------------------
$res = token_request(auth => basic($id, $secret));
is_ok_json($res, 'client credentials in HTTP Basic');
my $access = json_of($res) || {};
ok(length($access->{access_token} // '') == 43
   && $access->{token_type} eq 'bearer'
   && $access->{expires_in} > 3590 && $access->{expires_in} <= 3600,
   'an access token of an hour') or diag explain $access;
$res = token_request(form => "grant_type=client_credentials&client_id=$id"
                             . "&client_secret=$secret");
is_ok_json($res, 'client credentials in the form');
my $access2 = (json_of($res) || {})->{access_token} // '';
ok(length($access2) == 43 && $access2 ne $access->{access_token},
   'every request gets a token of its own');
is(scalar @{ (json_of(call(GET => "/recipients/oa_$p")) || {})->{tokens}
             || [] }, 1, 'access tokens are not listed as tokens');

my $bad = token_request(auth => basic($id, 'x' x 43));
keep($bad);
is_error($bad, 401, 'UNAUTHENTICATED', 'a wrong secret: 401');
my $unknown = token_request(auth => basic('00000000-0000-4000-8000-000000000000',
                                          $secret));
keep($unknown);
is_error($unknown, 401, 'UNAUTHENTICATED', 'an unknown client: 401');
is($bad->content, $unknown->content,
   'a wrong secret and an unknown client cannot be told apart');
is_error(token_request(auth => basic($id, $secret),
                       form => 'grant_type=password'),
         400, 'INVALID_PARAMETER_VALUE', 'another grant type: 400',
         message => qr/client_credentials/);
is_error(token_request(auth => basic($id, $secret), form => ''),
         400, 'INVALID_PARAMETER_VALUE', 'no grant type: 400');
is_error(token_request(), 401, 'UNAUTHENTICATED', 'no credentials: 401');
is_error(token_request(auth => 'Basic !!!'), 401, 'UNAUTHENTICATED',
         'Basic that is not base64: 401');
is_error(token_request(auth => basic($id, $secret),
                       content_type => 'application/json'),
         415, 'UNSUPPORTED_MEDIA_TYPE', 'a JSON body: 415');
is_error(token_request(auth => basic($secret, $id)), 401, 'UNAUTHENTICATED',
         'the secret as client id: 401');

# --- a TOKEN recipient's bearer token is no client secret ------------------
push @names, "bt_$p";
my $bt = json_of(call(POST => '/recipients', body => {
    name => "bt_$p", authentication_type => 'TOKEN' })) || {};
my $bprofile = json_of(open_api(GET => '/public/data_sharing_activation/'
                           . nonce_of($bt->{tokens}[0]), user => undef)) || {};
my $bearer = $bprofile->{bearerToken} // '';
ok(length $bearer, 'a TOKEN recipient activated');
is_error(token_request(auth => basic($bt->{tokens}[0]{id}, $bearer)), 401,
         'UNAUTHENTICATED', 'its bearer token buys no access token');

# --- rotation ---------------------------------------------------------------
$res = call(POST => "/recipients/oa_$p/rotate-token",
            body => { existing_token_expire_in_seconds => 0 });
is_ok_json($res, 'rotate-token');
my @toks = @{ (json_of($res) || {})->{tokens} || [] };
ok(@toks == 2 && nonce_of($toks[1]), 'a new client credential with a link')
    or diag explain \@toks;
is_error(token_request(auth => basic($id, $secret)), 401, 'UNAUTHENTICATED',
         'the retired secret buys nothing');
my $new = json_of(open_api(GET => '/public/data_sharing_activation/'
                      . nonce_of($toks[1]), user => undef)) || {};
ok($new->{clientId} eq $toks[1]{id} && $new->{clientSecret} ne $secret,
   'the new link gives a new secret') or diag explain $new;
$res = token_request(auth => basic($new->{clientId}, $new->{clientSecret}));
is_ok_json($res, 'the new secret buys an access token');
my $access3 = (json_of($res) || {})->{access_token};

# --- an expiring secret caps the access token -------------------------------
my $soon = (time() + 120) * 1000;
$res = call(PATCH => "/recipients/oa_$p", body => { expiration_time => $soon });
is_ok_json($res, 'PATCH expiration_time of the newest secret');
$res = token_request(auth => basic($new->{clientId}, $new->{clientSecret}));
my $capped = json_of($res) || {};
ok($capped->{expires_in} <= 120 && $capped->{expires_in} > 100,
   'the access token ends with the secret') or diag explain $capped;

# --- the audit and the secrets ----------------------------------------------
secrets_kept(answers_kept(), [$secret, $new->{clientSecret}, $access->{access_token},
                         $access2, $access3, $capped->{access_token}]);
