# SPDX-License-Identifier: Apache-2.0
# Scaling out: a second httpd (node B, started here) on the suite's own
# PostgreSQL next to the suite's server (node A), and conflicting writes
# sent to both at once by 8 processes: the same name created on both,
# a rename racing creates of its new name, a delete racing creates under
# it, model versions numbered concurrently, tables added to one share and
# grants made on one catalog from both. Every conflict is a clean 4xx,
# nothing is duplicated or lost, and nothing is left behind a deadlock.
# Scaling out is PostgreSQL's job; under the SQLite suites the two nodes
# share the catalog file, which SQLite's locks keep just as consistent.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;

my $t_conf = Apache::Test::vars('t_conf');
plan tests => 14;

# --- node B ---------------------------------------------------------------------
my $node_b = own_httpd(<<"CONF");
Include "$t_conf/backend.conf"
DBDMin 1
DBDKeep 4
DBDMax 25
${\ catalog_mount()}
CONF
my $B = "$node_b->{url}/api/2.1/unity-catalog";
ok($node_b->{up} && api(GET => '/catalogs', base => $B)->code == 200,
   'node B serves the same catalog') or diag $node_b->{log}->();

# The job of worker $i: on node A when $i is even, on node B when odd.
sub on_node { my ($i, @req) = @_; api(@req, $i % 2 ? (base => $B) : ()) }

my $p = "n76_$$";
my $d = "/srv/unicat-t76-$$";
my @cleanup;
END { drop_catalog($_) for @cleanup;
      api(DELETE => "/shares/shr_$p");
      api(DELETE => "/external-locations/loc_$p", query => { force => 'true' }) }
create_object('/external-locations', { name => "loc_$p", url => $d });

# --- one name, created on both nodes -----------------------------------------------
my $same = "same_$p";
push @cleanup, $same;
my @out = race(map { my $i = $_; sub {
    on_node($i, POST => '/catalogs', body => { name => $same }) } } 1 .. 8);
one_winner('400 CATALOG_ALREADY_EXISTS',
           'one create of a name wins across the nodes, the rest 400', @out);

# --- a rename racing creates of its new name ------------------------------------------
my ($from, $to) = ("from_$p", "to_$p");
push @cleanup, $from, $to;
create_catalog($from);
@out = race(map { my $i = $_; sub {
    $i % 2 ? on_node($i, POST => '/catalogs', body => { name => $to })
           : on_node($i, PATCH => "/catalogs/$from", body => { new_name => $to }) } } 1 .. 8);
my @wins = grep { /^200 / } @out;
my @other = grep { !/^200 / } @out;
ok(@wins == 1 && !grep({ !/^(400 CATALOG_ALREADY_EXISTS|404 CATALOG_NOT_FOUND)$/ } @other),
   'rename vs create of one name: one wins, the others a clean 400 or 404')
    or diag "@out";
my $list = json_of(api(GET => '/catalogs', query => { max_results => 1000 })) || {};
my @names = map { $_->{name} } @{ $list->{catalogs} || [] };
is(scalar(grep { $_ eq $to } @names), 1, 'the name exists once');

# --- a delete racing creates under it --------------------------------------------------
my $doomed = "doomed_$p";
push @cleanup, $doomed;
create_catalog($doomed);
@out = race(map { my $i = $_; sub {
    $i % 2 ? on_node($i, POST => '/schemas', body => { name => "sch$i", catalog_name => $doomed })
           : on_node($i, DELETE => "/catalogs/$doomed", query => { force => 'true' }) } } 1 .. 8);
ok(!grep({ !/^(200|400|404) / } @out) && grep({ /^200 / } @out),
   'delete vs create-under: each a 200 or a clean 4xx') or diag "@out";
my $gone = api(GET => "/catalogs/$doomed")->code == 404;
my @left = grep { api(GET => "/schemas/$doomed.sch$_")->code == 200 } grep { $_ % 2 } 1 .. 8;
ok($gone ? !@left : 1, 'a deleted catalog keeps no schema made during its delete')
    or diag "left: @left";

# --- model versions numbered on both nodes ------------------------------------------------
my $mcat = "models_$p";
push @cleanup, $mcat;
create_catalog($mcat, storage_root => "$d/managed");
create_schema($mcat, 'mlops');
my %in = (catalog_name => $mcat, schema_name => 'mlops');
create_object('/models', { name => 'churn', %in });
@out = race(map { my $i = $_; sub {
    my $r = on_node($i, POST => '/models/versions', body => {
        %in, model_name => 'churn', source => "s3://runs/$i/artifacts" });
    my $v = (json_of($r) || {})->{version} // 'none';
    return HTTP::Response->new($r->code, undef, undef,
                               JSON::PP::encode_json({ error_code => "v$v" }));
} } 1 .. 8);
my @versions = sort { $a <=> $b } map { /^200 v(\d+)$/ ? $1 : () } @out;
is("@versions", '1 2 3 4 5 6 7 8',
   'eight versions made at once on both nodes: numbered 1 to 8, none twice')
    or diag "@out";
my $vl = json_of(api(GET => "/models/$mcat.mlops.churn/versions")) || {};
is(scalar @{ $vl->{model_versions} || [] }, 8, 'and all eight are listed');

# --- one share, updated from both nodes ------------------------------------------------------
my $scat = "share_src_$p";
push @cleanup, $scat;
create_catalog($scat);
create_schema($scat, 'sales');
for my $i (1 .. 8) {
    create_object('/tables', { catalog_name => $scat, schema_name => 'sales',
        name => "tab$i", table_type => 'EXTERNAL', data_source_format => 'DELTA',
        columns => [], storage_location => "$d/tab$i" });
}
create_object('/shares', { name => "shr_$p" });
@out = race(map { my $i = $_; sub {
    on_node($i, PATCH => "/shares/shr_$p", body => { updates => [ { action => 'ADD',
        data_object => { name => "$scat.sales.tab$i" } } ] }) } } 1 .. 8);
ok(!grep({ !/^200 / } @out), 'eight tables added to one share at once: all 200')
    or diag "@out";
my $sh = json_of(api(GET => "/shares/shr_$p", query => { include_shared_data => 'true' })) || {};
is(scalar @{ $sh->{objects} || [] }, 8, 'none of the updates is lost');
@out = race(map { my $i = $_; sub {
    on_node($i, PATCH => "/shares/shr_$p", body => { updates => [ { action => 'REMOVE',
        data_object => { name => "$scat.sales.tab1" } } ] }) } } 1 .. 8);
ok((grep { /^200 / } @out) == 1 && !grep({ !/^(200 |4\d\d )/ } @out),
   'one table removed by eight at once: one 200, the rest a clean 4xx')
    or diag "@out";

# --- grants on one catalog from both nodes ---------------------------------------------------
my @privs = ('USE CATALOG', 'USE SCHEMA', 'SELECT', 'MODIFY', 'CREATE SCHEMA',
             'CREATE TABLE', 'BROWSE', 'EXECUTE');
@out = race(map { my $i = $_; sub {
    on_node($i, PATCH => "/permissions/catalog/$scat", body => { changes => [
        { principal => ($i % 2 ? 'alice' : 'bob'), add => [ $privs[$i - 1] ] } ] }) } } 1 .. 8);
ok(!grep({ !/^200 / } @out), 'eight grants at once: all 200') or diag "@out";
my $perm = json_of(api(GET => "/permissions/catalog/$scat")) || {};
my @held = sort map { my $a = $_; map { "$a->{principal}:$_" } @{ $a->{privileges} || [] } }
    @{ $perm->{privilege_assignments} || [] };
my @want = sort map { ($_ % 2 ? 'alice' : 'bob') . ":$privs[$_ - 1]" } 1 .. 8;
is_deeply(\@held, \@want, 'every grant is kept');

# --- and the nodes still answer at once ------------------------------------------------------
ok(api(GET => "/catalogs/$same", base => $B)->code == 200
   && api(GET => "/catalogs/$same")->code == 200,
   'both nodes serve on: no transaction left waiting on a lock');
