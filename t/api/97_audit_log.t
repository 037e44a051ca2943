# SPDX-License-Identifier: Apache-2.0
# The audit log (UnicatAuditLog, t/logs/audit.log here): one JSON line for
# every call that changes something, whatever its outcome, and none for
# reads. A journey of changes (creates, updates, grants, deletes, a share,
# a recipient's token issued, rotated and activated, a vended credential)
# and of refusals (403, 400 of the operation, 415 and httpd's own 413
# before any operation runs), each line checked field by field. Last, the
# whole log as the suite left it: every line well-formed, with the fields
# the log promises and no others, and none of the secrets this test
# handled in it.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Time::HiRes ();
use Unicat::Test;

plan tests => 9;

my $log = Apache::Test::vars('serverroot') . '/logs/audit.log';
my $p = "t99_$$";
my $cat = "cat_$p";
my $d = "/srv/unicat-t99-$$";
END {
    drop_catalog($cat);
    api(DELETE => "/shares/share_$p");
    api(DELETE => "/recipients/rcp_$p");
    api(DELETE => "/external-locations/loc_$p", query => { force => 'true' });
}

sub log_size { -s $log // 0 }
# The lines written after byte $from, decoded (undef for one that is not
# JSON).
sub lines_after {
    my ($from) = @_;
    open(my $fh, '<', $log) or return [];
    seek($fh, $from, 0);
    local $/ = "\n";
    return [ map { my $l = $_; scalar eval { JSON::PP::decode_json($l) } }
             <$fh> ];
}

my $start_size = log_size();
my $start_time = time;
my @expected;
# expect(\$res, $operation, $type, $full_name, $principal[, $no_code]):
# the audit line the request that gave $res must have written; its
# error_code is the answer's unless $no_code (httpd answered, not the
# module).
sub expect {
    my ($res, $op, $type, $name, $principal, $no_code) = @_;
    my $failed = $res->code >= 400;
    my $code = $failed && !$no_code ? ((json_of($res) || {})->{error_code})
                                    : undef;
    push @expected, join '|', map { $_ // '-' } $principal, $op, $type,
        $name, $failed ? 'failure' : 'success', $res->code, $code;
    return $res;
}

# --- changes that succeed ---------------------------------------------------
expect(api(POST => '/external-locations', body => { name => "loc_$p",
                                                    url => $d }),
       'CREATE', 'external_location', "loc_$p", 'admin');
expect(api(POST => '/catalogs', body => { name => $cat,
                                          storage_root => "$d/managed" }),
       'CREATE', 'catalog', $cat, 'admin');
expect(api(POST => '/schemas', body => { name => 'sch',
                                         catalog_name => $cat }),
       'CREATE', 'schema', "$cat.sch", 'admin');
my $t = json_of(expect(api(POST => '/tables', body => {
    name => 'tab', catalog_name => $cat, schema_name => 'sch',
    table_type => 'EXTERNAL', data_source_format => 'DELTA', columns => [],
    storage_location => "$d/ext/tab" }), 'CREATE', 'table', "$cat.sch.tab",
    'admin')) || {};
expect(api(PATCH => "/catalogs/$cat", body => { comment => 'audited' }),
       'UPDATE', 'catalog', $cat, 'admin');
expect(api(PATCH => "/permissions/catalog/$cat", body => { changes => [
           { principal => 'alice', add => ['USE CATALOG', 'USE SCHEMA'] } ] }),
       'UPDATE_PERMISSIONS', 'catalog', $cat, 'admin');
expect(api(POST => '/temporary-table-credentials',
           body => { table_id => $t->{table_id}, operation => 'READ' }),
       'GENERATE_TEMPORARY_TABLE_CREDENTIAL', 'table', "$cat.sch.tab",
       'admin');
# A catalog-managed table's commits: each one a change, a refused one too.
my %sch = (catalog_name => $cat, schema_name => 'sch');
my $st = json_of(expect(api(POST => '/staging-tables', body => { name => 'managed', %sch }),
                        'CREATE_STAGING_TABLE', 'table', "$cat.sch.managed", 'admin')) || {};
my $mt = json_of(expect(api(POST => '/tables', body => {
    name => 'managed', %sch, table_type => 'MANAGED', data_source_format => 'DELTA',
    columns => [], storage_location => $st->{staging_location},
    properties => { 'io.unitycatalog.tableId' => $st->{id} // '',
                    'delta.feature.catalogManaged' => 'supported' } }),
    'CREATE', 'table', "$cat.sch.managed", 'admin')) || {};
sub delta_commit {
    my ($v) = @_;
    return api(POST => '/delta/preview/commits', body => {
        table_id => $mt->{table_id}, table_uri => $mt->{storage_location},
        commit_info => { version => $v, timestamp => 1, file_name => "$v.json",
                         file_size => 1, file_modification_timestamp => 1 } });
}
expect(delta_commit(1), 'DELTA_COMMIT', 'table', "$cat.sch.managed", 'admin');
expect(delta_commit(3), 'DELTA_COMMIT', 'table', "$cat.sch.managed", 'admin');
expect(api(POST => '/shares', body => { name => "share_$p" }),
       'CREATE', 'share', "share_$p", 'admin');
my $rcp = json_of(expect(api(POST => '/recipients', body => {
    name => "rcp_$p", authentication_type => 'TOKEN' }),
    'CREATE', 'recipient', "rcp_$p", 'admin')) || {};
my $rotated = json_of(expect(api(POST => "/recipients/rcp_$p/rotate-token",
                                 body => { existing_token_expire_in_seconds
                                           => 0 }),
                             'ROTATE_TOKEN', 'recipient', "rcp_$p",
                             'admin')) || {};
my @links = grep { defined } map { $_->{activation_url} }
    @{ $rcp->{tokens} || [] }, @{ $rotated->{tokens} || [] };
my ($nonce) = ($links[-1] // '') =~ m{/([A-Za-z0-9_-]{43})$};
my $activated = open_api(GET => "/public/data_sharing_activation/"
                                . ($nonce // 'none'), user => undef);
expect($activated, 'ACTIVATE_TOKEN', 'recipient', "rcp_$p", undef);
my $bearer = (json_of($activated) || {})->{bearerToken};

# --- reads write nothing ----------------------------------------------------
api(GET => "/catalogs/$cat");
api(GET => '/tables', query => { catalog_name => $cat, schema_name => 'sch' });
api(GET => '/delta/preview/commits', body => { table_id => $mt->{table_id},
                                               start_version => 0 });
api(POST => '/action/batch-check', base => '/management/v1',
    body => { checks => [] });

# --- refusals ---------------------------------------------------------------
expect(api(POST => '/schemas', user => 'bob',
           body => { name => 'bobs', catalog_name => $cat }),
       'CREATE', 'catalog', $cat, 'bob');
expect(api(POST => '/catalogs', body => { name => $cat }),
       'CREATE', 'catalog', $cat, 'admin');
expect(api(POST => '/catalogs', body => { comment => 'no name' }),
       'CREATE', 'metastore', undef, 'admin');
expect(api(POST => '/catalogs', raw => '{}', content_type => 'text/plain'),
       'CREATE', undef, undef, 'admin');
expect(api(POST => '/catalogs', base => '/limited/api/2.1/unity-catalog',
           content_type => 'application/json',
           raw => '{"name":"' . ('x' x 2000) . '"}'),
       'CREATE', undef, undef, 'admin', 1);

# --- deletes ----------------------------------------------------------------
expect(api(DELETE => "/tables/$cat.sch.tab"), 'DELETE', 'table',
       "$cat.sch.tab", 'admin');
expect(api(DELETE => "/catalogs/$cat", query => { force => 'true' }),
       'DELETE', 'catalog', $cat, 'admin');

# The line is written once the answer has gone: wait for them all.
my $new = [];
for (1 .. 100) {
    $new = lines_after($start_size);
    last if @$new >= @expected;
    Time::HiRes::sleep(0.05);
}
my $metastore = (grep { ($_->{securable_type} // '') eq 'metastore' } @$new)[0];
my @got = map {
    my $l = $_ || {};
    # Copies: aliasing the members themselves would add the missing ones.
    my @fields = ($l->{principal}, $l->{operation}, $l->{securable_type},
                  ($l->{securable_type} // '') eq 'metastore'
                      ? undef : $l->{full_name},
                  $l->{outcome}, $l->{status}, $l->{error_code});
    join '|', map { $_ // '-' } @fields;
} @$new;
is_deeply([sort @got], [sort @expected],
          'one line for each change and refusal, none for the reads: who, '
          . 'what, on which securable, and how it ended')
    or diag join "\n", map { JSON::PP::encode_json($_ // {}) } @$new;

my %by_op = map { (($_ || {})->{operation} // '') => $_ } @$new;
is(($by_op{ACTIVATE_TOKEN} || {})->{route},
   'GET /public/data_sharing_activation/{nonce}',
   'the route is its pattern: an activation link is never in the log');

my %ids = map { (($_ || {})->{request_id} // '') => 1 } @$new;
ok(@$new && !grep({ !defined || !length(($_ || {})->{request_id} // '') }
                  @$new) && keys(%ids) == @$new,
   'every line has a request id of its own (mod_unique_id)');
ok(@$new && !grep({ ($_->{client_address} // '') ne '127.0.0.1' } @$new),
   'and the client address');

my $in_time = sub {
    my ($t) = @_;
    return 0 unless ($t // '') =~
        /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.\d{3}Z$/;
    my $s = Time::Local::timegm($6, $5, $4, $3, $2 - 1, $1);
    return $s >= $start_time - 2 && $s <= time + 2;
};
require Time::Local;
ok(@$new && !grep({ !$in_time->($_->{time}) } @$new),
   'the time of each request, ISO 8601 in UTC to the millisecond');
ok(($by_op{UPDATE_PERMISSIONS} || {})->{api} eq 'catalog',
   'the API the change came through');

# --- the whole log ----------------------------------------------------------
my $all = lines_after(0);
my %allowed = map { $_ => 1 } qw(time request_id principal recipient
    client_address api operation route securable_type full_name outcome
    status error_code);
my @bad = grep {
    my $l = $_;
    !$l || grep({ !$allowed{$_} } keys %$l)
        || !defined $l->{operation} || !defined $l->{route}
        || ($l->{outcome} // '') !~ /^(success|failure)$/
        || !is_json_int($l->{status})
        || (($l->{outcome} eq 'success') != ($l->{status} < 400))
} @$all;
ok(@$all >= @$new && !@bad,
   'every line the suite wrote is one JSON object of the promised fields')
    or diag scalar(@$all) . ' lines; bad: '
            . join "\n", map { JSON::PP::encode_json($_ // {}) } @bad[0 .. 4];

my $text = do { local (@ARGV, $/) = ($log); <> } // '';
my @secrets = grep { defined && length } $bearer, $nonce,
    map { m{/([A-Za-z0-9_-]{43})$} ? $1 : () } @links;
ok(@secrets >= 3 && !grep({ index($text, $_) >= 0 } @secrets),
   'no bearer token or activation link of this test is in it');

# Nor any secret the rest of the suite sent: every recipient's bearer token
# and activation nonce (43 characters of base64url mixing capitals and
# small letters, as no stored name, all small, nor operation, all capitals,
# does), the credentials' and providers' secrets of 58 and 65 by
# the marks they carry, and the keys of the cloud stand-ins.
my @marks = ('aws-SECRET-', 'aws-TOKEN-', 'azure-CLIENT-SECRET-',
             'PRIVATE KEY', 'QVpVUkUtS0VZ', 'bearer-TOKEN-', 'client-SECRET-',
             grep { defined && length } @ENV{qw(UNICAT_S3_SECRET
                 UNICAT_R2_API_TOKEN UNICAT_AZURE_CLIENT_SECRET)});
my @found = grep { index($text, $_) >= 0 } @marks;
push @found, $text =~ /(?<![A-Za-z0-9_-])((?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*[a-z])[A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])/g;
ok(length($text) && !@found, 'no secret that any test of the suite sent')
    or diag "found: @found[0 .. ($#found < 4 ? $#found : 4)]";
