# SPDX-License-Identifier: Apache-2.0
# Concurrent writers: the same name created (or renamed to) at once by
# several processes -> exactly one 200, all others 400 *_ALREADY_EXISTS,
# never a 5xx.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Apache::TestRequest ();
use Unicat::Test;

my $WORKERS = 8;
my $ROUNDS  = 5;

plan tests => $ROUNDS + 1 + 3 + 3 + 2 + 4;

my $p = "r60_$$";
my @cleanup;
END { drop_catalog($_) for @cleanup;
      revoke('metastore', 'metastore', $_, 'CREATE CATALOG') for qw(alice bob) }
# alice and bob race to create catalogs: they may.
grant('metastore', 'metastore', $_, 'CREATE CATALOG') for qw(alice bob);

# --- the same catalog created by 8 processes at once ------------------------
for my $round (1 .. $ROUNDS) {
    my $name = "same_${p}_$round";
    push @cleanup, $name;
    my @out = race(map {
        my $i = $_;
        sub { api(POST => '/catalogs', user => ($i % 2 ? 'alice' : 'bob'),
                  body => { name => $name, comment => "worker $i" }) }
    } 1 .. $WORKERS);
    one_winner('400 CATALOG_ALREADY_EXISTS',
               "round $round: one create of $name wins, the rest 400", @out);
}
my $list = json_of(api(GET => '/catalogs', query => { max_results => 1000 })) || {};
my @dups = grep { /^same_\Q$p\E_/ } map { $_->{name} } @{ $list->{catalogs} || [] };
is(scalar @dups, $ROUNDS, 'each raced catalog exists exactly once');

# --- the same schema, 3 rounds -----------------------------------------------
my $cat = "cat_$p";
push @cleanup, $cat;
create_catalog($cat);
for my $round (1 .. 3) {
    my $name = "sch_$round";
    my @out = race(map {
        sub { api(POST => '/schemas',
                  body => { name => $name, catalog_name => $cat }) }
    } 1 .. $WORKERS);
    one_winner('400 SCHEMA_ALREADY_EXISTS',
               "round $round: one create of $cat.$name wins, the rest 400",
               @out);
}

# --- several catalogs renamed to the same new name at once --------------------
for my $round (1 .. 3) {
    my @from = map { "from_${p}_${round}_$_" } 1 .. 4;
    my $to = "to_${p}_$round";
    push @cleanup, @from, $to;
    create_catalog($_) for @from;
    my @out = race(map {
        my $f = $_;
        sub { api(PATCH => "/catalogs/$f", body => { new_name => $to }) }
    } @from);
    one_winner('400 CATALOG_ALREADY_EXISTS',
               "round $round: one rename to $to wins, the rest 400", @out);
}

# --- different catalogs created at once all succeed ---------------------------
my @names = map { "many_${p}_$_" } 1 .. $WORKERS;
push @cleanup, @names;
my @out = race(map { my $n = $_; sub { api(POST => '/catalogs', body => { name => $n }) } } @names);
ok(!grep({ $_ ne '200 -' } @out), 'distinct concurrent creates all succeed')
    or diag join ', ', @out;
my @gets = race(map { my $n = $_; sub { api(GET => "/catalogs/$n") } } @names);
ok(!grep({ $_ ne '200 -' } @gets), 'concurrent reads all succeed')
    or diag join ', ', @gets;

# --- deleting a catalog while schemas are created in it ---------------------
# force=true: every create either made it before the delete (200, then
# removed with the catalog) or finds no catalog (404); nothing else.
my (@unexpected, @survivors);
for my $round (1 .. 4) {
    my $c = "del_${p}_$round";
    push @cleanup, $c;
    create_catalog($c);
    my @jobs = map { my $i = $_; sub { api(POST => '/schemas',
                     body => { name => "sch_$i", catalog_name => $c }) } } 1 .. 7;
    splice @jobs, 3, 0, sub { api(DELETE => "/catalogs/$c",
                                  query => { force => 'true' }) };
    my @out = race(@jobs);
    my $del = splice @out, 3, 1;
    push @unexpected, "round $round delete: $del" unless $del eq '200 -';
    push @unexpected, map { "round $round create: $_" }
        grep { $_ ne '200 -' && $_ ne '404 CATALOG_NOT_FOUND' } @out;
    push @survivors, "$c still exists" if api(GET => "/catalogs/$c")->code != 404;
    for my $i (1 .. 7) {
        push @survivors, "$c.sch_$i still exists"
            if api(GET => "/schemas/$c.sch_$i")->code != 404;
    }
}
ok(!@unexpected, 'force-delete racing creates: only 200 and 404 CATALOG_NOT_FOUND')
    or diag join "\n", @unexpected;
ok(!@survivors, 'force-delete racing creates: nothing survives the catalog')
    or diag join "\n", @survivors;

# without force: either the delete wins (and no create succeeded, no schema
# is lost) or it is refused with CATALOG_NOT_EMPTY and every created schema
# is there.
my (@bad, @lost);
for my $round (1 .. 4) {
    my $c = "nodel_${p}_$round";
    push @cleanup, $c;
    create_catalog($c);
    my @jobs = map { my $i = $_; sub { api(POST => '/schemas',
                     body => { name => "sch_$i", catalog_name => $c }) } } 1 .. 7;
    splice @jobs, 3, 0, sub { api(DELETE => "/catalogs/$c") };
    my @out = race(@jobs);
    my $del = splice @out, 3, 1;
    push @bad, "round $round delete: $del"
        unless $del eq '200 -' || $del eq '400 CATALOG_NOT_EMPTY';
    push @bad, map { "round $round create: $_" }
        grep { $_ ne '200 -' && $_ ne '404 CATALOG_NOT_FOUND' } @out;
    my @made = grep { $out[$_ - 1] eq '200 -' } 1 .. 7;
    if ($del eq '200 -') {
        push @lost, "round $round: catalog deleted without force after "
                  . "creating sch_@made" if @made;
    }
    else {
        for my $i (@made) {
            push @lost, "round $round: created $c.sch_$i is missing"
                if api(GET => "/schemas/$c.sch_$i")->code != 200;
        }
    }
}
ok(!@bad, 'delete without force racing creates: only expected answers')
    or diag join "\n", @bad;
ok(!@lost, 'delete without force racing creates: no created schema lost')
    or diag join "\n", @lost;
