# SPDX-License-Identifier: Apache-2.0
# The unicat-status handler (t/conf/extra.conf.in mounts it at
# /unicat-status): Prometheus' text format, counters that every process
# and thread of the server add to (under prefork each request may land on
# another child, yet the counts are exact), requests by API, route family,
# method and status class with their latency histogram, database work,
# the caches, the sharing server's signed URLs and streamed bytes, and a
# mount with UnicatMetrics Off left out.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use File::Temp ();
use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 16;

my $p = "t99m_$$";
my ($cat, $share, $recipient) = ("cat_$p", "shr_$p", "rcp_$p");
END {
    api(DELETE => "/shares/$share");
    api(DELETE => "/recipients/$recipient");
    drop_catalog($cat);
}

sub scrape { api(GET => '/unicat-status', base => '', user => undef) }
# The samples of a scrape: "name{labels}" => value.
sub samples {
    my ($res) = @_;
    my %s;
    for (split /\n/, $res->content) {
        next if /^#/ || !length;
        my ($key, $value) = /^(\S+) (\S+)$/ or return { broken => $_ };
        $s{$key} = $value;
    }
    return \%s;
}
sub requests {
    my ($s, $api, $family, $method, $code) = @_;
    return $s->{"unicat_requests_total{api=\"$api\",family=\"$family\","
                . "method=\"$method\",code=\"$code\"}"} // 0;
}

my $first = scrape();
is($first->code, 200, 'GET /unicat-status answers');
like($first->header('Content-Type') // '',
     qr{^text/plain; version=0\.0\.4; charset=utf-8$},
     'in the text exposition format');
my $before = samples($first);
ok(!$before->{broken}, 'every line a comment or a sample')
    or diag $before->{broken};
my %types = $first->content =~ /^# TYPE (\S+) (\S+)$/mg;
ok(($types{unicat_requests_total} // '') eq 'counter'
   && ($types{unicat_request_duration_seconds} // '') eq 'histogram'
   && ($types{unicat_delta_snapshot_cache_entries} // '') eq 'gauge',
   'each metric says its type');

# --- catalog requests, counted exactly --------------------------------------
create_catalog($cat);
api(GET => "/catalogs/$cat") for 1 .. 20;
api(GET => "/catalogs/nope_$p") for 1 .. 3;
api(GET => "/no-such-route") for 1 .. 2;
api(GET => "/catalogs/$cat", base => '/limited/api/2.1/unity-catalog')
    for 1 .. 5;
my $after = samples(scrape());
is(requests($after, qw(catalog catalogs GET 2xx))
   - requests($before, qw(catalog catalogs GET 2xx)), 20,
   'twenty GETs of a catalog: twenty 2xx, whichever child answered');
is(requests($after, qw(catalog catalogs GET 4xx))
   - requests($before, qw(catalog catalogs GET 4xx)), 3,
   'three of a missing one: 4xx');
is(requests($after, qw(catalog catalogs POST 2xx))
   - requests($before, qw(catalog catalogs POST 2xx)), 1, 'one create');
is(requests($after, qw(catalog unmatched OTHER 4xx))
   - requests($before, qw(catalog unmatched OTHER 4xx)), 2,
   'requests no route matched count as unmatched');
my $count = sub { $_[0]->{'unicat_request_duration_seconds_count'
                          . '{api="catalog",family="catalogs"}'} // 0 };
my $inf = $after->{'unicat_request_duration_seconds_bucket'
                   . '{api="catalog",family="catalogs",le="+Inf"}'} // -1;
ok($count->($after) - $count->($before) == 24 && $inf == $count->($after),
   'the latency histogram counts them, the mount with UnicatMetrics Off '
   . 'not at all');
my @buckets = map { $after->{'unicat_request_duration_seconds_bucket'
                             . "{api=\"catalog\",family=\"catalogs\",le=\"$_\"}"}
                    // -1 } qw(0.001 0.01 0.1 1 10 +Inf);
ok(!grep({ $buckets[$_] > $buckets[$_ + 1] || $buckets[$_] < 0 } 0 .. 4),
   'its buckets are cumulative') or diag "@buckets";
ok(($after->{unicat_database_queries_total} // 0)
       > ($before->{unicat_database_queries_total} // 0) + 24
   && ($after->{unicat_database_seconds_total} // 0)
       > ($before->{unicat_database_seconds_total} // 0),
   'database statements and their time');

# --- the sharing server -----------------------------------------------------
my $tmp = File::Temp::tempdir("unicat-t99m-XXXXXX", TMPDIR => 1,
                              CLEANUP => 1);
system('cp', '-r', "$FindBin::Bin/../delta/fixtures/cdf-table",
       "$tmp/cdf") == 0 or die "setup: cannot copy the fixture";
system('chmod', '-R', 'a+rX', $tmp);
chmod 0755, $tmp;
create_schema($cat, 'sales');
create_object('/tables', { catalog_name => $cat, schema_name => 'sales',
    name => 'cdf', table_type => 'EXTERNAL', data_source_format => 'DELTA',
    columns => [], storage_location => "file://$tmp/cdf" });
create_object('/shares', { name => $share });
api(PATCH => "/shares/$share", body => { updates => [ { action => 'ADD',
    data_object => { name => "$cat.sales.cdf", shared_as => 'pub.cdf' } } ] });
create_object('/recipients', { name => $recipient,
                               authentication_type => 'TOKEN' });
api(PATCH => "/shares/$share/permissions", body => { changes => [
    { principal => $recipient, add => ['SELECT'] } ] });
my $token = token_of_recipient($recipient);
$before = samples(scrape());
my $q = sharing_api($token, POST => "/shares/$share/schemas/pub/tables/cdf/query",
                    body => {});
my $files = grep { /"file"/ } split /\n/, $q->content;
$after = samples(scrape());
ok($q->code == 200 && $files > 0
   && requests($after, qw(sharing shares/query POST 2xx))
      - requests($before, qw(sharing shares/query POST 2xx)) == 1,
   'a sharing query counts under the sharing API') or diag $q->content;
is(($after->{unicat_signed_urls_total} // 0)
   - ($before->{unicat_signed_urls_total} // 0), $files,
   'one signed URL for each file line');
is(($after->{unicat_sharing_bytes_total} // 0)
   - ($before->{unicat_sharing_bytes_total} // 0), length($q->content),
   'the bytes it streamed');
ok(($after->{unicat_processes} // 0) >= 1
   && ($after->{unicat_delta_snapshot_cache_entries} // 0) >= 1
   && ($after->{unicat_delta_snapshot_cache_misses_total} // 0) >= 1,
   'the snapshot cache of the processes: what it holds, what it built');

is(api(POST => '/unicat-status', base => '', user => undef,
       body => {})->code, 405, 'the status handler answers GET only');
