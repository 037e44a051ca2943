# SPDX-License-Identifier: Apache-2.0
# Hostile bodies at the limits: deep nesting, megabyte strings, long
# arrays, invalid UTF-8 and NULs each get a clean 4xx in the catalog's
# error shape, and the children's memory comes back to where it was: under
# prefork, whose children serve one request at a time, within 2 MB; under
# the threaded MPMs, where each thread's first large requests leave it
# blocks that httpd's allocators keep (MaxMemFree), once every request has
# been served a few times, within 16 MB (before the module gave a large
# body's heap back, each thread's malloc arena kept it: 25 to 35 MB more
# after each round of these requests).
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Apache::TestConfig ();
use Unicat::Test;

plan tests => 10;

my $p = "h98_$$";
my $json = 'application/json';
sub send_raw { api(POST => $_[0], raw => $_[1], content_type => $json) }

# The resident memory of each of httpd's children, in kB by pid.
my $vars = Apache::Test::vars();
sub children_rss {
    my $pidfile = "$vars->{t_logs}/httpd.pid";
    open my $fh, '<', $pidfile or return {};
    chomp(my $parent = <$fh> // '');
    my %kb;
    for my $stat (glob '/proc/[0-9]*/status') {
        open my $s, '<', $stat or next;
        my ($ppid, $rss) = (0, 0);
        while (<$s>) {
            $ppid = $1 if /^PPid:\s+(\d+)/;
            $rss = $1 if /^VmRSS:\s+(\d+)/;
        }
        $kb{$1} = $rss if $ppid == $parent && $stat =~ m{/(\d+)/};
    }
    return \%kb;
}
sub total { my $t = 0; $t += $_ for values %{ $_[0] }; $t }

my @hostile = (
    [ '/catalogs', '[' x 100_000 . ']' x 100_000, 'nesting 10^5 deep' ],
    [ '/catalogs', '{"name":"n' . ('{"a":' x 50_000) . '1' . ('}' x 50_000) . '"}',
      'a name holding 10^5 braces' ],
    [ '/catalogs', '{"name":"big_' . $p . '","comment":"' . ('x' x 1_000_000) . '"}',
      'a 1 MB comment' ],
    [ '/tag-policies', '{"tag_policy":{"tag_key":"k_' . $p . '","values":['
      . join(',', map { qq({"name":"v$_"}) } 1 .. 10_000) . ']}}',
      '10^4 allowed values' ],
    [ '/catalogs', qq({"name":"bad_\xff\xfe_$p"}), 'invalid UTF-8' ],
    [ '/catalogs', qq({"name":"nul_\\u0000_$p"}), 'an escaped NUL in a name' ],
    [ '/catalogs', qq({"name":"raw_$p"\0}), 'a raw NUL after the object' ],
);

my $mpm = Apache::Test::config()->{server}{mpm} // '';
my ($warm_rounds, $bound_kb) = $mpm eq 'prefork' ? (1, 2048) : (2, 16384);
# Warm the children's pools and heaps with every request, as often as the
# rounds measured below send it.
for (1 .. $warm_rounds) {
    for my $h (@hostile) { send_raw($h->[0], $h->[1]) for 1 .. 11 }
}
my $before = children_rss();
for my $h (@hostile) {
    my $res = send_raw($h->[0], $h->[1]);
    send_raw($h->[0], $h->[1]) for 1 .. 10;
    is_error($res, 400, 'INVALID_PARAMETER_VALUE', "refused cleanly: $h->[2]");
}
my @lists = map { json_of(api(GET => '/catalogs', query => { max_results => 1000 })) }
            1 .. 2;
ok(!grep({ $_->{name} =~ /\Q$p\E/ } @{ ($lists[-1] || {})->{catalogs} || [] }),
   'nothing of them was stored');
my $after = children_rss();
# The children that served throughout (prefork may start another one).
my @kept = grep { exists $after->{$_} } keys %$before;
my %was = map { $_ => $before->{$_} } @kept;
my %is = map { $_ => $after->{$_} } @kept;
ok(@kept && total(\%was) > 0,
   'the memory of ' . scalar(@kept) . ' children is read (' . total(\%was) . ' kB)');
ok(total(\%is) - total(\%was) < $bound_kb, "$mpm: children's memory back to "
   . 'its level after 77 hostile requests: ' . total(\%was) . ' kB before, '
   . total(\%is) . ' kB after')
    or diag 'grew by ' . (total(\%is) - total(\%was)) . " kB, more than $bound_kb";
