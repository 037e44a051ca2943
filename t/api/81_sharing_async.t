# SPDX-License-Identifier: Apache-2.0
# Asynchronous queries (PROTOCOL.md "Query Table" with asyncquery=true and
# "Get Query Info"), as Spark's client (useAsyncQuery) and Python's (which
# never asks) make them: only a client that stated asyncquery=true sees a
# queryStatus line, and it needs an idempotency key; the same key is the
# same query; its polls at …/queries/{id} answer what the synchronous
# query answers (the same files, the same version, paged with tokens of
# the query's own), Delta-Table-Version on every answer. An id is the
# recipient's and the table's: anything else is the 404 of a missing
# query, an expired one too; a share revoked between submit and poll is
# refused at the poll, and so is a version the share object's history
# rules no longer show; a query that fails answers its polls with the
# synchronous query's error. A recipient's live queries and a child's
# waiting jobs are bounded. /async/delta-sharing prepares every query (no
# wait) and forgets them after two seconds (t/conf/extra.conf.in).
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use JSON::PP ();
use Unicat::Test;

plan tests => 56;

my @recipients = ("rca_as81_$$", "rcb_as81_$$");
my $setup = shared_tables("as81_$$", {
    one => [ 'simple_table' ],
    two => [ 'delta-0.8.0-partitioned' ],
    three => [ 'simple_table', { history_data_sharing_status => 'ENABLED',
                                 start_version => 2 } ],
    nolog => [ 'simple_table' ],
}, @recipients);
# A table whose log is gone since it was shared.
system('rm', '-rf', "$setup->{tmp}/nolog/_delta_log") == 0 or die 'rm';
my ($share, %token) = ($setup->{share}, %{ $setup->{token} });
my $me = $recipients[0];
my $revoked = "rvk_as81_$$";
share_table($setup, $revoked, 'one');
grant_share($setup, $revoked, $me);

my $SPARK = 'responseformat=parquet;asyncquery=true';
my $key = 0;
sub new_key { sprintf "key-%d-%d", $$, ++$key }
sub table_path { my ($t, %o) = @_;
                 '/shares/' . ($o{share} // $share) . "/schemas/pub/tables/$t" }
sub query {
    my ($table, $body, %opt) = @_;
    my $who = delete $opt{as} // $me;
    my $caps = delete $opt{caps};
    my @h = (defined $caps ? ('delta-sharing-capabilities' => $caps) : (),
             @{ delete $opt{headers} || [] });
    return sharing_api($token{$who}, POST => table_path($table, %opt)
                       . '/query', body => $body, headers => \@h,
                       base => $opt{base});
}
sub poll {
    my ($table, $id, $body, %opt) = @_;
    my $who = delete $opt{as} // $me;
    return sharing_api($token{$who}, POST => table_path($table, %opt)
                       . "/queries/$id", body => $body // {},
                       headers => [ 'delta-sharing-capabilities' => $SPARK ],
                       base => $opt{base});
}
my $ASYNC = '/async/delta-sharing';
sub status_of { (answer_lines($_[0])->[0] || {})->{queryStatus} }
sub file_ids {
    [ sort map { $_->{file}{id} } grep { $_->{file} } @{ answer_lines($_[0]) } ]
}
sub next_of {
    ((answer_lines($_[0])->[-1] || {})->{endStreamAction} || {})->{nextPageToken}
}
my @versions;    # the Delta-Table-Version of every answer of a query
sub seen { push @versions, $_[0]->header('Delta-Table-Version'); $_[0] }
# Polls until the answer is no queryStatus (at most 50 times).
sub result {
    my ($table, $id, $body, %opt) = @_;
    for (1 .. 50) {
        my $r = seen(poll($table, $id, $body, %opt));
        return $r unless $r->code == 200 && status_of($r);
        select(undef, undef, undef, 0.1);
    }
    return undef;
}

# --- what the synchronous query answers ------------------------------------------
my $sync = query('one', {});
is($sync->code, 200, 'the synchronous query') or diag $sync->content;
my @all = @{ file_ids($sync) };
my $version = $sync->header('Delta-Table-Version');
ok(@all > 2, 'it has several files, at version ' . ($version // 'none'));

# --- Python: no asyncquery, no queryStatus, whatever the body says ------------------
for my $base (undef, $ASYNC) {
    my $r = query('one', { idempotencyKey => new_key() }, base => $base,
                  caps => 'responseformat=delta');
    ok($r->code == 200 && !grep({ $_->{queryStatus} } @{ answer_lines($r) })
       && @{ file_ids($r) } == @all,
       'without asyncquery=true: the answer itself, ' . ($base // 'default'))
        or diag $r->code . ' ' . $r->content;
}

# --- no idempotency key ------------------------------------------------------------
ds_error(query('one', {}, caps => $SPARK, base => $ASYNC), 400,
         'INVALID_PARAMETER_VALUE', 'asyncquery=true without a key: 400',
         qr/idempotency_key is required/);
ds_error(query('one', { idempotencyKey => '' }, caps => $SPARK), 400,
         'INVALID_PARAMETER_VALUE', 'an empty key: 400');

# --- Spark on the default server: pending or the answer, then the answer ------------
{
    my $r = seen(query('one', { idempotency_key => new_key() },
                       caps => $SPARK));
    is($r->code, 200, 'a Spark submit on the default server');
    my $st = status_of($r);
    $r = result('one', $st->{queryId}, {}) if $st;
    is_deeply(file_ids($r), \@all, 'its answer: the synchronous files ('
              . ($st ? 'after polls' : 'at once') . ')');
}

# --- Spark on the preparing server: pending, polled, paged ---------------------------
@versions = ();
my $k1 = new_key();
my $submit = seen(query('one', { idempotency_key => $k1, maxFiles => 2 },
                        caps => "$SPARK;includeendstreamaction=true",
                        base => $ASYNC,
                        headers => [ fileidhash => 'DELTA' ]));
my $st = status_of($submit) || {};
is($st->{status}, 'pending', 'the submit answers pending')
    or diag $submit->code . ' ' . $submit->content;
like($st->{queryId} // '', qr/^[A-Za-z0-9_-]{20,}$/,
     'its id: long and URL-safe');
is(scalar @{ answer_lines($submit) }, 1, 'one line, nothing else');
like($submit->header('delta-sharing-capabilities') // '',
     qr/^responseformat=parquet;asyncquery=true$/,
     'asyncquery=true is echoed on the queryStatus answer');
is($submit->header('fileidhash'), 'delta', 'fileidhash is echoed');
my $id = $st->{queryId} // 'none';

my $again = query('one', { idempotency_key => $k1, maxFiles => 2 },
                  caps => "$SPARK;includeendstreamaction=true",
                  base => $ASYNC, headers => [ fileidhash => 'DELTA' ]);
is((status_of($again) || {})->{queryId}, $id,
   'the same key and parameters: the same query id');
ds_error(query('one', { idempotency_key => $k1, maxFiles => 2,
                        limitHint => 1 },
               caps => "$SPARK;includeendstreamaction=true",
               base => $ASYNC, headers => [ fileidhash => 'DELTA' ]),
         400, 'INVALID_PARAMETER_VALUE',
         'the same key with other parameters: 400', qr/other parameters/);
my $other_table = query('two', { idempotency_key => $k1 }, caps => $SPARK,
                        base => $ASYNC);
my $other_id = (status_of($other_table) || {})->{queryId} // '';
ok($other_id && $other_id ne $id,
   'the same key on another table: another query');

# The pool's thread read the snapshot of table two and said so in the
# database, before any poll of it. Under prefork the child's one database
# connection is its request's: the thread leaves the query to its poll,
# which no process waits for.
my $two_version = query('two', {})->header('Delta-Table-Version');
my $marked = '';
my $prefork = (Apache::Test::config()->{server}{mpm} // '') eq 'prefork';
for (1 .. 40) {
    $marked = db_query("SELECT state || ':' || coalesce(version, -1) || ':' "
                       . "|| coalesce(preparer, '-') FROM sharing_queries "
                       . "WHERE id = '$other_id'");
    last if $prefork || $marked =~ /^ready/;
    select(undef, undef, undef, 0.05);
}
like($marked, $prefork ? qr/^pending:-1:-$/ : qr/^ready:\Q$two_version\E:/,
     $prefork ? 'prefork: the pool\'s thread leaves the unpolled query to '
                . 'its poll, no process named as preparing it'
              : 'a thread of the pool marked the unpolled query ready, at '
                . 'the version it read');

my $first = result('one', $id, { queryId => $id, maxFiles => 2 },
                   base => $ASYNC);
ok($first && $first->code == 200 && !status_of($first),
   'polled until the result') or diag $first ? $first->content : 'none';
$first //= $submit;
unlike($first->header('delta-sharing-capabilities') // '', qr/asyncquery/,
       'no asyncquery echo on the result');
like($first->header('delta-sharing-capabilities') // '',
     qr/includeendstreamaction=true/,
     "the submit's includeendstreamaction holds for the result");
my @ids = @{ file_ids($first) };
is(scalar @ids, 2, 'the first page holds maxFiles files');
ok(!grep({ length != 64 } @ids), "the submit's fileidhash (delta: SHA-256) "
   . 'applies to the result, which the poll did not say');
my $page_token = next_of($first);
ok($page_token, 'a next page');
my ($next, $pages) = ($page_token, 1);
while ($next && $pages < 20) {
    my $r = seen(poll('one', $id, { queryId => $id, maxFiles => 2,
                                    pageToken => $next }, base => $ASYNC));
    last unless $r->code == 200;
    push @ids, @{ file_ids($r) };
    $next = next_of($r);
    $pages++;
}
ok(!$next, "the pages end, after $pages");
my $sync_delta = query('one', {}, headers => [ fileidhash => 'delta' ]);
is_deeply([ sort @ids ], file_ids($sync_delta),
          'the pages hold the files of the synchronous query, each once');
ok(@versions && !grep({ !defined || $_ ne $version } @versions[1 .. $#versions])
   && defined $versions[0],
   "Delta-Table-Version on every answer, the result's the sync one's "
   . "($version)") or diag explain \@versions;

ds_error(query('one', { maxFiles => 2, pageToken => $page_token }), 400,
         'INVALID_PARAMETER_VALUE',
         "the query's page token does not read the synchronous query's pages");
my $resubmit = query('one', { idempotency_key => $k1, maxFiles => 2 },
                     caps => "$SPARK;includeendstreamaction=true",
                     base => $ASYNC, headers => [ fileidhash => 'DELTA' ]);
is((status_of($resubmit) || {})->{queryId}, $id,
   'a ready query submitted again: its id again, no new work');
ok(defined $resubmit->header('Delta-Table-Version'),
   '... with Delta-Table-Version');

# --- includeRefreshToken (Spark sends it with a latest snapshot's query): the
# first page's, the later pages read without it ------------------------------------------
{
    my $rk = query('one', { idempotency_key => new_key(), maxFiles => 2,
                            includeRefreshToken => JSON::PP::true },
                   caps => $SPARK, base => $ASYNC);
    my $rid = (status_of($rk) || {})->{queryId} // 'none';
    my $r1 = result('one', $rid, { maxFiles => 2 }, base => $ASYNC);
    my $end = ((answer_lines($r1)->[-1] || {})->{endStreamAction}) || {};
    ok($end->{refreshToken} && $end->{nextPageToken},
       'its first page: a refresh token and the next page')
        or diag $r1 ? $r1->content : 'none';
    my $r2 = poll('one', $rid, { maxFiles => 2,
                                 pageToken => $end->{nextPageToken} },
                  base => $ASYNC);
    ok($r2->code == 200 && @{ file_ids($r2) } == 2,
       'its second page (was 400: includeRefreshToken past the first page)')
        or diag $r2->content;
}

# --- whose ids -------------------------------------------------------------------------
my $missing = qr/^Query '.*' does not exist or has expired\.$/;
ds_error(poll('one', $id, {}, base => $ASYNC, as => $recipients[1]), 404,
         'RESOURCE_DOES_NOT_EXIST', "another recipient's id: 404", $missing);
ds_error(poll('two', $id, {}, base => $ASYNC), 404,
         'RESOURCE_DOES_NOT_EXIST', "another table's id: 404", $missing);
ds_error(poll('one', 'AAAAAAAAAAAAAAAAAAAAAAAA', {}, base => $ASYNC), 404,
         'RESOURCE_DOES_NOT_EXIST', 'an unknown id: 404', $missing);
ds_error(poll('one', $id, { maxFiles => 2, pageToken => 'x.1.k.00' },
              base => $ASYNC), 400, 'INVALID_PARAMETER_VALUE',
         'a page token that is none: 400');
my $b_submit = query('one', { idempotency_key => $k1 }, caps => $SPARK,
                     base => $ASYNC, as => $recipients[1]);
my $b_id = (status_of($b_submit) || {})->{queryId} // '';
ok($b_id && $b_id ne $id, "another recipient's key is its own");
my $b_first = result('one', $b_id, { maxFiles => 2 }, base => $ASYNC,
                     as => $recipients[1]);
ds_error(poll('one', $b_id, { maxFiles => 2, pageToken => $page_token },
              base => $ASYNC, as => $recipients[1]), 400,
         'INVALID_PARAMETER_VALUE',
         "a query's page token does not read another query's pages");
ok($b_first && $b_first->code == 200, "the other recipient's result");

# --- a share revoked between submit and poll --------------------------------------------
my $rv = query('one', { idempotency_key => new_key() }, caps => $SPARK,
               base => $ASYNC, share => $revoked);
my $rv_id = (status_of($rv) || {})->{queryId} // 'none';
ok(status_of($rv), 'a query of the share about to be revoked');
my $res = api(PATCH => "/shares/$revoked/permissions", body => { changes => [
    { principal => $me, remove => ['SELECT'] } ] });
is($res->code, 200, 'the share is revoked');
my $after = poll('one', $rv_id, {}, base => $ASYNC, share => $revoked);
ok(($after->code == 403 || $after->code == 404)
   && !status_of($after) && !@{ file_ids($after) },
   'its poll is refused: ' . $after->code) or diag $after->content;

# --- the share object's history rules, at the poll ---------------------------------------
# A query pinned to version 4, the latest; the table moves on to 5 and the
# provider's start_version to 5: version 4 is history now, refused.
my $hist = query('three', { idempotency_key => new_key() }, caps => $SPARK,
                 base => $ASYNC);
my $hist_id = (status_of($hist) || {})->{queryId} // 'none';
my $hist_first = result('three', $hist_id, {}, base => $ASYNC);
is($hist_first && $hist_first->header('Delta-Table-Version'), '4',
   'a query pinned to version 4');
{
    my $v5 = "$setup->{tmp}/three/_delta_log/" . sprintf('%020d', 5) . '.json';
    open my $fh, '>', $v5 or die "$v5: $!";
    print $fh '{"commitInfo":{"timestamp":1,"operation":"WRITE"}}', "\n";
    close $fh;
    chmod 0644, $v5;
}
is(poll('three', $hist_id, {}, base => $ASYNC)->header('Delta-Table-Version'),
   '4', 'a commit since: its polls stay at version 4');
api(PATCH => "/shares/$share", body => { updates => [
    { action => 'UPDATE', data_object => {
        name => "$setup->{cat}.sales.three", start_version => 5 } } ] });
ds_error(poll('three', $hist_id, {}, base => $ASYNC), 400,
         'INVALID_PARAMETER_VALUE',
         'start_version 5 since: version 4 is refused at the poll',
         qr/since version 5/);

# --- a query that fails: its poll answers the synchronous query's error -----------------
my $broken_sync = query('nolog', {});
my $broken = query('nolog', { idempotency_key => new_key() }, caps => $SPARK,
                   base => $ASYNC);
ok(status_of($broken), 'a query of a table without its log: pending')
    or diag $broken->content;
my $broken_poll = result('nolog', (status_of($broken) || {})->{queryId}
                         // 'none', {}, base => $ASYNC);
my $code = (JSON::PP::decode_json($broken_sync->content) || {})->{errorCode};
ds_error($broken_poll, $broken_sync->code, $code // '',
         'its poll: the error of the synchronous query, '
         . $broken_sync->code . " $code");

# --- expiry ------------------------------------------------------------------------------
my $old = query('two', { idempotency_key => new_key() }, caps => $SPARK,
                base => $ASYNC);
my $old_id = (status_of($old) || {})->{queryId} // 'none';
ok(status_of($old), 'a query that will expire');
sleep 3;
ds_error(poll('two', $old_id, {}, base => $ASYNC), 404,
         'RESOURCE_DOES_NOT_EXIST', 'expired after its lifetime: 404',
         $missing);
my $purge = query('two', { idempotency_key => new_key() }, caps => $SPARK,
                  base => $ASYNC);
ok(status_of($purge), 'a new submit');
is(db_query("SELECT COUNT(*) FROM sharing_queries WHERE id = '$old_id'"), 0,
   'which deleted the expired query');
like(db_query("SELECT state FROM sharing_queries WHERE id = '"
              . (status_of($purge) || {})->{queryId} . "'"),
     qr/^(pending|ready)$/, 'the new query is kept');

# --- the poll of a query another process prepared: answered here ------------------------
my $far = query('two', { idempotency_key => new_key() }, caps => $SPARK,
                base => $ASYNC);
my $far_id = (status_of($far) || {})->{queryId} // 'none';
db_query("UPDATE sharing_queries SET preparer = 'elsewhere', "
         . "state = 'pending', version = NULL WHERE id = '$far_id'",
         write => 1);
my $here = poll('two', $far_id, {}, base => $ASYNC);
ok($here->code == 200 && !status_of($here) && @{ file_ids($here) },
   "a query pending in another process: the poll answers it")
    or diag $here->content;
is(db_query("SELECT state || ':' || version FROM sharing_queries "
            . "WHERE id = '$far_id'"),
   'ready:' . $here->header('Delta-Table-Version'),
   'and pins the version it read');
my $two_sync = query('two', {});
is_deeply(file_ids($here), file_ids($two_sync),
          'the same files as the synchronous query');

# --- the bounds: a recipient's 64 live queries, a child's 16 waiting jobs;
# beyond, answered at once ---------------------------------------------------------------
{
    my ($pending, $at_once, $t0) = (0, 0, time);
    for (1 .. 70) {
        my $r = query('two', { idempotency_key => new_key() }, caps => $SPARK,
                      base => $ASYNC, as => $recipients[1]);
        if (status_of($r)) { $pending++ }
        elsif ($r->code == 200 && @{ file_ids($r) }) { $at_once++ }
    }
  SKIP: {
        skip 'the submits outlasted the queries (two seconds)', 2
            if time - $t0 >= 2;
        # (Fewer when the child's jobs waiting reach 16 first: prefork's
        # single thread.)
        ok($pending <= 64 && $pending > 0,
           "at most 64 live queries of a recipient ($pending)");
        is($pending + $at_once, 70, 'the others answered at once');
    }
}
