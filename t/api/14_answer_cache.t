# SPDX-License-Identifier: Apache-2.0
# The answer cache (UnicatAnswerCacheSize): answers of lists and gets
# kept per child for their next caller while the catalog's version (kept
# by triggers, sql/<dialect>/0015_catalog_version.sql) does not move.
# Kept answers are given again byte for byte and counted as hits; every
# change is seen by the next call, whatever made it (the module on this
# node, on another node, or a client of the database itself), grants and
# their revocation above all, refusals included though the rule is not
# asked again for a kept answer; callers with other grants, groups or
# admin rights and other queries never share an answer; with the cache
# off the lists are answered as ever and nothing is kept.
#
# Each check of freshness first asks its list until the metrics count a
# hit, so that the answer is known to be kept (by the child that answers
# this connection) when the change is made.
#
# Users (t/TEST.PL): admin (UnicatMetastoreAdmin), alice, bob, carol,
# dave; groups of the main mount: analysts = carol, auditors = dave carol.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use File::Temp ();

use Apache::Test qw(-withtestmore);
use Unicat::Test;

my $t_conf = Apache::Test::vars('t_conf');
plan tests => 42;

my $p = "ac14_$$";
my ($c, $gc, $rc) = ("cat_$p", "grp_$p", "race_$p");
END { drop_catalog($_) for $c, $gc, $rc }
create_catalog($c);
create_catalog($gc);
# A connection to each server this file asks (the suite's, node B, the
# server without a cache) kept open: a list asked again right after a
# change lands in the child that kept it, as the first did.
Apache::TestRequest::user_agent()->conn_cache->total_capacity(4);
create_schema($c, $_) for qw(sa1 sa2 sa3);
my $env = '/envgroups/api/2.1/unity-catalog';

# The samples of a server's metrics (the suite's, or those at `url`).
sub samples {
    my ($url) = @_;
    my $res = api(GET => '/unicat-status', user => undef,
                  base => ($url // ''));
    return { map { /^(\S+) (\S+)$/ ? ($1 => $2) : () }
             grep { !/^#/ } split /\n/, $res->content };
}
sub hits { samples(@_)->{unicat_answer_cache_hits_total} // 0 }

# The names of a list answer, sorted; with `field`, "name=field" each.
sub names {
    my ($res, $key, $field) = @_;
    my $j = json_of($res) || {};
    return 'error ' . $res->code unless $res->code == 200;
    return join ' ', sort map { $field ? "$_->{name}=" . ($_->{$field} // '-')
                                       : $_->{name} } @{ $j->{$key} || [] };
}

# The list of `req` (api() arguments) asked until the metrics of its
# server count a hit: the answer is kept where this connection lands.
sub kept {
    my (@req) = @_;
    my %opt = @req[2 .. $#req];
    my $status = $opt{base} && $opt{base} =~ m{^(http://[^/]+)} ? $1 : '';
    api(@req);
    for (1 .. 4) {
        my $before = hits($status);
        my $res = api(@req);
        return $res if hits($status) > $before;
    }
    return undef;
}

# fresh($name, \@req, $view, $before, $change, $after): the list of @req,
# kept, shows $before (through $view); right after $change it shows
# $after. One test.
sub fresh {
    my ($name, $req, $view, $before, $change, $after) = @_;
    my $kept = kept(@$req);
    my $was = $kept ? $view->($kept) : 'not kept';
    $change->();
    my $now = $view->(api(@$req));
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    ok($was eq $before && $now eq $after, $name)
        or diag "kept: '$was' (expected '$before'); after the change: "
              . "'$now' (expected '$after')";
}

# alternate($name, [$req_a, $view_a, $want_a], [$req_b, ...]): two lists
# asked in turns, each kept before the other is asked, each showing its
# own. One test.
sub alternate {
    my ($name, @lists) = @_;
    my @seen;
    for my $l (@lists, @lists) {
        my ($req, $view, $want) = @$l;
        my $res = kept(@$req);
        my $got = $res ? $view->($res) : 'not kept';
        push @seen, "'$got' (expected '$want')" if $got ne $want;
    }
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    ok(!@seen, $name) or diag join '; ', @seen;
}

my @schemas = (GET => '/schemas', query => { catalog_name => $c });
my $schema_names = sub { names($_[0], 'schemas') };
sub as { my ($user, @req) = @_; return (@req, user => $user) }
sub tables_in { (GET => '/tables', query => { catalog_name => $c,
                                              schema_name => $_[0] }) }
# This file's catalogs in a list of catalogs (other files may leave theirs).
my $catalogs_of = sub { join ' ', grep { /_\Q$p\E\z/ }
                                  split / /, names($_[0], 'catalogs') };
my @catalogs = (GET => '/catalogs', query => { max_results => 1000 });

# Node B: a second httpd on the suite's database, with the API mounted
# three times: as the suite does, where alice is a metastore admin, and
# with UnicatAnswerCache Off.
my $status = <<"CONF";
<Location /unicat-status>
    SetHandler unicat-status
    Require ip 127.0.0.1
</Location>
CONF
(my $alice_admin = catalog_mount()) =~ s{<Location /}{<Location /alice-admin/};
$alice_admin =~ s/UnicatMetastoreAdmin admin/UnicatMetastoreAdmin alice/;
(my $uncached = catalog_mount()) =~ s{<Location /}{<Location /uncached/};
$uncached =~ s/(    Unicat On\n)/$1    UnicatAnswerCache Off\n/;
my $node_b = own_httpd(<<"CONF");
Include "$t_conf/backend.conf"
${\ catalog_mount()}
$alice_admin
$uncached
$status
CONF
my $B = "$node_b->{url}/api/2.1/unity-catalog";
my $U = "$node_b->{url}/uncached$BASE";
my $alice_admin_base = "$node_b->{url}/alice-admin/api/2.1/unity-catalog";
ok($node_b->{up} && api(@schemas, base => $B)->code == 200,
   'node B serves the same catalog') or diag $node_b->{log}->();

# --- kept answers are given again --------------------------------------------
my $before = samples();
my @bodies = map { api(@schemas)->content } 1 .. 5;
my $after = samples();
ok(!grep({ $_ ne $bodies[0] } @bodies)
   && $schema_names->(api(@schemas)) eq 'sa1 sa2 sa3',
   'the same list asked five times: the same bytes each time')
    or diag join "\n", @bodies;
my $rose = sub { ($after->{"unicat_answer_cache_$_[0]_total"} // 0)
                 - ($before->{"unicat_answer_cache_$_[0]_total"} // 0) };
ok($rose->('hits') >= 1 && $rose->('misses') >= 1,
   'the metrics count the first as a miss and kept answers as hits')
    or diag 'hits +' . $rose->('hits') . ', misses +' . $rose->('misses');
sleep 1;    # the gauges are published at most once a second
api(@schemas);
my $now = samples();
ok(($now->{unicat_answer_cache_entries} // 0) >= 1
   && ($now->{unicat_answer_cache_bytes} // 0) > length $bodies[0],
   'and publish how many answers are kept and their bytes')
    or diag explain { map { $_ => $now->{$_} } grep { /answer/ } keys %$now };

# --- every change is seen by the next list -----------------------------------
fresh('a schema created shows in the list kept before', \@schemas,
      $schema_names, 'sa1 sa2 sa3', sub { create_schema($c, 'new') },
      'new sa1 sa2 sa3');
my $comments = sub { names($_[0], 'schemas', 'comment') };
fresh('a new comment shows', \@schemas, $comments,
      'new=- sa1=- sa2=- sa3=-',
      sub { api(PATCH => "/schemas/$c.new", body => { comment => 'fresh' }) },
      'new=fresh sa1=- sa2=- sa3=-');
fresh('a rename shows', \@schemas, $schema_names, 'new sa1 sa2 sa3',
      sub { api(PATCH => "/schemas/$c.new",
                body => { new_name => 'renamed' }) },
      'renamed sa1 sa2 sa3');
fresh('a deleted schema is gone', \@schemas, $schema_names,
      'renamed sa1 sa2 sa3', sub { api(DELETE => "/schemas/$c.renamed") },
      'sa1 sa2 sa3');
my $tables = sub { names($_[0], 'tables') };
my %view = (catalog_name => $c, schema_name => 'sa1', table_type => 'VIEW',
            data_source_format => 'DELTA', columns => [],
            view_definition => 'SELECT 1');
create_object('/tables', { %view, name => 'tb1' });
fresh('a table created shows', [ tables_in('sa1') ], $tables, 'tb1',
      sub { create_object('/tables', { %view, name => 'tb2' }) }, 'tb1 tb2');
fresh('a table deleted is gone', [ tables_in('sa1') ], $tables, 'tb1 tb2',
      sub { api(DELETE => "/tables/$c.sa1.tb2") }, 'tb1');
my $owners = sub { names($_[0], 'schemas', 'owner') };
fresh('an ownership transfer shows', \@schemas, $owners,
      'sa1=admin sa2=admin sa3=admin',
      sub { api(PATCH => "/schemas/$c.sa3", body => { owner => 'alice' }) },
      'sa1=admin sa2=admin sa3=alice');

# Grants, then their revocation: bob's lists show then hide at once.
fresh("a grant of USE CATALOG shows the catalog in bob's list",
      [ as(bob => @catalogs) ], $catalogs_of, '',
      sub { grant('catalog', $c, 'bob', 'USE CATALOG') }, $c);
fresh('its revocation hides it at once', [ as(bob => @catalogs) ],
      $catalogs_of, $c, sub { revoke('catalog', $c, 'bob', 'USE CATALOG') },
      '');
grant('catalog', $c, 'bob', 'USE CATALOG');
fresh("a grant of USE SCHEMA shows the schema in bob's list",
      [ as(bob => @schemas) ], $schema_names, '',
      sub { grant('schema', "$c.sa1", 'bob', 'USE SCHEMA') }, 'sa1');
fresh('its revocation hides it at once', [ as(bob => @schemas) ],
      $schema_names, 'sa1',
      sub { revoke('schema', "$c.sa1", 'bob', 'USE SCHEMA') }, '');
grant('schema', "$c.sa1", 'bob', 'USE SCHEMA');
fresh("a grant of SELECT shows the table in bob's list",
      [ as(bob => tables_in('sa1')) ], $tables, '',
      sub { grant('table', "$c.sa1.tb1", 'bob', 'SELECT') }, 'tb1');
fresh('its revocation hides it at once', [ as(bob => tables_in('sa1')) ],
      $tables, 'tb1',
      sub { revoke('table', "$c.sa1.tb1", 'bob', 'SELECT') }, '');
fresh("an ownership given to bob shows the schema in bob's list",
      [ as(bob => @schemas) ], $schema_names, 'sa1',
      sub { api(PATCH => "/schemas/$c.sa2", body => { owner => 'bob' }) },
      'sa1 sa2');
fresh('and taken back hides it', [ as(bob => @schemas) ], $schema_names,
      'sa1 sa2',
      sub { api(PATCH => "/schemas/$c.sa2", body => { owner => 'admin' }) },
      'sa1');

# --- single objects; the rule's verdict goes with the answer ----------------
# A kept answer is given without asking the rule again: what could change
# its verdict is a change of the catalog (the version moves) or another
# caller (another key), and neither is given the answer kept.
my $answer = sub { $_[0]->code . ' ' . $_[0]->content };
fresh('a comment shows in the catalog a GET kept', [ GET => "/catalogs/$c" ],
      sub { $_[0]->code == 200 ? (json_of($_[0]) || {})->{comment} // '-'
                               : 'error ' . $_[0]->code },
      '-', sub { api(PATCH => "/catalogs/$c", body => { comment => 'seen' }) },
      'seen');
{
    my @get = as(bob => GET => "/schemas/$c.sa1");
    my $kept = kept(@get);
    revoke('schema', "$c.sa1", 'bob', 'USE SCHEMA');
    my ($now, $plain) = (api(@get), api(@get, base => $U));
    ok($kept && $kept->code == 200 && $now->code >= 400
       && $answer->($now) eq $answer->($plain),
       "a revocation refuses bob's GET kept for him at once, as a server "
       . 'keeping nothing does')
        or diag 'kept: ', ($kept ? $answer->($kept) : 'not kept'),
                "\nnow: ", $answer->($now), "\nuncached: ", $answer->($plain);
    grant('schema', "$c.sa1", 'bob', 'USE SCHEMA');
}
{
    my $kept = kept(GET => "/catalogs/$gc");
    my $hits = hits();
    my @refused = map { api(as(alice => GET => "/catalogs/$gc")) } 1 .. 3;
    my $plain = api(as(alice => GET => "/catalogs/$gc", base => $U));
    ok($kept && $kept->code == 200 && $plain->code >= 400 && hits() == $hits
       && !grep({ $answer->($_) ne $answer->($plain) } @refused),
       'a GET kept for the admin: a caller the rule refuses is refused, '
       . 'nothing given from the cache')
        or diag 'kept: ', ($kept ? $kept->code : 'not kept'), "; hits $hits, "
                . 'then ' . hits() . "\n", join "\n", map { $answer->($_) }
                @refused, $plain;
}

# --- callers never share an answer -------------------------------------------
grant('catalog', $c, 'alice', 'USE CATALOG');
grant('catalog', $gc, 'analysts', 'USE CATALOG');
alternate('two users with other grants: each their own list of catalogs',
          [ [ as(alice => @catalogs) ], $catalogs_of, $c ],
          [ [ as(dave => @catalogs) ], $catalogs_of, '' ]);
grant('schema', "$c.sa2", 'alice', 'USE SCHEMA');
alternate('a user and the admin: each their own list of schemas',
          [ \@schemas, $schema_names, 'sa1 sa2 sa3' ],
          [ [ as(alice => @schemas) ], $schema_names, 'sa2 sa3' ],
          [ [ as(bob => @schemas) ], $schema_names, 'sa1' ]);
alternate('a member of a group holding a grant and a user outside it',
          [ [ as(carol => @catalogs) ], $catalogs_of, $gc ],
          [ [ as(dave => @catalogs) ], $catalogs_of, '' ]);
alternate('one user with and without a group (UnicatGroupsFromEnv)',
          [ [ as(alice => @catalogs, base => $env,
                 headers => [ 'X-Test-Groups' => 'analysts' ]) ],
            $catalogs_of, "$c $gc" ],
          [ [ as(alice => @catalogs, base => $env) ], $catalogs_of, $c ]);
alternate('one user on two mounts, a metastore admin on one only',
          [ [ as(alice => @schemas, base => $B) ], $schema_names, 'sa2 sa3' ],
          [ [ as(alice => @schemas, base => $alice_admin_base) ],
            $schema_names, 'sa1 sa2 sa3' ]);
alternate('one user on two mounts, with a group on one only',
          [ [ as(carol => @catalogs) ], $catalogs_of, $gc ],
          [ [ as(carol => @catalogs, base => $env) ], $catalogs_of, '' ]);

# --- other queries, other answers --------------------------------------------
sub page_of { my ($n, %q) = @_;
              return (GET => '/schemas', query => { catalog_name => $c,
                                                    max_results => $n, %q }) }
alternate('max_results=1 and max_results=2',
          [ [ page_of(1) ], $schema_names, 'sa1' ],
          [ [ page_of(2) ], $schema_names, 'sa1 sa2' ]);
my $token = (json_of(api(page_of(1))) || {})->{next_page_token} // '';
alternate('a page and the next (page_token)',
          [ [ page_of(1) ], $schema_names, 'sa1' ],
          [ [ page_of(1, page_token => $token) ], $schema_names, 'sa2' ]);
grant('catalog', $c, 'dave', 'USE CATALOG', 'BROWSE');
alternate('with and without include_browse',
          [ [ as(dave => @schemas) ], $schema_names, '' ],
          [ [ as(dave => GET => '/schemas', query => {
                catalog_name => $c, include_browse => 'true' }) ],
            $schema_names, 'sa1 sa2 sa3' ]);

# --- two nodes on one database -----------------------------------------------
fresh('a schema created on node B shows in the list node A kept',
      \@schemas, $schema_names, 'sa1 sa2 sa3',
      sub { api(POST => '/schemas', base => $B,
                body => { name => 'on_b', catalog_name => $c }) },
      'on_b sa1 sa2 sa3');
fresh('a schema deleted on node A is gone from the list node B kept',
      [ @schemas, base => $B ], $schema_names, 'on_b sa1 sa2 sa3',
      sub { api(DELETE => "/schemas/$c.on_b") }, 'sa1 sa2 sa3');
grant('table', "$c.sa1.tb1", 'bob', 'SELECT');
fresh("a grant revoked on node B hides the table from bob's list on A",
      [ as(bob => tables_in('sa1')) ], $tables, 'tb1',
      sub { api(PATCH => "/permissions/table/$c.sa1.tb1", base => $B,
                body => { changes => [ { principal => 'bob',
                                         remove => ['SELECT'] } ] }) },
      '');

# --- writes made in the database itself --------------------------------------
# No module is told: the triggers alone move the version.
my $sa1 = (json_of(api(GET => "/schemas/$c.sa1")) || {})->{schema_id} // '';
my $cid = (json_of(api(GET => "/catalogs/$c")) || {})->{id} // '';
fresh('a comment written by a database client shows', \@schemas, $comments,
      'sa1=- sa2=- sa3=-',
      sub { db_query("UPDATE securables SET comment = 'outside' "
                     . "WHERE id = '$sa1'", write => 1) },
      'sa1=outside sa2=- sa3=-');
fresh("a grant a database client deletes is gone from alice's list",
      [ as(alice => @catalogs) ], $catalogs_of, $c,
      sub { db_query("DELETE FROM grants WHERE securable_id = '$cid' "
                     . "AND principal = 'alice'", write => 1) },
      '');

# Every table of the catalog moves the version but those written while it
# is only read: a table added later without its trigger fails here.
my $unversioned = db_is_sqlite()
    ? db_query("SELECT name FROM sqlite_master WHERE type = 'table' "
               . "AND name NOT LIKE 'sqlite_%' AND name NOT IN "
               . "(SELECT tbl_name FROM sqlite_master WHERE type = 'trigger' "
               . "AND sql LIKE '%catalog_version%' GROUP BY tbl_name "
               . "HAVING COUNT(*) = 3) ORDER BY name")
    : db_query("SELECT c.relname FROM pg_class c JOIN pg_namespace n ON "
               . "n.oid = c.relnamespace WHERE c.relkind = 'r' AND "
               . "n.nspname = current_schema() AND NOT EXISTS (SELECT 1 FROM "
               . "pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid WHERE "
               . "t.tgrelid = c.oid AND p.proname = 'catalog_version_bump') "
               . "ORDER BY c.relname");
is(join(' ', split /\s+/, $unversioned),
   'authz_audit catalog_version sharing_queries unicat_schema_version',
   'every table an answer is made of moves the catalog version');

# --- readers at once while a writer commits ---------------------------------
# Six readers ask the list of a catalog over and over while a writer adds
# schemas to it: every answer holds each schema whose creation was
# answered before the list was asked. On PostgreSQL the threads of a child
# share their readings of the version (a gate that handed out old readings
# fails here; that no reading begun before a thread asked is ever given
# to it, which no HTTP client can time, test_read_gate proves).
{
    create_catalog($rc);
    my $dir = File::Temp::tempdir('unicat-t14-XXXXXX', TMPDIR => 1,
                                  CLEANUP => 1);
    my $acked = sub {
        open my $fh, '<', "$dir/acked" or return 0;
        my $n = <$fh>;
        return $n // 0;
    };
    my $read = sub {
        my ($asked, @missing) = (0);
        until (-e "$dir/done") {
            my $n = $acked->();
            my $res = api(GET => '/schemas', query => { catalog_name => $rc,
                                                        max_results => 1000 });
            $asked++;
            my %has = map { $_->{name} => 1 }
                      @{ (json_of($res) || {})->{schemas} || [] };
            push @missing, $res->code == 200
                ? grep({ !$has{"w_$_"} } 1 .. $n) : 'error ' . $res->code;
        }
        return { asked => $asked, missing => \@missing };
    };
    my ($made, $refused) = (0, '');
    # The readers stop when "done" is there, whatever became of the writer.
    my $write = sub {
        eval {
            for my $i (1 .. 40) {
                my $res = api(POST => '/schemas',
                              body => { name => "w_$i", catalog_name => $rc });
                $refused = $res->code . ' ' . $res->content, last
                    unless $res->code == 200;
                open my $fh, '>', "$dir/acked.new" or die "acked: $!";
                print $fh $i;
                close $fh;
                rename "$dir/acked.new", "$dir/acked" or die "acked: $!";
                $made = $i;
            }
        };
        $refused .= $@;
        open my $done, '>', "$dir/done" or die "done: $!";
        close $done;
    };
    my @reports = clients(6, $read, meanwhile => $write);
    my $asked = 0;
    $asked += $_->{asked} // 0 for @reports;
    my @missing = map { $_->{died} // @{ $_->{missing} || [] } } @reports;
    ok($made == 40 && $asked >= 40 && !@missing,
       'six readers while a writer commits: every list holds what was '
       . 'committed before it was asked')
        or diag "$made schemas made $refused, $asked lists asked; "
                . "missing: @missing";
}

# --- UnicatAnswerCache Off, UnicatAnswerCacheSize 0 -------------------------
my $counts = sub {
    my $m = samples($node_b->{url});
    return join ' ', map { $m->{"unicat_answer_cache_${_}_total"} // 0 }
                     qw(hits misses);
};
my $counted = $counts->();
@bodies = map { api(@schemas, base => $U)->content } 1 .. 4;
ok(!grep({ $_ ne $bodies[0] } @bodies)
   && $schema_names->(api(@schemas, base => $U)) eq 'sa1 sa2 sa3'
   && $counts->() eq $counted,
   'a mount with UnicatAnswerCache Off answers its lists, keeping none')
    or diag "hits and misses: $counted, then ", $counts->(), "\n", @bodies;
my $off = own_httpd(<<"CONF");
UnicatAnswerCacheSize 0
Include "$t_conf/backend.conf"
${\ catalog_mount()}
$status
CONF
my $O = "$off->{url}/api/2.1/unity-catalog";
@bodies = map { api(@schemas, base => $O)->content } 1 .. 4;
ok($off->{up} && !grep({ $_ ne $bodies[0] } @bodies)
   && $schema_names->(api(@schemas, base => $O)) eq 'sa1 sa2 sa3',
   'with the cache off the lists are answered as ever')
    or diag $off->{log}->(), @bodies;
create_schema($c, 'late');
is($schema_names->(api(@schemas, base => $O)), 'late sa1 sa2 sa3',
   'and show what changed');
my $m = samples($off->{url});
ok(exists $m->{unicat_answer_cache_hits_total}
   && !$m->{unicat_answer_cache_hits_total}
   && !$m->{unicat_answer_cache_misses_total}
   && !$m->{unicat_answer_cache_entries},
   'nothing kept, no hit counted')
    or diag explain { map { $_ => $m->{$_} } grep { /answer/ } keys %$m };
