# SPDX-License-Identifier: Apache-2.0
# The web console (SetHandler unicat-console, mounted at /console behind
# the API's Basic authentication): its files as the module embeds them,
# with the headers every answer carries (a strict Content-Security-Policy,
# no framing), revalidation by ETag, only GET, config.json; then the
# console itself in Debian's chromium (t/console/browser.mjs): journeys of
# an admin and of alice ending in what the API then holds, values holding
# markup shown as text, no request off the origin, and axe-core on every
# page. The browser's screenshots go to UNICAT_CONSOLE_SHOTS.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Apache::TestRequest ();
use Unicat::Test;

my $top = "$FindBin::Bin/../..";
my $web = "$top/src/console/web";

sub console {
    my ($path, %opt) = @_;
    return api($opt{method} // 'GET', $path, base => '',
               user => exists $opt{user} ? $opt{user} : 'admin',
               headers => $opt{headers} // []);
}

sub slurp {
    my ($file) = @_;
    open my $fh, '<:raw', $file or die "$file: $!";
    local $/;
    return scalar <$fh>;
}

my @files = map { s{^\Q$web\E/}{}r } grep { -f } glob("$web/* $web/vendor/*");
my %types = (html => qr{^text/html; charset=utf-8$}, js => qr{^text/javascript; charset=utf-8$},
             css => qr{^text/css; charset=utf-8$}, svg => qr{^image/svg\+xml$},
             txt => qr{^text/plain; charset=utf-8$});
my $csp = qr/default-src 'none'; script-src 'self'; style-src 'self';.*connect-src 'self';.*frame-ancestors 'none'/;

# The browser's part: run first, so that the plan knows its tests.
my $node_dir = $ENV{UNICAT_CONSOLE_NODE} // "$top/build/node-console";
my $url = Apache::TestRequest::resolve_url('/console/');
(my $api_url = Apache::TestRequest::resolve_url('/api/2.1/unity-catalog')) =~ s{/$}{};
my @browser = do {
    local $ENV{UNICAT_CONSOLE_URL} = $url;
    local $ENV{UNICAT_CONSOLE_API} = $api_url;
    local $ENV{UNICAT_CONSOLE_NODE} = $node_dir;
    local $ENV{UNICAT_CONSOLE_SHOTS} = ($ENV{UNICAT_HTTP_WORK}
        ? "$ENV{UNICAT_HTTP_WORK}/console-shots" : "$top/t/console/out")
        . '/' . ($ENV{UNICAT_SUITE} // 'suite');
    open my $out, '-|', 'node', "$top/t/console/browser.mjs" or die "node: $!";
    my @lines = <$out>;
    close $out;
    push @lines, "not ok - the browser's tests ended with status $?\n" if $?;
    @lines;
};
my @results = grep { /^(?:not )?ok\b/ } @browser;

plan tests => 11 + 3 * @files + @results;

for my $file (@files) {
    my $res = console("/console/$file");
    ok($res->code == 200 && $res->content eq slurp("$web/$file"),
       "$file is served as the tree has it");
    my ($ext) = $file =~ /\.(\w+)$/;
    like($res->header('Content-Type') // '', $types{$ext}, "$file has its type");
    ok(($res->header('Content-Security-Policy') // '') =~ $csp
       && ($res->header('X-Frame-Options') // '') eq 'DENY'
       && ($res->header('X-Content-Type-Options') // '') eq 'nosniff'
       && ($res->header('Cache-Control') // '') eq 'no-cache',
       "$file carries the console's headers");
}

my $index = console('/console/');
is($index->content, slurp("$web/index.html"), 'the mount itself is index.html');
my @modules = sort grep { m{\.js$} && $_ ne 'app.js' } @files;
my @preloaded = sort $index->content =~ /<link rel="modulepreload" href="([^"]+)">/g;
is("@preloaded", "@modules", 'index.html preloads every module but app.js, which it runs');
my $redirect = console('/console');
ok($redirect->code == 301 && ($redirect->header('Location') // '') =~ m{/console/$},
   'the mount without its slash is sent to it');
my $etag = $index->header('ETag') // '';
my $again = console('/console/index.html', headers => ['If-None-Match' => $etag]);
ok($etag =~ /^"[0-9a-f]{24}"$/ && $again->code == 304 && !length $again->content,
   'a file the browser holds is revalidated with a 304');
is(console('/console/app.js', method => 'POST')->code, 405, 'the console takes GET only');
my $missing = console('/console/nope.js');
ok($missing->code == 404 && ($missing->header('Content-Security-Policy') // '') =~ $csp,
   'a file it does not have is a 404, with the headers too');
is(console('/console/', user => undef)->code, 401, 'the console is behind the API\'s authentication');
is(console('/off/console/', user => undef)->code, 404, 'without Unicat On, no console is served');

my $config = json_of(console('/console/config.json'));
ok($config && $config->{api} eq '/api/2.1/unity-catalog' && $config->{user} eq 'admin',
   'config.json names the API and who signed in');
ok($config && join(',', @{ $config->{privileges}{table} }) eq 'ALL PRIVILEGES,SELECT,MODIFY,MANAGE'
   && (grep { $_ eq 'CREATE CATALOG' } @{ $config->{privileges}{metastore} }),
   'config.json has the privileges each type takes, as the server has them');
my $other = json_of(console('/other/console/config.json', user => undef));
ok($other && $other->{api} eq '/small/api/2.1/unity-catalog' && !defined $other->{user},
   'UnicatConsoleApi names another API path (its trailing slash dropped)');

for (@results) {
    chomp;
    my ($not, $what) = /^(not )?ok\s*\d*\s*-?\s*(.*)$/;
    ok(!$not, "browser: $what");
}
diag(join '', grep { /^#/ } @browser) if grep { /^not ok/ } @results;
