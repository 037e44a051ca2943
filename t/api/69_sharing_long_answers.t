# SPDX-License-Identifier: Apache-2.0
# Long answers of the query route, which several threads render while the
# request's own streams them (UnicatSharingAnswerThreads; the suite's
# UnicatRequestThreads 2 allows two) once they reach 4,096 files, in
# segments of 256 files growing to 1,024: on tables of 6,000 files written
# here, the lines come in the order and with the contents that one thread
# alone writes (limitHint or maxFiles keep an answer to one thread), with
# a partition filter too; a file that cannot be shared deep in the answer
# breaks the stream (no last chunk) rather than ending it short, after
# lines that agree with one thread's (which may hold back a block more).
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use File::Temp ();
use JSON::PP ();
use Apache::Test qw(-withtestmore);
use Apache::TestRequest ();
use Unicat::Test;

plan tests => 10;

my $p = "ds68l_$$";
my ($cat, $share, $recipient) = ("cat_$p", "shr_$p", "rcp_$p");
my $tmp = File::Temp::tempdir("unicat-s68l-XXXXXX", TMPDIR => 1,
                              CLEANUP => 1);
chmod 0755, $tmp;
my $JSON = JSON::PP->new->canonical;
my $FILES = 6000;

# A table of $FILES files in 12 partitions over two commits (the second
# removes every 13th file); the paths need percent-encoding, the stats
# need escaping. `absolute` makes file 3000's path absolute.
sub write_table {
    my ($dir, %opt) = @_;
    mkdir $dir and mkdir "$dir/_delta_log" or die "setup: $!";
    my $schema = $JSON->encode({ type => 'struct', fields => [
        { name => 'id', type => 'long', nullable => JSON::PP::true,
          metadata => {} },
        { name => 'p', type => 'integer', nullable => JSON::PP::true,
          metadata => {} } ] });
    my @c0 = ({ protocol => { minReaderVersion => 1, minWriterVersion => 2 } },
              { metaData => { id => "00000000-0000-4000-8000-0000000000$opt{n}",
                  format => { provider => 'parquet', options => {} },
                  schemaString => $schema, partitionColumns => ['p'],
                  configuration => {}, createdTime => 1700000000000 } });
    my @c1;
    for my $i (0 .. $FILES - 1) {
        my $path = sprintf('p=%d/part-%05d%%20%s.snappy.parquet', $i % 12, $i,
                           $i % 2 ? 'a%3Db' : 'x');
        $path = "/elsewhere/$path" if $opt{absolute} && $i == 3000;
        push @c0, { add => { path => $path,
            partitionValues => { p => '' . ($i % 12) },
            size => 1000 + $i, modificationTime => 1700000000000 + $i,
            dataChange => JSON::PP::true,
            stats => $JSON->encode({ numRecords => $i + 1,
                minValues => { id => $i * 10, note => "a \"quoted\" \\ $i" },
                maxValues => { id => $i * 10 + 9 },
                nullCount => { id => 0 } }) } };
        push @c1, { remove => { path => $path, dataChange => JSON::PP::true,
                                deletionTimestamp => 1700000100000 } }
            if $i % 13 == 0;
    }
    for ([0, \@c0], [1, \@c1]) {
        my $f = sprintf('%s/_delta_log/%020d.json', $dir, $_->[0]);
        open my $fh, '>', $f or die "setup: $f: $!";
        print $fh map { $JSON->encode($_) . "\n" } @{ $_->[1] };
        close $fh;
    }
}
write_table("$tmp/long", n => '01');
write_table("$tmp/broken", n => '02', absolute => 1);
system('chmod', '-R', 'a+rX', $tmp);
END {
    api(DELETE => "/shares/$share");
    api(DELETE => "/recipients/$recipient");
    drop_catalog($cat);
}

create_catalog($cat);
create_schema($cat, 'sales');
for my $name (qw(long broken)) {
    create_object('/tables', { catalog_name => $cat, schema_name => 'sales',
        name => $name, table_type => 'EXTERNAL', data_source_format => 'DELTA',
        columns => [], storage_location => "file://$tmp/$name" });
}
create_object('/shares', { name => $share });
my $res = api(PATCH => "/shares/$share", body => { updates => [
    map { { action => 'ADD', data_object => { name => "$cat.sales.$_" } } }
        qw(long broken) ] });
create_object('/recipients', { name => $recipient,
                               authentication_type => 'TOKEN' });
api(PATCH => "/shares/$share/permissions", body => { changes => [
    { principal => $recipient, add => ['SELECT'] } ] });
my $token = token_of_recipient($recipient);
ok($res->code == 200 && length($token // '') >= 43,
   'two tables of ' . $FILES . ' files shared to a recipient')
    or diag $res->content;

my $T = "/shares/$share/schemas/sales/tables";
sub query {
    my ($table, $body) = @_;
    return sharing_api($token, POST => "$T/$table/query", body => $body);
}
# The lines with each URL's expiry and signature left out (an answer signs
# with the second it was made in).
sub unsigned {
    my ($r) = @_;
    my @l = split /\n/, $r->content;
    s/\?exp=\d+&kid=[0-9a-f]+&sig=[0-9a-f]{64}"/"/, s/"expirationTimestamp":\d+//
        for @l;
    return \@l;
}
my $live = $FILES - int(($FILES + 12) / 13);

# The server's count of signed URLs (threads count their own and add
# them up).
sub signed_urls {
    my $r = api(GET => '/unicat-status', base => '', user => undef);
    return $r->content =~ /^unicat_signed_urls_total (\d+)$/m ? $1 : -1;
}
my $signed_before = signed_urls();
$res = query('long', {});
my $signed = signed_urls() - $signed_before;
my $together = unsigned($res);
my $alone = unsigned(query('long', { limitHint => 1 << 40 }));
ok($res->code == 200 && @$together == $live + 2
   && !grep({ !/^\{"file":\{"url":"http/ } @$together[2 .. $#$together]),
   "the whole answer: protocol, metaData and the $live files")
    or diag $res->code . ' ' . substr($res->content, 0, 300);
is_deeply($together, $alone, 'line for line what one thread writes, in its '
          . 'order (paths encoded, stats escaped)');
my ($line) = grep { m{/part-00001} } split /\n/, $res->content;
my $first = eval { JSON::PP::decode_json($line)->{file} } || {};
(my $key = $first->{url} // '') =~ s/\?.*//;
$key =~ s/%([0-9A-Fa-f]{2})/chr hex $1/ge;
ok($key =~ m{/p=1/part-00001 a=b\.snappy\.parquet$}
   && JSON::PP::decode_json($first->{stats})->{minValues}{note}
      eq "a \"quoted\" \\ 1",
   'a line as the log has it: its path a URL again, its stats intact')
    or diag $line;
my @sigs = $res->content =~ /&sig=([0-9a-f]{64})"/g;
is(scalar(@sigs), $live, 'every file URL is signed');
is($signed, $live, 'and counted once in unicat_signed_urls_total');

# jsonPredicateHints p != 5: the partitions it keeps, judged once each,
# still a long answer.
my $hint = $JSON->encode({ op => 'not', children => [
    { op => 'equal', children => [
        { op => 'column', name => 'p', valueType => 'int' },
        { op => 'literal', value => '5', valueType => 'int' } ] } ] });
my $filtered = unsigned(query('long', { jsonPredicateHints => $hint }));
# With hints limitHint is ignored; one page of maxFiles keeps it to one
# thread (and ends in an endStreamAction line).
my $filtered_alone = unsigned(query('long', { jsonPredicateHints => $hint,
                                              maxFiles => 10000 }));
pop @$filtered_alone if @$filtered_alone
                        && $filtered_alone->[-1] =~ /^\{"endStreamAction"/;
my @p5 = grep { /"partitionValues":\{"p":"5"\}/ } @$filtered;
ok(@$filtered > 4096 && !@p5 && @$filtered < @$together,
   'a partition filter keeps the files of the others only ('
   . (@$filtered - 2) . ')');
is_deeply($filtered, $filtered_alone, 'filtered: what one thread writes');

# File 3000, in the middle, cannot be shared: by then the answer has begun,
# so it breaks.
my $sock = Unicat::Test::_connect();
my $body = '{}';
print $sock "POST /delta-sharing$T/broken/query HTTP/1.1\r\n"
    . 'Host: ' . Apache::TestRequest::hostport() . "\r\n"
    . "Authorization: Bearer $token\r\nContent-Type: application/json\r\n"
    . 'Content-Length: ' . length($body) . "\r\nConnection: close\r\n\r\n"
    . $body;
my $raw = do { local $/; <$sock> } // '';
close $sock;
my ($status) = $raw =~ m{^HTTP/1\.1 (\d{3})};
my $broken = Unicat::Test::_parse_answer($raw);
my @got = grep { /\}$/ } split /\n/, $broken->{body};
ok(($status // 0) == 200 && $raw =~ /^Transfer-Encoding: chunked\r$/mi
   && $raw !~ /\r\n0\r\n\r\n\z/ && @got > 1500 && @got < $live
   && $broken->{body} !~ /part-03000/,
   'a file that cannot be shared deep in the answer: the stream breaks '
   . 'after ' . scalar(@got) . ' lines, without a last chunk')
    or diag "status " . ($status // 'none') . ', ' . length($raw) . ' bytes: '
            . substr($raw, -300);
my $short = sharing_api($token, POST => "$T/broken/query",
                        body => { limitHint => 1 << 40 });
my @alone = grep { /\}$/ } split /\n/, $short->content;
s/\?exp=\d+&kid=[0-9a-f]+&sig=[0-9a-f]{64}"/"/, s/"expirationTimestamp":\d+//
    for @got, @alone;
my $n = @alone < @got ? @alone : @got;
ok($short->code == 200 && $n > 1500 && $JSON->encode([ @alone[0 .. $n - 1] ])
   eq $JSON->encode([ @got[0 .. $n - 1] ]),
   'one thread alone breaks it too; the lines before agree')
    or diag scalar(@alone) . ' lines against ' . scalar(@got);
