# SPDX-License-Identifier: Apache-2.0
# UnicatAnonymousPrincipal: /anon/api/2.1/unity-catalog has no
# authentication and acts as "guest", who holds only what was granted to it.
# The main mount still demands credentials.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 10;

my $ANON = '/anon/api/2.1/unity-catalog';
my $p = "a85_$$";
my ($seen, $hidden) = ("anonok_$p", "anonno_$p");
END { drop_catalog($_) for $seen, $hidden, "anonnew_$p" }

create_catalog($seen);
create_catalog($hidden);
grant('catalog', $seen, 'guest', 'USE CATALOG');

my $res = api(GET => '/catalogs', base => $ANON, user => undef,
              query => { max_results => 1000 });
is_ok_json($res, 'anonymous GET /catalogs -> 200');
my %names = map { $_->{name} => 1 } @{ (json_of($res) || {})->{catalogs} || [] };
ok($names{$seen}, '... lists the catalog guest has USE CATALOG on');
ok(!$names{$hidden}, '... not the one guest holds nothing on');
is_catalog(api(GET => "/catalogs/$seen", base => $ANON, user => undef),
           { name => $seen }, 'anonymous GET of the granted catalog');
is_error(api(GET => "/catalogs/$hidden", base => $ANON, user => undef),
         404, 'CATALOG_NOT_FOUND', 'anonymous GET of the other one -> 404');
is_error(api(POST => '/catalogs', base => $ANON, user => undef,
             body => { name => "anonnew_$p" }),
         403, 'PERMISSION_DENIED', 'anonymous POST /catalogs -> 403');
is_error(api(GET => "/catalogs/anonnew_$p"), 404, 'CATALOG_NOT_FOUND',
         '... and nothing was created');
$res = api(GET => "/catalogs/$seen", user => undef);
is_error($res, 401, 'UNAUTHENTICATED',
         'the main mount still answers 401 without credentials');
is(($res->header('WWW-Authenticate') // '') =~ /^Basic/ ? 1 : 0, 1,
   '... with WWW-Authenticate: Basic');
is_error(api(GET => '/catalogs', user => undef), 401, 'UNAUTHENTICATED',
         'main mount list without credentials -> 401');
