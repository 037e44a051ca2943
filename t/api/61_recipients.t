# SPDX-License-Identifier: Apache-2.0
# Delta Sharing recipients over HTTP: create, get, list, update, rename,
# delete, who may do what, the one-time activation link on the public
# routes (without credentials, once, the same 404 for a used link and an
# unknown one, rate-limited), token rotation, and that the bearer token
# shows in the one activation answer and nowhere else: not in another
# answer, not in the error log.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 60;

my $p = "r64_$$";
my @names;
END { api(DELETE => "/recipients/$_") for @names }
sub recipient {
    my ($name, %body) = @_;
    push @names, $name;
    return call(POST => '/recipients', body => {
        name => $name, authentication_type => 'TOKEN', %body });
}

my $ENDPOINT = 'https://sharing.example.test/delta-sharing/';
my $LINK = qr{^http://[^/]+/api/2\.1/unity-catalog/public/
              data_sharing_activation/([A-Za-z0-9_-]{43})$}x;
my @KEYS = qw(name id authentication_type comment properties tokens owner
    created_at created_by updated_at updated_by metastore_id browse_only);
my @TOKEN_KEYS = qw(id activation_url expiration_time created_at created_by
    updated_at updated_by);
sub nonce_of { my ($t) = @_; ($t->{activation_url} // '') =~ $LINK; $1 }
sub public {
    my ($route, $nonce) = @_;
    return api(GET => "/public/$route/$nonce", user => undef);
}

# --- create, get, list ------------------------------------------------------
my $res = recipient("one_$p", comment => 'first',
                    properties => { team => 'data' });
is_ok_json($res, 'POST /recipients TOKEN');
my $one = json_of($res) || {};
has_keys($one, \@KEYS, 'recipient: every field');
ok($one->{authentication_type} eq 'TOKEN' && $one->{comment} eq 'first'
   && $one->{properties}{team} eq 'data' && $one->{owner} eq 'admin'
   && is_uuid($one->{id}) && is_json_int($one->{created_at}),
   'the fields as given') or diag explain $one;
my $tok = ($one->{tokens} || [])->[0] || {};
is(scalar @{ $one->{tokens} || [] }, 1, 'one token');
has_keys($tok, \@TOKEN_KEYS, 'token: every field');
ok(is_uuid($tok->{id}) && nonce_of($tok) && !defined $tok->{expiration_time}
   && $tok->{created_by} eq 'admin' && is_json_int($tok->{created_at}),
   'token: id, an absolute activation link, no expiry')
    or diag explain $tok;
is_deeply(json_of(call(GET => "/recipients/one_$p")), $one,
          'GET /recipients/{name} returns what create returned');

my $later = (time() + 86400) * 1000;
$res = recipient("two_$p", expiration_time => $later);
is_ok_json($res, 'with an expiration_time');
my $two = json_of($res) || {};
is($two->{tokens}[0]{expiration_time}, $later, 'the token expires then');

my $list = json_of(call(GET => '/recipients',
                        query => { max_results => 1000 })) || {};
my %listed = map { $_->{name} => 1 } @{ $list->{recipients} || [] };
ok($listed{"one_$p"} && $listed{"two_$p"}, 'GET /recipients lists them')
    or diag explain $list;
my ($in_list) = grep { $_->{name} eq "two_$p" } @{ $list->{recipients} || [] };
is_deeply($in_list->{tokens}, (json_of(call(GET => "/recipients/two_$p"))
                               || {})->{tokens},
          '... with the tokens their get shows');
$list = json_of(call(GET => '/recipients', query => { max_results => 1 }))
      || {};
ok(@{ $list->{recipients} || [] } == 1 && $list->{next_page_token},
   'paged') or diag explain $list;

# --- what is refused --------------------------------------------------------
is_error(call(POST => '/recipients', body => { name => "x_$p" }), 400,
         'INVALID_PARAMETER_VALUE', 'no authentication_type',
         message => qr/authentication_type/);
is_error(call(POST => '/recipients', body => {
    name => "x_$p", authentication_type => 'PASSWORD' }), 400,
         'INVALID_PARAMETER_VALUE', 'an unknown authentication_type');
is_error(recipient("x_$p", properties => { ip_access_list => '10.0.0.0/8, 300.1.1.1' }),
         400, 'INVALID_PARAMETER_VALUE', 'an IP access list that does not parse',
         message => qr/ip_access_list.*300\.1\.1\.1/);
is_error(call(PATCH => "/recipients/two_$p", body => {
    properties => { ip_access_list => '10.1.2.3/8' } }), 400,
         'INVALID_PARAMETER_VALUE', '... nor on update',
         message => qr/10\.1\.2\.3\/8/);
$res = call(PATCH => "/recipients/two_$p", body => {
    properties => { ip_access_list => '127.0.0.1, ::1, 10.0.0.0/8' } });
is((json_of($res) || {})->{properties}{ip_access_list},
   '127.0.0.1, ::1, 10.0.0.0/8', 'a good IP access list is kept as given');
is_error(recipient("x_$p", expiration_time => 1000), 400,
         'INVALID_PARAMETER_VALUE', 'an expiration_time in the past',
         message => qr/future/);
is_error(recipient("one_$p"), 400, 'RESOURCE_ALREADY_EXISTS',
         'a taken name');
is_error(call(GET => "/recipients/none_$p"), 404, 'NOT_FOUND',
         'GET of a missing recipient');
is_error(call(GET => "/recipients/x_$p"), 404, 'NOT_FOUND',
         'nothing refused was created');

# --- update, rename ---------------------------------------------------------
$res = call(PATCH => "/recipients/one_$p", body => {
    new_name => "uno_$p", comment => 'renamed',
    properties => { team => 'lake' } });
is_ok_json($res, 'PATCH: rename, comment, properties');
push @names, "uno_$p";
my $uno = json_of($res) || {};
ok($uno->{name} eq "uno_$p" && $uno->{comment} eq 'renamed'
   && $uno->{properties}{team} eq 'lake' && $uno->{id} eq $one->{id}
   && $uno->{tokens}[0]{id} eq $tok->{id}, 'renamed; the token stays')
    or diag explain $uno;
is_error(call(GET => "/recipients/one_$p"), 404, 'NOT_FOUND',
         'the old name is gone');
is_error(call(PATCH => "/recipients/uno_$p", body => { new_name => "two_$p" }),
         400, 'RESOURCE_ALREADY_EXISTS', 'rename onto a taken name');
$res = call(PATCH => "/recipients/two_$p",
            body => { expiration_time => $later + 1000 });
is((json_of($res) || {})->{tokens}[0]{expiration_time}, $later + 1000,
   'PATCH expiration_time moves the token expiry');

# --- activation -------------------------------------------------------------
my $nonce = nonce_of($tok);
$res = public('data_sharing_activation_info', $nonce);
keep($res);
is_ok_json($res, 'activation info without credentials');
is($res->content, '{}', '... answers {}');
$res = public('data_sharing_activation', $nonce);
is_ok_json($res, 'activation without credentials');
my $profile = json_of($res) || {};
my $bearer = $profile->{bearerToken} // '';
ok($profile->{shareCredentialsVersion} == 1
   && $profile->{endpoint} eq $ENDPOINT && length($bearer) >= 43
   && !exists $profile->{expirationTime},
   'the profile file: version 1, the endpoint, a token of 256 bits')
    or diag explain $profile;
my $used = public('data_sharing_activation', $nonce);
keep($used);
is_error($used, 404, 'NOT_FOUND', 'a second activation: 404');
my $unknown = public('data_sharing_activation', 'x' x 43);
keep($unknown);
is_error($unknown, 404, 'NOT_FOUND', 'an unknown link: 404');
is($used->content, $unknown->content,
   'used and unknown links cannot be told apart');
is_error(public('data_sharing_activation_info', $nonce), 404, 'NOT_FOUND',
         'the info of a used link: 404');
$uno = json_of(call(GET => "/recipients/uno_$p")) || {};
ok(!defined $uno->{tokens}[0]{activation_url},
   'the recipient shows no link once it is used') or diag explain $uno;

$res = public('data_sharing_activation', nonce_of($two->{tokens}[0]));
my $profile2 = json_of($res) || {};
like($profile2->{expirationTime} // '', qr/^\d{4}-\d\d-\d\dT[\d:.]+Z$/,
     'a token with an expiry: expirationTime in ISO-8601')
    or diag explain $profile2;

# --- rotation ---------------------------------------------------------------
is_error(call(POST => "/recipients/uno_$p/rotate-token", body => {}), 400,
         'INVALID_PARAMETER_VALUE', 'rotate-token needs the old token expiry',
         message => qr/existing_token_expire_in_seconds/);
my $before = time() * 1000;
$res = call(POST => "/recipients/uno_$p/rotate-token",
            body => { existing_token_expire_in_seconds => 3600 });
is_ok_json($res, 'POST rotate-token');
my @toks = @{ (json_of($res) || {})->{tokens} || [] };
is(scalar @toks, 2, 'two tokens now');
ok($toks[0]{id} eq $tok->{id} && $toks[0]{expiration_time} >= $before
       + 3600_000 - 2000 && $toks[0]{expiration_time} <= time() * 1000
       + 3600_000 + 2000 && !defined $toks[1]{expiration_time}
   && nonce_of($toks[1]) && !defined $toks[0]{activation_url},
   'the old token expires in an hour, the new one has a link')
    or diag explain \@toks;
my $rotated = nonce_of($toks[1]);
$res = call(POST => "/recipients/uno_$p/rotate-token",
            body => { existing_token_expire_in_seconds => 0 });
@toks = @{ (json_of($res) || {})->{tokens} || [] };
ok(@toks == 3 && $toks[0]{expiration_time} <= (time() + 1) * 1000
   && $toks[1]{expiration_time} <= (time() + 1) * 1000
   && !defined $toks[1]{activation_url} && !defined $toks[2]{expiration_time},
   'rotate with 0: both older tokens expire now, their links go')
    or diag explain \@toks;
is_error(public('data_sharing_activation', $rotated), 404,
         'NOT_FOUND', 'the link of an expired token is gone');
my $newest = public('data_sharing_activation', nonce_of($toks[2]));
my $bearer3 = (json_of($newest) || {})->{bearerToken} // '';
ok(length($bearer3) >= 43 && $bearer3 ne $bearer,
   'the new link gives a new token');

# --- who may do what --------------------------------------------------------
is_error(call(POST => '/recipients', user => 'bob', body => {
    name => "bob_$p", authentication_type => 'TOKEN' }),
         403, 'PERMISSION_DENIED', 'creating needs CREATE RECIPIENT');
grant('metastore', 'metastore', 'bob', 'CREATE RECIPIENT');
push @names, "bob_$p";
$res = call(POST => '/recipients', user => 'bob', body => {
    name => "bob_$p", authentication_type => 'TOKEN' });
is_ok_json($res, 'with it bob creates one');
is((json_of($res) || {})->{owner}, 'bob', 'and owns it');
is_error(call(GET => "/recipients/bob_$p", user => 'alice'), 404,
         'NOT_FOUND', 'alice does not see it');
$list = json_of(call(GET => '/recipients', user => 'alice',
                     query => { max_results => 1000 })) || {};
ok(!grep({ $_->{name} eq "bob_$p" } @{ $list->{recipients} || [] }),
   'nor in a list');
grant('metastore', 'metastore', 'alice', 'USE RECIPIENT');
is_ok_json(call(GET => "/recipients/bob_$p", user => 'alice'),
           'USE RECIPIENT on the metastore shows it');
$list = json_of(call(GET => '/recipients', user => 'alice',
                     query => { max_results => 1000 })) || {};
ok(grep({ $_->{name} eq "bob_$p" } @{ $list->{recipients} || [] }),
   'and lists every recipient') or diag explain $list;
is_error(call(PATCH => "/recipients/bob_$p", user => 'alice',
              body => { comment => 'x' }),
         403, 'PERMISSION_DENIED', 'changing needs MANAGE or ownership');
is_error(call(POST => "/recipients/bob_$p/rotate-token", user => 'alice',
              body => { existing_token_expire_in_seconds => 0 }),
         403, 'PERMISSION_DENIED', 'so does rotating');
revoke('metastore', 'metastore', 'bob', 'CREATE RECIPIENT');
revoke('metastore', 'metastore', 'alice', 'USE RECIPIENT');

# --- delete -----------------------------------------------------------------
my $bob = json_of(call(GET => "/recipients/bob_$p")) || {};
is(call(DELETE => "/recipients/bob_$p")->code, 200, 'DELETE');
is_error(call(GET => "/recipients/bob_$p"), 404, 'NOT_FOUND',
         'it is gone');
is_error(public('data_sharing_activation', nonce_of($bob->{tokens}[0])),
         404, 'NOT_FOUND', 'and so is its link');

# --- the rate limit of the open routes --------------------------------------
my $limited;
for (1 .. 200) {
    $limited = public('data_sharing_activation_info', 'y' x 43);
    last if $limited->code == 429;
}
is_error($limited, 429, 'REQUEST_LIMIT_EXCEEDED',
         'many quick requests of one address: 429');
like($limited->header('Retry-After') // '', qr/^[1-9]\d*$/,
     '... with Retry-After');

# --- the token nowhere else -------------------------------------------------
secrets_kept(answers_kept(), [grep { length } $bearer, $bearer3]);
