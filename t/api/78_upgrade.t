# SPDX-License-Identifier: Apache-2.0
# Upgrades, through the module as deployed: an httpd of its own on an
# SQLite catalog made by this release's first migrations (0001 and 0002,
# applied by sqlite3 itself) holding a catalog, a schema and a grant. The
# module upgrades it to the current schema on its first connection and
# serves the old data and the newer objects alike. The same file, marked
# as written by a newer module, is refused with a clear error, answered
# 503, and left byte for byte as it was.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Digest::SHA ();
use File::Temp ();
use Unicat::Test;

plan tests => 9;

my $top = Apache::Test::vars('top_dir');
my $dir = File::Temp::tempdir('unicat-t78-XXXXXX', TMPDIR => 1, CLEANUP => 1);
chmod 0755, $dir;
my $db = "$dir/catalog.db";

sub sqlite {
    my ($sql) = @_;
    open(my $fh, '|-', 'sqlite3', '-batch', '-bail', $db) or die "sqlite3: $!";
    print $fh $sql;
    close $fh or die "sqlite3 failed on: $sql";
}
my @first = (sort glob "$top/sql/sqlite/000[12]_*.sql");
is(scalar @first, 2, "the first migrations: @first");
sqlite("CREATE TABLE unicat_schema_version (version INTEGER PRIMARY KEY, "
       . "name TEXT NOT NULL, applied_at BIGINT NOT NULL);");
for my $file (@first) {
    my $sql = do { local (@ARGV, $/) = ($file); <> };
    my ($version, $name) = $file =~ m{/((\d+)_[^/]+)\.sql$} ? ($2 + 0, $1) : ();
    sqlite("$sql\nINSERT INTO unicat_schema_version VALUES ($version, '$name', 0);");
}
sqlite(<<'SQL');
INSERT INTO securables (id, kind, parent_id, name, comment, created_at, updated_at)
  SELECT 'c0ffee00-0000-4000-8000-000000000001', 'catalog', id, 'old_catalog',
         'made by the first release', 1700000000000, 1700000000000
    FROM securables WHERE kind = 'metastore';
INSERT INTO securables (id, kind, parent_id, name, created_at, updated_at)
  VALUES ('c0ffee00-0000-4000-8000-000000000002', 'schema',
          'c0ffee00-0000-4000-8000-000000000001', 'old_schema',
          1700000000000, 1700000000000);
INSERT INTO grants VALUES ('c0ffee00-0000-4000-8000-000000000001', 'alice',
                           'USE_CATALOG', 'admin', 1700000000000);
SQL
my $has_metastore = `sqlite3 -batch "$db" "SELECT COUNT(*) FROM securables WHERE kind = 'catalog'"`;
chomp $has_metastore;
is($has_metastore, 1, 'the first release wrote its metastore; the old catalog is in it');
system('chmod', '-R', 'a+rw', $dir);

my $mount = <<"CONF";
DBDriver sqlite3
DBDParams "$db"
${\ catalog_mount()}
CONF
my $old = own_httpd($mount);
my $base = "$old->{url}$BASE";
my $cat = json_of(api(GET => '/catalogs/old_catalog', base => $base)) || {};
is($cat->{comment} // '', 'made by the first release',
   'the upgraded module serves the old catalog') or diag $old->{log}->();
is(api(GET => '/schemas/old_catalog.old_schema', base => $base)->code, 200,
   'and its schema');
my $perm = json_of(api(GET => '/permissions/catalog/old_catalog', base => $base)) || {};
is_deeply([map { "$_->{principal}:@{ $_->{privileges} }" }
           @{ $perm->{privilege_assignments} || [] }], ['alice:USE CATALOG'],
          'and its grant');
is(api(POST => '/shares', base => $base, body => { name => 'new_share' })->code, 200,
   'objects of later migrations can be made');
my $version = `sqlite3 -batch "$db" "SELECT MAX(version) FROM unicat_schema_version"`;
chomp $version;
my ($latest) = sort { $b <=> $a } map { m{/0*(\d+)_[^/]+\.sql$} ? $1 : () } glob "$top/sql/sqlite/*.sql";
is($version, $latest, "the schema is at the current version ($latest)");
$old->{stop}->();

# --- a database from a newer module --------------------------------------------
sqlite("INSERT INTO unicat_schema_version VALUES (9999, '9999_future', 0);");
my $digest = sub { Digest::SHA->new(256)->addfile($db)->hexdigest };
my $before = $digest->();
my $newer = own_httpd($mount);
my $res = api(GET => '/catalogs/old_catalog', base => "$newer->{url}$BASE");
ok($res->code == 503 && $newer->{log}->() =~ /UC0205: .*version 9999, newer than this module/,
   'a database of a newer module: 503, and the error log says why')
    or diag $res->code . ' ' . $res->content . "\n" . $newer->{log}->();
$newer->{stop}->();
is($digest->(), $before, 'and the file is left as it was');
