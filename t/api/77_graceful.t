# SPDX-License-Identifier: Apache-2.0
# `apachectl graceful` under load: 4 clients read and create for 8 s, each
# request on a connection of its own, while httpd's parent is told three
# times to restart gracefully (SIGUSR1). No request fails; the metrics
# outlive the restarts (their shared memory is kept); every create
# answered 200 has its audit line (the log is opened again by each
# generation).
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Apache::TestRequest ();
use Time::HiRes ();
use Unicat::Test;

plan tests => 6;

my $p = "g77_$$";
my $cat = "cat_$p";
END { drop_catalog($cat) }
create_catalog($cat);

my $logs = Apache::Test::vars('t_logs');
my $ppid = do { local (@ARGV, $/) = ("$logs/httpd.pid"); <> };
chomp $ppid;
sub restarts {
    open(my $fh, '<', "$logs/error_log") or return 0;
    # event: AH00493 SIGUSR1 received; prefork: AH00171 Graceful restart
    return scalar grep { /AH00493|AH00171/ } <$fh>;
}
sub catalog_gets {
    my $r = api(GET => '/unicat-status', base => '', user => undef);
    my ($v) = $r->content =~ /^unicat_requests_total\{api="catalog",family="catalogs",method="GET",code="2xx"\} (\d+)$/m;
    return $v // 0;
}

my $restarts_before = restarts();
my $gets_before = catalog_gets();
my $SECONDS = 8;
my $work = sub {
    my ($c) = @_;
    my %out = (gets => 0, creates => 0, failed => []);
    my $n = 0;
    my $end = time + $SECONDS;
    while (time < $end) {
        my $r = ++$n % 2
            ? api(GET => "/catalogs/$cat")
            : api(POST => '/schemas', body => { name => "c${c}_s$n",
                                                catalog_name => $cat });
        if ($r->code == 200) { $n % 2 ? $out{gets}++ : $out{creates}++ }
        else { push @{ $out{failed} }, $r->code . ' ' . substr($r->content, 0, 120) }
    }
    return \%out;
};
my $restart = sub {
    for my $at (1.5, 2.0, 2.0) {
        Time::HiRes::sleep($at);
        kill 'USR1', $ppid;
    }
};
my ($gets, $creates, @failed) = (0, 0);
for my $o (clients(4, $work, keep_alive => 0, meanwhile => $restart)) {
    $gets += $o->{gets} // 0;
    $creates += $o->{creates} // 0;
    push @failed, @{ $o->{failed} || [] }, $o->{died} // ();
}
# The last generation is up once the log says so.
for (1 .. 100) { last if restarts() >= $restarts_before + 3; Time::HiRes::sleep(0.1) }

is(restarts() - $restarts_before, 3, 'httpd restarted gracefully three times');
ok(!@failed, "no request failed ($gets reads, $creates creates answered 200)")
    or diag join "\n", @failed[0 .. ($#failed < 9 ? $#failed : 9)];
ok($gets > 20 && $creates > 20, 'the clients kept the server busy throughout');
ok(catalog_gets() - $gets_before >= $gets,
   'the metrics kept counting across the restarts');
my ($schemas, $token) = (0, undef);
do {
    my $j = json_of(api(GET => '/schemas', query => { catalog_name => $cat,
        max_results => 1000, defined $token ? (page_token => $token) : () })) || {};
    $schemas += grep { $_->{name} =~ /^c\d_s\d+$/ } @{ $j->{schemas} || [] };
    $token = $j->{next_page_token};
} while (defined $token && length $token);
is($schemas, $creates, 'every create answered 200 is stored');
my $audited = do {
    open(my $fh, '<', "$logs/audit.log") or die "audit.log: $!";
    scalar grep { /"operation":"CREATE"/ && /"full_name":"\Q$cat\E\.c\d_s\d+"/
                  && /"outcome":"success"/ } <$fh>;
};
is($audited, $creates, 'and has its audit line, whichever generation served it');
