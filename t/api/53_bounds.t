# SPDX-License-Identifier: Apache-2.0
# What one object may carry (properties: entries, key and value lengths;
# keys that are labels, not control sequences) and what one page may hold:
# a page ends at its byte budget (4 MiB of stored text) with a
# next_page_token, whatever max_results asked for.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 24;

my $p = "b57_$$";
my $cat = "cat_$p";
my @cleanup = ($cat, "many_$p");
END { drop_catalog($_) for @cleanup }
create_catalog($cat);
create_schema($cat, 'sch');
create_schema($cat, 'big');

my %props256 = map { sprintf('k%03d', $_) => 'v' } 1 .. 256;
is_ok_json(api(PATCH => "/catalogs/$cat", body => { properties => \%props256 }),
           '256 properties are accepted');
is_error(api(PATCH => "/catalogs/$cat",
             body => { properties => { %props256, k999 => 'v' } }),
         400, 'INVALID_PARAMETER_VALUE', '257 properties -> 400',
         message => qr/properties/);
is_error(api(POST => '/catalogs', body => { name => "many_$p",
                                             properties => { %props256, x => 'y' } }),
         400, 'INVALID_PARAMETER_VALUE', '257 properties on create -> 400');
is_ok_json(api(PATCH => "/catalogs/$cat",
               body => { properties => { ('k' x 255) => 'x' x 16384 } }),
           'a key of 255 bytes and a value of 16 KiB are accepted');
is_error(api(PATCH => "/catalogs/$cat", body => { properties => { ('k' x 256) => 'v' } }),
         400, 'INVALID_PARAMETER_VALUE', 'a key of 256 bytes -> 400',
         message => qr/properties/);
is_error(api(PATCH => "/catalogs/$cat", body => { properties => { k => 'x' x 16385 } }),
         400, 'INVALID_PARAMETER_VALUE', 'a value over 16 KiB -> 400',
         message => qr/properties/);
for my $key ("a\nb", "\e[31mred", "   ", "", "tab\there", "\x{9b}31m", "del\x7f") {
    (my $shown = $key) =~ s/([^\x20-\x7e])/sprintf '\\x{%x}', ord $1/ge;
    is_error(api(PATCH => "/catalogs/$cat", body => { properties => { $key => 'v' } }),
             400, 'INVALID_PARAMETER_VALUE', "property key '$shown' -> 400",
             message => qr/properties/);
}
is_ok_json(api(PATCH => "/catalogs/$cat",
               body => { properties => { 'spark.sql.x' => "multi\nline ok" } }),
           'values are free text');

# The same limits wherever a map of strings is taken.
is_error(api(POST => '/functions',
             body => { name => 'fnx', catalog_name => $cat, schema_name => 'sch',
                       data_type => 'INT', full_data_type => 'int',
                       parameter_style => 'S', is_deterministic => JSON::PP::true(),
                       sql_data_access => 'NO_SQL', is_null_call => JSON::PP::false(),
                       security_type => 'DEFINER', routine_body => 'SQL',
                       properties => to_json_text({ %props256, x => 'y' }) }),
         400, 'INVALID_PARAMETER_VALUE', 'function properties as text: 257 -> 400',
         message => qr/properties/);
is_error(api(POST => '/tables',
             body => { name => 'tbl', catalog_name => $cat, schema_name => 'sch',
                       table_type => 'EXTERNAL', data_source_format => 'DELTA',
                       columns => [], storage_location => "s3://b57-$$/t",
                       properties => { "a\rb" => 'v' } }),
         400, 'INVALID_PARAMETER_VALUE', 'table property key with CR -> 400',
         message => qr/properties/);
is_error(api(POST => '/agent-skills',
             body => { name => 'skill', catalog_name => $cat, schema_name => 'sch',
                       agent_skill_type => 'MANAGED',
                       metadata => { map { ("m$_" => 'v') } 1 .. 257 } }),
         400, 'INVALID_PARAMETER_VALUE', '257 skill metadata entries -> 400',
         message => qr/metadata/);

# --- a page stops at its byte budget -------------------------------------------
# Six tables of about 900 KB of properties each: 5.4 MB, over one page's
# 4 MiB.
my $value = 'x' x 16000;
my %heavy = map { sprintf('p%02d', $_) => $value } 1 .. 56;
for my $i (1 .. 6) {
    create_object('/tables', { name => "heavy$i", catalog_name => $cat,
                               schema_name => 'big', table_type => 'EXTERNAL',
                               data_source_format => 'DELTA', columns => [],
                               storage_location => "s3://b57-$$/heavy$i",
                               properties => \%heavy });
}
my $res = api(GET => '/tables', query => { catalog_name => $cat,
                                           schema_name => 'big',
                                           max_results => 1000 });
is_ok_json($res, 'GET /tables of heavy tables');
my $page = json_of($res) || {};
my $n = scalar @{ $page->{tables} || [] };
ok($n >= 1 && $n < 6, "the first page ends at the byte budget ($n of 6)");
ok(defined $page->{next_page_token}, 'and says that more follow');
ok(length($res->content) < 5_000_000,
   'the page is not larger than its budget and one row');
my @names = map { $_->{name} } @{ $page->{tables} || [] };
my $pages = 1;
while (defined $page->{next_page_token} && $pages < 10) {
    $page = json_of(api(GET => '/tables',
                        query => { catalog_name => $cat, schema_name => 'big',
                                   max_results => 1000,
                                   page_token => $page->{next_page_token} }))
        || {};
    push @names, map { $_->{name} } @{ $page->{tables} || [] };
    $pages++;
}
is(join(' ', @names), join(' ', map { "heavy$_" } 1 .. 6),
   "following the tokens lists every table once ($pages pages)");
is(scalar(@{ (json_of(api(GET => '/tables',
                          query => { catalog_name => $cat, schema_name => 'big',
                                     max_results => 2 })) || {})->{tables} || [] }),
   2, 'max_results still caps a page below its budget');
my @summaries;
my $token;
for (1 .. 10) {
    my $j = json_of(api(GET => '/table-summaries',
                        query => { catalog_name => $cat, max_results => 1000,
                                   schema_name_pattern => 'big',
                                   defined $token ? (page_token => $token) : () }))
        || {};
    push @summaries, map { $_->{full_name} } @{ $j->{tables} || [] };
    $token = $j->{next_page_token};
    last unless defined $token;
}
is(join(' ', @summaries), join(' ', map { "$cat.big.heavy$_" } 1 .. 6),
   'table summaries page through the same tables');
