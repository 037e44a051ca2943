# SPDX-License-Identifier: Apache-2.0
# The continuation tokens of the sharing server (pages of the lists, of a
# query's files and of a startingVersion range, refresh tokens), as a
# hostile recipient tries them: a token it writes itself, one it changes,
# cuts or lengthens, one of another table, share, recipient, route or
# request parameters. Each is the same 400, which names nothing. And
# whatever a token says, the version it leads to passes the checks of the
# share (history sharing, start_version): a forged token once read
# version 0 of a table shared without history, files since deleted
# included. A legitimate walk through the pages still reaches every file
# once.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use MIME::Base64 ();
use JSON::PP ();
use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 45;

my %history = (history_data_sharing_status => 'ENABLED');
my @recipients = ("rca_tk67_$$", "rcb_tk67_$$");
my $setup = shared_tables("tk67_$$", {
    nohist => [ 'simple_table' ],
    start2 => [ 'simple_table', { %history, start_version => 2 } ],
    hist => [ 'simple_table', \%history ],
    cdf => [ 'cdf-table', { %history, enable_cdf => \1 } ],
}, @recipients);
my ($cat, $share, $tmp) = @$setup{qw(cat share tmp)};
my %ids = %{ $setup->{ids} };
my %token = %{ $setup->{token} };
# The twin share holds one of the tables again, granted to both.
my $twin = "twn_tk67_$$";
share_table($setup, $twin, 'nohist');
grant_share($setup, $twin, $_) for @recipients;
my $me = $recipients[0];

# --- the recipients' client ---------------------------------------------------
sub query {
    my ($table, $body, %opt) = @_;
    my $who = delete $opt{as} // $me;
    my $in = delete $opt{share} // $share;
    return sharing_api($token{$who}, POST =>
                       "/shares/$in/schemas/pub/tables/$table/query",
                       body => $body, %opt);
}
sub end_of { (answer_lines($_[0])->[-1] || {})->{endStreamAction} || {} }
sub next_of { end_of($_[0])->{nextPageToken} }
sub file_ids {
    [ sort map { $_->{file}{id} } grep { $_->{file} } @{ answer_lines($_[0]) } ]
}
# The add and remove lines of a startingVersion range, without their URLs.
sub change_lines {
    my $json = JSON::PP->new->canonical;
    [ sort map { my %c = %{ $_->{add} || $_->{remove} };
                 delete @c{qw(url expirationTimestamp)}; $json->encode(\%c) }
      grep { $_->{add} || $_->{remove} } @{ answer_lines($_[0]) } ]
}
sub b64url { (my $t = MIME::Base64::encode_base64url($_[0])) =~ s/=+$//; $t }
# Every refusal of a token is this one answer.
my $REFUSED = qr/^Invalid page token: pass the one the previous answer gave, /
    . qr/unchanged, with the same request\.$/;
sub refused {
    my ($r, $what, $re) = @_;
    ds_error($r, 400, 'INVALID_PARAMETER_VALUE', $what, $re // $REFUSED);
}
# Every page of `body` on `table`: what `of` (file_ids unless given) finds
# on them, how many there were, and whether each had the first page's
# version.
sub walk {
    my ($table, $body, $of) = @_;
    my ($next, @ids, @versions, $pages);
    do {
        my $r = query($table, { %$body, $next ? (pageToken => $next) : () });
        return ([], 0, 0) unless $r->code == 200;
        push @ids, @{ ($of || \&file_ids)->($r) };
        push @versions, $r->header('Delta-Table-Version');
        $next = next_of($r);
    } while ($next && ++$pages < 100);
    return (\@ids, scalar(@versions),
            !grep { $_ ne $versions[0] } @versions);
}

# --- the hole: a token written by the recipient ---------------------------------
my @latest = @{ file_ids(query('nohist', {})) };
ok(@latest > 1, 'the latest snapshot of the table without history');
my $v0 = file_ids(query('hist', { version => 0 }));
ok(@$v0 && grep({ my $f = $_; !grep { $_ eq $f } @latest } @$v0),
   'version 0 held files the latest does not (rows deleted since)');
ds_error(query('nohist', { version => 0 }), 400, 'INVALID_PARAMETER_VALUE',
         'version 0 named directly: no history sharing',
         qr/history sharing is not enabled/);
refused(query('nohist', { maxFiles => 100,
                          pageToken => b64url("k1:query:$ids{nohist}|0:0") }),
        'the forged token of version 0: refused (was 200 with version 0)');
refused(query('start2', { maxFiles => 100,
                          pageToken => b64url("k1:query:$ids{start2}|0:0") }),
        'the forged token of version 0 before start_version 2: refused');

# --- a token the server made, changed ------------------------------------------
my $res = query('nohist', { maxFiles => 1 });
my $good = next_of($res);
my @parts = split /\./, $good // '';
is(scalar @parts, 4, 'a page token: state, expiry, key id, HMAC')
    or diag $res->content;
my $flip = sub { my ($s, $at) = @_; my $c = substr($s, $at, 1);
                 substr($s, $at, 1) = $c eq 'A' ? 'B' : 'A'; $s };
my %changed = (
    'its state replaced by version 0 of the table' =>
        join('.', b64url('0:0'), @parts[1 .. 3]),
    'a character of its state changed' => $flip->($good, 0),
    'its expiry made later' =>
        join('.', $parts[0], $parts[1] + 86400, @parts[2, 3]),
    'its HMAC changed' => $flip->($good, length($good) - 1),
    'its last character cut' => substr($good, 0, -1),
    'its HMAC cut off' => join('.', @parts[0 .. 2]),
    'a part added' => "$good.00",
    'another key id' => join('.', @parts[0, 1], '00000000', $parts[3]),
    'not base64' => '%%%',
    'very long' => $good x 40,
);
refused(query('nohist', { maxFiles => 1, pageToken => $changed{$_} }), $_)
    for sort keys %changed;

# --- a token moved elsewhere ---------------------------------------------------
refused(query('start2', { maxFiles => 1, pageToken => $good }),
        'the token of another table');
refused(query('nohist', { maxFiles => 1, pageToken => $good },
              share => $twin),
        'the token of the same table in another share');
refused(query('nohist', { maxFiles => 1, pageToken => $good },
              as => $recipients[1]),
        'the token of another recipient, same share and table');
refused(query('nohist', { maxFiles => 1, pageToken => $good,
                          limitHint => 3 }),
        'replayed with another limitHint');
refused(query('nohist', { maxFiles => 1, pageToken => $good,
                          predicateHints => ['id = 1'] }),
        'replayed with predicateHints');
refused(query('nohist', { maxFiles => 1, pageToken => $good,
                          jsonPredicateHints => '{"op":"isNull","children":['
                          . '{"op":"column","name":"id","valueType":"int"}]}' }),
        'replayed with jsonPredicateHints');
refused(query('hist', { maxFiles => 1, pageToken => next_of(
                  query('hist', { maxFiles => 1, version => 1 })),
                        version => 2 }),
        'a version query\'s token replayed with another version');
refused(query('cdf', { maxFiles => 1, pageToken => next_of(
                  query('cdf', { maxFiles => 1 })), startingVersion => 1 }),
        'a snapshot\'s token replayed as a startingVersion range\'s');
my $list = sharing_api($token{$me}, GET => "/shares/$share/all-tables",
                       query => { maxResults => 1 });
my $list_token = (json_of($list) || {})->{nextPageToken};
ok($list_token, 'a list page token');
refused(query('nohist', { maxFiles => 1, pageToken => $list_token }),
        'a list\'s token as a query\'s');
refused(sharing_api($token{$me}, GET => "/shares/$share/schemas",
                    query => { pageToken => $list_token }),
        'the token of all-tables for the schemas');
refused(sharing_api($token{$recipients[1]}, GET => "/shares/$share/all-tables",
                    query => { pageToken => $list_token }),
        'a list\'s token of another recipient');
refused(sharing_api($token{$me}, GET => "/shares/$twin/all-tables",
                    query => { pageToken => $list_token }),
        'a list\'s token of another share');
refused(sharing_api($token{$me}, GET => "/shares/$share/all-tables",
                    query => { pageToken => b64url("k1:all-tables:x|0") }),
        'a list\'s token written by the recipient');

# --- refresh tokens --------------------------------------------------------------
my $refresh = end_of(query('nohist', { includeRefreshToken => \1 }))
    ->{refreshToken};
ok($refresh, 'a refresh token');
my $REFRESH_REFUSED = qr/^Invalid refresh token: /;
refused(query('nohist', { refreshToken => $refresh }, as => $recipients[1]),
        'a refresh token of another recipient', $REFRESH_REFUSED);
refused(query('nohist', { refreshToken => $refresh }, share => $twin),
        'a refresh token of another share', $REFRESH_REFUSED);
refused(query('nohist', { refreshToken => b64url('0') . ".9999999999.x.y" }),
        'a refresh token written by the recipient', $REFRESH_REFUSED);
refused(query('nohist', { maxFiles => 1, pageToken => $refresh }),
        'a refresh token as a page token');
refused(query('nohist', { refreshToken => $good }),
        'a page token as a refresh token', $REFRESH_REFUSED);
is(query('nohist', { refreshToken => $refresh })->code, 200,
   'the refresh token, as it was handed out, reads');

# --- legitimate walks -------------------------------------------------------------
my ($ids, $pages, $same) = walk('nohist', { maxFiles => 1 });
ok($pages == @latest && $same && join(',', sort @$ids) eq join(',', @latest),
   'pages of one file: every file of the latest snapshot once')
    or diag "$pages pages";
($ids, $pages, $same) = walk('hist', { maxFiles => 2, version => 0 });
is(join(',', sort @$ids), join(',', @$v0),
   'pages of a version: every file of version 0 once');
($ids, $pages) = walk('cdf', { maxFiles => 1, startingVersion => 1 },
                     \&change_lines);
my $unpaged = change_lines(query('cdf', { startingVersion => 1 }));
ok($pages > 1 && @$unpaged > 1
   && join("\n", sort @$ids) eq join("\n", @$unpaged),
   'pages of a startingVersion range: every change once')
    or diag "$pages pages, " . scalar(@$ids) . ' changes';
my (@all, $page, $n);
do {
    my $r = sharing_api($token{$me}, GET => "/shares/$share/all-tables",
                        query => { maxResults => 1,
                                   $page ? (pageToken => $page) : () });
    push @all, map { $_->{name} } @{ (json_of($r) || {})->{items} || [] };
    $page = (json_of($r) || {})->{nextPageToken};
} while ($page && ++$n < 10);
is(join(',', sort @all), 'cdf,hist,nohist,start2',
   'pages of all-tables: every table once');
my $first = query('nohist', { maxFiles => 2 });
my $second = query('nohist', { maxFiles => 4, pageToken => next_of($first) });
is(join(',', sort @{ file_ids($first) }, @{ file_ids($second) }),
   join(',', @latest), 'maxFiles may change from page to page');

# --- what a token leads to passes the share's checks ---------------------------
# A token of a version query, then the provider stops sharing history.
my $travel = next_of(query('hist', { maxFiles => 1, version => 1 }));
api(PATCH => "/shares/$share", body => { updates => [
    { action => 'UPDATE', data_object => {
        name => "$cat.sales.hist", history_data_sharing_status => 'DISABLED' } }
] });
ds_error(query('hist', { maxFiles => 1, version => 1, pageToken => $travel }),
         400, 'INVALID_PARAMETER_VALUE',
         'the next page once history sharing is off: refused',
         qr/history sharing is not enabled/);
# A page of the latest snapshot (version 4); the table moves on to 5 and
# the provider's start_version to 5: version 4 is history now.
my $latest_page = next_of(query('start2', { maxFiles => 1 }));
{
    my $v5 = "$tmp/start2/_delta_log/" . sprintf('%020d', 5) . '.json';
    open my $fh, '>', $v5 or die "$v5: $!";
    print $fh JSON::PP::encode_json({ commitInfo => { timestamp => 1,
                                                      operation => 'WRITE' } }),
        "\n";
    close $fh;
    chmod 0644, $v5;
}
is(query('start2', { maxFiles => 1, pageToken => $latest_page })
       ->header('Delta-Table-Version'), '4',
   'a commit between pages: the next page stays at version 4');
api(PATCH => "/shares/$share", body => { updates => [
    { action => 'UPDATE', data_object => {
        name => "$cat.sales.start2", start_version => 5 } } ] });
ds_error(query('start2', { maxFiles => 1, pageToken => $latest_page }), 400,
         'INVALID_PARAMETER_VALUE',
         'and once start_version is 5, version 4 is refused to the token too',
         qr/since version 5/);
