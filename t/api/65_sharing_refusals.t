# SPDX-License-Identifier: Apache-2.0
# What a recipient's refusals say, as a hostile or a careless recipient
# meets them. Errors about a shared table (a version it never had or no
# longer keeps, a timestamp before its first commit, a table with no log)
# name the table as the share does and never where the provider keeps it:
# the location goes to the error log only. And the numbers of a query's
# body are taken as numbers whether they come as JSON numbers or numeric
# strings; anything else is a 400 naming the field.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use JSON::PP ();
use Apache::Test qw(-withtestmore);
use Unicat::Test;

my @NUMBERS = qw(version startingVersion endingVersion limitHint maxFiles);
my @NOT_NUMBERS = ('true', '"five"', '[1]', '{}', '1.5', '"1.5"', '"1e3"',
                   '" 1"', '"0x10"', '"-"', '""', '1e19');
plan tests => 9 + 3 * @NUMBERS + @NUMBERS * @NOT_NUMBERS;

my %history = (history_data_sharing_status => 'ENABLED');
my $setup = shared_tables("rf67_$$", {
    hist => [ 'simple_table', \%history ],
    cut => [ 'checkpoint-cdf-table', \%history ],
    cdf => [ 'cdf-table', { %history, enable_cdf => \1 } ],
    nolog => [ 'simple_table' ],
}, "rcp_rf67_$$");
my ($share, $tmp) = @$setup{qw(share tmp)};
my ($token) = values %{ $setup->{token} };
# A table whose log is gone.
system('rm', '-rf', "$tmp/nolog/_delta_log") == 0 or die "setup: $!";
my $T = "/shares/$share/schemas/pub/tables";
sub ds { sharing_api($token, @_) }
sub query { ds(POST => "$T/$_[0]/query", body => $_[1]) }
sub query_raw {
    ds(POST => "$T/$_[0]/query", raw => $_[1],
       content_type => 'application/json');
}

# --- errors name the share's table, never the provider's storage -----------------
my @errors = (
    [ query('hist', { version => 99 }), 400, 'a version the table never had',
      qr/^Version 99 of the table does not exist: the latest version is 4\./ ],
    [ query('hist', { timestamp => '2001-01-01T00:00:00Z' }), 400,
      'a timestamp before the first commit', qr/before the earliest version/ ],
    [ query('cut', { version => 1 }), 400, 'a version the log no longer keeps',
      qr/cannot be reconstructed/ ],
    [ ds(GET => "$T/hist/metadata", query => { version => 99 }), 400,
      'metadata of a version the table never had', qr/does not exist/ ],
    [ ds(GET => "$T/hist/version",
         query => { startingTimestamp => '2099-01-01T00:00:00Z' }), 400,
      'a starting timestamp after the last commit', qr/after the latest/ ],
    [ ds(GET => "$T/nolog/version"), 404, 'a table with no Delta log',
      qr/is not a Delta table/ ],
    [ query('nolog', {}), 404, 'the query of a table with no Delta log',
      qr/is not a Delta table/ ],
);
my @leaks;
for (@errors) {
    my ($r, $status, $what, $re) = @$_;
    ds_error($r, $status, $status == 404 ? 'RESOURCE_DOES_NOT_EXIST'
                                         : 'INVALID_PARAMETER_VALUE',
             $what, $re);
    push @leaks, "$what: " . $r->content
        if $r->content =~ m{\Q$tmp\E|file:|://};
}
is_deeply(\@leaks, [], 'no answer names where the tables lie');
my $log = do { local (@ARGV, $/) = (Apache::Test::vars('serverroot')
                                    . '/logs/error_log'); <> };
my $cause = "/hist/query answered 400 INVALID_PARAMETER_VALUE: the Delta "
    . "table at 'file://$tmp/hist': Version 99 of the table ";
ok(index($log, $cause) >= 0,
     'the error log has the cause: the table as shared and where it lies');

# --- numbers of the query body ---------------------------------------------------
my %valid = (version => 1, startingVersion => 1, endingVersion => 2,
             limitHint => 1, maxFiles => 1);
sub with { my ($field, $value) = @_;
           my %b = (%valid{$field}, $field eq 'endingVersion'
                                    ? (startingVersion => 1) : ());
           $b{$field} = $value; \%b }
# The body of with($field) with the field's value written as `text`.
sub text_with {
    my ($field, $text) = @_;
    my $json = JSON::PP->new->canonical->encode(with($field, 0));
    $json =~ s/"$field":0/"$field":$text/ or die "no $field in $json";
    return $json;
}
sub answer_of {
    my ($r) = @_;
    (my $body = $r->content) =~ s/"(url|expirationTimestamp|nextPageToken|minUrlExpirationTimestamp)":("[^"]*"|\d+)//g;
    return $r->code . ' ' . $body;
}
for my $field (@NUMBERS) {
    my $table = $field eq 'version' ? 'hist' : 'cdf';
    my $number = query($table, with($field, $valid{$field}));
    my %without = %{ with($field, 0) };
    delete $without{$field};
    ok($number->code == 200 && answer_of($number)
       ne answer_of(query($table, \%without)),
       "$field $valid{$field}: 200, an answer of its own")
        or diag $number->content;
    is(answer_of(query($table, with($field, "$valid{$field}"))),
       answer_of($number), "$field \"$valid{$field}\": the same answer");
    is(answer_of(query_raw($table, text_with($field, "$valid{$field}.0"))),
       answer_of($number), "$field $valid{$field}.0: the same answer");
    for my $bad (@NOT_NUMBERS) {
        ds_error(query_raw($table, text_with($field, $bad)), 400,
                 'MALFORMED_REQUEST', "$field $bad: 400 naming the field",
                 qr/\b$field\b/);
    }
}
