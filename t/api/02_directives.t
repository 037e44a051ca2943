# SPDX-License-Identifier: Apache-2.0
# Directives httpd checks while it reads the configuration: a value out of
# range stops httpd, naming the directive, before any child starts. Each
# case is `httpd -t` on this suite's configuration with one more
# configuration line (-c). The running server's children have set the
# Delta reader up with the values of t/conf/extra.conf.in.
use strict;
use warnings FATAL => 'all';

use Apache::Test qw(-withtestmore);
use Apache::TestConfig ();
use File::Temp ();

plan tests => 21;

my $httpd = Apache::Test::vars('httpd');
my $conf = Apache::Test::vars('t_conf_file');

# httpd -t with the suite's configuration and `@lines` after it: its exit
# status and what it printed.
sub config_test {
    my @lines = @_;
    my $pid = open(my $out, '-|') // die "fork: $!";
    if (!$pid) {
        open(STDERR, '>&', \*STDOUT) or die "dup: $!";
        exec($httpd, '-t', '-f', $conf, map { ('-c', $_) } @lines)
            or exit 127;
    }
    local $/;
    my $text = <$out> // '';
    close($out);
    return ($? >> 8, $text);
}

sub accepted {
    my ($name, @lines) = @_;
    my ($rc, $text) = config_test(@lines);
    ok($rc == 0 && $text =~ /Syntax OK/, $name) or diag $text;
}

sub refused {
    my ($name, $message, @lines) = @_;
    my ($rc, $text) = config_test(@lines);
    ok($rc != 0 && index($text, $message) >= 0, $name) or diag $text;
}

accepted('UnicatRequestThreads 1', 'UnicatRequestThreads 1');
accepted('UnicatRequestThreads 64', 'UnicatRequestThreads 64');
accepted('UnicatDeltaDecodeThreads 1', 'UnicatDeltaDecodeThreads 1');
accepted('UnicatDeltaDecodeThreads 8', 'UnicatDeltaDecodeThreads 8');

my $request = 'UnicatRequestThreads takes a number of threads from 1 to 64';
refused('UnicatRequestThreads 0', "$request, not '0'",
        'UnicatRequestThreads 0');
refused('UnicatRequestThreads 65', "$request, not '65'",
        'UnicatRequestThreads 65');
refused('UnicatRequestThreads two', "$request, not 'two'",
        'UnicatRequestThreads two');
refused('UnicatRequestThreads 4x', "$request, not '4x'",
        'UnicatRequestThreads 4x');
refused('UnicatRequestThreads 99999999999999999999', $request,
        'UnicatRequestThreads 99999999999999999999');

my $decode = 'UnicatDeltaDecodeThreads takes a number of threads from 1 to 8';
refused('UnicatDeltaDecodeThreads 0', "$decode, not '0'",
        'UnicatDeltaDecodeThreads 0');
refused('UnicatDeltaDecodeThreads 9', "$decode, not '9'",
        'UnicatDeltaDecodeThreads 9');

# Process-wide: the main server's, not a virtual host's.
refused('UnicatRequestThreads in a <VirtualHost>',
        'UnicatRequestThreads cannot occur within <VirtualHost> section',
        '<VirtualHost 127.0.0.1:1>', 'UnicatRequestThreads 2',
        '</VirtualHost>');

# Key files: 64 hex digits, open to their owner only; several rotate.
my $keys = File::Temp::tempdir('unicat-keys-XXXXXX', TMPDIR => 1,
                                CLEANUP => 1);
sub key_file {
    my ($name, $text, $mode) = @_;
    my $path = "$keys/$name";
    open(my $k, '>', $path) or die "$path: $!";
    print $k $text;
    close($k);
    chmod($mode, $path) or die "chmod $path: $!";
    return $path;
}
my $key_a = key_file('a.key', ('0123456789abcdef' x 4) . "\n", 0600);
my $key_b = key_file('b.key', ('fedcba9876543210' x 4), 0400);
my $short = key_file('short.key', '0123456789abcdef', 0600);
my $open = key_file('open.key', ('0123456789abcdef' x 4), 0644);
accepted('UnicatSecretKeyFile with one key', "UnicatSecretKeyFile $key_a");
accepted('UnicatSecretKeyFile with a new key before the old one',
         "UnicatSecretKeyFile $key_b $key_a");
refused('UnicatSecretKeyFile with a missing file',
        "UnicatSecretKeyFile: Cannot read the key file $keys/none.key",
        "UnicatSecretKeyFile $keys/none.key");
my ($rc, $text) = config_test("UnicatSecretKeyFile $short");
ok($rc != 0 && index($text, "$short does not hold a key") >= 0
   && index($text, '0123456789abcdef') < 0,
   'UnicatSecretKeyFile on a file without a key, its content not shown')
    or diag $text;
refused('UnicatSecretKeyFile on a file others may read',
        'may be read or written by others than its owner',
        "UnicatSecretKeyFile $open");
refused('UnicatSecretKeyFile naming a key twice', 'is given twice',
        "UnicatSecretKeyFile $key_a $key_a");
refused('UnicatSecretKeyFile in a <VirtualHost>',
        'UnicatSecretKeyFile cannot occur within <VirtualHost> section',
        '<VirtualHost 127.0.0.1:1>', "UnicatSecretKeyFile $key_a",
        '</VirtualHost>');
refused('UnicatSecretKeyFile without a file',
        'UnicatSecretKeyFile', 'UnicatSecretKeyFile');
unlink($key_a, $key_b, $short, $open);

my $log = Apache::Test::vars('t_logs') . '/error_log';
open(my $fh, '<', $log) or die "$log: $!";
my @lines = grep { /UC010[56]/ } <$fh>;
close($fh);
my @failed = grep { /UC0105/ } @lines;
my @set_up = grep {
    /UC0106: Delta reader set up: 3 decode threads, at most 2 threads a request/
} @lines;
ok(!@failed && @set_up, 'the children set the Delta reader up as configured')
    or diag @lines;
