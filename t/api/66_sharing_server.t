# SPDX-License-Identifier: Apache-2.0
# The Delta Sharing server over HTTP, as the official clients use it: a
# provider shares local Delta tables (a table with history from version 1,
# a partitioned one filtered by a partition, a change data feed, deletion
# vectors, a whole schema) with a recipient, which reads them with its
# bearer token: lists (one line of compact JSON, paged), the version
# header, HEAD, metadata, query (files, time travel, pages, limitHint),
# changes, the data files themselves, and the refusals (tokens unknown and
# expired, shares not granted, tables not shared, time travel not
# allowed). No bearer token reaches an answer or the error log.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use File::Temp ();
use HTTP::Request ();
use MIME::Base64 ();
use JSON::PP ();
use Apache::Test qw(-withtestmore);
use Apache::TestRequest ();
use Unicat::Test;

plan tests => 115;

my $p = "ds67_$$";
my ($cat, $share, $other) = ("cat_$p", "shr_$p", "oth_$p");
my @recipients = ("rcp_$p", "rcq_$p");
my $fixtures = "$FindBin::Bin/../delta/fixtures";
my $tmp = File::Temp::tempdir("unicat-s67-XXXXXX", TMPDIR => 1,
                              CLEANUP => 1);
chmod 0755, $tmp;
for (['simple_table', 'simple'], ['simple_table', 'more'],
     ['simple_table', 'hidden'], ['simple_table', 'more2'],
     ['delta-0.8.0-partitioned', 'part'], ['cdf-table', 'cdf'],
     ['table-with-dv-small', 'dvs'], ['simple_table', 'sym'],
     ['simple_table', 'gone']) {
    system('cp', '-r', "$fixtures/$_->[0]", "$tmp/$_->[1]") == 0
        or die "setup: cannot copy $_->[0]";
}
mkdir "$tmp/nolog" or die "setup: $!";
mkdir "$tmp/vol" or die "setup: $!";
# A table whose data files are links out of its root: none may be served.
mkdir "$tmp/outside" or die "setup: $!";
for my $f (glob "$tmp/sym/*.parquet") {
    my ($base) = $f =~ m{([^/]+)$};
    rename $f, "$tmp/outside/$base" and symlink "$tmp/outside/$base", $f
        or die "setup: $!";
}
system('chmod', '-R', 'a+rX', $tmp);
END {
    api(DELETE => "/shares/$_") for $share, $other;
    api(DELETE => "/recipients/$_") for @recipients;
    drop_catalog($cat);
}

my @answers;      # every answer the recipients got, for the token scan
my @sent;         # more secrets the scan looks for
my $JSON = JSON::PP->new->canonical;

# --- the provider ---------------------------------------------------------------
create_catalog($cat);
create_schema($cat, $_) for qw(sales extra);
my %ext = (catalog_name => $cat, table_type => 'EXTERNAL',
           data_source_format => 'DELTA', columns => []);
my %ids;
for ([sales => 'simple'], [sales => 'part'], [sales => 'cdf'],
     [sales => 'dvs'], [sales => 'hidden'], [sales => 'nolog'],
     [sales => 'sym'], [sales => 'gone'],
     [extra => 'tb1', 'more']) {
    my ($schema, $name, $dir) = @$_;
    my $t = create_object('/tables', { %ext, schema_name => $schema,
        name => $name, storage_location => "file://$tmp/" . ($dir // $name) });
    $ids{$name} = $t->{table_id};
}
my $vol = create_object('/volumes', { catalog_name => $cat, schema_name => 'sales',
    name => 'vol', volume_type => 'EXTERNAL', storage_location => "file://$tmp/vol" });
create_object('/shares', { name => $_ }) for $share, $other;
sub add { { action => 'ADD', data_object => { @_ } } }
my $res = api(PATCH => "/shares/$share", body => { updates => [
    add(name => "$cat.sales.simple", shared_as => 'pub.simple',
        history_data_sharing_status => 'ENABLED', start_version => 1),
    add(name => "$cat.sales.part", shared_as => 'pub.part',
        partitions => [ { values => [ { name => 'year', op => 'EQUAL',
                                        value => '2021' } ] } ]),
    add(name => "$cat.sales.cdf", shared_as => 'pub.cdf', enable_cdf => \1,
        history_data_sharing_status => 'ENABLED'),
    add(name => "$cat.sales.dvs", shared_as => 'pub.dvs'),
    add(name => "$cat.sales.nolog", shared_as => 'pub.nolog'),
    add(name => "$cat.sales.sym", shared_as => 'pub.sym'),
    add(name => "$cat.sales.gone", shared_as => 'pub.gone'),
    add(name => "$cat.extra", data_object_type => 'SCHEMA'),
    add(name => "$cat.sales.vol", data_object_type => 'VOLUME',
        shared_as => 'pub.vol'),
] });
is($res->code, 200, 'the provider shares nine objects')
    or diag $res->content;
api(PATCH => "/shares/$other", body => { updates => [
    add(name => "$cat.sales.hidden", shared_as => 'pub.hidden') ] });

for (@recipients) {
    create_object('/recipients', { name => $_, authentication_type => 'TOKEN' });
}
api(PATCH => "/shares/$share/permissions", body => { changes => [
    { principal => $recipients[0], add => ['SELECT'] } ] });
my ($token, $token2) = map { token_of_recipient($_) } @recipients;
ok(length($token // '') >= 43 && length($token2 // '') >= 43,
   'both recipients activate their links');

# --- the recipient's client ------------------------------------------------------
sub ds {
    my ($method, $path, %opt) = @_;
    my $r = sharing_api(exists $opt{token} ? delete $opt{token} : $token,
                        $method, $path, %opt);
    push @answers, $r->content;
    return $r;
}
sub lines_of { [ split /\n/, $_[0]->content ] }
sub one_line {
    my ($r) = @_;
    my $l = lines_of($r);
    return @$l == 1 && $r->content !~ /\n./ ? JSON::PP::decode_json($l->[0])
                                            : undef;
}
sub names { join ',', map { $_->{name} } @{ $_[0]{items} || [] } }
my $T = "/shares/$share/schemas/pub/tables";

# --- lists -------------------------------------------------------------------------
$res = ds(GET => '/shares');
my $j = one_line($res);
ok($j && names($j) eq $share && $j->{items}[0]{id} =~ $Unicat::Test::UUID_RE
   && !exists $j->{nextPageToken}, 'GET /shares: the granted share, one line')
    or diag $res->content;
$res = ds(GET => '/shares/' . uc $share);
$j = one_line($res) || {};
ok($j->{share} && $j->{share}{name} eq $share && $j->{share}{id}
   && !exists $j->{share}{comment},
   'GET /shares/{share}, any case (no comment while it has none)')
    or diag $res->content;
api(PATCH => "/shares/$share", body => { comment => 'Orders <b>& more</b>' });
$j = one_line(ds(GET => "/shares/$share")) || {};
is($j->{share}{comment}, 'Orders <b>& more</b>', 'the share\'s comment, as the catalog has it');
$res = ds(GET => "/shares/$share/schemas");
$j = one_line($res) || {};
is(join(',', map { "$_->{name}:$_->{share}" } @{ $j->{items} || [] }),
   "extra:$share,pub:$share", 'schemas: of tables and of the schema object');
$res = ds(GET => "/shares/$share/schemas", query => { maxResults => 1 });
$j = one_line($res) || {};
ok(names($j) eq 'extra' && $j->{nextPageToken}, 'a page of one, a token');
$res = ds(GET => "/shares/$share/schemas",
          query => { pageToken => $j->{nextPageToken} });
$j = one_line($res) || {};
ok(names($j) eq 'pub' && !exists $j->{nextPageToken},
   'the rest with the token alone; no token on the last page');
$res = ds(GET => $T);
$j = one_line($res) || {};
is(names($j), 'cdf,dvs,gone,nolog,part,simple,sym', 'the tables of a schema');
my ($simple) = grep { $_->{name} eq 'simple' } @{ $j->{items} || [] };
is($JSON->encode($simple), $JSON->encode({ name => 'simple', schema => 'pub',
    share => $share, shareId => $simple->{shareId}, id => $ids{simple},
    accessModes => ['url'] }),
   'a table: name, schema, share, shareId, id (the table\'s), read by URL only');
$res = ds(GET => "$T/SIMPLE");
is($JSON->encode(one_line($res) || {}), $JSON->encode({ name => 'simple',
    schema => 'pub', share => $share, shareId => $simple->{shareId},
    id => $ids{simple}, accessModes => ['url'], format => 'delta' }),
   'GET the table (Open Sharing\'s Get Table): as listed, and its format');
ds_error(ds(POST => "$T/simple/temporary-table-credentials"), 400,
         'UNSUPPORTED_OPERATION', 'a local table: URL access only (no credentials to hand out)',
         qr/url access only/);
ds_error(ds(GET => "$T/none"), 404, 'RESOURCE_DOES_NOT_EXIST',
         'GET a table the share does not hold', qr{'\Q$share\E/pub/none' does not exist});
my (@all, $page, $pages);
do {
    $res = ds(GET => "/shares/$share/all-tables",
              query => { maxResults => 2, $page ? (pageToken => $page) : () });
    $j = one_line($res) || {};
    push @all, map { "$_->{schema}.$_->{name}" } @{ $j->{items} || [] };
    $page = $j->{nextPageToken};
} while ($page && ++$pages < 10);
is(join(',', @all), 'extra.tb1,pub.cdf,pub.dvs,pub.gone,pub.nolog,pub.part,'
   . 'pub.simple,pub.sym',
   'all-tables page by page: the schema object\'s table too');
create_object('/tables', { %ext, schema_name => 'extra', name => 'tb2',
                           storage_location => "file://$tmp/more2" });
is(names(one_line(ds(GET => "/shares/$share/schemas/EXTRA/tables")) || {}),
   'tb1,tb2', 'a table created later in a shared schema is shared');
$res = ds(GET => "/shares/$share/schemas", query => { maxResults => 0 });
$j = one_line($res) || {};
ok(!@{ $j->{items} || [] } && $j->{nextPageToken}, 'maxResults=0: a token');
ds_error(ds(GET => '/shares', query => { maxResults => 501 }), 400,
         'INVALID_PARAMETER_VALUE', 'maxResults above 500', qr/0 to 500/);
ds_error(ds(GET => '/shares', query => { maxResults => 'x' }), 400,
         'INVALID_PARAMETER_VALUE', 'maxResults not a number');
ds_error(ds(GET => "/shares/$share/all-tables",
            query => { pageToken => $j->{nextPageToken} }), 400,
         'INVALID_PARAMETER_VALUE', 'the token of another listing',
         qr/^Invalid page token/);
ds_error(ds(GET => "/shares/$share/schemas/none/tables"), 404,
         'RESOURCE_DOES_NOT_EXIST', 'an unknown schema');

# --- version, HEAD -----------------------------------------------------------------
$res = ds(GET => "$T/simple/version");
ok($res->code == 200 && $res->content eq ''
   && ($res->header('Delta-Table-Version') // '') eq '4',
   'GET version: the header, an empty body');
$res = ds(HEAD => "$T/SIMPLE");
is($res->header('Delta-Table-Version'), '4', 'HEAD the table: the header');
$res = ds(HEAD => "$T/none");
ok($res->code == 404 && $res->content eq '', 'HEAD an unknown table: 404');
ds_error(ds(GET => "$T/part/version",
            query => { startingTimestamp => '2020-01-01T00:00:00Z' }), 400,
         'INVALID_PARAMETER_VALUE', 'startingTimestamp needs history sharing',
         qr/history sharing is not enabled/);
ds_error(ds(GET => "$T/simple/version",
            query => { startingTimestamp => 'yesterday' }), 400,
         'INVALID_PARAMETER_VALUE', 'a bad startingTimestamp',
         qr/startingTimestamp/);

# --- volumes (Open Sharing) ---------------------------------------------------------
my $vol_at = ((one_line(ds(GET => "/shares/$share/all-volumes")) || {})
              ->{items}[0] || {})->{storageLocation} // '';
like($vol_at, qr{^https?://[^/]+/delta-sharing/files/\Q$vol->{volume_id}\E/$},
     'a local volume is kept, for recipients, at its root on the files route');
my $want_vol = $JSON->encode({ name => 'vol', schema => 'pub', share => $share,
    shareId => $simple->{shareId}, id => $vol->{volume_id},
    storageLocation => $vol_at });
is($JSON->encode(one_line(ds(GET => "/shares/$share/all-volumes")) || {}),
   "{\"items\":[$want_vol]}",
   'all-volumes: the shared volume, without the path of the provider\'s local storage');
is($JSON->encode(one_line(ds(GET => "/shares/$share/schemas/PUB/volumes")) || {}),
   "{\"items\":[$want_vol]}", 'the volumes of a schema, any case');
is(names(one_line(ds(GET => "/shares/$share/schemas/extra/volumes")) || {}), '',
   'a schema without volumes lists none');
is($JSON->encode(one_line(ds(GET => "/shares/$share/schemas/pub/volumes/VOL")) || {}),
   $want_vol, 'GET a volume (Open Sharing\'s Get Volume)');
ds_error(ds(GET => "/shares/$share/schemas/pub/volumes/simple"), 404,
         'RESOURCE_DOES_NOT_EXIST', 'a table is no volume',
         qr{'\Q$share\E/pub/simple' does not exist});
my $grant = one_line(ds(POST => "/shares/$share/schemas/pub/volumes/vol/temporary-volume-credentials"));
ok(($grant->{signedPrefix}{url} // '') eq $vol_at
   && ($grant->{signedPrefix}{query} // '') =~ /^exp=\d+&kid=[^&]+&scope=prefix&sig=[0-9a-f]{64}$/,
   'a local volume\'s credentials: a grant of its root on the files route')
    or diag explain $grant;
ok(!grep({ $_->{name} eq 'vol' } @{ (one_line(ds(GET => "/shares/$share/all-tables")) || {})->{items} || [] }),
   'a volume is no table');

# --- metadata ------------------------------------------------------------------------
$res = ds(GET => "$T/simple/metadata", headers => [ fileidhash => 'PARQUET' ]);
my $l = lines_of($res);
ok($res->code == 200 && @$l == 2 && $l->[0] =~ /^\{"protocol":/
   && $l->[1] =~ /^\{"metaData":/, 'metadata: protocol, metaData')
    or diag $res->content;
ok(($res->header('Content-Type') // '') eq 'application/x-ndjson; charset=utf-8'
   && $res->header('Delta-Table-Version') eq '4'
   && $res->header('delta-sharing-capabilities') eq 'responseformat=parquet'
   && $res->header('fileidhash') eq 'parquet',
   'metadata headers: NDJSON, version, format, the fileidhash echo');
my $meta = JSON::PP::decode_json($l->[1])->{metaData} || {};
ok($meta->{id} && $meta->{schemaString} && ref $meta->{partitionColumns},
   'metaData: id, schemaString, partitionColumns');
$res = ds(GET => "$T/simple/metadata", query => { version => 2 });
is($res->header('Delta-Table-Version'), '2', 'metadata at a version');

# --- query -----------------------------------------------------------------------------
sub query {
    my ($table, $body, %opt) = @_;
    return ds(POST => "$T/$table/query",
              defined $body ? (body => $body) : (raw => ''), %opt);
}
sub files_of {
    my ($r) = @_;
    my @l = @{ lines_of($r) };
    return [ map { JSON::PP::decode_json($_) } @l[2 .. $#l] ];
}
$res = query('simple', {});
my $files = files_of($res);
ok($res->code == 200 && @$files >= 1 && !grep({ !$_->{file} } @$files),
   'query: every line after the metaData is a file') or diag $res->content;
is($res->header('Delta-Table-Version'), '4', 'query: the version header');
my $f = $files->[0]{file} || {};
ok($f->{url} && $f->{id} =~ /^[0-9a-f]{32}$/ && ref $f->{partitionValues}
   && $f->{size} > 0 && $f->{expirationTimestamp} > time * 1000
   && !exists $f->{version}, 'a file: url, id, partitionValues, size, expiry');
my $again = files_of(query('simple', undef));
is(join(',', sort map { $_->{file}{id} } @$again),
   join(',', sort map { $_->{file}{id} } @$files),
   'without a body or Content-Type: the same files, the same ids');
$res = query('simple', { version => 2, jsonPredicateHints => '{"op":"x"}',
                         predicateHints => ['a = 1'], somethingNew => 1 });
my $v2 = files_of($res);
ok($res->code == 200 && $res->header('Delta-Table-Version') eq '2'
   && @$v2 && !grep({ ($_->{file}{version} // -1) != 2 } @$v2),
   'version 2: its files carry the version; hints and unknown fields pass')
    or diag $res->content;
my $ts = $v2->[0]{file}{timestamp};
my @tm = gmtime(int($ts / 1000));
my $iso = sprintf '%04d-%02d-%02dT%02d:%02d:%02d.%03dZ', $tm[5] + 1900,
    $tm[4] + 1, @tm[3, 2, 1, 0], $ts % 1000;
$res = query('simple', { timestamp => $iso });
is($res->header('Delta-Table-Version'), '2', 'a timestamp: the version then');
ds_error(query('simple', { version => 0 }), 400, 'INVALID_PARAMETER_VALUE',
         'before the start version', qr/since version 1/);
ds_error(query('part', { version => 0 }), 400, 'INVALID_PARAMETER_VALUE',
         'time travel without history sharing',
         qr/history sharing is not enabled on table/);
ds_error(query('simple', { version => 2, timestamp => $iso }), 400,
         'INVALID_PARAMETER_VALUE', 'version and timestamp', qr/only provide one/);
ds_error(query('simple', { version => 'two' }), 400, 'MALFORMED_REQUEST',
         'a version that is no number');
ds_error(query('simple', { predicateHints => 'a = 1' }), 400,
         'MALFORMED_REQUEST', 'predicateHints that are no array');
ds_error(query('simple', { refreshToken => 'x' }), 400,
         'INVALID_PARAMETER_VALUE', 'a refresh token this server did not make',
         qr/^Invalid refresh token/);
ds_error(query('simple', { maxFiles => 0 }), 400, 'INVALID_PARAMETER_VALUE',
         'maxFiles 0', qr/maxFiles must be positive/);
ds_error(ds(POST => "$T/simple/query", raw => '{"version":',
            content_type => 'application/json'), 400, 'MALFORMED_REQUEST',
         'a body that is not JSON');
ds_error(ds(POST => "$T/simple/query", raw => 'x=1',
            content_type => 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE',
         'a body of another type: 415');
ok(@{ files_of(query('cdf', {})) } > 1
   && @{ files_of(query('cdf', { limitHint => 1 })) } == 1,
   'limitHint 1: one file of rows is enough');
is(scalar @{ files_of(query('cdf', { limitHint => 1,
      jsonPredicateHints => '{"op":"isNull","children":[{"op":"column",'
                            . '"name":"name","valueType":"string"}]}' })) },
   scalar @{ files_of(query('cdf', {})) },
   'limitHint with a filter: every file the filter keeps (the limit would '
   . 'count rows the client drops)');
$res = query('simple', {}, headers => [ 'delta-sharing-capabilities' =>
                                        'responseformat=parquet;'
                                        . 'includeendstreamaction=true' ]);
$l = lines_of($res);
ok($res->header('delta-sharing-capabilities')
   eq 'responseformat=parquet;includeendstreamaction=true'
   && $l->[-1] =~ /^\{"endStreamAction":/ && @$l == @$files + 3,
   'includeendstreamaction echoed: the body ends with endStreamAction');
my (@paged, $token_page, $n);
do {
    $res = query('simple', { maxFiles => 2,
                             $token_page ? (pageToken => $token_page) : () });
    $l = lines_of($res);
    my $end = JSON::PP::decode_json($l->[-1])->{endStreamAction} || {};
    push @paged, map { JSON::PP::decode_json($_)->{file}{id} }
        @$l[2 .. $#$l - 1];
    $token_page = $end->{nextPageToken};
} while ($token_page && ++$n < 20);
is(join(',', sort @paged), join(',', sort map { $_->{file}{id} } @$files),
   'maxFiles pages: every file once, the last page without a token');
# A commit between two pages of the latest snapshot: the second page
# stays at the first page's version and starts as the first did.
my $tb2 = "/shares/$share/schemas/extra/tables/tb2/query";
my $first = ds(POST => $tb2, body => { maxFiles => 1 });
my @first_lines = @{ lines_of($first) };
my $next = (JSON::PP::decode_json($first_lines[-1])->{endStreamAction}
            || {})->{nextPageToken};
open my $commit, '>', "$tmp/more2/_delta_log/00000000000000000005.json"
    or die "cannot commit: $!";
print $commit JSON::PP::encode_json({ commitInfo => { timestamp => 1,
                                                      operation => 'WRITE' } }),
    "\n";
close $commit;
my $second = ds(POST => $tb2, body => { maxFiles => 1, pageToken => $next });
my @second_lines = @{ lines_of($second) };
ok($next && $second->code == 200
   && $second->header('Delta-Table-Version') eq '4'
   && "@first_lines[0, 1]" eq "@second_lines[0, 1]"
   && $second_lines[2] =~ /^\{"file"/ && $second_lines[2] !~ /"version"/,
   'a commit between pages: the next page stays at version 4, unversioned')
    or diag $second->content;
ds_error(query('simple', { pageToken => 'nonsense' }), 400,
         'INVALID_PARAMETER_VALUE', 'a bad page token');

# --- partitions, deletion vectors ----------------------------------------------------
$files = files_of(query('part', {}));
ok(@$files == 3 && !grep({ $_->{file}{partitionValues}{year} ne '2021' }
                         @$files),
   'a partition of the share object filters the files (year = 2021)');
my $month = JSON::PP::encode_json({ op => 'equal', children => [
    { op => 'column', name => 'month', valueType => 'string' },
    { op => 'literal', value => '12', valueType => 'string' } ] });
$files = files_of(query('part', { jsonPredicateHints => $month }));
ok(@$files == 2 && !grep({ $_->{file}{partitionValues}{month} ne '12' }
                         @$files),
   'jsonPredicateHints prune by partition (month = 12 of year = 2021)')
    or diag explain $files;
# Pages of a filtered table: each page visits only the files the filter
# keeps, and together they are the unpaged answer.
{
    my (@ids, $page, $count);
    do {
        my $r = query('part', { maxFiles => 1,
                                $page ? (pageToken => $page) : () });
        my $lines = lines_of($r);
        push @ids, map { JSON::PP::decode_json($_)->{file}{id} }
                   grep { /^\{"file"/ } @$lines;
        $page = (JSON::PP::decode_json($lines->[-1])->{endStreamAction}
                 || {})->{nextPageToken};
    } while ($page && ++$count < 10);
    my @all = map { $_->{file} ? $_->{file}{id} : () }
              @{ files_of(query('part', {})) };
    ok(@ids == 3 && $count == 2
       && join(',', sort @ids) eq join(',', sort @all),
       'pages of a table shared with partitions: the files it keeps, once, '
       . 'a page each') or diag "@ids / @all";
}
is(scalar @{ files_of(query('part', { jsonPredicateHints => '{"op":' })) }, 3,
   'a hint that does not parse prunes nothing (best effort)');
ds_error(query('part', { jsonPredicateHints => { op => 'equal' } }), 400,
         'MALFORMED_REQUEST', 'jsonPredicateHints that is not a string');
ds_error(query('dvs', {}), 400, 'UNSUPPORTED_OPERATION',
         'deletion vectors in the parquet format');
$res = query('dvs', {}, headers => [ 'delta-sharing-capabilities' =>
                                    'responseformat=delta;'
                                    . 'readerfeatures=deletionvectors' ]);
$l = lines_of($res);
ok($res->code == 200 && $res->header('delta-sharing-capabilities')
   =~ /^responseformat=delta/ && $l->[0] =~ /deltaProtocol/ && @$l >= 3,
   'deletion vectors in the delta format') or diag $res->content;

$res = query('nolog', {});
ok($res->code == 400 || $res->code == 404, 'a table without a Delta log: '
   . 'a 4xx, which clients do not retry') or diag $res->code . ' ' . $res->content;

# --- changes ----------------------------------------------------------------------------
$res = ds(GET => "$T/cdf/changes", query => { startingVersion => 0,
                                              includeHistoricalMetadata => 'True' });
$l = lines_of($res);
my @kinds = map { (keys %{ JSON::PP::decode_json($_) })[0] } @$l[2 .. $#$l];
ok($res->code == 200 && $res->header('Delta-Table-Version') eq '0'
   && @kinds && !grep({ !/^(add|cdf|remove)$/ } @kinds)
   && grep({ $_ eq 'cdf' } @kinds), 'changes: add, cdf and remove lines')
    or diag $res->content;
my $c = JSON::PP::decode_json($l->[-1]);
($c) = values %$c;
ok(defined $c->{version} && $c->{timestamp} && $c->{url},
   'a change: version, timestamp, url');
$res = ds(GET => "$T/cdf/changes", query => { startingVersion => 1,
                                              endingVersion => 2 });
ok($res->code == 200 && !grep({ !/"version":[12]\b/ }
                              @{ lines_of($res) }[2 .. $#{ lines_of($res) }]),
   'a range of versions');
ds_error(ds(GET => "$T/cdf/changes"), 400, 'INVALID_PARAMETER_VALUE',
         'changes need a start', qr/No startingVersion/);
ds_error(ds(GET => "$T/cdf/changes", query => { startingVersion => 2,
                                                endingVersion => 1 }),
         400, 'INVALID_PARAMETER_VALUE', 'an end before the start',
         qr/End cannot be before start/);
ds_error(ds(GET => "$T/simple/changes", query => { startingVersion => 1 }),
         400, 'INVALID_PARAMETER_VALUE', 'changes of a table shared without cdf',
         qr/cdf is not enabled/);
# A writer upgrades the protocol at version 4: in the delta format, the
# changes tell each protocol of the range with its version when asked.
{
    open my $fh, '>', "$tmp/cdf/_delta_log/00000000000000000004.json"
        or die "cannot commit: $!";
    print $fh '{"commitInfo":{"timestamp":' . (time * 1000) . ',"operation":'
        . '"SET TBLPROPERTIES"}}' . "\n"
        . '{"protocol":{"minReaderVersion":1,"minWriterVersion":7,'
        . '"writerFeatures":["changeDataFeed","appendOnly"]}}' . "\n";
    close $fh;
}
my @protocols = map {
    my $r = ds(GET => "$T/cdf/changes", query => { startingVersion => 0,
                   $_ ? (includeHistoricalProtocol => 'true') : () },
               headers => [ 'delta-sharing-capabilities' =>
                            'responseformat=delta' ]);
    join ',', map { $_->{protocol}{version} // 'none' }
              grep { $_->{protocol} } map { JSON::PP::decode_json($_) }
              @{ lines_of($r) };
} 1, 0;
is("@protocols", '0,4 none', 'changes with includeHistoricalProtocol: the '
   . 'protocols of the range, each with its version');

# --- the data files ------------------------------------------------------------------------
$files = files_of(query('simple', {}));
my $ua = Apache::TestRequest::user_agent();
my @bad = grep {
    my $r = $ua->get($_->{file}{url});
    $r->code != 200 || length($r->content) != $_->{file}{size}
} @$files;
is(scalar @bad, 0, 'every file URL reads, as long as its size');
$res = $ua->get($files->[0]{file}{url}, Range => 'bytes=0-3');
ok($res->code == 206 && $res->content eq 'PAR1', 'a range read: 206');
$files = files_of(query('part', {}));
$res = $ua->get($files->[0]{file}{url});
ok($res->code == 200 && length($res->content) == $files->[0]{file}{size},
   'a file of a partition directory reads');

# --- the files route refuses what it did not sign ---------------------------------------------
{
    my $ua = Apache::TestRequest::user_agent();
    my $url = files_of(query('simple', {}))->[0]{file}{url};
    my ($head) = $ua->head($url);
    ok($head->code == 200 && $head->header('Content-Length') > 0
       && !length($head->content) && $head->header('ETag'),
       'HEAD of a file URL: its length, an ETag, no body');
    is($ua->get($url, 'If-None-Match' => $head->header('ETag'))->code, 304,
       'a conditional GET: 304');
    (my $tampered = $url) =~ s/(sig=[0-9a-f]*)([0-9a-f])$/$1 . ($2 eq '0' ? '1' : '0')/e;
    my $r = $ua->get($tampered);
    my $e = eval { JSON::PP::decode_json($r->content) } || {};
    ok($r->code == 403 && ($e->{errorCode} // '') eq 'PERMISSION_DENIED',
       'a tampered signature: 403 in the sharing dialect') or diag $r->content;
    (my $later = $url) =~ s/exp=(\d+)/'exp=' . ($1 + 3600)/e;
    is($ua->get($later)->code, 403, 'a longer expiry than signed: 403');
    (my $other_file = $url) =~ s{/[^/?]+\?}{/part-00000-x.snappy.parquet?};
    is($ua->get($other_file)->code, 403, 'another file under the signature: 403');
    is($ua->request(HTTP::Request->new(POST => $url))->code, 405,
       'POST to a file URL: 405');
    # What httpd refuses itself, in the sharing dialect too.
    (my $up = $url) =~ s{/([^/?]+)\?}{/..%2F..%2F..%2Fetc%2Fpasswd?};
    ds_error($ua->get($up), 404, 'ENDPOINT_NOT_FOUND',
             'encoded slashes: 404 in the sharing dialect');
    (my $nul = $url) =~ s{/([^/?]+)\?}{/$1%00?};
    ds_error($ua->get($nul), 404, 'ENDPOINT_NOT_FOUND',
             'an encoded NUL: 404 in the sharing dialect');
    ds_error($ua->get($url, Range => 'bytes=999999999-'), 416,
             'RANGE_NOT_SATISFIABLE',
             'a Range past the end of the file: 416 in the sharing dialect');
    ds_error($ua->get($url, 'X-Big' => 'a' x 9000), 400,
             'INVALID_PARAMETER_VALUE', 'a header over '
             . 'LimitRequestFieldSize: 400 in the sharing dialect');
    my $sym = files_of(query('sym', {}));
    my @served = grep { $ua->get($_->{file}{url})->code == 200 } @$sym;
    ok(@$sym && !@served, 'files that link out of the table root: 404')
        or diag scalar(@served) . ' of ' . scalar(@$sym) . ' served';
    my $gone = files_of(query('gone', {}))->[0]{file}{url};
    is($ua->get($gone)->code, 200, 'a file of a table ...');
    api(DELETE => "/tables/$cat.sales.gone");
    is($ua->get($gone)->code, 404, '... is gone with its table');
}

# --- httpd's own refusals on the sharing API ----------------------------------------------------
ds_error(ds(GET => '/shares/a%2Fb'), 404, 'ENDPOINT_NOT_FOUND',
         'an encoded slash in a sharing path: 404 in the sharing dialect');
ds_error(ds(GET => '/shares', headers => [ 'X-Big' => 'a' x 9000 ]), 400,
         'INVALID_PARAMETER_VALUE',
         'a header over LimitRequestFieldSize: 400 in the sharing dialect');

# --- where a recipient may call from -----------------------------------------------------------
api(PATCH => "/recipients/$recipients[0]", body => {
    properties => { ip_access_list => '192.0.2.0/24, 2001:db8::/32' } });
ds_error(ds(GET => '/shares'), 403, 'PERMISSION_DENIED',
         'outside its IP access list: 403 with a good token');
api(PATCH => "/recipients/$recipients[0]", body => {
    properties => { ip_access_list => '127.0.0.0/8, ::1' } });
is(ds(GET => '/shares')->code, 200, 'inside it: 200');

# --- an OAuth recipient reads with the access tokens it buys ----------------------------------
{
    push @recipients, "rco_$p";
    my $o = create_object('/recipients', { name => "rco_$p",
                          authentication_type => 'OAUTH_CLIENT_CREDENTIALS' });
    api(PATCH => "/shares/$share/permissions", body => { changes => [
        { principal => "rco_$p", add => ['SELECT'] } ] });
    my ($nonce) = ($o->{tokens}[0]{activation_url} // '') =~ m{/([^/]+)$};
    my $prof = json_of(open_api(GET => "/public/data_sharing_activation/$nonce",
                                user => undef)) || {};
    my ($path) = ($prof->{tokenEndpoint} // '') =~ m{^https?://[^/]+(/.*)$};
    my $r = open_api(POST => $path =~ s{^\Q$Unicat::Test::BASE\E}{}r,
                user => undef, raw => 'grant_type=client_credentials',
                content_type => 'application/x-www-form-urlencoded',
                headers => [ Authorization => 'Basic ' . MIME::Base64::encode_base64(
                    "$prof->{clientId}:$prof->{clientSecret}", '') ]);
    my $access = (json_of($r) || {})->{access_token};
    my $l = one_line(ds(GET => '/shares', token => $access)) || {};
    ok(names($l) eq $share, 'an OAuth access token reads the granted share')
        or diag $r->content;
    is(ds(GET => '/shares', token => $prof->{clientSecret})->code, 401,
       'the client secret itself is no bearer token');
    push @sent, $access, $prof->{clientSecret};
}

# --- who reads what ---------------------------------------------------------------------------
# A token of the right shape that no recipient holds (and that no name
# another test gives an object holds either).
my $bogus = ('Zq7' x 14) . 'W';
$res = ds(GET => '/shares', token => $bogus);
my $j401 = eval { JSON::PP::decode_json($res->content) } || {};
ok($res->code == 401 && ($res->header('WWW-Authenticate') // '')
   =~ /^Bearer realm="Delta Sharing"/ && $j401->{errorCode},
   'an unknown token: 401, WWW-Authenticate: Bearer, JSON')
    or diag $res->code . ' ' . $res->content;
is(ds(GET => '/shares', token => undef)->code, 401, 'no token: 401');
is(ds(GET => '/shares', token => undef,
      headers => [ Authorization => 'Basic YWRtaW46YWRtaW4=' ])->code, 401,
   'Basic credentials: 401');
$j = one_line(ds(GET => '/shares', token => $token2)) || {};
ok(!@{ $j->{items} || [] }, 'a recipient without grants sees no share');
ds_error(ds(GET => "/shares/$share", token => $token2), 404,
         'RESOURCE_DOES_NOT_EXIST', 'nor the share', qr/share '.*' not found/);
ds_error(ds(GET => "$T/simple/metadata", token => $token2), 404,
         'RESOURCE_DOES_NOT_EXIST', 'nor its tables');
ds_error(ds(POST => "$T/simple/query", token => $token2, body => {}), 404,
         'RESOURCE_DOES_NOT_EXIST', 'nor their files');
ds_error(ds(GET => "/shares/$other"), 404, 'RESOURCE_DOES_NOT_EXIST',
         'a share granted to others: as a missing one');
ds_error(ds(GET => "/shares/none_$p"), 404, 'RESOURCE_DOES_NOT_EXIST',
         'a missing share');
ds_error(ds(GET => "$T/hidden/metadata"), 404, 'RESOURCE_DOES_NOT_EXIST',
         'a table not in the share', qr/does not exist, please contact/);
ds_error(ds(GET => '/shares', base => '/unauthenticated/delta-sharing'),
         401, 'UNAUTHENTICATED', 'a mount without UnicatBearer: 401');
api(PATCH => "/shares/$share/permissions", body => { changes => [
    { principal => $recipients[0], remove => ['SELECT'] } ] });
ds_error(ds(GET => "/shares/$share"), 404, 'RESOURCE_DOES_NOT_EXIST',
         'a revoked grant: the share is gone');
api(PATCH => "/shares/$share/permissions", body => { changes => [
    { principal => $recipients[0], add => ['SELECT'] } ] });
is(ds(GET => "/shares/$share")->code, 200, 'granted again');
$res = api(POST => "/recipients/$recipients[0]/rotate-token",
           body => { existing_token_expire_in_seconds => 0 });
is($res->code, 200, 'the token is rotated, the old one expires now');
is(ds(GET => '/shares')->code, 401, 'an expired token: 401');
my $token3 = token_of_recipient($recipients[0]);
is(ds(GET => "/shares/$share", token => $token3)->code, 200,
   'the new token reads the share');

# --- the log ------------------------------------------------------------------------------------
my $log = do { local (@ARGV, $/) = (Apache::Test::vars('serverroot')
                                    . '/logs/error_log'); <> };
like($log, qr/UC0108: .*AuthType UnicatBearer/,
     'the error log says how to configure the mount without UnicatBearer');
secrets_kept(\@answers, [ $token, $token2, $token3, @sent ], [ $bogus ]);
