# SPDX-License-Identifier: Apache-2.0
# Open Sharing's volumes and agent skills kept on the server's own file
# system, read by a recipient without any cloud: the credentials of such
# an asset are a grant of its root on the signed files route; with it the
# recipient lists every directory (paged, one directory a page) and reads
# every file, with Range, byte for byte. Nothing outside the asset's root
# is reachable: not by dot segments, encoded slashes, symbolic links out
# of the root, another asset's id or a changed grant. A skill shows Open
# Sharing's fields; a recipient without the share, or with a token of
# another share, is answered as for a missing asset.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use File::Path ();
use File::Temp ();
use JSON::PP ();
use Apache::Test qw(-withtestmore);
use Apache::TestRequest ();
use Unicat::Test;

plan tests => 36;

my $p = "la82_$$";
my ($cat, $share, $other) = ("cat_$p", "shr_$p", "oth_$p");
my @recipients = ("rcp_$p", "rcq_$p");
my $tmp = File::Temp::tempdir("unicat-la82-XXXXXX", TMPDIR => 1,
                              CLEANUP => 1);
END {
    api(DELETE => "/shares/$_") for $share, $other;
    api(DELETE => "/recipients/$_") for @recipients;
    drop_catalog($cat);
}

# --- the provider's files ---------------------------------------------------------
sub put {
    my ($path, $bytes) = @_;
    (my $dir = $path) =~ s{/[^/]+$}{};
    File::Path::make_path($dir);
    open(my $fh, '>:raw', $path) or die "setup: $path: $!";
    print $fh $bytes;
    close $fh;
}
my $big = join '', map { chr(($_ * 7 + 3) % 256) } 0 .. 100_000;
my %vol_files = ('a.txt' => "alpha\n", 'dir/b.bin' => $big,
                 'dir/sub/c.txt' => "gamma\n", 'my file%.txt' => "spaced\n");
put("$tmp/vol/$_", $vol_files{$_}) for keys %vol_files;
put("$tmp/other/secret.txt", "not yours\n");
put("$tmp/outside/secret.txt", "outside\n");
symlink "$tmp/outside/secret.txt", "$tmp/vol/dir/out" or die "setup: $!";
symlink "$tmp/outside", "$tmp/vol/dir/outdir" or die "setup: $!";
symlink "$tmp/vol/a.txt", "$tmp/vol/dir/alias" or die "setup: $!";
my %skill_files = ('SKILL.md' => "---\nname: helper\n---\nHelps.\n",
                   'scripts/run.sh' => "#!/bin/sh\necho hi\n");
put("$tmp/skill/$_", $skill_files{$_}) for keys %skill_files;
system('chmod', '-R', 'a+rX', $tmp);

create_catalog($cat);
create_schema($cat, 'sales');
my %in = (catalog_name => $cat, schema_name => 'sales');
my $vol = create_object('/volumes', { %in, name => 'vol',
    volume_type => 'EXTERNAL', storage_location => "file://$tmp/vol" });
my $oth = create_object('/volumes', { %in, name => 'oth',
    volume_type => 'EXTERNAL', storage_location => "file://$tmp/other" });
my $skill = create_object('/agent-skills', { %in, name => 'helper',
    agent_skill_type => 'EXTERNAL', storage_location => "file://$tmp/skill",
    description => 'helps with things', allowed_tools => ['Read', 'Bash'],
    metadata => { version => '2' }, license => 'Apache-2.0' });
create_object('/shares', { name => $_ }) for $share, $other;
sub add { { action => 'ADD', data_object => { @_ } } }
my $res = api(PATCH => "/shares/$share", body => { updates => [
    add(name => "$cat.sales.vol", data_object_type => 'VOLUME',
        shared_as => 'pub.vol'),
    add(name => "$cat.sales.helper", data_object_type => 'AGENT_SKILL',
        shared_as => 'agents.helper') ] });
is($res->code, 200, 'a volume and a skill are shared') or diag $res->content;
api(PATCH => "/shares/$other", body => { updates => [
    add(name => "$cat.sales.oth", data_object_type => 'VOLUME',
        shared_as => 'pub.oth') ] });
create_object('/recipients', { name => $_, authentication_type => 'TOKEN' })
    for @recipients;
for ([$share, $recipients[0]], [$other, $recipients[1]]) {
    api(PATCH => "/shares/$_->[0]/permissions", body => { changes => [
        { principal => $_->[1], add => ['SELECT'] } ] });
}
my ($token, $token2) = map { token_of_recipient($_) } @recipients;

# --- the recipient ------------------------------------------------------------------
sub ds { my ($t, @rest) = @_; sharing_api($t, @rest) }
sub doc { my $r = shift; eval { JSON::PP::decode_json($r->content) } }
my $V = "/shares/$share/schemas/pub/volumes/vol";
my $grant = doc(ds($token, POST => "$V/temporary-volume-credentials")) || {};
my ($root, $query) = @{ $grant->{signedPrefix} || {} }{qw(url query)};
ok(defined $root && defined $query && $grant->{expirationTime} > time * 1000,
   'the credentials of a local volume: a grant, with its expiry')
    or diag explain $grant;
$root //= '';
$query //= '';
my $ua = Apache::TestRequest::user_agent();
sub get { my ($url, @h) = @_; $ua->get($url, @h) }
sub enc { join '/', map { my $s = $_; $s =~ s/([^A-Za-z0-9._~=-])/sprintf '%%%02X', ord $1/ge; $s } split m{/}, $_[0] }
sub listing {
    my ($dir, %q) = @_;
    my $extra = join '', map { "&$_=$q{$_}" } sort keys %q;
    my $r = get($root . enc($dir) . ($dir eq '' ? '' : '/') . "?$query$extra");
    return ($r, doc($r));
}
sub entries { join ',', map { $_->{path} . ($_->{isDirectory} ? '/' : '') }
                       @{ $_[0]{contents} || [] } }

my ($r, $l) = listing('');
is($r->code . ' ' . ($r->header('Content-Type') // '') . ' '
   . ($r->header('Cache-Control') // ''), '200 application/json no-store',
   'the root of the grant answers its listing');
is(entries($l), 'a.txt,dir/,my file%.txt', 'the root: its files and directories, in order');
my ($a) = grep { $_->{name} eq 'a.txt' } @{ $l->{contents} || [] };
ok($a && $a->{fileSize} == 6 && $a->{lastModified} > 1_600_000_000_000
   && !$a->{isDirectory}, 'a file\'s entry: size and modification time')
    or diag explain $a;
($r, $l) = listing('dir');
is(entries($l), 'dir/alias,dir/b.bin,dir/sub/',
   'a directory: the link inside the root listed, the links out of it left out');
($r, $l) = listing('dir/sub');
is(entries($l), 'dir/sub/c.txt', 'a directory below');

my (@walked, $next, $pages);
do {
    ($r, $l) = listing('dir', maxResults => 1,
                       $next ? (pageToken => $next) : ());
    push @walked, entries($l) if entries($l) ne '';
    $next = $l->{nextPageToken};
} while ($next && ++$pages < 20);
is(join(',', @walked), 'dir/alias,dir/b.bin,dir/sub/',
   'pages of one entry: every entry once, then no token');
($r, $l) = listing('dir', maxResults => 1);
($r) = listing('dir/sub', pageToken => $l->{nextPageToken} // '');
ds_error($r, 400, 'INVALID_PARAMETER_VALUE', 'a token is its directory\'s only');
ds_error((listing('dir', maxResults => 0))[0], 400, 'INVALID_PARAMETER_VALUE',
         'maxResults 0 is refused');

# --- reading -------------------------------------------------------------------------
my $ok = 1;
for my $f (sort keys %vol_files) {
    my $got = get($root . enc($f) . "?$query");
    $ok &&= $got->code == 200 && $got->content eq $vol_files{$f}
        or diag "$f: " . $got->code;
}
ok($ok, 'every file read back byte for byte, names with spaces and % too');
$r = get($root . "dir/b.bin?$query", Range => 'bytes=1000-1099');
ok($r->code == 206 && $r->content eq substr($big, 1000, 100)
   && ($r->header('Content-Range') // '') eq 'bytes 1000-1099/' . length $big,
   'a Range read: 206 and those bytes');
$r = get($root . "dir/alias?$query");
ok($r->code == 200 && $r->content eq "alpha\n", 'a link inside the root is read');
$r = $ua->head($root . "a.txt?$query");
ok($r->code == 200 && ($r->header('Content-Length') // '') == 6, 'HEAD of a file');

# --- nothing outside ------------------------------------------------------------------
ds_error(get($root . "dir/out?$query"), 404, 'RESOURCE_DOES_NOT_EXIST',
         'a link to a file out of the root');
ds_error(get($root . "dir/outdir/secret.txt?$query"), 404,
         'RESOURCE_DOES_NOT_EXIST', 'a file under a link to a directory out of the root');
ds_error((listing('dir/outdir'))[0], 404, 'RESOURCE_DOES_NOT_EXIST',
         'the listing of a directory out of the root');
my @tricks = ('../other/secret.txt', '%2E%2E/other/secret.txt',
              'dir/..%2F..%2Fother/secret.txt', 'dir/%2E%2E/%2E%2E/other/secret.txt',
              'dir//b.bin', 'a.txt/', '%2Fetc/passwd');
my @leaked = grep { my $c = get($root . "$_?$query")->code; $c != 404 } @tricks;
is("@leaked", '', 'dot segments, encoded slashes, empty segments: 404');
my $oth_root = $root =~ s{/\Q$vol->{volume_id}\E/$}{/$oth->{volume_id}/}r;
ds_error(get($oth_root . "secret.txt?$query"), 403, 'PERMISSION_DENIED',
         'the grant of one volume opens no other');
(my $bad = $query) =~ s/sig=([0-9a-f])/'sig=' . ($1 eq '0' ? '1' : '0')/e;
ds_error(get($root . "a.txt?$bad"), 403, 'PERMISSION_DENIED', 'a changed grant');
(my $later = $query) =~ s/exp=(\d+)/'exp=' . ($1 + 1)/e;
ds_error(get($root . "a.txt?$later"), 403, 'PERMISSION_DENIED', 'a later expiry');
(my $noscope = $query) =~ s/&scope=prefix//;
ds_error(get($root . "a.txt?$noscope"), 403, 'PERMISSION_DENIED',
         'a grant is no file URL');

# --- skills ---------------------------------------------------------------------------
my $S = "/shares/$share/schemas/agents/skills/helper";
my $got = doc(ds($token, GET => $S)) || {};
my $skill_root = $root =~ s{/\Q$vol->{volume_id}\E/$}{/$skill->{agent_skill_id}/}r;
is(JSON::PP->new->canonical->encode($got), JSON::PP->new->canonical->encode({
    name => 'helper', schema => 'agents', share => $share, shareId => $got->{shareId},
    id => $skill->{agent_skill_id}, storageLocation => $skill_root,
    description => 'helps with things', license => 'Apache-2.0',
    allowedTools => 'Read Bash', metadata => { version => '2' } }),
   'GET a skill: Open Sharing\'s fields, allowedTools as one string');
is(join(',', map { "$_->{schema}.$_->{name}" }
        @{ (doc(ds($token, GET => "/shares/$share/all-skills")) || {})->{items} || [] }),
   'agents.helper', 'all-skills');
is(join(',', map { $_->{name} }
        @{ (doc(ds($token, GET => "/shares/$share/schemas/AGENTS/skills")) || {})->{items} || [] }),
   'helper', 'the skills of a schema, any case');
is(join(',', map { $_->{name} }
        @{ (doc(ds($token, GET => "/shares/$share/schemas")) || {})->{items} || [] }),
   'agents,pub', 'a schema holding only a skill is listed');
ds_error(ds($token, GET => "/shares/$share/schemas/pub/skills/vol"), 404,
         'RESOURCE_DOES_NOT_EXIST', 'a volume is no skill', qr{Skill});
my $sg = doc(ds($token, POST => "$S/temporary-skill-credentials")) || {};
my ($sroot, $squery) = @{ $sg->{signedPrefix} || {} }{qw(url query)};
is($sroot // '', $skill_root, 'the credentials of a local skill: a grant of its root');
$squery //= '';
is(entries(doc(get("$skill_root?$squery")) || {}), 'SKILL.md,scripts/',
   'the skill\'s root listed');
$ok = 1;
for my $f (sort keys %skill_files) {
    my $g = get($skill_root . enc($f) . "?$squery");
    $ok &&= $g->code == 200 && $g->content eq $skill_files{$f};
}
ok($ok, 'the skill\'s files read back byte for byte');
ds_error(get($skill_root . "SKILL.md?$query"), 403, 'PERMISSION_DENIED',
         'the volume\'s grant opens no skill');

# --- recipients ------------------------------------------------------------------------
sub same_as_missing {
    my ($got, $missing, $from, $to, $name) = @_;
    my ($g, $m) = (doc($got) || {}, doc($missing) || {});
    (my $msg = $g->{message} // '') =~ s/\Q$from\E/$to/g;
    ok($got->code == $missing->code && $got->code == 404
       && ($g->{errorCode} // '') eq ($m->{errorCode} // '-')
       && $msg eq ($m->{message} // '-'), $name)
        or diag $got->code . ' ' . $got->content . ' / ' . $missing->code . ' '
                . $missing->content;
}
for (["$V/temporary-volume-credentials", 'POST'], ["$S/temporary-skill-credentials", 'POST'],
     ["/shares/$share/all-volumes", 'GET']) {
    my ($path, $method) = @$_;
    (my $nope = $path) =~ s/\Q$share\E/nope_$p/;
    same_as_missing(ds($token2, $method => $path), ds($token2, $method => $nope),
                    $share, "nope_$p",
                    "a token of another share: $method $path as for a missing share");
}
same_as_missing(ds($token, GET => "/shares/$share/schemas/pub/volumes/oth"),
                ds($token, GET => "/shares/$share/schemas/pub/volumes/nope"),
                'oth', 'nope', 'a volume of another share: as a missing one');
my $oth_grant = doc(ds($token2, POST => "/shares/$other/schemas/pub/volumes/oth/temporary-volume-credentials")) || {};
my $oq = ($oth_grant->{signedPrefix} || {})->{query} // '';
ds_error(get($root . "a.txt?$oq"), 403, 'PERMISSION_DENIED',
         'another recipient\'s grant opens nothing of this share');
