# SPDX-License-Identifier: Apache-2.0
# Share permissions over HTTP: granting recipients SELECT on a share and
# taking it back, the answer (paged on GET), the refusals (other
# privileges, unknown recipients, and those the caller may not know of,
# which answer alike), who may grant, and grants that go
# with a deleted recipient and stay with a renamed one. Then the other
# way round, GET /recipients/{name}/share-permissions: the shares a
# recipient may read, paged, without those the caller may not see.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 31;

my $p = "sp66_$$";
my ($share, @recipients) = ("shr_$p");
my @more_shares = map { "shr${_}_$p" } 2 .. 3;
END {
    api(DELETE => "/shares/$_") for $share, @more_shares;
    api(DELETE => "/recipients/$_") for @recipients;
    api(PATCH => '/permissions/metastore/metastore', body => { changes => [
        { principal => 'bob', remove => ['USE RECIPIENT',
                                         'SET SHARE PERMISSION'] } ] });
}
create_object('/shares', { name => $share });
for my $r ("ra_$p", "rb_$p", "rc_$p") {
    push @recipients, $r;
    create_object('/recipients', { name => $r, authentication_type => 'TOKEN' });
}
sub perms {
    my (%opt) = @_;
    return api(GET => "/shares/$share/permissions", %opt);
}
sub change {
    my ($changes, %opt) = @_;
    return api(PATCH => "/shares/$share/permissions", %opt,
               body => { changes => $changes });
}
sub principals {
    my ($res) = @_;
    return join ',', map { $_->{principal} . ':'
                           . join('|', @{ $_->{privileges} || [] }) }
        @{ (json_of($res) || {})->{privilege_assignments} || [] };
}

# --- grant, read back, revoke -------------------------------------------------
my $res = perms();
is_ok_json($res, 'GET /shares/{name}/permissions');
is(principals($res), '', 'nobody at first');
$res = change([ { principal => "ra_$p", add => ['SELECT'] },
                { principal => "rb_$p", add => ['select'] } ]);
is_ok_json($res, 'PATCH grants two recipients');
is(principals($res), "ra_$p:SELECT,rb_$p:SELECT",
   'the answer lists the share\'s recipients');
is(principals(perms()), "ra_$p:SELECT,rb_$p:SELECT", 'GET shows them');
$res = perms(query => { max_results => 1 });
my $first = json_of($res) || {};
ok(@{ $first->{privilege_assignments} || [] } == 1
   && $first->{next_page_token}, 'a page of one, with a token')
    or diag explain $first;
$res = perms(query => { max_results => 1,
                        page_token => $first->{next_page_token} });
is(principals($res), "rb_$p:SELECT", 'the next page');
is_ok_json(change([ { principal => "ra_$p", add => ['SELECT'] } ]),
           'granting again changes nothing');
$res = change([ { principal => "ra_$p", remove => ['SELECT'] } ]);
is(principals($res), "rb_$p:SELECT", 'revoked');

# --- refusals -----------------------------------------------------------------
is_error(change([ { principal => "ra_$p", add => ['MODIFY'] } ]), 400,
         'INVALID_PARAMETER_VALUE', 'only SELECT', message => qr/SELECT only/);
is_error(change([ { principal => "none_$p", add => ['SELECT'] } ]), 404,
         'NOT_FOUND', 'an unknown recipient',
         message => qr/Recipient not found/);
is_error(change([ { principal => "rc_$p", add => ['SELECT'] },
                  { principal => "none_$p", add => ['SELECT'] } ]), 404,
         'NOT_FOUND', 'one bad change among good ones');
is(principals(perms()), "rb_$p:SELECT", 'changes nothing (all or none)');
is_error(api(GET => "/shares/none_$p/permissions"), 404, 'NOT_FOUND',
         'an unknown share', message => qr/Share not found/);

# --- who may grant ---------------------------------------------------------------
is_error(change([ { principal => "rc_$p", add => ['SELECT'] } ],
                user => 'bob'), 404, 'NOT_FOUND',
         'bob holds nothing on the share');
grant('metastore', 'metastore', 'bob', 'SET SHARE PERMISSION');
for my $change ('add', 'remove') {
    is_as_missing(change([ { principal => "rc_$p", $change => ['SELECT'] } ],
                         user => 'bob'),
                  change([ { principal => "none_$p", $change => ['SELECT'] } ],
                         user => 'bob'),
                  ["rc_$p", "none_$p"], "SET SHARE PERMISSION alone: $change "
                  . 'for a recipient bob may not know of is as missing');
}
grant('recipient', "rc_$p", 'bob', 'MANAGE');
is(principals(change([ { principal => "rc_$p", add => ['SELECT'] } ],
                     user => 'bob')),
   "rb_$p:SELECT,rc_$p:SELECT", 'MANAGE on the recipient hands it over');
revoke('recipient', "rc_$p", 'bob', 'MANAGE');
is_ok_json(change([ { principal => "rc_$p", remove => ['SELECT'] } ]),
           '(taken back)');
grant('metastore', 'metastore', 'bob', 'USE RECIPIENT');
is(principals(change([ { principal => "rc_$p", add => ['SELECT'] } ],
                     user => 'bob')),
   "rb_$p:SELECT,rc_$p:SELECT", 'with USE RECIPIENT too, bob grants');
is_ok_json(perms(user => 'bob'), 'and reads the grants');

# --- the grants follow the recipient ------------------------------------------------
is_ok_json(api(PATCH => "/recipients/rc_$p", body => { new_name => "rd_$p" }),
           'a recipient is renamed');
push @recipients, "rd_$p";
is(principals(perms()), "rb_$p:SELECT,rd_$p:SELECT", 'its grant stays');
is(api(DELETE => "/recipients/rb_$p")->code, 200, 'a recipient is deleted');
is(principals(perms()), "rd_$p:SELECT", 'its grant goes with it');

# --- the shares of a recipient ------------------------------------------------------
create_object('/shares', { name => $_ }) for @more_shares;
for my $s (@more_shares) {
    api(PATCH => "/shares/$s/permissions",
        body => { changes => [ { principal => "rd_$p", add => ['SELECT'] } ] });
}
sub shares_of {
    my ($recipient, %opt) = @_;
    return api(GET => "/recipients/$recipient/share-permissions", %opt);
}
sub share_names {
    my ($res) = @_;
    return join ',', map {
        $_->{share_name} . ':' . join('|', map { "$_->{principal}=" . join('|', @{ $_->{privileges} }) }
                                      @{ $_->{privilege_assignments} })
    } @{ (json_of($res) || {})->{permissions_out} || [] };
}
is(share_names(shares_of("rd_$p")),
   join(",", map { "$_:rd_$p=SELECT" } sort $share, @more_shares),
   'GET /recipients/{name}/share-permissions lists the shares it may read');
my (@walked, $token) = ();
for (1 .. 5) {
    my $page = json_of(shares_of("rd_$p", query => { max_results => 1,
                                                     page_token => $token // '' })) || {};
    push @walked, map { $_->{share_name} } @{ $page->{permissions_out} || [] };
    last unless $token = $page->{next_page_token};
}
is("@walked", join(" ", sort $share, @more_shares), "a page at a time, each share once");
is_as_missing(shares_of("rd_$p", user => 'alice'), shares_of("none_$p", user => 'alice'),
              ["rd_$p", "none_$p"], 'a recipient alice may not know of is as missing');
grant('recipient', "rd_$p", 'alice', 'MANAGE');
grant('share', $more_shares[0], 'alice', 'SET SHARE PERMISSION');
is(share_names(shares_of("rd_$p", user => 'alice')), "$more_shares[0]:rd_$p=SELECT",
   'the shares the caller may not see are left out');
is_error(shares_of("rd_$p", query => { max_results => -1 }), 400, 'INVALID_PARAMETER_VALUE',
         'a bad page size');
is(share_names(shares_of("ra_$p")), '', 'a recipient granted nothing reads nothing');
