# SPDX-License-Identifier: Apache-2.0
# Crash safety: 8 clients create, rename and delete catalogs, schemas,
# tables, shares (with tables in them), recipients and grants, and commit
# versions of a catalog-managed Delta table each (with its metadata), for
# UNICAT_DURABILITY_SECONDS (60) while httpd's children are killed with
# SIGKILL at random moments (the parent starts new ones). Each client works
# on names of its own and keeps a model of what the server holds: a write
# answered 200 is applied to it, one answered with an error is not, and one
# whose answer never came (its child was killed) is looked up, and must
# have happened whole or not at all. Afterwards the server's catalog, listed
# through the API, is exactly every client's model; an integrity checker
# walks the database itself (every child has a parent of the right kind,
# every grant its securable, every share object its share and table, every
# token and share recipient its recipient; SQLite's own integrity check);
# and the server serves on.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Apache::TestRequest ();
use JSON::PP ();
use POSIX ();
use Time::HiRes ();
use Unicat::Test;

plan tests => 14;

my $SECONDS = $ENV{UNICAT_DURABILITY_SECONDS} || 60;
my $CLIENTS = 8;
my $p = "d75_$$";
my $d = "/srv/unicat-t75-$$";
my $loc = "loc_$p";

create_object('/external-locations', { name => $loc, url => $d });
END { api(DELETE => "/external-locations/$loc", query => { force => 'true' }) }

# Each client's catalog-managed table, whose commits carry its comment.
my $COMMITS = '/delta/preview/commits';
my $ccat = "cm_$p";
create_catalog($ccat, storage_root => "$d/cm");
create_schema($ccat, 'sch');
my %managed;
for my $c (1 .. $CLIENTS) {
    my $st = create_object('/staging-tables', { name => "tab$c", catalog_name => $ccat,
                                                schema_name => 'sch' });
    $managed{$c} = create_object('/tables', {
        name => "tab$c", catalog_name => $ccat, schema_name => 'sch', table_type => 'MANAGED',
        data_source_format => 'DELTA', storage_location => $st->{staging_location}, columns => [],
        properties => { 'io.unitycatalog.tableId' => $st->{id},
                        'delta.feature.catalogManaged' => 'supported' } });
}
END { drop_catalog($ccat) }
sub commit_of {
    my ($t, $v) = @_;
    return { table_id => $t->{table_id}, table_uri => $t->{storage_location},
             commit_info => { version => $v, timestamp => 1700000000000 + $v,
                              file_name => sprintf('%020d.%s.json', $v, $$), file_size => 10,
                              file_modification_timestamp => 1700000000000 + $v },
             latest_backfilled_version => $v - 1,
             metadata => { description => "v$v" } };
}
# A table's latest version and comment: what its commits made of it.
sub committed {
    my ($t, $full) = @_;
    my $j = json_of(settled(GET => $COMMITS, body => { table_id => $t->{table_id},
                                                       start_version => 0 })) || {};
    my $row = json_of(settled(GET => "/tables/$full")) || {};
    return ($j->{latest_table_version} // -1, $row->{comment} // '');
}

# --- the database, read beside the API ---------------------------------------
my $sqlite = db_is_sqlite();
# A child killed after it sent COMMIT leaves PostgreSQL to finish that
# transaction on its own, possibly after the client has looked: before a
# lost write is looked up, every transaction open at that moment must end.
# (SQLite's commit happens in the killed process or not at all.)
sub transactions_in_flight {
    db_query("SELECT string_agg(pid || ' ' || xact_start, ',' ORDER BY pid)
                FROM pg_stat_activity
               WHERE xact_start IS NOT NULL AND pid <> pg_backend_pid()");
}
sub in_flight_ended {
    return if $sqlite;
    my %open = map { $_ => 1 } split /,/, transactions_in_flight();
    for (1 .. 200) {
        return unless grep { $open{$_} } split /,/, transactions_in_flight();
        Time::HiRes::sleep(0.05);
    }
    die "transactions open at a lost write did not end in 10 s\n";
}

# --- the clients ---------------------------------------------------------------

# An answer counts when the server gave it; LWP's own (no connection, a
# connection reset before the answer) leave the outcome unknown.
sub answered { !defined $_[0]->header('Client-Warning') }
# A read that gets its answer: the server may be between children.
sub settled {
    my @req = @_;
    for (1 .. 100) {
        my $r = api(@req);
        return $r if answered($r) && $r->code != 503;
        Time::HiRes::sleep(0.1);
    }
    return api(@req);
}
sub exists_at {
    my $r = settled(GET => $_[0]);
    return $r->code == 200 ? 1 : $r->code == 404 ? 0 : undef;
}

# One client's life: random writes on its own names for $SECONDS, each
# answer folded into its model; it reports its model and what went wrong.
sub client {
    my ($c) = @_;
    srand($$ ^ time);
    Apache::TestRequest::user_agent(reset => 1, keep_alive => 1);
    my %cat;       # name => { schema => { table => 1 } }
    my %share;     # name => { shared_as => full name of its table }
    my %rcp;       # name => 1
    my %grant;     # catalog => 1 (alice holds USE CATALOG)
    my $version = 0;   # the latest version of its managed table
    my ($n, $ok, $unknown, @bad) = (0, 0, 0);
    my $fresh = sub { sprintf "c%d_%s_%d", $c, $_[0], ++$n };
    my $pick = sub { my @k = sort keys %{ $_[0] }; @k ? $k[int rand @k] : undef };
    # A write whose answer was lost is looked up once it has settled.
    my $write = sub {
        my $r = api(@_);
        if (!answered($r)) { $unknown++; in_flight_ended() }
        return $r;
    };
    my $end = time + $SECONDS;
    while (time < $end) {
        my $op = int rand 11;
        my $cname = $pick->(\%cat);
        if ($op == 0 || !$cname) {                       # create a catalog
            my $name = "${p}_" . $fresh->('cat');
            my $r = $write->(POST => '/catalogs', body => { name => $name });
            if (!answered($r)) { my $e = exists_at("/catalogs/$name");
                                 $cat{$name} = {} if $e; push @bad, "create $name: lookup failed" unless defined $e }
            elsif ($r->code == 200) { $cat{$name} = {}; $ok++ }
        }
        elsif ($op == 1) {                               # rename a catalog
            my $to = "${p}_" . $fresh->('ren');
            my $r = $write->(PATCH => "/catalogs/$cname", body => { new_name => $to });
            my $moved;
            if (!answered($r)) {
                my ($a, $b) = (exists_at("/catalogs/$cname"), exists_at("/catalogs/$to"));
                push @bad, "rename $cname -> $to: old $a, new $b (half done?)"
                    unless defined $a && defined $b && $a + $b == 1;
                $moved = $b;
            }
            elsif ($r->code == 200) { $moved = 1; $ok++ }
            if ($moved) {
                $cat{$to} = delete $cat{$cname};
                $grant{$to} = delete $grant{$cname} if $grant{$cname};
                for my $objects (values %share) {
                    s/^\Q$cname\E\./$to./ for values %$objects;
                }
            }
        }
        elsif ($op == 2) {                               # delete a catalog, all in it
            my $r = $write->(DELETE => "/catalogs/$cname", query => { force => 'true' });
            my $gone;
            if (!answered($r)) { my $e = exists_at("/catalogs/$cname");
                                 push @bad, "delete $cname: lookup failed" unless defined $e; $gone = defined $e && !$e }
            elsif ($r->code == 200) { $gone = 1; $ok++ }
            if ($gone) {
                for my $objects (values %share) {
                    delete @$objects{ grep { $objects->{$_} =~ /^\Q$cname\E\./ }
                                      keys %$objects };
                }
                delete $cat{$cname}; delete $grant{$cname};
            }
        }
        elsif ($op == 3 || $op == 4) {                   # a schema, or a table in one
            my $sname = $pick->($cat{$cname});
            if ($op == 3 || !$sname) {
                my $name = $fresh->('sch');
                my $r = $write->(POST => '/schemas', body => { name => $name, catalog_name => $cname });
                my $made;
                if (!answered($r)) { $made = exists_at("/schemas/$cname.$name") }
                elsif ($r->code == 200) { $made = 1; $ok++ }
                $cat{$cname}{$name} = {} if $made;
            }
            else {
                my $name = $fresh->('tab');
                my $r = $write->(POST => '/tables', body => {
                    name => $name, catalog_name => $cname, schema_name => $sname,
                    table_type => 'EXTERNAL', data_source_format => 'DELTA', columns => [],
                    storage_location => "$d/c$c/$name" });
                my $made;
                if (!answered($r)) { $made = exists_at("/tables/$cname.$sname.$name") }
                elsif ($r->code == 200) { $made = 1; $ok++ }
                $cat{$cname}{$sname}{$name} = 1 if $made;
            }
        }
        elsif ($op == 5) {                               # grant or revoke
            my $change = $grant{$cname} ? 'remove' : 'add';
            my $r = $write->(PATCH => "/permissions/catalog/$cname", body => { changes => [
                { principal => 'alice', $change => ['USE CATALOG'] } ] });
            my $now;
            if (!answered($r)) {
                my $j = json_of(settled(GET => "/permissions/catalog/$cname")) || {};
                $now = grep { $_->{principal} eq 'alice' } @{ $j->{privilege_assignments} || [] };
            }
            elsif ($r->code == 200) { $now = $change eq 'add'; $ok++ }
            else { $now = $grant{$cname} }
            $grant{$cname} = $now ? 1 : 0;
            delete $grant{$cname} unless $now;
        }
        elsif ($op == 6) {                               # a share, or a table into one
            my $sh = $pick->(\%share);
            my @tables = map { my $cn = $_; map { my $s = $_; map { "$cn.$s.$_" }
                                 keys %{ $cat{$cn}{$s} } } keys %{ $cat{$cn} } } keys %cat;
            if (!$sh || !@tables || rand() < 0.3) {
                my $name = "${p}_" . $fresh->('shr');
                my $r = $write->(POST => '/shares', body => { name => $name });
                my $made;
                if (!answered($r)) { $made = exists_at("/shares/$name") }
                elsif ($r->code == 200) { $made = 1; $ok++ }
                $share{$name} = {} if $made;
            }
            else {
                my $t = $tables[int rand @tables];
                # schema.table: unique, as the names are.
                my $as = $t =~ s/^[^.]*\.//r;
                next if exists $share{$sh}{$as};
                my $r = $write->(PATCH => "/shares/$sh", body => { updates => [ { action => 'ADD',
                    data_object => { name => $t, shared_as => $as } } ] });
                my $added;
                if (!answered($r)) {
                        my $j = json_of(settled(GET => "/shares/$sh", query => { include_shared_data => 'true' })) || {};
                    $added = grep { ($_->{shared_as} // '') eq $as } @{ $j->{objects} || [] };
                }
                elsif ($r->code == 200) { $added = 1; $ok++ }
                $share{$sh}{$as} = $t if $added;
            }
        }
        elsif ($op == 7) {                               # delete a share
            my $sh = $pick->(\%share) or next;
            my $r = $write->(DELETE => "/shares/$sh");
            my $gone;
            if (!answered($r)) { my $e = exists_at("/shares/$sh"); $gone = defined $e && !$e }
            elsif ($r->code == 200) { $gone = 1; $ok++ }
            delete $share{$sh} if $gone;
        }
        elsif ($op == 8) {                               # a recipient, with its token
            my $name = "${p}_" . $fresh->('rcp');
            my $r = $write->(POST => '/recipients', body => { name => $name,
                                                         authentication_type => 'TOKEN' });
            my $made;
            if (!answered($r)) { $made = exists_at("/recipients/$name") }
            elsif ($r->code == 200) { $made = 1; $ok++ }
            $rcp{$name} = 1 if $made;
        }
        elsif ($op == 9) {                               # delete a recipient
            my $name = $pick->(\%rcp) or next;
            my $r = $write->(DELETE => "/recipients/$name");
            my $gone;
            if (!answered($r)) { my $e = exists_at("/recipients/$name"); $gone = defined $e && !$e }
            elsif ($r->code == 200) { $gone = 1; $ok++ }
            delete $rcp{$name} if $gone;
        }
        else {                                           # the next commit, its comment with it
            my ($t, $v) = ($managed{$c}, $version + 1);
            my $r = $write->(POST => $COMMITS, body => commit_of($t, $v));
            if (!answered($r)) {
                my ($latest, $comment) = committed($t, "$ccat.sch.tab$c");
                push @bad, "commit $v: latest $latest, comment '$comment' (half done?)"
                    unless ($latest == $v && $comment eq "v$v")
                        || ($latest == $version && $comment eq ($version ? "v$version" : ''));
                $version = $v if $latest == $v;
            }
            elsif ($r->code == 200) { $version = $v; $ok++ }
        }
    }
    return { catalogs => \%cat, shares => \%share, recipients => \%rcp,
             grants => \%grant, version => $version, ok => $ok, unknown => $unknown,
             bad => \@bad };
}

# --- the killer: a random child of httpd's parent, now and then ----------------
my $ppid = do { local (@ARGV, $/) = (Apache::Test::vars('t_logs') . '/httpd.pid'); <> };
chomp $ppid;
sub children_of {
    my ($parent) = @_;
    my @kids;
    for my $stat (glob '/proc/[0-9]*/stat') {
        open(my $fh, '<', $stat) or next;
        my $line = <$fh> // next;
        push @kids, $1 if $line =~ /^(\d+) \(.*\) \S (\d+) / && $2 == $parent;
    }
    return @kids;
}

my @pids;
for my $c (1 .. $CLIENTS) {
    pipe(my $r, my $w) or die "pipe: $!";
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        close $r;
        my $out = eval { client($c) } || { died => "$@" };
        print $w JSON::PP->new->canonical->encode($out);
        close $w;
        POSIX::_exit(0);
    }
    close $w;
    push @pids, [$pid, $r];
}
my $kills = 0;
my $until = time + $SECONDS;
while (time < $until) {
    Time::HiRes::sleep(0.3 + rand 0.9);
    my @kids = children_of($ppid);
    next unless @kids;
    $kills += kill 'KILL', $kids[int rand @kids];
}
my @models;
for my $k (@pids) {
    my ($pid, $fh) = @$k;
    local $/;
    my $text = <$fh>;
    waitpid $pid, 0;
    push @models, eval { JSON::PP::decode_json($text) } || { died => "no report: $text" };
}

# The parent starts children again: wait until the server answers.
my $up = 0;
for (1 .. 100) {
    if (api(GET => '/catalogs', query => { max_results => 1 })->code == 200) { $up = 1; last }
    Time::HiRes::sleep(0.1);
}
ok($up, "the server serves on after $kills children were killed");
ok($kills >= $SECONDS / 2, "children were killed all along ($kills)");
my @died = grep { $_->{died} } @models;
ok(!@died, 'every client ran to its end') or diag join "\n", map { $_->{died} } @died;
my $answered = 0; $answered += $_->{ok} // 0 for @models;
my $unknown = 0; $unknown += $_->{unknown} // 0 for @models;
ok($answered >= 100, "writes answered 200: $answered (and $unknown lost with their child)");
my @half = map { @{ $_->{bad} || [] } } @models;
ok(!@half, 'no write whose answer was lost happened in part') or diag join "\n", @half;

# --- the catalog as the API lists it, against the models -------------------------
sub all_of {
    my ($path, $key, %q) = @_;
    my (@items, $token);
    do {
        my $j = json_of(api(GET => $path, query => { %q, max_results => 1000,
                                                     defined $token ? (page_token => $token) : () })) || {};
        push @items, @{ $j->{$key} || [] };
        $token = $j->{next_page_token};
    } while (defined $token && length $token);
    return @items;
}
my (%want_cat, %want_sch, %want_tab, %want_share, %want_rcp, %want_grant);
for my $m (@models) {
    for my $cn (keys %{ $m->{catalogs} || {} }) {
        $want_cat{$cn} = 1;
        for my $s (keys %{ $m->{catalogs}{$cn} }) {
            $want_sch{"$cn.$s"} = 1;
            $want_tab{"$cn.$s.$_"} = 1 for keys %{ $m->{catalogs}{$cn}{$s} };
        }
    }
    for my $sh (keys %{ $m->{shares} || {} }) {
        $want_share{$sh} = join ',', sort keys %{ $m->{shares}{$sh} };
    }
    $want_rcp{$_} = 1 for keys %{ $m->{recipients} || {} };
    $want_grant{$_} = 1 for grep { $m->{grants}{$_} } keys %{ $m->{grants} || {} };
}
my @cats = grep { /^\Q$p\E_/ } map { $_->{name} } all_of('/catalogs', 'catalogs');
is_deeply([sort @cats], [sort keys %want_cat],
          'the catalogs are exactly those the clients were told exist');
my (@schemas, @tables, @granted);
for my $cn (@cats) {
    for my $s (map { $_->{name} } all_of('/schemas', 'schemas', catalog_name => $cn)) {
        next if $s eq 'information_schema' || $s eq 'default';
        push @schemas, "$cn.$s";
        push @tables, map { "$cn.$s.$_->{name}" }
            all_of('/tables', 'tables', catalog_name => $cn, schema_name => $s);
    }
    my $j = json_of(api(GET => "/permissions/catalog/$cn")) || {};
    push @granted, $cn if grep { $_->{principal} eq 'alice' } @{ $j->{privilege_assignments} || [] };
}
is_deeply([sort @schemas], [sort keys %want_sch], 'and their schemas');
is_deeply([sort @tables], [sort keys %want_tab], 'and their tables');
is_deeply([sort @granted], [sort keys %want_grant], 'and the grants on them');
my %shares;
for my $sh (grep { /^\Q$p\E_/ } map { $_->{name} } all_of('/shares', 'shares')) {
    my $j = json_of(api(GET => "/shares/$sh", query => { include_shared_data => 'true' })) || {};
    $shares{$sh} = join ',', sort map { $_->{shared_as} // '?' } @{ $j->{objects} || [] };
}
is_deeply(\%shares, \%want_share, 'the shares, and the tables in each');
my @rcps = grep { /^\Q$p\E_/ } map { $_->{name} } all_of('/recipients', 'recipients');
is_deeply([sort @rcps], [sort keys %want_rcp], 'the recipients');
my (@commits_off, $versions);
for my $c (1 .. $CLIENTS) {
    my $want = $models[$c - 1]{version} // 0;
    my ($latest, $comment) = committed($managed{$c}, "$ccat.sch.tab$c");
    $versions += $want;
    push @commits_off, "t$c: latest $latest, comment '$comment', expected $want"
        unless $latest == $want && $comment eq ($want ? "v$want" : '');
}
ok(!@commits_off && $versions > 0,
   "every commit answered is ratified with its metadata, none other ($versions versions)")
    or diag join "\n", @commits_off;

# --- the database itself ------------------------------------------------------------
my %checks = (
    'children without their parent' =>
        "SELECT count(*) FROM securables c LEFT JOIN securables p ON p.id = c.parent_id
          WHERE c.parent_id IS NOT NULL AND p.id IS NULL",
    'children under a parent of the wrong kind' =>
        "SELECT count(*) FROM securables c JOIN securables p ON p.id = c.parent_id
          WHERE (c.kind = 'schema' AND p.kind <> 'catalog')
             OR (c.kind IN ('table', 'volume', 'function', 'registered_model')
                 AND p.kind <> 'schema')",
    'grants without their securable' =>
        "SELECT count(*) FROM grants g LEFT JOIN securables s ON s.id = g.securable_id
          WHERE s.id IS NULL",
    'share objects without their share or table' =>
        "SELECT count(*) FROM share_objects o LEFT JOIN securables s ON s.id = o.share_id
           LEFT JOIN securables t ON t.id = o.object_id
          WHERE s.id IS NULL OR t.id IS NULL OR s.kind <> 'share'",
    'ratified commits without their table' =>
        "SELECT count(*) FROM delta_commits d LEFT JOIN securables t ON t.id = d.table_id
          WHERE t.id IS NULL OR t.kind <> 'table'",
    'tokens and share recipients without their recipient' =>
        "SELECT (SELECT count(*) FROM recipient_tokens k LEFT JOIN securables r
                  ON r.id = k.recipient_id WHERE r.id IS NULL OR r.kind <> 'recipient')
              + (SELECT count(*) FROM share_recipients x LEFT JOIN securables r
                  ON r.id = x.recipient_id WHERE r.id IS NULL)",
);
my @broken = grep { db_query($checks{$_}) ne '0' } sort keys %checks;
ok(!@broken, 'the integrity checker finds every row where it belongs')
    or diag join "\n", map { "$_: " . db_query($checks{$_}) } @broken;
SKIP: {
    skip 'SQLite only', 1 unless $sqlite;
    is(db_query('PRAGMA integrity_check'), 'ok', "SQLite's own integrity check");
}

# Best-effort cleanup (not a test).
api(DELETE => "/shares/$_") for keys %want_share;
api(DELETE => "/recipients/$_") for keys %want_rcp;
drop_catalog($_) for @cats;
