# SPDX-License-Identifier: Apache-2.0
# What the objects of a schema do to it: any of them keeps the schema (and
# its catalog) from being deleted without force; force removes them all in
# one go; renames of the catalog and schema keep them reachable; two
# creates of one name at once: exactly one wins. Then GET
# /object-summaries: every kind found by part of its name across the
# schemas of a catalog, a page at a time, only what the caller may see.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;

my $WORKERS = 6;

# One object of each kind: the path, a body, its GET path and the error a
# second create of its name gives.
sub kinds {
    my ($cat, $sch, $name) = @_;
    my %in = (catalog_name => $cat, schema_name => $sch, name => $name);
    return (
        [ '/tables', { %in, table_type => 'VIEW', data_source_format => 'DELTA',
                       view_definition => 'SELECT 1' },
          "/tables/$cat.$sch.$name", '400 TABLE_ALREADY_EXISTS' ],
        [ '/volumes', { %in, volume_type => 'MANAGED' },
          "/volumes/$cat.$sch.$name", '400 RESOURCE_ALREADY_EXISTS' ],
        [ '/functions', { function_info => { %in, data_type => 'INT',
            full_data_type => 'int', parameter_style => 'S',
            is_deterministic => JSON::PP::true(), sql_data_access => 'NO_SQL',
            is_null_call => JSON::PP::false(), security_type => 'DEFINER',
            routine_body => 'SQL' } },
          "/functions/$cat.$sch.$name", '400 RESOURCE_ALREADY_EXISTS' ],
        [ '/models', { %in }, "/models/$cat.$sch.$name", '409 ALREADY_EXISTS' ],
        [ '/agents', { %in, invocation_protocol => 'REST',
                       endpoint => 'https://agent.example/run' },
          "/agents/$cat.$sch.$name", '400 RESOURCE_ALREADY_EXISTS' ],
        [ '/agent-skills', { %in, agent_skill_type => 'MANAGED' },
          "/agent-skills/$cat.$sch.$name", '400 RESOURCE_ALREADY_EXISTS' ],
        [ '/staging-tables', { %in, name => "${name}_stage" }, undef, undef ],
    );
}

my $NKINDS = () = kinds('c', 's', 'n');
plan tests => 2 * $NKINDS + 6 + 3 * ($NKINDS - 1) + 3 + 6;

my $p = "o95_$$";
my @cleanup;
END { drop_catalog($_) for @cleanup }

# --- each kind alone makes its schema non-empty --------------------------------
my $i = 0;
for my $k (kinds("one_$p", 'sch', 'obj')) {
    my $cat = "one_${p}_" . $i++;
    push @cleanup, $cat;
    create_catalog($cat, storage_root => "s3://bucket/$cat");
    create_schema($cat, 'sch');
    my ($path, $body) = @{ (kinds($cat, 'sch', 'obj'))[$i - 1] };
    create_object($path, $body);
    is_error(api(DELETE => "/schemas/$cat.sch"), 400, 'SCHEMA_NOT_EMPTY',
             "a schema holding one of $path is not empty");
    is_error(api(DELETE => "/catalogs/$cat"), 400, 'CATALOG_NOT_EMPTY',
             "... and neither is its catalog");
}

# --- force, renames -----------------------------------------------------------------
my $cat = "all_$p";
push @cleanup, $cat, "moved_$p";
create_catalog($cat, storage_root => "s3://bucket/$cat");
create_schema($cat, 'sch');
create_object($_->[0], $_->[1]) for kinds($cat, 'sch', 'obj');
create_object('/models/versions', { catalog_name => $cat, schema_name => 'sch',
                                    model_name => 'obj', source => 'x' });
grant('table', "$cat.sch.obj", 'alice', 'SELECT');
api(PATCH => "/catalogs/$cat", body => { new_name => "moved_$p" });
api(PATCH => "/schemas/moved_$p.sch", body => { new_name => 'renamed' });
my @missing = grep { api(GET => $_)->code != 200 }
    map { my $g = $_->[2]; $g =~ s/\Q$cat.sch\E/moved_$p.renamed/; $g }
    grep { defined $_->[2] } kinds($cat, 'sch', 'obj');
ok(!@missing, 'renamed catalog and schema: every object under its new name')
    or diag "missing: @missing";
is(api(GET => "/models/moved_$p.renamed.obj/versions/1")->code, 200,
   '... the model version too');
is_error(api(GET => "/tables/$cat.sch.obj"), 404, 'CATALOG_NOT_FOUND',
         'the old full name is gone');
is_deleted(api(DELETE => "/schemas/moved_$p.renamed", query => { force => 'true' }),
           'force deletes a schema with objects of every kind');
@missing = grep { api(GET => $_)->code != 404 }
    map { my $g = $_->[2]; $g =~ s/\Q$cat.sch\E/moved_$p.renamed/; $g }
    grep { defined $_->[2] } kinds($cat, 'sch', 'obj');
ok(!@missing, 'nothing of it is left') or diag "still there: @missing";
create_schema("moved_$p", 'renamed');
is_deeply(json_of(api(GET => "/permissions/schema/moved_$p.renamed")),
          { privilege_assignments => [] },
          'a new schema of the old name starts without grants');

# --- two creates of one name at once -----------------------------------------------
my $race = "race_$p";
push @cleanup, $race;
create_catalog($race, storage_root => "s3://bucket/$race");
create_schema($race, 'sch');
for my $round (1 .. 3) {
    for my $k (kinds($race, 'sch', "same_$round")) {
        my ($path, $body, undef, $loser) = @$k;
        next unless $loser;
        my @out = race(map { sub { api(POST => $path, body => $body) } }
                       1 .. $WORKERS);
        one_winner($loser, "round $round: one POST $path of the name wins",
                   @out);
    }
}

# --- different objects at once, and a force delete among them ------------------
my @out = race(map { my $k = $_; sub { api(POST => $k->[0], body => $k->[1]) } }
               grep { $_->[2] } map { kinds($race, 'sch', "distinct_$_") } 1 .. 2);
ok(!grep({ $_ ne '200 -' } @out), 'distinct objects created at once all succeed')
    or diag join ', ', @out;
my (@bad, @left);
for my $round (1 .. 3) {
    my $s = "del_$round";
    create_schema($race, $s);
    my @jobs = map { my $k = $_; sub { api(POST => $k->[0], body => $k->[1]) } }
               grep { $_->[2] } kinds($race, $s, 'obj');
    splice @jobs, 2, 0, sub { api(DELETE => "/schemas/$race.$s",
                                  query => { force => 'true' }) };
    my @res = race(@jobs);
    my $del = splice @res, 2, 1;
    push @bad, "round $round delete: $del" unless $del eq '200 -';
    push @bad, map { "round $round create: $_" }
        grep { $_ ne '200 -' && $_ ne '404 SCHEMA_NOT_FOUND' } @res;
    push @left, grep { api(GET => $_)->code != 404 }
        map { $_->[2] } grep { $_->[2] } kinds($race, $s, 'obj');
}
ok(!@bad, 'force-delete of a schema racing creates: only 200 and 404')
    or diag join "\n", @bad;
ok(!@left, 'nothing survives its schema') or diag join "\n", @left;

# --- finding objects by name: GET /object-summaries ----------------------------------
my $found = "find_$p";
push @cleanup, $found;
create_catalog($found, storage_root => "s3://bucket/$found");
create_schema($found, $_) for qw(east west);
for my $s (qw(east west)) {
    create_object($_->[0], $_->[1]) for grep { $_->[2] } kinds($found, $s, "alpha_$s"),
                                                         kinds($found, $s, "beta_$s");
}
my %type_of = ('/tables' => 'table', '/volumes' => 'volume', '/functions' => 'function',
               '/models' => 'registered_model', '/agents' => 'agent',
               '/agent-skills' => 'agent_skill');
my %plural = (table => 'tables', volume => 'volumes', function => 'functions',
              registered_model => 'registered_models', agent => 'agents',
              agent_skill => 'agent_skills');
sub summaries {
    my ($type, %q) = @_;
    my $opt = delete $q{opt} || {};
    return api(GET => '/object-summaries', %$opt,
               query => { catalog_name => $found, object_type => $type, %q });
}
sub found_names {
    my ($type, $res) = @_;
    return join ',', map { $_->{full_name} } @{ (json_of($res) || {})->{$plural{$type}} || [] };
}
my @wrong;
for my $type (sort values %type_of) {
    my $got = found_names($type, summaries($type, name_pattern => '%ALPHA%'));
    push @wrong, "$type: $got"
        unless $got eq "$found.east.alpha_east,$found.west.alpha_west";
}
ok(!@wrong, 'every kind found by part of its name across the schemas') or diag "@wrong";
is(found_names('volume', summaries('volume', name_pattern => 'beta%', schema_name_pattern => 'w%')),
   "$found.west.beta_west", 'the schema pattern narrows it');
my (@walked, $token);
for (1 .. 6) {
    my $page = json_of(summaries('function', max_results => 1, page_token => $token // '')) || {};
    push @walked, map { $_->{name} } @{ $page->{functions} || [] };
    last unless $token = $page->{next_page_token};
}
is("@walked", 'alpha_east beta_east alpha_west beta_west', 'a page at a time, each once');
is_error(summaries('catalog'), 400, 'INVALID_PARAMETER_VALUE', 'an object type it does not list');
grant('catalog', $found, 'alice', 'USE CATALOG');
grant('schema', "$found.west", 'alice', 'USE SCHEMA');
grant('volume', "$found.west.alpha_west", 'alice', 'READ VOLUME');
is(found_names('volume', summaries('volume', opt => { user => 'alice' })),
   "$found.west.alpha_west", 'alice finds only the volume she may see');
is_as_missing(summaries('volume', opt => { user => 'bob' }),
              api(GET => '/object-summaries', user => 'bob',
                  query => { catalog_name => "none_$p", object_type => 'volume' }),
              [$found, "none_$p"], 'a catalog bob may not see is as missing');
