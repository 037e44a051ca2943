# SPDX-License-Identifier: Apache-2.0
# The rows a recipient reads. Every fixture table whose log goes back to
# version 0 is shared with its history (as 64_sharing_fixtures.t shares
# them, which checks the files of each answer); t/sharing/recipient.mjs
# then reads them as the official Python and Spark clients do (their
# requests, headers and bodies; their checks of the answers; pages,
# refresh tokens, the async configuration), every data file by Range
# requests, deletion vectors applied, partition values added, at every
# version, at the latest, and through the change data feed; and compares
# the rows with those it reads from the tables' folders on disk. One test
# per fixture and client names what differed. And a recipient holding
# another share's token gets, for this share's tables, what it gets for
# a share that does not exist.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use JSON::PP ();
use Apache::Test qw(-withtestmore);
use Apache::TestRequest ();
use Unicat::Test;

my @fixtures = @FIXTURES_WITH_HISTORY;
my @clients = qw(python spark);
my $p = "cf74_$$";
my ($me, $other) = ("rcp_$p", "oth_$p");
my $s = shared_fixtures($p, \@fixtures, $me);

# The other recipient holds a share of its own, with one table.
my $table = fixture_table_name('simple_table');
share_table($s, "own_$p", $table);
create_object('/recipients', { name => $other,
                               authentication_type => 'TOKEN' });
$s->{token}{$other} = undef;
grant_share($s, "own_$p", $other);
$s->{token}{$other} = token_of_recipient($other)
    // die "setup: recipient $other has no token";

# --- the driver ------------------------------------------------------------
my $top = Apache::Test::vars('top_dir');
(my $endpoint = Apache::TestRequest::resolve_url('/delta-sharing')) =~ s{/$}{};
my $spec = "$s->{tmp}/spec.json";
open my $fh, '>', $spec or die "setup: $spec: $!";
print $fh JSON::PP->new->canonical->encode({
    endpoint => $endpoint, share => $s->{share}, maxFiles => 2,
    maxVersions => 16,
    tables => [ map { { fixture => $_, schema => 'pub',
                        name => fixture_table_name($_),
                        dir => "$s->{tmp}/" . fixture_table_name($_) } }
                @fixtures ] });
close $fh;
my @results = do {
    local $ENV{UNICAT_SHARING_NODE} = $ENV{UNICAT_SHARING_NODE}
        // "$top/build/node-sharing";
    local $ENV{UNICAT_SHARING_TOKEN} = $s->{token}{$me};
    open my $out, '-|', 'node', "$top/t/sharing/recipient.mjs", $spec
        or die "node: $!";
    my @lines = map { JSON::PP::decode_json($_) } grep { /^\{/ } <$out>;
    close $out;
    push @lines, { client => 'the driver', fixture => 'its run',
                   problems => ["it ended with status $?"] } if $?;
    @lines;
};

plan tests => @results + 6;

for my $r (@results) {
    my @p = @{ $r->{problems} || [] };
    my $what = $r->{fixture} eq 'listing' ? 'lists the share'
        : $r->{versions} ? scalar(@{ $r->{versions} }) . ' versions, the latest'
          . (defined $r->{changesFrom} ? ", the changes from v$r->{changesFrom}"
                                       : '')
          . ": $r->{rows} rows of $r->{files} files"
          . ($r->{deleted} ? ", $r->{deleted} deleted by their vectors" : '')
          . ", $r->{ranges} Range reads" : 'runs';
    ok(!@p, "$r->{fixture} ($r->{client}): $what")
        or diag join "\n", @p[0 .. ($#p < 9 ? $#p : 9)];
}
my %seen = map { ("$_->{fixture} $_->{client}" => 1) } @results;
my @unread = grep { my $f = $_; grep { !$seen{"$f $_"} } @clients } @fixtures;
ok(!@unread, 'every fixture was read by both clients') or diag "@unread";
my ($rows, $deleted) = (0, 0);
$rows += $_->{rows} // 0 for @results;
$deleted += $_->{deleted} // 0 for @results;
ok($rows > 1000 && $deleted > 50,
   "the rows read: $rows, $deleted of them deleted by deletion vectors");

# --- another share's token -------------------------------------------------
my $T = "/shares/$s->{share}/schemas/pub/tables/$table";
my $none = "none_$p";
my $N = "/shares/$none/schemas/pub/tables/$table";
for (['GET', '/metadata'], ['POST', '/query'],
     ['GET', '/changes?startingVersion=0']) {
    my ($method, $rest) = @$_;
    my @args = $method eq 'POST' ? (body => {}) : ();
    is_as_missing(sharing_api($s->{token}{$other}, $method => "$T$rest", @args),
                  sharing_api($s->{token}{$other}, $method => "$N$rest", @args),
                  [ $s->{share}, $none ], "another share's token: $method "
                  . "$rest of this share's table, as of a share that does "
                  . 'not exist');
}
is(sharing_api($s->{token}{$other}, GET => "/shares/$s->{share}/all-tables")
   ->code, 404, 'nor are its tables listed');
