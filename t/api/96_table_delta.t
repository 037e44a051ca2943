# SPDX-License-Identifier: Apache-2.0
# The Delta tab's routes of the catalog: a Delta table's latest snapshot in
# summary, its commits newest first in pages, and its first rows decoded on
# the server; each checked against the fixture's own files (its log,
# replayed here; its rows, as an independent Parquet reader, hyparquet,
# reads them: t/delta/gen/dump-parquet.mjs), partitioned and column-mapped
# tables included; the bounds of a preview (rows, files, their size,
# deletion vectors); the refusals; and who may call each route, a hidden
# table answering as a missing one.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use File::Temp ();
use JSON::PP ();
use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 44;

my $p = "t96_$$";
my $cat = "cat_$p";
END { drop_catalog($cat) }
my $source = "$FindBin::Bin/../delta/fixtures";
my $tmp = File::Temp::tempdir("unicat-t96-XXXXXX", TMPDIR => 1, CLEANUP => 1);
my $T0 = 1_700_000_000;     # commit v is made at $T0 + 100 * v

sub write_commit {
    my ($dir, $v, @actions) = @_;
    my $path = sprintf '%s/_delta_log/%020d.json', $dir, $v;
    open my $fh, '>', $path or die "setup: $path: $!";
    print $fh map { JSON::PP::encode_json($_) . "\n" } @actions;
    close $fh or die "setup: $path: $!";
}
sub stamp_commits {
    my ($dir) = @_;
    my $v = 0;
    for my $commit (commits_of($dir)) {
        my $t = $T0 + 100 * $v++;
        utime $t, $t, $commit or die "setup: $!";
    }
}

# The log replayed: the latest protocol and metaData, the live files, and
# per commit its commitInfo and what it added and removed.
sub replay {
    my ($dir) = @_;
    my (%files, %r);
    for my $commit (commits_of($dir)) {
        my %c = (info => undef, adds => 0, removes => 0, added => 0,
                 removed => 0);
        for my $a (actions_of($commit)) {
            $r{meta} = $a->{metaData} if $a->{metaData};
            $r{protocol} = $a->{protocol} if $a->{protocol};
            $c{info} //= $a->{commitInfo};
            if (my $add = $a->{add}) {
                $files{ $add->{path} } = $add->{size};
                $c{adds}++;
                $c{added} += $add->{size};
            }
            if (my $rm = $a->{remove}) {
                delete $files{ $rm->{path} };
                $c{removes}++;
                $c{removed} += $rm->{size} // 0;
            }
        }
        push @{ $r{commits} }, \%c;
    }
    $r{num_files} = keys %files;
    $r{size} = 0;
    $r{size} += $_ for values %files;
    return \%r;
}

# --- the tables ----------------------------------------------------------------
my %fixture = (simple => 'simple_table', parts => 'delta-0.8.0-partitioned',
               mapped => 'table_with_column_mapping',
               nullpart => 'delta-0.8.0-null-partition',
               dvt => 'table-with-dv-small',
               nodata => 'with_checkpoint_no_last_checkpoint');
for my $name (sort keys %fixture) {
    system('cp', '-r', "$source/$fixture{$name}", "$tmp/$name") == 0
        or die "setup: cannot copy $fixture{$name}";
    stamp_commits("$tmp/$name");
}
my %replay = map { $_ => replay("$tmp/$_") } qw(simple parts);

# `many`: 106 commits. `bounded`: twelve files of one row (id 5), one of
# them with a deletion vector and one said to be larger than 64 MiB.
my $one_row = "$source/simple_table/"
    . 'part-00001-7891c33d-cedc-47c3-88a6-abcfb049d3b4-c000.snappy.parquet';
my %meta = (id => 't96', format => { provider => 'parquet', options => {} },
    schemaString => '{"type":"struct","fields":[{"name":"id","type":"long",'
                  . '"nullable":true,"metadata":{}}]}',
    partitionColumns => [], createdTime => 1);
for my $name (qw(many bounded)) {
    mkdir "$tmp/$name" and mkdir "$tmp/$name/_delta_log"
        or die "setup: mkdir $name: $!";
}
write_commit("$tmp/many", 0,
             { protocol => { minReaderVersion => 1, minWriterVersion => 2 } },
             { metaData => { %meta, configuration => {} } });
write_commit("$tmp/many", $_, { commitInfo => { operation => "OP$_" } })
    for 1 .. 105;
stamp_commits("$tmp/many");
my @adds;
for my $i (1 .. 12) {
    system('cp', $one_row, "$tmp/bounded/f$i.parquet") == 0
        or die "setup: cannot copy $one_row";
    push @adds, { add => { path => "f$i.parquet", partitionValues => {},
        size => $i == 3 ? 100 << 20 : -s $one_row, modificationTime => 1,
        dataChange => JSON::PP::true,
        $i == 2 ? (deletionVector => { storageType => 'i',
            pathOrInlineDv => 'wi5b=000010000siXQKl0rr91000f55c8Xg0@(Ef',
            sizeInBytes => 40, cardinality => 1 }) : () } };
}
write_commit("$tmp/bounded", 0,
             { protocol => { minReaderVersion => 3, minWriterVersion => 7,
                             readerFeatures => ['deletionVectors'],
                             writerFeatures => ['deletionVectors'] } },
             { metaData => { %meta, configuration => {
                 'delta.enableDeletionVectors' => 'true' } } }, @adds);
system('chmod', '-R', 'a+rX', $tmp) == 0 or die "setup: chmod";
chmod 0755, $tmp;

create_catalog($cat);
create_schema($cat, 'sch');
my %in = (catalog_name => $cat, schema_name => 'sch');
for my $name (sort(keys %fixture), qw(many bounded)) {
    create_object('/tables', { %in, name => $name, table_type => 'EXTERNAL',
        data_source_format => 'DELTA', columns => [],
        storage_location => "file://$tmp/$name" });
}
mkdir "$tmp/pqt" or die "setup: $!";
create_object('/tables', { %in, name => 'pqt', table_type => 'EXTERNAL',
    data_source_format => 'PARQUET', columns => [],
    storage_location => "file://$tmp/pqt" });
create_object('/tables', { %in, name => 'view1', table_type => 'VIEW',
    data_source_format => 'DELTA', columns => [], view_definition => 'SELECT 1' });

sub delta {
    my ($name, $what, %opt) = @_;
    return api(GET => "/tables/$cat.sch.$name/delta" . ($what ? "/$what" : ''),
               %opt);
}
sub sorted_rows {
    my ($answer) = @_;
    return [ sort { JSON::PP->new->canonical->encode($a)
                    cmp JSON::PP->new->canonical->encode($b) }
             @{ $answer->{rows} || [] } ];
}

# --- the summary ------------------------------------------------------------------
my $res = delta('simple');
is_ok_json($res, 'GET /tables/{full_name}/delta');
my $d = json_of($res) || {};
has_keys($d, [qw(version timestamp checkpoint_version protocol metadata
                 num_files size_in_bytes)], 'summary: its fields');
ok($d->{version} == 4 && is_json_int($d->{version})
   && exists $d->{checkpoint_version} && !defined $d->{checkpoint_version}
   && $d->{timestamp} == ($T0 + 400) * 1000
   && $d->{num_files} == $replay{simple}{num_files}
   && $d->{size_in_bytes} == $replay{simple}{size}
   && is_json_int($d->{size_in_bytes}),
   'summary: version, time, files and bytes as the log says')
    or diag explain $d, $replay{simple};
is_deeply([ $d->{protocol}, $d->{metadata} ],
          [ $replay{simple}{protocol}, $replay{simple}{meta} ],
          'summary: the protocol and metaData actions as the log has them');
$d = json_of(delta('parts')) || {};
ok($d->{version} == 0 && $d->{num_files} == $replay{parts}{num_files}
   && $d->{size_in_bytes} == $replay{parts}{size}
   && !ref $d->{metadata}{schemaString},
   'summary of a partitioned table') or diag explain $d;
is_deeply($d->{metadata}{partitionColumns}, [qw(year month day)],
          '... its partition columns');

# --- the history ----------------------------------------------------------------
$res = delta('simple', 'history');
is_ok_json($res, 'GET /tables/{full_name}/delta/history');
my $h = json_of($res) || {};
has_keys($h, [qw(commits next_page_token)], 'history: its fields');
is_deeply([ map { $_->{version} } @{ $h->{commits} || [] } ], [4, 3, 2, 1, 0],
          'history: every commit, newest first');
my @want = map {
    my $c = $replay{simple}{commits}[$_];
    { version => $_, timestamp => ($T0 + 100 * $_) * 1000,
      commit_info => $c->{info}, num_added_files => $c->{adds},
      num_removed_files => $c->{removes}, added_bytes => $c->{added},
      removed_bytes => $c->{removed} } } reverse 0 .. 4;
is_deeply($h->{commits}, \@want,
          'history: each commit\'s commitInfo, time, files and bytes');
is_deeply([ map { $_->{commit_info}{operation} } @{ $h->{commits} || [] } ],
          [ 'DELETE', 'UPDATE', 'WRITE', 'MERGE', 'WRITE' ],
          'history: the fixture\'s operations');

sub all_pages {
    my ($name, $max) = @_;
    my (@versions, @sizes, $token);
    for (1 .. 20) {
        my $page = json_of(delta($name, 'history', query => {
            max_results => $max, $token ? (page_token => $token) : () })) || {};
        push @versions, map { $_->{version} } @{ $page->{commits} || [] };
        push @sizes, scalar @{ $page->{commits} || [] };
        $token = $page->{next_page_token} or last;
    }
    return (\@versions, \@sizes);
}
my ($versions, $sizes) = all_pages('simple', 2);
ok("@$versions" eq '4 3 2 1 0' && "@$sizes" eq '2 2 1',
   'history in pages of 2: every commit once, newest first')
    or diag "versions @$versions, pages @$sizes";
$h = json_of(delta('many', 'history')) || {};
ok(@{ $h->{commits} || [] } == 20 && $h->{commits}[0]{version} == 105
   && $h->{commits}[0]{commit_info}{operation} eq 'OP105'
   && $h->{next_page_token},
   'history: 20 commits by default, and a token for the rest')
    or diag explain $h;
($versions, $sizes) = all_pages('many', 1000);
ok("@$sizes" eq '100 6' && "@$versions" eq join(' ', reverse 0 .. 105),
   'history: max_results above 100 is 100, and pages reach every commit once')
    or diag "pages @$sizes";
$h = json_of(delta('many', 'history', query => { max_results => 3,
    page_token => $h->{next_page_token} })) || {};
is_deeply([ map { $_->{version} } @{ $h->{commits} || [] } ], [85, 84, 83],
          'a page token continues below the last version shown');
is_error(delta('simple', 'history', query => { max_results => -1 }), 400,
         'INVALID_PARAMETER_VALUE', 'history: a negative max_results -> 400');
is_error(delta('simple', 'history', query => { max_results => 'ten' }), 400,
         'INVALID_PARAMETER_VALUE', 'history: max_results not a number -> 400');
is_error(delta('simple', 'history', query => { page_token => 'garbage!' }),
         400, 'INVALID_PARAMETER_VALUE', 'history: an invalid page token -> 400');
my $other = (json_of(api(GET => '/tables', query => { %in, max_results => 1 }))
             || {})->{next_page_token};
is_error(delta('simple', 'history', query => { page_token => $other }),
         400, 'INVALID_PARAMETER_VALUE',
         'history: the page token of another list -> 400');

# --- the preview ----------------------------------------------------------------
$res = delta('simple', 'preview');
is_ok_json($res, 'GET /tables/{full_name}/delta/preview');
$d = json_of($res) || {};
has_keys($d, [qw(version columns rows files_read files_skipped truncated)],
         'preview: its fields');
ok($d->{version} == 4 && $d->{files_read} == 5 && $d->{files_skipped} == 0
   && JSON::PP::is_bool($d->{truncated}) && !$d->{truncated},
   'preview: every file read, nothing left') or diag explain $d;
is_deeply([ $d->{columns}, sorted_rows($d) ],
          [ [ { name => 'id', type => 'long' } ], [ [5], [7], [9] ] ],
          'preview: the columns and rows of the fixture');
my @part_rows = sort map { JSON::PP->new->canonical->encode($_) }
    ['1', '2020', '1', '1'], ['2', '2020', '2', '3'], ['3', '2020', '2', '5'],
    ['4', '2021', '4', '5'], ['5', '2021', '12', '4'], ['6', '2021', '12', '20'],
    ['7', '2021', '12', '20'];
$d = json_of(delta('parts', 'preview')) || {};
is_deeply([ (map { $_->{name} } @{ $d->{columns} || [] }),
            (map { JSON::PP->new->canonical->encode($_) } @{ sorted_rows($d) }),
            $d->{files_read} ],
          [ qw(value year month day), @part_rows, 6 ],
          'preview of a partitioned table: values from the files and the log');
$d = json_of(delta('parts', 'preview', query => { max_rows => 3 })) || {};
my %known = map { $_ => 1 } @part_rows;
ok(@{ $d->{rows} || [] } == 3 && $d->{truncated}
   && !grep({ !$known{ JSON::PP->new->canonical->encode($_) } }
            @{ $d->{rows} || [] }),
   'preview: max_rows rows, and truncated') or diag explain $d;
ok(@{ (json_of(delta('parts', 'preview', query => { max_rows => 1000 }))
       || {})->{rows} || [] } == 7
   && @{ (json_of(delta('parts', 'preview', query => { max_rows => 0 }))
          || {})->{rows} || [] } == 7,
   'preview: max_rows above 100 is 100, 0 the default');
is_error(delta('parts', 'preview', query => { max_rows => -1 }), 400,
         'INVALID_PARAMETER_VALUE', 'preview: a negative max_rows -> 400',
         message => qr/max_rows/);
is_error(delta('parts', 'preview', query => { max_rows => '2x' }), 400,
         'INVALID_PARAMETER_VALUE', 'preview: max_rows not a number -> 400');
$d = json_of(delta('mapped', 'preview')) || {};
is_deeply([ $d->{columns}, sorted_rows($d) ],
          [ [ { name => 'Company Very Short', type => 'string' },
              { name => 'Super Name', type => 'string' } ],
            [ ['BME', 'Timothy Lamb'], ['BMS', 'Anthony Johnson'],
              ['BMS', 'Mr. Daniel Ferguson MD'], ['BMS', 'Nathan Bennett'],
              ['BMS', 'Stephanie Mcgrath'] ] ],
          'preview of a column-mapped table: by the physical names');
$d = json_of(delta('nullpart', 'preview')) || {};
is_deeply(sorted_rows($d), [ ['A', 1], [undef, 2] ],
          'preview: a null partition value is null');
$d = json_of(delta('dvt', 'preview')) || {};
is_deeply([ $d->{rows}, $d->{files_read}, $d->{files_skipped},
            $d->{truncated} ? 1 : 0 ], [ [], 0, 1, 0 ],
          'preview: a file with a deletion vector is not read');
$d = json_of(delta('bounded', 'preview')) || {};
is_deeply([ $d->{rows}, $d->{files_read}, $d->{files_skipped},
            $d->{truncated} ? 1 : 0 ], [ [ ([5]) x 8 ], 8, 2, 1 ],
          'preview: eight files at most, none larger than 64 MiB');
is_error(delta('nodata', 'preview'), 400, 'MALFORMED_DELTA_LOG',
         'preview: a data file the log names and the storage lacks -> 400');

# --- refusals ---------------------------------------------------------------------
for my $what ('', 'history', 'preview') {
    is_error(delta('pqt', $what), 400, 'INVALID_PARAMETER_VALUE',
             "/delta" . ($what && "/$what") . " of a Parquet table -> 400",
             message => qr/not a Delta table/);
}
is_error(delta('view1'), 400, 'INVALID_PARAMETER_VALUE', 'a view -> 400',
         message => qr/not a Delta table/);
is_error(delta('nosuch'), 404, 'TABLE_NOT_FOUND', 'a missing table -> 404');

# --- who may call them --------------------------------------------------------------
grant('catalog', $cat, 'alice', 'USE CATALOG');
grant('schema', "$cat.sch", 'alice', 'USE SCHEMA');
for my $what ('', 'history', 'preview') {
    is_as_missing(delta('simple', $what, user => 'alice'),
                  delta('nosuch', $what, user => 'alice'),
                  [ "$cat.sch.simple", "$cat.sch.nosuch" ],
                  "alice without a grant: /delta" . ($what && "/$what")
                  . " as of a missing table");
}
grant('table', "$cat.sch.simple", 'alice', 'SELECT');
ok(!grep({ delta('simple', $_, user => 'alice')->code != 200 }
         '', 'history', 'preview'),
   'alice with SELECT: the summary, the history and the preview');
revoke('table', "$cat.sch.simple", 'alice', 'SELECT');
grant('table', "$cat.sch.simple", 'alice', 'MODIFY');
ok(!grep({ delta('simple', $_, user => 'alice')->code != 200 }
         '', 'history'),
   'alice with MODIFY: the summary and the history');
is_error(delta('simple', 'preview', user => 'alice'), 403, 'PERMISSION_DENIED',
         'alice with MODIFY: no preview');
