# SPDX-License-Identifier: Apache-2.0
# Pagination of GET /catalogs and GET /schemas: max_results, keyset order
# by name, opaque next_page_token.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 53;

my $p = "p40_$$";
my $big = "big_$p";
my @cleanup = ($big);
END { drop_catalog($_) for @cleanup }

# Follows next_page_token from the first page; returns (\@names, \@pages)
# where each page is [count, token]. Stops on an error or after 2000 pages.
sub walk {
    my ($path, $key, %query) = @_;
    my (@names, @pages);
    my $token;
    for (1 .. 2000) {
        my $res = api(GET => $path,
                      query => { %query, defined $token ? (page_token => $token) : () });
        my $j = json_of($res);
        if ($res->code != 200 || ref $j ne 'HASH' || ref $j->{$key} ne 'ARRAY'
            || !exists $j->{next_page_token}) {
            diag 'walk: ' . $res->code . ' ' . $res->content;
            push @pages, [-1, undef];
            last;
        }
        push @names, map { $_->{name} } @{ $j->{$key} };
        push @pages, [scalar @{ $j->{$key} }, $j->{next_page_token}];
        $token = $j->{next_page_token};
        last unless defined $token;
    }
    return (\@names, \@pages);
}

sub strictly_ascending {
    my ($list) = @_;
    for my $i (1 .. $#$list) {
        return 0 unless $list->[$i - 1] lt $list->[$i];
    }
    return 1;
}

# --- catalogs ---------------------------------------------------------------
# Names mixing letters, digits and '_' so that the order is tested bytewise.
my @suffixes = qw(a b c a1 a_1 a_b ab a9 b_0 b0 ba x1y x_y xy z zz z_z z9 m
                  m1 m_1 mm q);
my @mine = map { "${p}_$_" } @suffixes;
for my $n (@mine) { create_catalog(uc $n); push @cleanup, $n }

my ($names, $pages) = walk('/catalogs', 'catalogs', max_results => 5);
my %mine = map { $_ => 1 } @mine;
my @seen_mine = grep { $mine{$_} } @$names;
is_deeply(\@seen_mine, [sort @mine],
          'every created catalog listed exactly once, in name order');
ok(strictly_ascending($names), 'catalog pages: strictly ascending names')
    or diag explain $names;
ok(!grep({ $_->[0] > 5 || $_->[0] < 0 } @$pages), 'no page over max_results=5');
ok(!grep({ !defined $_->[1] || $_->[1] eq '' } @$pages[0 .. $#$pages - 1]),
   'every page but the last has a next_page_token');
ok(@$pages && !defined $pages->[-1][1] && $pages->[-1][0] >= 0,
   'last page: next_page_token null');
ok(!grep({ $_->[0] != 5 } @$pages[0 .. $#$pages - 1]),
   'pages before the last are full');

my $all = json_of(api(GET => '/catalogs', query => { max_results => 1000 }))
        || {};
is_deeply($names, [map { $_->{name} } @{ $all->{catalogs} || [] }],
          'walking pages gives the same list as one large page');

my $first = api(GET => '/catalogs', query => { max_results => 5 });
my $again = api(GET => '/catalogs', query => { max_results => 5,
                                                page_token => '' });
is_ok_json($again, 'page_token="" accepted');
is_deeply(json_of($again), json_of($first), 'page_token="" means the first page');
my $tok = (json_of($first) || {})->{next_page_token};
my $p2a = json_of(api(GET => '/catalogs',
                      query => { max_results => 5, page_token => $tok }));
my $p2b = json_of(api(GET => '/catalogs',
                      query => { max_results => 5, page_token => $tok }));
is_deeply($p2a, $p2b, 'the same token gives the same page');

for my $bad ('-1', '-100', 'abc', '5x', '1.5', '0x10', 'NaN', ' 5', '+5') {
    is_error(api(GET => '/catalogs', query => { max_results => $bad }), 400,
             'INVALID_PARAMETER_VALUE', "catalogs max_results='$bad' -> 400");
}
for my $bad ('!!!', 'garbage', 'Zm9v', 'x' x 3000, "$tok!", '====') {
    my $shown = length $bad > 20 ? substr($bad, 0, 8) . '...' : $bad;
    is_error(api(GET => '/catalogs', query => { page_token => $bad }), 400,
             'INVALID_PARAMETER_VALUE', "catalogs page_token='$shown' -> 400");
}
is_ok_json(api(GET => '/catalogs', query => { max_results => 0 }),
           'catalogs max_results=0 accepted');
is_ok_json(api(GET => '/catalogs', query => { max_results => 5000 }),
           'catalogs max_results=5000 accepted');

# --- schemas: 1005 in one catalog ----------------------------------------------
create_catalog($big);
my @schemas = map { sprintf 's%04d', $_ } 0 .. 1004;
my $created = 0;
for my $n (@schemas) {
    my $res = api(POST => '/schemas',
                  body => { name => $n, catalog_name => $big });
    $created++ if $res->code == 200;
}
is($created, scalar @schemas, 'created 1005 schemas');

my $res = api(GET => '/schemas', query => { catalog_name => $big });
my $j = json_of($res) || {};
is(scalar @{ $j->{schemas} || [] }, 100, 'default page size is 100');
ok(defined $j->{next_page_token} && length $j->{next_page_token},
   'default first page has a next_page_token');
is_deeply([map { $_->{name} } @{ $j->{schemas} || [] }], [@schemas[0 .. 99]],
          'first page: the first 100 names in order');
is_deeply(json_of(api(GET => '/schemas',
                      query => { catalog_name => $big, max_results => 0 })),
          $j, 'max_results=0 means the default');

for my $m (1000, 1001, 5000, '2147483648', '99999999999999999999') {
    $res = api(GET => '/schemas',
               query => { catalog_name => $big, max_results => $m });
    $j = json_of($res) || {};
    is(scalar @{ $j->{schemas} || [] }, 1000,
       "max_results=$m -> 1000 items (clamped)");
}
ok(defined $j->{next_page_token}, 'clamped page has a next_page_token');
$res = api(GET => '/schemas',
           query => { catalog_name => $big, max_results => 1000,
                      page_token => $j->{next_page_token} });
$j = json_of($res) || {};
is_deeply([map { $_->{name} } @{ $j->{schemas} || [] }],
          [@schemas[1000 .. 1004]], 'second page: the last 5 schemas');
ok(exists $j->{next_page_token} && !defined $j->{next_page_token},
   'last page: next_page_token null');

($names, $pages) = walk('/schemas', 'schemas', catalog_name => $big,
                        max_results => 333);
is_deeply($names, \@schemas, 'walking 333 at a time: every schema once, in order');
is_deeply([map { $_->[0] } @$pages], [333, 333, 333, 6], 'page sizes');
ok(!grep({ !defined $_->[1] } @$pages[0 .. 2]) && !defined $pages->[3][1],
   'tokens on pages 1-3, null on page 4');

($names, $pages) = walk('/schemas', 'schemas', catalog_name => $big,
                        max_results => 1005);
ok(@$pages == 2 && $pages->[0][0] == 1000 && $pages->[1][0] == 5,
   'max_results=1005 is clamped to pages of 1000');

# keyset, not offsets: changes before the cursor neither skip nor repeat
$res = api(GET => '/schemas',
           query => { catalog_name => $big, max_results => 10 });
$tok = (json_of($res) || {})->{next_page_token};
api(DELETE => "/schemas/$big.s0003");
create_schema($big, 's0000a');
$res = api(GET => '/schemas',
           query => { catalog_name => $big, max_results => 10,
                      page_token => $tok });
is_deeply([map { $_->{name} } @{ (json_of($res) || {})->{schemas} || [] }],
          [@schemas[10 .. 19]],
          'next page continues after the last name seen (keyset)');

for my $bad ('-1', 'ten') {
    is_error(api(GET => '/schemas',
                 query => { catalog_name => $big, max_results => $bad }),
             400, 'INVALID_PARAMETER_VALUE', "schemas max_results='$bad' -> 400");
}
is_error(api(GET => '/schemas',
             query => { catalog_name => $big, page_token => 'garbage!' }),
         400, 'INVALID_PARAMETER_VALUE', 'schemas garbage page_token -> 400');
$res = api(GET => '/schemas',
           query => { catalog_name => $big, max_results => 3, page_token => '' });
is_deeply([map { $_->{name} } @{ (json_of($res) || {})->{schemas} || [] }],
          ['s0000', 's0000a', 's0001'], 'schemas page_token="" -> first page');

# a catalog's list never shows another catalog's schemas
my $small = "small_$p";
push @cleanup, $small;
create_catalog($small);
create_schema($small, 's0001');
($names) = walk('/schemas', 'schemas', catalog_name => $small, max_results => 1);
is_deeply($names, ['s0001'], 'list of another catalog: only its own schema');

# a last page that is exactly full carries no token (no empty extra page)
my $three = "three_$p";
push @cleanup, $three;
create_catalog($three);
create_schema($three, $_) for qw(aaa bbb ccc);
$res = api(GET => '/schemas', query => { catalog_name => $three, max_results => 3 });
$j = json_of($res) || {};
is(scalar @{ $j->{schemas} || [] }, 3, 'max_results=3 of 3: all on one page');
ok(exists $j->{next_page_token} && !defined $j->{next_page_token},
   'exactly full last page: next_page_token null');
($names, $pages) = walk('/schemas', 'schemas', catalog_name => $three,
                        max_results => 1);
is_deeply([map { $_->[0] } @$pages], [1, 1, 1],
          'max_results=1 of 3: three pages, no empty fourth');
