# SPDX-License-Identifier: Apache-2.0
# Hostile bodies at the limits: deep nesting, megabyte strings, long
# arrays, invalid UTF-8 and NULs each get a clean 4xx in the catalog's
# error shape, and (under prefork, whose children serve one request at a
# time) the children's memory comes back to where it was. Under the
# threaded MPMs glibc keeps what each thread freed in that thread's arena,
# so their resident size tells nothing about leaks.
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

# The resident memory of httpd's children, in kB.
my $vars = Apache::Test::vars();
sub children_rss {
    my $pidfile = "$vars->{t_logs}/httpd.pid";
    open my $fh, '<', $pidfile or return 0;
    chomp(my $parent = <$fh> // '');
    my $kb = 0;
    for my $stat (glob '/proc/[0-9]*/status') {
        open my $s, '<', $stat or next;
        my ($ppid, $rss) = (0, 0);
        while (<$s>) {
            $ppid = $1 if /^PPid:\s+(\d+)/;
            $rss = $1 if /^VmRSS:\s+(\d+)/;
        }
        $kb += $rss if $ppid == $parent;
    }
    return $kb;
}

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
# Warm the children's pools and heaps with every request.
for (1 .. 3) { send_raw($_->[0], $_->[1]) for @hostile }
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
ok($before > 0, "children's memory is read ($before kB)");
SKIP: {
    skip "$mpm MPM: threads keep freed memory in their arenas", 1
        unless $mpm eq 'prefork';
    ok($after - $before < 2 * 1024, "children's memory back to its level "
       . "after 77 hostile requests: $before kB before, $after kB after")
        or diag 'grew by ' . ($after - $before) . ' kB';
}
