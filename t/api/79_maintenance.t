# SPDX-License-Identifier: Apache-2.0
# Maintenance on the live database while httpd serves it: VACUUM, ANALYZE
# and an index made and dropped by another client change the schema
# SQLite's prepared statements were made for. httpd's connections, which
# prepared their statements before, must prepare them again and answer
# every read and write as before (SQLite's legacy prepare left writes
# failing with 500 until httpd restarted). On PostgreSQL the same steps
# (VACUUM ANALYZE, an index) must leave the server answering as well.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 8;

my $p = "m79_$$";
my $ROUNDS = 12;

# Enough concurrent work that many of httpd's connections prepare the
# statements of creating, updating, reading and deleting a catalog.
sub busy_round {
    my ($tag) = @_;
    return race(map {
        my $name = "${p}_${tag}_$_";
        sub {
            my $res = api(POST => '/catalogs', body => { name => $name });
            return $res unless $res->code == 200;
            $res = api(PATCH => "/catalogs/$name", body => { comment => 'c' });
            return $res unless $res->code == 200;
            $res = api(GET => "/catalogs/$name");
            return $res unless $res->code == 200;
            return api(DELETE => "/catalogs/$name");
        }
    } 1 .. $ROUNDS);
}

sub all_fine {
    my ($name, @out) = @_;
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    my @bad = grep { $_ ne '200 -' } @out;
    ok(!@bad, $name) or diag join ', ', @out;
}

my $log = Apache::Test::vars('serverroot') . '/logs/error_log';
sub error_log_since {
    my ($offset) = @_;
    open(my $fh, '<', $log) or return '';
    seek $fh, $offset, 0;
    local $/;
    return <$fh> // '';
}

all_fine('before: every connection creates, updates, reads and deletes', busy_round('a'));

my $log_start = -s $log // 0;
my $sqlite = db_is_sqlite();
my @maintenance = $sqlite
    ? ('VACUUM', 'ANALYZE', "CREATE INDEX ${p}_ix ON securables(name)", "DROP INDEX ${p}_ix")
    : ('VACUUM ANALYZE', "CREATE INDEX ${p}_ix ON securables(name)", "DROP INDEX ${p}_ix");
my @failed = grep { !eval { db_query($_, write => 1); 1 } } @maintenance;
is_deeply(\@failed, [], 'VACUUM, ANALYZE and an index made and dropped by another client');

all_fine('after VACUUM and ANALYZE: every connection still writes and reads',
         busy_round('b'));

my $res = api(POST => '/catalogs', body => { name => "${p}_dup" });
is($res->code, 200, 'a catalog created after the maintenance');
is_error(api(POST => '/catalogs', body => { name => "${p}_dup" }),
         400, 'CATALOG_ALREADY_EXISTS',
         'a name taken still answers as taken, not as a server error');
is_catalog(api(GET => "/catalogs/${p}_dup"), { name => "${p}_dup" }, 'and reads back');
is_deleted(api(DELETE => "/catalogs/${p}_dup"), 'and deletes');

my @store_errors = grep { /UC0201/ } split /\n/, error_log_since($log_start);
is_deeply(\@store_errors, [], 'the error log holds no statement error since the maintenance');
