# SPDX-License-Identifier: Apache-2.0
package Unicat::Test;
# Helpers for mod_unicat's Apache::Test suite (t/api/*.t).
#
#   my $res = api(POST => '/catalogs', body => { name => 'x' });
#   my $res = api(GET => '/schemas', query => { catalog_name => 'x' },
#                 user => 'alice');
#   my $obj = json_of($res);
#
# Every assertion helper (is_ok_json, is_error, is_as_missing, is_catalog,
# is_schema, is_deleted) runs exactly ONE Test::More test, so plans stay
# countable; the individual problems are printed as diagnostics.
use strict;
use warnings;

use Exporter ();
our @ISA = ('Exporter');
use Apache::Test ();
use Apache::TestRequest ();
use HTTP::Request ();
use HTTP::Headers ();
use JSON::PP ();
use IO::Socket::INET ();
use File::Temp ();
use B ();
use Test::More ();

our @EXPORT = qw(
    api api_raw raw_http json_of to_json_text uniq
    is_ok_json is_error is_as_missing is_catalog is_schema is_deleted
    is_json_int is_uuid allow_set
    create_catalog create_schema create_object drop_catalog grant revoke
    race clients one_winner has_keys secrets_kept db_query db_is_sqlite
    commits_of actions_of
    call keep answers_kept made_credential made_location external_table
    $BASE $UUID_RE
);

# Apache::Test sends Test::More's failure diagnostics to STDOUT, where the
# harness shows them only when verbose: a test file's plan (Apache::Test's,
# imported before this module) sends them back to STDERR, so a suite that
# fails says why in its output.
sub import {
    my $caller = caller;
    no strict 'refs';
    no warnings 'redefine';
    if (defined &{"${caller}::plan"}) {
        my $plan = \&{"${caller}::plan"};
        # Compiled in the caller's package: Apache::Test's plan registers
        # the package it is called from.
        *{"${caller}::plan"} = eval "package $caller; sub {
            \$plan->(\@_);
            Test::More->builder->failure_output(\\*STDERR);
        }" or die $@;
    }
    __PACKAGE__->export_to_level(1, @_);
}

our $BASE = '/api/2.1/unity-catalog';
our $UUID_RE = qr/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

my $JSON = JSON::PP->new->utf8(1)->canonical(1)->allow_nonref(1);

# google.rpc.Code expected for each error_code (and for HTTP statuses).
my %RPC_FOR_CODE = (
    INVALID_PARAMETER_VALUE => 3,
    CATALOG_NOT_FOUND       => 5,
    SCHEMA_NOT_FOUND        => 5,
    ENDPOINT_NOT_FOUND      => 5,
    CATALOG_ALREADY_EXISTS  => 6,
    SCHEMA_ALREADY_EXISTS   => 6,
    CATALOG_NOT_EMPTY       => 9,
    SCHEMA_NOT_EMPTY        => 9,
    FAILED_PRECONDITION     => 9,
    TABLE_NOT_FOUND         => 5,
    NOT_FOUND               => 5,
    TABLE_ALREADY_EXISTS    => 6,
    RESOURCE_ALREADY_EXISTS => 6,
    ALREADY_EXISTS          => 6,
    ABORTED                 => 10,
    PERMISSION_DENIED       => 7,
    UNAUTHENTICATED         => 16,
    METHOD_NOT_ALLOWED      => 12,
    REQUEST_TIMEOUT         => 4,
    URI_TOO_LONG            => 3,
);

sub to_json_text { $JSON->encode($_[0]) }

# record_secrets($text): the signatures, activation nonces and tokens in
# what a request sent or an answer carried, appended to t/logs/secrets_used
# (which goes with the logs they must stay out of), one a line, once each.
# t/api/99_secrets_in_logs.t scans the logs for them. Values of fewer than
# six different characters (the tests' "x" x 43) are no secret any log
# could be told apart by.
my %recorded;
sub record_secrets {
    my ($text) = @_;
    return unless defined $text && length $text;
    my @found = grep { my %c = map { $_ => 1 } split //; keys %c >= 6 }
        $text =~ /\bsig=([0-9a-f]{64})/g,
        $text =~ m{data_sharing_activation(?:_info)?/([A-Za-z0-9_-]{43})}g,
        $text =~ /^Authorization:\s*Bearer\s+(\S{16,})/mgi,
        $text =~ /"(?:bearerToken|access_token|clientSecret|refreshToken)"\s*:\s*"([^"]{16,})"/g,
        $text =~ /\bclient_secret=([^&\s]{16,})/g;
    my @new = grep { !$recorded{$_}++ } @found;
    return unless @new;
    open(my $fh, '>>', Apache::Test::vars('t_logs') . '/secrets_used')
        or die "cannot record the suite's secrets: $!";
    print $fh map { "$_\n" } @new;
    close $fh;
}

# Every request of Apache::Test's user agent (api() and the tests' own
# $ua->get alike) and its answer go through record_secrets.
{
    no warnings qw(redefine once);
    *Apache::TestRequest::send_request = sub {
        my ($ua, $req, @rest) = @_;
        my $res = LWP::UserAgent::send_request($ua, $req, @rest);
        record_secrets($req->as_string);
        record_secrets($res->content);
        return $res;
    };
}

sub user_agent {
    Apache::TestRequest::user_agent(keep_alive => 1,
                                    requests_redirectable => 0);
    return Apache::TestRequest::user_agent();
}

sub query_string {
    my ($q) = @_;
    return '' unless defined $q;
    return $q =~ /^\?/ ? $q : "?$q" unless ref $q;
    my @pairs;
    for my $k (sort keys %$q) {
        my $v = $q->{$k};
        push @pairs, _esc($k) . '=' . _esc($v);
    }
    return @pairs ? '?' . join('&', @pairs) : '';
}

sub _esc {
    my ($s) = @_;
    $s = '' unless defined $s;
    $s =~ s/([^A-Za-z0-9_.~-])/sprintf('%%%02X', ord $1)/ge;
    return $s;
}

# api(METHOD, PATH, %opt): a request to the API mount (PATH is relative to
# $BASE unless opt base is given). Options:
#   query        hashref (encoded) or raw query string
#   body         Perl data, sent as JSON (Content-Type application/json)
#   raw          a byte string sent as is (Content-Type from content_type)
#   content_type Content-Type header; undef with raw => none sent
#   user         Basic-auth user (default admin; password = user name);
#                undef => no Authorization header
#   password     override the password
#   base         mount prefix (default $BASE)
#   headers      arrayref of extra header pairs
sub api {
    my ($method, $path, %opt) = @_;
    local $_;    # Apache::Test's config loading clobbers $_ (for-loop aliases)
    my $base = exists $opt{base} ? $opt{base} : $BASE;
    my $url = Apache::TestRequest::resolve_url($base . $path
                                               . query_string($opt{query}));
    my $h = HTTP::Headers->new;
    my $user = exists $opt{user} ? $opt{user} : 'admin';
    if (defined $user) {
        my $pw = exists $opt{password} ? $opt{password} : $user;
        $h->authorization_basic($user, $pw);
    }
    my $content;
    if (exists $opt{body}) {
        $content = $JSON->encode($opt{body});
        $h->header('Content-Type' => exists $opt{content_type}
                   ? $opt{content_type} : 'application/json');
    }
    elsif (exists $opt{raw}) {
        $content = $opt{raw};
        $h->header('Content-Type' => $opt{content_type})
            if defined $opt{content_type};
    }
    if ($opt{headers}) {
        my @kv = @{ $opt{headers} };
        while (my ($k, $v) = splice @kv, 0, 2) { $h->header($k => $v) }
    }
    my $req = HTTP::Request->new($method => $url, $h);
    if (defined $content) {
        $req->content($content);
        $req->header('Content-Length' => length $content);
    }
    elsif ($method eq 'POST' || $method eq 'PATCH' || $method eq 'PUT') {
        $req->header('Content-Length' => 0);
    }
    my $res = user_agent()->request($req);
    $res->{_unicat_desc} = "$method $base$path" . query_string($opt{query});
    return $res;
}

# open_api(@api_args): api() for the open routes (activation links, the
# OAuth token endpoint), which are rate-limited per address: other test
# files may have used up this minute, so a 429 waits out its Retry-After
# (twice at most) before the request is made again.
sub open_api {
    my $res = api(@_);
    for (1 .. 2) {
        last unless $res->code == 429;
        sleep(($res->header('Retry-After') // 1) + 1);
        $res = api(@_);
    }
    return $res;
}
push @EXPORT, 'open_api';

# token_of_recipient($name): the bearer token of a TOKEN recipient, from the
# one-time activation link of its newest token (undef when it has none).
sub token_of_recipient {
    my ($name) = @_;
    my $r = json_of(api(GET => "/recipients/$name")) || {};
    my ($nonce) = (($r->{tokens} || [])->[-1]{activation_url} // '')
        =~ m{/([A-Za-z0-9_-]{43})$};
    my $link = "/public/data_sharing_activation/" . ($nonce // 'none');
    my $res = open_api(GET => $link, user => undef);
    return (json_of($res) || {})->{bearerToken};
}
push @EXPORT, 'token_of_recipient';

# ds_error($res, $status, $errorCode, $name[, $message_re]): one test that
# a Delta Sharing answer is that error: the status, a JSON body with that
# errorCode and a message (matching $message_re when given).
sub ds_error {
    my ($r, $status, $code, $name, $message) = @_;
    my $j = eval { JSON::PP::decode_json($r->content) } || {};
    Test::More::ok($r->code == $status && ($r->header('Content-Type') // '')
       =~ m{^application/json} && ($j->{errorCode} // '') eq $code
       && length($j->{message} // '')
       && (!$message || $j->{message} =~ $message), $name)
        or Test::More::diag($r->code . ' ' . $r->content);
}
push @EXPORT, 'ds_error';

# sharing_api($token, @api_args): api() as a Delta Sharing client calls
# the sharing mount: its bearer token (none when undef), no user, the
# base /delta-sharing unless `base` says otherwise.
sub sharing_api {
    my ($token, $method, $path, %opt) = @_;
    my @h = defined $token ? (Authorization => "Bearer $token") : ();
    push @h, @{ delete $opt{headers} || [] };
    return api($method, $path, base => delete $opt{base} // '/delta-sharing',
               user => undef, headers => \@h, %opt);
}
push @EXPORT, 'sharing_api';

# answer_lines($res): the NDJSON lines of an answer, decoded; [] when one
# is no JSON.
sub answer_lines {
    my ($r) = @_;
    return eval { [ map { JSON::PP::decode_json($_) } split /\n/, $r->content ] }
        || [];
}
push @EXPORT, 'answer_lines';

# curl_status(@curl_args): the HTTP status curl gets for a request to a
# server outside httpd (the S3, Azure and GCS stand-ins), '000' when none.
sub curl_status {
    my (@args) = @_;
    open my $fh, '-|', 'curl', '-s', '-o', '/dev/null', '-w', '%{http_code}',
        '--max-time', '10', @args or die "cannot run curl: $!";
    my $code = <$fh>;
    close $fh;
    return $code // '000';
}
push @EXPORT, 'curl_status';

# raw_http($request_text): one request over a fresh TCP connection, for
# what LWP will not send (chunked bodies). Returns a hashref
# { status, headers => {lc name => value}, body }.
sub raw_http {
    my ($text) = @_;
    local $_;
    my $sock = _connect();
    print $sock $text;
    local $/;
    my $answer = <$sock>;
    close $sock;
    record_secrets($text);
    record_secrets($answer);
    return _parse_answer($answer);
}

sub _connect {
    my $hostport = Apache::TestRequest::hostport();
    my $sock = IO::Socket::INET->new(PeerAddr => $hostport, Timeout => 30)
        or die "cannot connect to $hostport: $!";
    $sock->autoflush(1);
    return $sock;
}

# stalled_http($text, $wait): sends the start of a request and then
# nothing, as a client that stalls, keeping the connection open. Returns
# what raw_http returns plus elapsed: the seconds until the server had
# answered and closed (status 0 when it did not within $wait, default 15).
sub stalled_http {
    my ($text, $wait) = @_;
    local $_;
    require IO::Select;
    require Time::HiRes;
    my $sock = _connect();
    my $start = Time::HiRes::time();
    my $deadline = $start + ($wait // 15);
    print $sock $text;
    my ($answer, $closed) = ('', 0);
    my $select = IO::Select->new($sock);
    while (!$closed) {
        my $left = $deadline - Time::HiRes::time();
        last if $left <= 0 || !$select->can_read($left);
        my $n = sysread $sock, $answer, 8192, length $answer;
        $closed = 1 unless $n;
    }
    my $elapsed = Time::HiRes::time() - $start;
    close $sock;
    record_secrets($text);
    my $res = _parse_answer($closed ? $answer : '');
    $res->{elapsed} = $elapsed;
    return $res;
}
push @EXPORT, 'stalled_http';

sub _parse_answer {
    my ($answer) = @_;
    $answer = '' unless defined $answer;
    my ($head, $body) = split /\r\n\r\n/, $answer, 2;
    $body = '' unless defined $body;
    my @lines = split /\r\n/, $head // '';
    my $status_line = shift @lines // '';
    my ($status) = $status_line =~ m{^HTTP/1\.\d (\d{3})};
    my %headers;
    for (@lines) {
        my ($k, $v) = /^([^:]+):\s*(.*)$/ or next;
        $headers{lc $k} = $v;
    }
    if (($headers{'transfer-encoding'} // '') =~ /chunked/i) {
        my $decoded = '';
        while ($body =~ s/^([0-9a-fA-F]+)[^\r\n]*\r\n//) {
            my $n = hex $1;
            last if $n == 0;
            $decoded .= substr($body, 0, $n, '');
            $body =~ s/^\r\n//;
        }
        $body = $decoded;
    }
    return { status => $status // 0, headers => \%headers, body => $body };
}

# The request text for raw_http: a chunked POST of $payload.
sub chunked_post_text {
    my ($path, $payload, %opt) = @_;
    my $user = $opt{user} // 'admin';
    require MIME::Base64;
    my $auth = MIME::Base64::encode_base64("$user:$user", '');
    my $hostport = Apache::TestRequest::hostport();
    my $text = "POST $path HTTP/1.1\r\nHost: $hostport\r\n"
             . "Authorization: Basic $auth\r\n"
             . "Content-Type: application/json\r\n"
             . "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
    my $chunk = $opt{chunk} || 1000;
    for (my $i = 0; $i < length $payload; $i += $chunk) {
        my $part = substr($payload, $i, $chunk);
        $text .= sprintf("%x\r\n%s\r\n", length $part, $part);
    }
    return $text . "0\r\n\r\n";
}
push @EXPORT, 'chunked_post_text';

# The request text for raw_http: a request without a body (HEAD, GET...).
sub plain_request_text {
    my ($method, $path, %opt) = @_;
    my $user = exists $opt{user} ? $opt{user} : 'admin';
    require MIME::Base64;
    my $hostport = Apache::TestRequest::hostport();
    my $text = "$method $path HTTP/1.1\r\nHost: $hostport\r\n";
    $text .= 'Authorization: Basic '
           . MIME::Base64::encode_base64("$user:$user", '') . "\r\n"
        if defined $user;
    return $text . "Connection: close\r\n\r\n";
}
push @EXPORT, 'plain_request_text';

# Decoded JSON body (cached), or undef when the body is not JSON.
sub json_of {
    my ($res) = @_;
    return $res->{_unicat_json} if exists $res->{_unicat_json};
    my $body = ref $res eq 'HASH' ? $res->{body} : $res->content;
    my $v = eval { $JSON->decode($body) };
    $res->{_unicat_json} = $v;
    return $v;
}

sub _status  { ref $_[0] eq 'HASH' ? $_[0]->{status} : $_[0]->code }
sub _ctype   {
    ref $_[0] eq 'HASH' ? ($_[0]->{headers}->{'content-type'} // '')
                        : ($_[0]->header('Content-Type') // '');
}
sub _desc    { ref $_[0] eq 'HASH' ? 'raw request' : ($_[0]->{_unicat_desc} // '') }
sub _content { ref $_[0] eq 'HASH' ? $_[0]->{body} : $_[0]->content }

sub _report {
    my ($name, $res, @problems) = @_;
    local $Test::Builder::Level = $Test::Builder::Level + 2;
    my $ok = Test::More::ok(!@problems, $name);
    unless ($ok) {
        Test::More::diag("$_") for @problems;
        my $body = _content($res) // '';
        $body = substr($body, 0, 600) . '...' if length $body > 600;
        Test::More::diag(_desc($res) . ' -> ' . _status($res) . ' '
                         . _ctype($res) . ": $body");
    }
    return $ok;
}

# True when the scalar came from a JSON integer (not a string, not a float).
sub is_json_int {
    my ($v) = @_;
    return 0 unless defined $v && !ref $v;
    my $flags = B::svref_2object(\$v)->FLAGS;
    return ($flags & B::SVp_IOK) && !($flags & B::SVp_POK)
        && $v =~ /^-?\d+$/ ? 1 : 0;
}

sub is_uuid { defined $_[0] && !ref $_[0] && $_[0] =~ $UUID_RE }

# is_ok_json($res, $name, $status=200): the status, an application/json
# Content-Type and a JSON object body.
sub is_ok_json {
    my ($res, $name, $status) = @_;
    $status //= 200;
    my @p;
    push @p, "status " . _status($res) . ", expected $status"
        unless _status($res) == $status;
    push @p, "Content-Type '" . _ctype($res) . "', expected application/json"
        unless _ctype($res) =~ m{^application/json\b}i;
    my $j = json_of($res);
    push @p, "body is not a JSON object" unless ref $j eq 'HASH';
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    return _report($name, $res, @p);
}

# is_error($res, $status, $error_code, $name, %opt): the full error shape.
# $error_code undef accepts any non-empty code. opt message => qr// the
# message must match.
sub is_error {
    my ($res, $status, $code, $name, %opt) = @_;
    my @p;
    push @p, "status " . _status($res) . ", expected $status"
        unless _status($res) == $status;
    push @p, "Content-Type '" . _ctype($res) . "', expected application/json"
        unless _ctype($res) =~ m{^application/json\b}i;
    my $j = json_of($res);
    if (ref $j ne 'HASH') {
        push @p, "body is not a JSON object";
    }
    else {
        my $ec = $j->{error_code};
        if (!defined $ec || ref $ec || $ec eq '') {
            push @p, "error_code missing or not a string";
        }
        elsif (defined $code && $ec ne $code) {
            push @p, "error_code '$ec', expected '$code'";
        }
        push @p, "message missing or empty"
            unless defined $j->{message} && !ref $j->{message}
                && length $j->{message};
        if (defined $opt{message} && defined $j->{message}
            && $j->{message} !~ $opt{message}) {
            push @p, "message '$j->{message}' does not match $opt{message}";
        }
        my $d = $j->{details};
        if (ref $d ne 'ARRAY' || !@$d) {
            push @p, "details is not a non-empty array";
        }
        else {
            my ($info) = grep {
                ref $_ eq 'HASH' && ($_->{'@type'} // '') eq
                    'type.googleapis.com/google.rpc.ErrorInfo'
            } @$d;
            if (!$info) {
                push @p, "details has no google.rpc.ErrorInfo";
            }
            elsif (!defined $info->{reason} || !defined $ec
                   || $info->{reason} ne $ec) {
                push @p, "ErrorInfo reason '" . ($info->{reason} // 'undef')
                       . "' differs from error_code";
            }
        }
        my $rpc = $j->{code};
        if (!is_json_int($rpc)) {
            push @p, "code is not a JSON integer";
        }
        elsif (defined $ec && exists $RPC_FOR_CODE{$ec}
               && $rpc != $RPC_FOR_CODE{$ec}) {
            push @p, "code $rpc, expected $RPC_FOR_CODE{$ec} for $ec";
        }
        elsif ($rpc <= 0 || $rpc > 16) {
            push @p, "code $rpc is not a google.rpc.Code error";
        }
    }
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    return _report($name, $res, @p);
}

# is_as_missing($res, $missing, [$name, $missing_name], $name): a refusal
# ($res, about a hidden object) that tells no more than another ($missing,
# about a missing one): the same error status, error_code and message,
# once $missing_name is put in the place of $name in $res's message (the
# name each request gave, which an answer may echo). Without names the
# messages must be equal as they are.
sub is_as_missing {
    my ($res, $missing, $names, $name) = @_;
    my ($got, $want) = (json_of($res), json_of($missing));
    my ($from, $to) = @{ $names || ['', ''] };
    my @p;
    push @p, "not a JSON error" unless ref $got eq 'HASH'
        && ref $want eq 'HASH' && defined $got->{message};
    if (!@p) {
        my $message = $got->{message};
        $message =~ s/\Q$from\E/$to/g if length $from;
        # Delta Sharing's errors name their code errorCode.
        $_->{error_code} //= $_->{errorCode} for $got, $want;
        push @p, 'status ' . _status($res) . ' and ' . _status($missing)
            unless _status($res) == _status($missing) && _status($res) >= 400;
        push @p, "error_code '" . ($got->{error_code} // '') . "' and '"
                 . ($want->{error_code} // '') . "'"
            unless ($got->{error_code} // '') eq ($want->{error_code} // '-');
        push @p, "message '$message' and '" . ($want->{message} // '') . "'"
            unless $message eq ($want->{message} // '');
    }
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    return _report($name, $res, @p);
}

my @CATALOG_KEYS = qw(name comment properties owner created_at created_by
                      updated_at updated_by id storage_root storage_location
                      catalog_type provider_name share_name browse_only);
my @SCHEMA_KEYS = qw(name comment properties owner created_at created_by
                     updated_at updated_by storage_root storage_location
                     catalog_name full_name schema_id browse_only);

sub _check_common {
    my ($o, $exp, $keys, $p) = @_;
    my %want = map { $_ => 1 } @$keys;
    my @missing = grep { !exists $o->{$_} } @$keys;
    my @extra = grep { !$want{$_} } sort keys %$o;
    push @$p, "missing keys: @missing" if @missing;
    push @$p, "unexpected keys: @extra" if @extra;
    push @$p, "properties is not an object"
        unless ref $o->{properties} eq 'HASH';
    for my $k (qw(properties)) {
        next unless ref $o->{$k} eq 'HASH';
        for (keys %{ $o->{$k} }) {
            push @$p, "properties value of '$_' is not a string"
                if !defined $o->{$k}{$_} || ref $o->{$k}{$_};
        }
    }
    for my $k (qw(created_at updated_at)) {
        push @$p, "$k is not a JSON integer"
            unless is_json_int($o->{$k});
    }
    if (is_json_int($o->{created_at})) {
        my $now = time * 1000;
        push @$p, "created_at $o->{created_at} is not epoch ms near now"
            if abs($o->{created_at} - $now) > 3_600_000;
    }
    if (is_json_int($o->{updated_at}) && is_json_int($o->{created_at})) {
        push @$p, "updated_at < created_at"
            if $o->{updated_at} < $o->{created_at};
    }
    for my $k (qw(comment owner created_by updated_by storage_root
                  storage_location)) {
        push @$p, "$k is neither null nor a string"
            if defined $o->{$k} && ref $o->{$k};
    }
    if (defined $o->{storage_root} xor defined $o->{storage_location}) {
        push @$p, "storage_root and storage_location: one is null";
    }
    for my $k (sort keys %$exp) {
        my $want = $exp->{$k};
        my $got = $o->{$k};
        if (ref $want eq 'Regexp') {
            push @$p, "$k '" . ($got // 'null') . "' !~ $want"
                unless defined $got && !ref $got && $got =~ $want;
        }
        elsif (ref $want) {
            my $a = $JSON->encode($got);
            my $b = $JSON->encode($want);
            push @$p, "$k is $a, expected $b" unless $a eq $b;
        }
        elsif (!defined $want) {
            push @$p, "$k is " . $JSON->encode($got) . ", expected null"
                if defined $got;
        }
        else {
            push @$p, "$k is " . $JSON->encode($got) . ", expected '$want'"
                unless defined $got && !ref $got && $got eq $want;
        }
    }
}

# is_catalog($obj_or_res, \%expected, $name): the exact catalog object
# shape plus expected values (undef = JSON null, qr// = match, ref =
# deep equal). A response must be a 200 JSON answer.
sub is_catalog {
    my ($x, $exp, $name) = @_;
    my @p;
    my $o = _object_of($x, \@p);
    if ($o) {
        _check_common($o, $exp, \@CATALOG_KEYS, \@p);
        push @p, "id is not a UUID" unless is_uuid($o->{id});
        push @p, "browse_only is not a JSON boolean"
            unless JSON::PP::is_bool($o->{browse_only});
        push @p, "browse_only is true, expected false"
            if !exists $exp->{browse_only} && $o->{browse_only};
        my $type = $o->{catalog_type} // '';
        push @p, "catalog_type '$type' is not a known type"
            unless $type eq 'MANAGED_CATALOG'
                || $type eq 'DELTASHARING_CATALOG';
        if (defined $o->{storage_root} && is_uuid($o->{id})) {
            my $want = "$o->{storage_root}/__unitystorage/catalogs/$o->{id}";
            push @p, "storage_location '" . ($o->{storage_location} // 'null')
                   . "', expected '$want'"
                unless ($o->{storage_location} // '') eq $want;
        }
    }
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    return _report($name, ref $x eq 'HASH' ? { status => 200,
                                                body => to_json_text($x) }
                                           : $x, @p);
}

sub is_schema {
    my ($x, $exp, $name) = @_;
    my @p;
    my $o = _object_of($x, \@p);
    if ($o) {
        _check_common($o, $exp, \@SCHEMA_KEYS, \@p);
        push @p, "schema_id is not a UUID" unless is_uuid($o->{schema_id});
        push @p, "browse_only is not a JSON boolean"
            unless JSON::PP::is_bool($o->{browse_only});
        push @p, "browse_only is true, expected false"
            if !exists $exp->{browse_only} && $o->{browse_only};
        my $full = ($o->{catalog_name} // '') . '.' . ($o->{name} // '');
        push @p, "full_name '" . ($o->{full_name} // 'null')
               . "', expected '$full'"
            unless ($o->{full_name} // '') eq $full;
        if (defined $o->{storage_root} && is_uuid($o->{schema_id})) {
            my $want = "$o->{storage_root}/__unitystorage/schemas/"
                     . $o->{schema_id};
            push @p, "storage_location '" . ($o->{storage_location} // 'null')
                   . "', expected '$want'"
                unless ($o->{storage_location} // '') eq $want;
        }
    }
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    return _report($name, ref $x eq 'HASH' ? { status => 200,
                                                body => to_json_text($x) }
                                           : $x, @p);
}

sub _object_of {
    my ($x, $p) = @_;
    return $x if ref $x eq 'HASH';
    if (_status($x) != 200) {
        push @$p, "status " . _status($x) . ", expected 200";
        return undef;
    }
    push @$p, "Content-Type '" . _ctype($x) . "', expected application/json"
        unless _ctype($x) =~ m{^application/json\b}i;
    my $o = json_of($x);
    push @$p, "body is not a JSON object" unless ref $o eq 'HASH';
    return ref $o eq 'HASH' ? $o : undef;
}

# is_deleted($res, $name): 200, application/json, body exactly {}.
sub is_deleted {
    my ($res, $name) = @_;
    my @p;
    push @p, "status " . _status($res) . ", expected 200"
        unless _status($res) == 200;
    push @p, "Content-Type '" . _ctype($res) . "', expected application/json"
        unless _ctype($res) =~ m{^application/json\b}i;
    my $j = json_of($res);
    push @p, "body is not {}" unless ref $j eq 'HASH' && !%$j;
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    return _report($name, $res, @p);
}

# The set of methods in an Allow header, sorted: "GET HEAD POST".
sub allow_set {
    my ($res) = @_;
    my $allow = ref $res eq 'HASH' ? $res->{headers}->{allow}
                                   : $res->header('Allow');
    return '' unless defined $allow;
    my %m = map { uc($_) => 1 } grep { length } split /[\s,]+/, $allow;
    return join ' ', sort keys %m;
}

# A name unique to this run and test file: prefix + pid + counter.
my $counter = 0;
sub uniq {
    my ($prefix) = @_;
    $counter++;
    return lc($prefix) . "_${$}_$counter";
}

# Setup helpers: die (failing the file) when setup itself fails.
sub create_catalog {
    my ($name, %fields) = @_;
    my $res = api(POST => '/catalogs', body => { name => $name, %fields });
    die "setup: create catalog $name: " . $res->code . ' ' . $res->content
        unless $res->code == 200;
    return json_of($res);
}

sub create_schema {
    my ($catalog, $name, %fields) = @_;
    my $res = api(POST => '/schemas',
                  body => { name => $name, catalog_name => $catalog,
                            %fields });
    die "setup: create schema $catalog.$name: " . $res->code . ' '
        . $res->content unless $res->code == 200;
    return json_of($res);
}

# grant($type, $full_name, $principal, @privileges): as admin, PATCH
# /permissions adding the privileges; dies (failing the file) on error.
# revoke(...) removes them.
sub _permissions_change {
    my ($what, $type, $name, $principal, @privs) = @_;
    my $res = api(PATCH => "/permissions/$type/$name",
                  body => { changes => [ { principal => $principal,
                                           $what => \@privs } ] });
    die "setup: $what @privs on $type $name for $principal: " . $res->code
        . ' ' . $res->content unless $res->code == 200;
    return json_of($res);
}
sub grant  { _permissions_change('add', @_) }
sub revoke { _permissions_change('remove', @_) }

# create_object($path, \%body): POST as admin (or user => ...); dies
# (failing the file) unless 200; returns the decoded answer.
sub create_object {
    my ($path, $body, %opt) = @_;
    my $res = api(POST => $path, body => $body, %opt);
    die "setup: POST $path: " . $res->code . ' ' . $res->content
        unless $res->code == 200;
    return json_of($res);
}

# has_keys($obj, [keys], $name): exactly these keys. One test.
sub has_keys {
    my ($o, $keys, $name) = @_;
    my @p;
    if (ref $o ne 'HASH') {
        push @p, 'not an object';
    }
    else {
        my %want = map { $_ => 1 } @$keys;
        my @missing = grep { !exists $o->{$_} } @$keys;
        my @extra = grep { !$want{$_} } sort keys %$o;
        push @p, "missing keys: @missing" if @missing;
        push @p, "unexpected keys: @extra" if @extra;
    }
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    return _report($name, { status => 200, body => to_json_text($o) }, @p);
}

# clients($n, $work, %opt): $n processes, each on a fresh connection of
# its own (keep_alive => 0 for none), run $work->($k) for k = 1 .. $n
# while this one runs $opt{meanwhile}; returns what each work returned
# (Perl data, through a pipe), in order, { died => why } for a child that
# died. For clients at once against one server.
sub clients {
    my ($n, $work, %opt) = @_;
    my @kids;
    for my $k (1 .. $n) {
        pipe(my $r, my $w) or die "pipe: $!";
        my $pid = fork // die "fork: $!";
        if (!$pid) {
            close $r;
            Apache::TestRequest::user_agent(reset => 1,
                                            keep_alive => $opt{keep_alive} // 1);
            my $out = eval { [ $work->($k) ] } || [ { died => "$@" } ];
            print $w $JSON->encode($out->[0]);
            close $w;
            require POSIX;
            POSIX::_exit(0);
        }
        close $w;
        push @kids, [ $pid, $r ];
    }
    $opt{meanwhile}->() if $opt{meanwhile};
    my @out;
    for my $kid (@kids) {
        my ($pid, $fh) = @$kid;
        local $/;
        my $text = <$fh>;
        close $fh;
        waitpid $pid, 0;
        push @out, eval { $JSON->decode($text // '') }
                   // { died => 'no report' };
    }
    return @out;
}

# race(@jobs): runs each job (a code ref returning an HTTP::Response) in
# its own process, all released at the same moment. Returns a list of
# "status error_code" strings ("200 -" for a success), in job order.
sub race {
    my @jobs = @_;
    pipe(my $gate_r, my $gate_w) or die "pipe: $!";
    my $run = sub {
        my ($k) = @_;
        close $gate_w;
        my $buf;
        sysread $gate_r, $buf, 1;      # blocks until the gate opens
        my $out = eval {
            my $res = $jobs[$k - 1]->();
            my $j = json_of($res);
            # The catalog API's error_code, or the type of an error of the
            # UC Delta API.
            $res->code . ' ' . (ref $j ne 'HASH' ? '-'
                                : defined $j->{error_code} ? $j->{error_code}
                                : ref $j->{error} eq 'HASH' ? $j->{error}{type} // '-'
                                : '-');
        } // "0 died:$@";
        return $out;
    };
    my $open = sub {
        close $gate_r;
        select undef, undef, undef, 0.2;   # let every child reach the gate
        close $gate_w;                     # open it
    };
    return map { ref $_ ? '0 no-answer' : $_ }
           clients(scalar @jobs, $run, meanwhile => $open);
}

# one_winner($loser, $name, @out): exactly one "200 -", every other answer
# is $loser ("400 SCHEMA_ALREADY_EXISTS"). One test.
sub one_winner {
    my ($loser, $name, @out) = @_;
    my $ok = (grep({ $_ eq '200 -' } @out) == 1)
          && (grep({ $_ eq $loser } @out) == @out - 1);
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    Test::More::ok($ok, $name) or Test::More::diag(join ', ', @out);
    return $ok;
}

# Best-effort cleanup (not a test).
sub drop_catalog {
    my ($name) = @_;
    api(DELETE => "/catalogs/$name", query => { force => 'true' });
}

# shared_tables($tag, { name => [ fixture, { share object fields }, t0 ] },
#               @recipients): a provider's side of a sharing test, dying
# (failing the file) when it cannot be set up. Each fixture of
# t/delta/fixtures is copied to a temporary folder ($tmp/<name>) and made
# the external table cat_<tag>.sales.<name>; with t0, commit v of its
# log is made at t0 + 100 v (git keeps no times, and commit times are
# the files' unless the table has in-commit timestamps); the share
# shr_<tag> holds each as pub.<name> with its fields; each TOKEN
# recipient is granted it and activates its link. Returns { cat, share,
# tmp, ids => { name => table id }, token => { recipient => bearer
# token } }; all is dropped when the test ends.
my @shared_setups;
END {
    for my $s (@shared_setups) {
        api(DELETE => "/shares/$_") for @{ $s->{shares} };
        api(DELETE => "/recipients/$_") for keys %{ $s->{token} };
        drop_catalog($s->{cat});
    }
}
sub shared_tables {
    my ($tag, $tables, @recipients) = @_;
    my $fixtures = Apache::Test::vars('top_dir') . '/t/delta/fixtures';
    my %s = (cat => "cat_$tag", share => "shr_$tag", shares => [ "shr_$tag" ],
             tmp => File::Temp::tempdir("unicat-$tag-XXXXXX", TMPDIR => 1,
                                        CLEANUP => 1));
    push @shared_setups, \%s;
    create_catalog($s{cat});
    create_schema($s{cat}, 'sales');
    create_object('/shares', { name => $s{share} });
    for my $name (sort keys %$tables) {
        my ($fixture, $fields, $t0) = @{ $tables->{$name} };
        system('cp', '-r', "$fixtures/$fixture", "$s{tmp}/$name") == 0
            or die "setup: cannot copy $fixture";
        commits_made_at("$s{tmp}/$name", $t0) if defined $t0;
        $s{ids}{$name} = create_object('/tables', {
            catalog_name => $s{cat}, schema_name => 'sales', name => $name,
            table_type => 'EXTERNAL', data_source_format => 'DELTA',
            columns => [], storage_location => "file://$s{tmp}/$name" })
            ->{table_id};
        share_table(\%s, $s{share}, $name, %{ $fields || {} });
    }
    system('chmod', '-R', 'a+rX', $s{tmp}) == 0 or die "setup: chmod";
    for my $r (@recipients) {
        create_object('/recipients', { name => $r,
                                       authentication_type => 'TOKEN' });
        $s{token}{$r} = undef;
        grant_share(\%s, $s{share}, $r);
        $s{token}{$r} = token_of_recipient($r)
            // die "setup: recipient $r has no token";
    }
    return \%s;
}

# The fixtures whose log goes back to version 0 in JSON commits (every
# version of them can be replayed from the log alone), the name of the
# table each is shared as, and shared_fixtures($tag, \@fixtures,
# @recipients): shared_tables of them with their history, commit v made
# at HISTORY_T0 + 100 v, the change data feed of those whose last
# metaData has it on.
our @FIXTURES_WITH_HISTORY = qw(
    simple_table simple_table_with_checkpoint python-0.25.5-checkpoint
    delta-0.8.0-partitioned delta-0.8.0-null-partition
    delta-0.8.0-special-partition cdf-table cdc_ict_table table-with-dv-small
    dv-partitioned-with-checkpoint table_with_column_mapping
    data-reader-timestamp_ntz v2-checkpoint-parquet v2-checkpoint-json
    checkpoint-v2-table multi-part-checkpoint delta-1.2.1-only-struct-stats
    with_checkpoint_no_last_checkpoint table_failed_last_checkpoint_update
);
use constant HISTORY_T0 => 1_700_000_000;
sub fixture_table_name { (my $n = lc $_[0]) =~ s/[^a-z0-9]/_/g; "t_$n" }
sub shared_fixtures {
    my ($tag, $fixtures, @recipients) = @_;
    my $dir = Apache::Test::vars('top_dir') . '/t/delta/fixtures';
    return shared_tables($tag, { map {
        my ($meta) = grep { $_ } map { $_->{metaData} }
                     reverse map { actions_of($_) } commits_of("$dir/$_");
        my $cdf = ((($meta || {})->{configuration} || {})
                   ->{'delta.enableChangeDataFeed'} // '') eq 'true';
        (fixture_table_name($_) => [ $_, {
            history_data_sharing_status => 'ENABLED',
            $cdf ? (enable_cdf => \1) : () }, HISTORY_T0 ])
    } @$fixtures }, @recipients);
}
push @EXPORT, qw(@FIXTURES_WITH_HISTORY fixture_table_name shared_fixtures);

# share_table($setup, $share, $name, %fields): adds table `name` of
# shared_tables' catalog to `share` as pub.<name> (a share of its own is
# created first, and dropped with the rest). grant_share($setup, $share,
# $recipient) grants it SELECT. Both die when refused.
sub share_table {
    my ($s, $share, $name, %fields) = @_;
    unless (grep { $_ eq $share } @{ $s->{shares} }) {
        create_object('/shares', { name => $share });
        push @{ $s->{shares} }, $share;
    }
    my $res = api(PATCH => "/shares/$share", body => { updates => [
        { action => 'ADD', data_object => {
            name => "$s->{cat}.sales.$name", shared_as => "pub.$name",
            %fields } } ] });
    die "setup: share $name: " . $res->code . ' ' . $res->content
        unless $res->code == 200;
}
sub grant_share {
    my ($s, $share, $recipient) = @_;
    my $res = api(PATCH => "/shares/$share/permissions", body => { changes => [
        { principal => $recipient, add => ['SELECT'] } ] });
    die "setup: grant $share to $recipient: " . $res->code . ' '
        . $res->content unless $res->code == 200;
}
push @EXPORT, qw(shared_tables share_table grant_share);

# secrets_kept(\@answers, \@secrets, \@logged_only): the secrets a test
# sent (and, in @logged_only, others it was handed once, such as vended
# credentials) were not given back: no answer body holds one of @secrets,
# the error log and the audit log hold none of either, and neither does the SQLite database
# file when the backend is one. Three tests (the last skipped on
# PostgreSQL).
sub secrets_kept {
    my ($answers, $secrets, $logged_only) = @_;
    my @sent = grep { defined && length } @$secrets;
    my @all = (@sent, grep { defined && length } @{ $logged_only || [] });
    my $read = sub { my ($path) = @_; local (@ARGV, $/) = ($path);
                     -f $path ? scalar <> : '' };
    my @found = grep { my $s = $_; grep { index($_, $s) >= 0 } @$answers }
                @sent;
    Test::More::is_deeply(\@found, [], 'no answer holds a secret that was sent');
    my $logs = Apache::Test::vars('serverroot') . '/logs';
    my $log = $read->("$logs/error_log") . $read->("$logs/audit.log");
    @found = grep { index($log, $_) >= 0 } @all;
    Test::More::is_deeply(\@found, [],
                          'neither the error log nor the audit log holds one');
  SKIP: {
        my ($db) = grep { -f } map { /^DBDParams\s+"?([^"\s]+\.db)"?/ ? $1 : () }
            split /\n/, $read->(Apache::Test::vars('t_conf') . '/backend.conf');
        Test::More::skip('the database is not a SQLite file', 1) unless $db;
        my $bytes = $read->($db) . $read->("$db-wal");
        @found = grep { index($bytes, $_) >= 0 } @sent;
        Test::More::is_deeply(\@found, [], 'the database holds none in clear');
    }
}

# The suite's database, reached beside the API with its own command-line
# client: db_is_sqlite() says which backend t/conf/backend.conf names;
# db_query($sql, write => 1) runs one statement and returns its output
# (rows one per line, columns |-separated), read-only unless `write`.
sub _backend {
    local (@ARGV, $/) = (Apache::Test::vars('t_conf') . '/backend.conf');
    my $conf = <>;
    my ($params) = $conf =~ /^DBDParams\s+"([^"]+)"/m;
    return (scalar($conf =~ /^DBDriver\s+sqlite3/m) ? 1 : 0, $params);
}
sub db_is_sqlite { (_backend())[0] }
sub db_query {
    my ($sql, %opt) = @_;
    my ($sqlite, $params) = _backend();
    my @cmd = $sqlite
        ? ('sqlite3', '-batch', ($opt{write} ? () : ('-readonly')), $params, $sql)
        : do { my %kv = map { split /=/, $_, 2 } split ' ', $params;
               (($ENV{PG_BIN} ? "$ENV{PG_BIN}/" : '') . 'psql', '-X', '-At',
                '-h', $kv{host}, '-U', $kv{user}, '-d', $kv{dbname}, '-c', $sql) };
    open(my $fh, '-|', @cmd) or die "cannot run $cmd[0]: $!";
    local $/;
    my $out = <$fh> // '';
    close $fh or die "$cmd[0] failed (status $?) on: $sql\n";
    $out =~ s/\s+\z//;
    return $out;
}

# own_httpd($config): an httpd of the test's own beside the suite's server,
# on a free port of 127.0.0.1, with the suite's modules (t/TEST.PL's
# LoadModule lines), the module, and `$config` after them (mounts, a
# database; @DIR@ in it names the server's own folder). Returns
# { url => 'http://127.0.0.1:PORT', dir => its folder, up => whether it
# listens, log => sub giving its output and error log, stop => sub } once
# it accepts connections or has exited; it stops at the latest when the
# test ends.
my @own_servers;
END { $_->{stop}->() for @own_servers }
sub own_httpd {
    my ($config) = @_;
    require File::Temp;
    require POSIX;
    my $dir = File::Temp::tempdir('unicat-own-XXXXXX', TMPDIR => 1, CLEANUP => 1);
    my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0,
                                  Proto => 'tcp', Listen => 1)
        or die "no free port: $!";
    my $port = $s->sockport;
    close $s;
    my $top = Apache::Test::vars('top_dir');
    my $modules = Apache::Test::vars('httpd_conf');
    $config =~ s/\@DIR\@/$dir/g;
    open(my $cf, '>', "$dir/httpd.conf") or die "$dir/httpd.conf: $!";
    print $cf <<"CONF";
ServerRoot "$dir"
Include "$modules"
LoadModule unicat_module "$top/mod_unicat/.libs/mod_unicat.so"
ServerName 127.0.0.1
Listen 127.0.0.1:$port
PidFile "$dir/httpd.pid"
ErrorLog "$dir/error_log"
DefaultRuntimeDir "$dir"
# mod_mime, among the suite's modules, wants a types file; none is needed.
TypesConfig /dev/null
$config
CONF
    close $cf;
    my $pid = fork() // die "fork: $!";
    if (!$pid) {
        # A process group of its own: prefork's httpd signals its whole
        # group as it stops, which would otherwise be this test.
        POSIX::setsid();
        open(STDOUT, '>', "$dir/stdout") or POSIX::_exit(127);
        open(STDERR, '>&', \*STDOUT) or POSIX::_exit(127);
        exec(Apache::Test::vars('httpd'), '-f', "$dir/httpd.conf",
             '-DFOREGROUND') or POSIX::_exit(127);
    }
    my $server = { url => "http://127.0.0.1:$port", dir => $dir, up => 0 };
    $server->{log} = sub {
        my $text = '';
        for my $path ("$dir/stdout", "$dir/error_log") {
            open(my $l, '<', $path) or next;
            local $/;
            $text .= <$l> // '';
        }
        return $text;
    };
    $server->{stop} = sub {
        return unless $pid;
        kill 'TERM', $pid;
        waitpid $pid, 0;
        $pid = 0;
    };
    push @own_servers, $server;
    require Time::HiRes;
    for (1 .. 200) {
        if (waitpid($pid, POSIX::WNOHANG()) == $pid) {
            $pid = 0;
            last;
        }
        if (IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port,
                                  Proto => 'tcp')) {
            $server->{up} = 1;
            last;
        }
        Time::HiRes::sleep(0.05);
    }
    return $server;
}
push @EXPORT, 'own_httpd';

# The catalog API mounted as the suite mounts it (admin the metastore
# admin, the suite's users by Basic authentication), for own_httpd.
sub catalog_mount {
    my $t_dir = Apache::Test::vars('t_dir');
    return <<"CONF";
<Location /api/2.1/unity-catalog>
    SetHandler unicat-catalog
    Unicat On
    UnicatMetastoreAdmin admin
    AuthType Basic
    AuthName "Unity Catalog"
    AuthBasicProvider file
    AuthUserFile "$t_dir/state/htpasswd"
    Require valid-user
</Location>
CONF
}
push @EXPORT, 'catalog_mount';


# The JSON commit files of a Delta table's log, in version order, and the
# actions of one, as Perl data: the log as the test reads it itself.
sub commits_of {
    my ($dir) = @_;
    return sort grep { m{/\d{20}\.json\z} } glob "$dir/_delta_log/*.json";
}
# commits_made_at($dir, $t0): commit v of the table's log made at
# t0 + 100 v (its file's times).
sub commits_made_at {
    my ($dir, $t0) = @_;
    my $v = 0;
    for my $commit (commits_of($dir)) {
        my $t = $t0 + 100 * $v++;
        utime $t, $t, $commit or die "setup: $commit: $!";
    }
}
sub actions_of {
    my ($commit) = @_;
    open my $fh, '<', $commit or die "cannot read $commit: $!";
    return map { $JSON->decode($_) } grep { /\S/ } <$fh>;
}


# call(@api_args): api() whose answer a file's scan for secrets reads at
# its end (answers_kept(), secrets_kept's first argument); keep($res)
# adds an answer got otherwise.
my @KEPT;
sub keep { push @KEPT, $_[0]->content; return $_[0] }
sub call { return keep(api(@_)) }
sub answers_kept { return \@KEPT }

# A credential or an external location made for a file, and deleted
# (with force) once its catalogs are gone: this END runs after the
# file's own.
my (@MADE_CREDENTIALS, @MADE_LOCATIONS);
END {
    api(DELETE => "/external-locations/$_", query => { force => 'true' })
        for @MADE_LOCATIONS;
    api(DELETE => "/credentials/$_", query => { force => 'true' })
        for @MADE_CREDENTIALS;
}
sub made_credential {
    my ($name, %body) = @_;
    push @MADE_CREDENTIALS, $name;
    return create_object('/credentials', { name => $name, %body });
}
sub made_location {
    my ($name, $url, $cred) = @_;
    push @MADE_LOCATIONS, $name;
    return create_object('/external-locations', {
        name => $name, url => $url, credential_name => $cred });
}
# An external Delta table `name` of catalog.schema at `url`.
sub external_table {
    my ($catalog, $schema, $name, $url) = @_;
    return create_object('/tables', {
        catalog_name => $catalog, schema_name => $schema, name => $name,
        table_type => 'EXTERNAL', data_source_format => 'DELTA',
        columns => [], storage_location => $url });
}

1;
