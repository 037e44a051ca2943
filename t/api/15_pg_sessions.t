# SPDX-License-Identifier: Apache-2.0
# PostgreSQL: the module prepares each statement once per session of a
# connection (src/store/uc_store_pgsql.c). A session that ends under the
# module (the database restarted, an administrator's pg_terminate_backend)
# costs the request that finds it dead a 503, never a 500; the driver
# reconnects, and the new session prepares its statements again instead
# of running names it never heard of. Checked on a server of this test's
# own (a DBDParams with an application_name of its own), so that only its
# sessions are ended. On SQLite there are no sessions: skipped.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 6;

my $c;
END { drop_catalog($c) if $c }

SKIP: {
    skip 'PostgreSQL sessions only', 6 if db_is_sqlite();

    my $t_conf = Apache::Test::vars('t_conf');
    my $app = "unicat_t15_$$";
    my $backend = do {
        local (@ARGV, $/) = ("$t_conf/backend.conf");
        <>;
    };
    $backend =~ s/^(DBDParams\s+"[^"]*)"/$1 application_name=$app"/m
        or die "no DBDParams in backend.conf";
    my $node = own_httpd(<<"CONF");
$backend
DBDMin 1
DBDKeep 1
DBDMax 1
${\ catalog_mount()}
CONF
    my $base = "$node->{url}/api/2.1/unity-catalog";
    $c = "pgs15_$$";
    create_catalog($c);
    create_schema($c, 'sch');
    my @asks = ([GET => "/catalogs/$c"],
                [GET => '/schemas', query => { catalog_name => $c }],
                [GET => "/schemas/$c.sch"]);
    my @before = map { api(@$_, base => $base)->code } (@asks) x 3;
    ok($node->{up} && !grep({ $_ != 200 } @before),
       'its server answers from PostgreSQL')
        or diag "@before\n", $node->{log}->();

    my $sessions = sub {
        db_query("SELECT count(*) FROM pg_stat_activity "
                 . "WHERE application_name = '$app'");
    };
    my $ended = db_query("SELECT count(pg_terminate_backend(pid)) "
                         . "FROM pg_stat_activity "
                         . "WHERE application_name = '$app'");
    ok($ended >= 1, "its sessions ended under it ($ended)");

    my @after = map { api(@$_, base => $base)->code } (@asks) x 6;
    my @failed = grep { $_ != 200 } @after;
    note "after the end of its sessions: @after";
    ok(!grep({ $_ != 503 } @failed) && @failed <= $ended,
       'a request that found its session dead was answered 503, '
       . 'at most one a session')
        or diag "@after";
    ok(!grep({ $_ != 200 } @after[-9 .. -1]),
       'then every statement runs again on the new sessions')
        or diag "@after";
    ok($sessions->() >= 1, 'the driver connected again');
    my $log = $node->{log}->();
    note join "\n", grep { /UC0|DBD/ } split /\n/, $log;
    ok($log !~ /SQLSTATE 26000/,
       'no statement ran by a name the new session did not prepare')
        or diag join "\n", grep { /UC0/ } split /\n/, $log;
}
