# SPDX-License-Identifier: Apache-2.0
# Registered models and model versions over HTTP: CRUD, version numbers
# that never repeat (also when created at once), finalize, paging, delete
# with and without force, the metastore-wide list.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 33;

my $p = "m93_$$";
my $cat = "cat_$p";
my @cleanup = ($cat);
END { drop_catalog($_) for @cleanup }
my $catalog = create_catalog($cat, storage_root => "s3://models/$p");
create_schema($cat, 'sch');
my %in = (catalog_name => $cat, schema_name => 'sch');
my $M = "$cat.sch.churn";

my @MODEL_KEYS = qw(name catalog_name schema_name full_name storage_location
    comment owner created_at created_by updated_at updated_by id metastore_id
    browse_only);
my @VERSION_KEYS = qw(model_name catalog_name schema_name version source
    run_id status storage_location comment created_at created_by updated_at
    updated_by id metastore_id browse_only);

sub version {
    my (%opt) = @_;
    return api(POST => '/models/versions',
               body => { %in, model_name => 'churn',
                         source => 's3://runs/1/artifacts', %opt });
}

my $res = api(POST => '/models', body => { name => 'Churn', %in,
                                           comment => 'who leaves' });
is_ok_json($res, 'POST /models');
my $m = json_of($res) || {};
has_keys($m, \@MODEL_KEYS, 'registered model: every field');
ok(is_uuid($m->{id}) && $m->{full_name} eq $M
   && $m->{storage_location} eq "$catalog->{storage_location}/models/$m->{id}",
   'model: name, full name, storage under the catalog') or diag explain $m;
is_deeply(json_of(api(GET => "/models/$M")), $m,
          'GET /models/{full_name} returns what create returned');
is_error(api(POST => '/models', body => { name => 'churn', %in }), 409,
         'ALREADY_EXISTS', 'duplicate model -> 409 ALREADY_EXISTS');

$res = version(run_id => 'run-1', comment => 'first');
is_ok_json($res, 'POST /models/versions');
my $v = json_of($res) || {};
has_keys($v, \@VERSION_KEYS, 'model version: every field');
ok(is_json_int($v->{version}) && $v->{version} == 1
   && $v->{status} eq 'PENDING_REGISTRATION' && $v->{run_id} eq 'run-1'
   && $v->{model_name} eq 'churn'
   && $v->{storage_location} eq "$m->{storage_location}/versions/$v->{id}",
   'version 1, pending, stored under the model') or diag explain $v;
is((json_of(version()) || {})->{version}, 2, 'then version 2');
is_deleted(api(DELETE => "/models/$M/versions/2"), 'DELETE a version');
is((json_of(version()) || {})->{version}, 3, 'a deleted number is not reused');
is_error(api(GET => "/models/$M/versions/2"), 404, 'NOT_FOUND',
         'the deleted version is gone');
is_error(api(GET => "/models/$M/versions/two"), 400, 'INVALID_PARAMETER_VALUE',
         'a version is a number');

$res = api(PATCH => "/models/$M/versions/1/finalize",
           body => { full_name => $M, version => 1 });
is_ok_json($res, 'finalize with the body the Java client sends');
is((json_of($res) || {})->{status}, 'READY', 'finalized: READY');
is_error(api(PATCH => "/models/$M/versions/1/finalize", body => {}), 400,
         'FAILED_PRECONDITION', 'finalizing twice -> 400',
         message => qr/pending registration/);
is_error(api(PATCH => "/models/$M/versions/7/finalize", body => {}), 404,
         'NOT_FOUND', 'finalizing a missing version -> 404');
is_error(api(PATCH => "/models/$M/versions/3/finalize",
             body => { version => 1 }), 400, 'INVALID_PARAMETER_VALUE',
         'a body that names another version -> 400');
is((json_of(api(PATCH => "/models/$M/versions/3/finalize", body => {})) || {})
       ->{status}, 'READY', 'finalize with {}');
is((json_of(api(PATCH => "/models/$M/versions/3",
                body => { comment => 'best' })) || {})->{comment}, 'best',
   'PATCH a version comment');

# --- versions created at once -------------------------------------------------
my @out = race(map { sub { version() } } 1 .. 8);
ok(!grep({ $_ ne '200 -' } @out), '8 versions created at once all succeed')
    or diag join ', ', @out;
my (@numbers, $token);
do {
    my $page = json_of(api(GET => "/models/$M/versions",
                           query => { max_results => 4,
                                      defined $token ? (page_token => $token)
                                                     : () })) || {};
    push @numbers, map { $_->{version} } @{ $page->{model_versions} || [] };
    $token = $page->{next_page_token};
} while (defined $token);
is_deeply(\@numbers, [1, 3 .. 11],
          'versions paged in order: 4 to 11 taken once each');

# --- update, list, delete ---------------------------------------------------------
$m = json_of(api(PATCH => "/models/$M", body => { new_name => 'churn2',
                                                   comment => 'renamed' })) || {};
ok($m->{full_name} eq "$cat.sch.churn2" && $m->{comment} eq 'renamed',
   'PATCH /models/{full_name}: rename and comment') or diag explain $m;
is((json_of(api(GET => "/models/$cat.sch.churn2/versions/11")) || {})->{version},
   11, 'the renamed model keeps its versions');
create_object('/models', { name => 'other', %in });
is_error(api(PATCH => "/models/$cat.sch.other", body => { new_name => 'churn2' }),
         409, 'ALREADY_EXISTS', 'renaming onto a sibling -> 409');
my $list = json_of(api(GET => '/models', query => { %in })) || {};
is_deeply([ map { $_->{name} } @{ $list->{registered_models} || [] } ],
          [qw(churn2 other)], 'GET /models');
$list = json_of(api(GET => '/models', query => { max_results => 1000 })) || {};
ok(2 == grep({ $_->{catalog_name} eq $cat } @{ $list->{registered_models} || [] }),
   'GET /models without catalog and schema: the whole metastore');
is_error(api(GET => '/models', query => { catalog_name => $cat }), 400,
         'INVALID_PARAMETER_VALUE', 'catalog_name without schema_name');
is_error(api(DELETE => "/models/$cat.sch.churn2"), 409, 'ABORTED',
         'a model with versions needs force', message => qr/force/);
is_deleted(api(DELETE => "/models/$cat.sch.churn2", query => { force => 'true' }),
           'force deletes the model and its versions');
is_error(api(GET => "/models/$cat.sch.churn2/versions/1"), 404, 'NOT_FOUND',
         'its versions are gone');
is_error(api(POST => '/models/versions', body => { %in, model_name => 'nope',
                                                    source => 'x' }),
         404, 'NOT_FOUND', 'a version of a missing model');
is_error(api(POST => '/models/versions', body => { %in, model_name => 'other' }),
         400, 'INVALID_PARAMETER_VALUE', 'a version needs a source',
         message => qr/source/);
