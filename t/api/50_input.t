# SPDX-License-Identifier: Apache-2.0
# Strict input: JSON syntax, body type, field types, required fields,
# Content-Type (415), body size limits (413, Content-Length and chunked).
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 81;

my $p = "i50_$$";
my $cat = "cat_$p";
my @cleanup = ($cat);
END { drop_catalog($_) for @cleanup }
create_catalog($cat, comment => 'orig', properties => { k => 'v' });
create_schema($cat, 'sch');
my $cat_before = json_of(api(GET => "/catalogs/$cat"));
my $sch_before = json_of(api(GET => "/schemas/$cat.sch"));

# --- malformed JSON and non-object bodies -------------------------------------
for my $raw ('{"name": "abc"', '{name: "abc"}', '{"name":"abc"} x', "{'name':'abc'}",
             '', ' ', "\x{ff}\x{fe}", '{"name":"abc",}') {
    (my $shown = $raw) =~ s/([^\x20-\x7e])/sprintf '\\x%02x', ord $1/ge;
    is_error(api(POST => '/catalogs', raw => $raw,
                 content_type => 'application/json'),
             400, 'INVALID_PARAMETER_VALUE', "malformed body '$shown' -> 400");
}
for my $raw ('[]', '"x"', '5', 'null', 'true', '[{"name":"abc"}]') {
    is_error(api(POST => '/catalogs', raw => $raw,
                 content_type => 'application/json'),
             400, 'INVALID_PARAMETER_VALUE', "body $raw (not an object) -> 400");
}
is_error(api(PATCH => "/catalogs/$cat", raw => '{"comment":',
             content_type => 'application/json'),
         400, 'INVALID_PARAMETER_VALUE', 'PATCH with malformed JSON -> 400');
is_error(api(PATCH => "/schemas/$cat.sch", raw => '[]',
             content_type => 'application/json'),
         400, 'INVALID_PARAMETER_VALUE', 'PATCH schema with [] -> 400');

# --- wrong JSON types of known fields: 400 naming the field ----------------
my @bad_catalog = (
    [name => 5], [name => JSON::PP::true()], [name => {}], [name => ['abc']],
    [comment => []], [comment => 5], [comment => {}],
    [properties => 'x'], [properties => { a => 1 }], [properties => ['a']],
    [properties => { a => { b => 'c' } }], [properties => { a => JSON::PP::true() }],
    [storage_root => 5], [owner => 5],
    [provider_name => 5],
);
for my $b (@bad_catalog) {
    my ($field, $value) = @$b;
    my %body = (name => "typed_$p", $field => $value);
    is_error(api(POST => '/catalogs', body => \%body), 400,
             'INVALID_PARAMETER_VALUE',
             "create catalog with $field = " . to_json_text($value) . ' -> 400',
             message => qr/\Q$field\E/);
}
is_error(api(GET => "/catalogs/typed_$p"), 404, 'CATALOG_NOT_FOUND',
         'no badly typed create created anything');

for my $b ([comment => []], [properties => 'x'], [properties => { a => 1 }],
           [owner => 1], [new_name => 5]) {
    my ($field, $value) = @$b;
    is_error(api(PATCH => "/catalogs/$cat", body => { $field => $value }), 400,
             'INVALID_PARAMETER_VALUE',
             "PATCH catalog $field = " . to_json_text($value) . ' -> 400',
             message => qr/\Q$field\E/);
}
is_deeply(json_of(api(GET => "/catalogs/$cat")), $cat_before,
          'badly typed PATCHes changed nothing');

for my $b ([name => 5], [catalog_name => []], [properties => { a => 1 }],
           [comment => 1], [storage_root => {}]) {
    my ($field, $value) = @$b;
    my %body = (name => 'typed', catalog_name => $cat, $field => $value);
    is_error(api(POST => '/schemas', body => \%body), 400,
             'INVALID_PARAMETER_VALUE',
             "create schema with $field = " . to_json_text($value) . ' -> 400',
             message => qr/\Q$field\E/);
}
for my $b ([comment => []], [properties => 'x'], [new_name => 5]) {
    my ($field, $value) = @$b;
    is_error(api(PATCH => "/schemas/$cat.sch", body => { $field => $value }),
             400, 'INVALID_PARAMETER_VALUE',
             "PATCH schema $field = " . to_json_text($value) . ' -> 400',
             message => qr/\Q$field\E/);
}
is_deeply(json_of(api(GET => "/schemas/$cat.sch")), $sch_before,
          'badly typed schema PATCHes changed nothing');

# --- required fields ------------------------------------------------------------
is_error(api(POST => '/catalogs', body => {}), 400, 'INVALID_PARAMETER_VALUE',
         'create catalog without name -> 400', message => qr/\bname\b/);
is_error(api(POST => '/catalogs', body => { name => undef, comment => 'x' }),
         400, 'INVALID_PARAMETER_VALUE', 'name: null counts as missing',
         message => qr/\bname\b/);
is_error(api(POST => '/schemas', body => { name => 'abc', catalog_name => undef }),
         400, 'INVALID_PARAMETER_VALUE', 'catalog_name: null counts as missing',
         message => qr/catalog_name/);

# --- unknown fields ignored --------------------------------------------------
is_deeply(json_of(api(PATCH => "/catalogs/$cat",
                      body => { bogus => 1, nested => { a => [] } })),
          $cat_before, 'PATCH with only unknown fields changes nothing');
is_schema(api(POST => '/schemas',
              body => { name => 'extra', catalog_name => $cat, bogus => [1],
                        schema_id => 'x', full_name => 'x.y.z' }),
          { full_name => "$cat.extra" }, 'create schema ignores unknown fields');

# --- Content-Type: 415 -------------------------------------------------------
my $json = to_json_text({ name => "ct_$p" });
for my $ct ('text/plain', undef, 'application/x-www-form-urlencoded',
            'application/jsonx', 'text/json') {
    is_error(api(POST => '/catalogs', raw => $json, content_type => $ct),
             415, undef, 'POST with Content-Type ' . ($ct // '(none)')
             . ' -> 415 JSON');
}
is_error(api(PATCH => "/catalogs/$cat", raw => '{"comment":"x"}',
             content_type => 'text/plain'),
         415, undef, 'PATCH catalog text/plain -> 415 JSON');
is_error(api(POST => '/schemas', raw => '{"name":"abc","catalog_name":"x"}',
             content_type => 'text/plain'),
         415, undef, 'POST schema text/plain -> 415 JSON');
is_error(api(PATCH => "/schemas/$cat.sch", raw => '{"comment":"x"}'),
         415, undef, 'PATCH schema without Content-Type -> 415 JSON');
is_error(api(GET => "/catalogs/ct_$p"), 404, 'CATALOG_NOT_FOUND',
         'refused media types created nothing');
is_deeply(json_of(api(GET => "/catalogs/$cat")), $cat_before,
          'refused media types changed nothing');
push @cleanup, "ct_$p", "ct2_$p";
is_catalog(api(POST => '/catalogs', raw => $json,
               content_type => 'application/json; charset=utf-8'),
           { name => "ct_$p" }, 'application/json; charset=utf-8 accepted');
is_catalog(api(POST => '/catalogs', raw => to_json_text({ name => "ct2_$p" }),
               content_type => 'Application/JSON'),
           { name => "ct2_$p" }, 'media type is case-insensitive');

# --- body size: the module's limit (UnicatMaxBodySize 4096 on /small) ------
my $small = "/small$BASE";
# A JSON object of exactly $len bytes.
sub body_of {
    my ($name, $len) = @_;
    my $base = to_json_text({ name => $name, pad => '' });
    die "too short" if $len < length $base;
    return to_json_text({ name => $name, pad => 'x' x ($len - length $base) });
}
push @cleanup, "lim_$p", "lim2_$p", "lim3_$p", "lim4_$p", "lim5_$p";
my $body = body_of("lim_$p", 4096);
is(length $body, 4096, 'test body of 4096 bytes');
is_catalog(api(POST => '/catalogs', base => $small, raw => $body,
               content_type => 'application/json'),
           { name => "lim_$p" }, 'body of exactly UnicatMaxBodySize accepted');
$body = body_of("lim2_$p", 4097);
is_error(api(POST => '/catalogs', base => $small, raw => $body,
             content_type => 'application/json'),
         413, undef, 'one byte over UnicatMaxBodySize -> 413 JSON');
is_error(api(POST => '/catalogs', base => $small, content_type => 'application/json',
             raw => body_of("lim2_$p", 50_000)),
         413, undef, '50 kB over a 4 kB limit -> 413 JSON');
is_error(api(PATCH => "/catalogs/$cat", base => $small,
             content_type => 'application/json',
             raw => to_json_text({ comment => 'y' x 5000 })),
         413, undef, 'PATCH over the limit -> 413 JSON');
my $r = raw_http(chunked_post_text("$small/catalogs", body_of("lim2_$p", 5000)));
is_error($r, 413, undef, 'chunked body over UnicatMaxBodySize -> 413 JSON');
$r = raw_http(chunked_post_text("$small/catalogs", body_of("lim3_$p", 3000),
                                chunk => 700));
is_catalog($r->{status} == 200 ? json_of($r) || {} : { status => $r->{status} },
           { name => "lim3_$p" }, 'chunked body under the limit accepted');
is_error(api(GET => "/catalogs/lim2_$p"), 404, 'CATALOG_NOT_FOUND',
         'refused bodies created nothing');
is_deeply(json_of(api(GET => "/catalogs/$cat")), $cat_before,
          'refused PATCH changed nothing');

# --- default module limit: 1 MiB on the main mount --------------------------
is_error(api(POST => '/catalogs', content_type => 'application/json',
             raw => body_of("lim2_$p", 1048577)),
         413, undef, 'body over the default 1 MiB -> 413 JSON');
is_catalog(api(POST => '/catalogs', content_type => 'application/json',
               raw => body_of("lim4_$p", 1048576)),
           { name => "lim4_$p" }, 'body of exactly 1 MiB accepted');

# --- httpd's LimitRequestBody 1024 below the module limit (/limited) --------
my $limited = "/limited$BASE";
is_catalog(api(POST => '/catalogs', base => $limited,
               content_type => 'application/json', raw => body_of("lim5_$p", 1000)),
           { name => "lim5_$p" }, 'under LimitRequestBody accepted');
is_error(api(POST => '/catalogs', base => $limited,
             content_type => 'application/json', raw => body_of("lim2_$p", 2000)),
         413, undef, 'over LimitRequestBody (Content-Length) -> 413 JSON');
$r = raw_http(chunked_post_text("$limited/catalogs", body_of("lim2_$p", 2000),
                                chunk => 500));
is_error($r, 413, undef, 'over LimitRequestBody (chunked) -> 413 JSON');
is_error(api(GET => "/catalogs/lim2_$p"), 404, 'CATALOG_NOT_FOUND',
         'nothing created by the refused bodies');

# the mounts share one catalog and its authentication
is_catalog(api(GET => "/catalogs/lim3_$p"), { name => "lim3_$p" },
           'what /small created is visible on the main mount');
is_error(api(GET => '/catalogs', base => $small, user => undef), 401,
         'UNAUTHENTICATED', '/small requires authentication too');
