# SPDX-License-Identifier: Apache-2.0
# Agents and agent skills over HTTP: validation of protocols, endpoints,
# input schemas, skill types and storage; update, list, delete.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/../lib";

use Apache::Test qw(-withtestmore);
use Unicat::Test;

plan tests => 26;

my $p = "a94_$$";
my $cat = "cat_$p";
my @cleanup = ($cat);
END { drop_catalog($_) for @cleanup }
my $catalog = create_catalog($cat, storage_root => "s3://agents/$p");
create_schema($cat, 'sch');
my %in = (catalog_name => $cat, schema_name => 'sch');

my $res = api(POST => '/agents', body => {
    name => 'helper', %in, invocation_protocol => 'MCP',
    endpoint => 'https://agents.example:8443/mcp',
    capabilities => ['sql_query', 'document_search'],
    description => 'answers questions',
    input_schema => '{"type":"object","properties":{"q":{"type":"string"}}}',
    comment => 'team bot' });
is_ok_json($res, 'POST /agents');
my $a = json_of($res) || {};
has_keys($a, [qw(name catalog_name schema_name full_name agent_id
                 invocation_protocol endpoint capabilities description
                 input_schema comment owner created_at created_by updated_at
                 updated_by metastore_id browse_only)], 'agent: every field');
ok(is_uuid($a->{agent_id}) && $a->{full_name} eq "$cat.sch.helper"
   && $a->{invocation_protocol} eq 'MCP'
   && "@{ $a->{capabilities} }" eq 'sql_query document_search',
   'agent fields kept') or diag explain $a;
is_deeply(json_of(api(GET => "/agents/$cat.sch.helper")), $a,
          'GET /agents/{name}');
my %agent = (name => 'bad_one', %in, invocation_protocol => 'REST',
             endpoint => 'https://x.example/run');
is_error(api(POST => '/agents', body => { %agent, invocation_protocol => 'SOAP' }),
         400, 'INVALID_PARAMETER_VALUE', 'unknown invocation_protocol',
         message => qr/invocation_protocol/);
is_error(api(POST => '/agents', body => { %agent, endpoint => 'host:80/run' }),
         400, 'INVALID_PARAMETER_VALUE', 'endpoint outside the URL pattern',
         message => qr/endpoint/);
is_error(api(POST => '/agents', body => { %agent, endpoint => undef }),
         400, 'INVALID_PARAMETER_VALUE', 'endpoint is required',
         message => qr/endpoint/);
is_error(api(POST => '/agents', body => { %agent, input_schema => '{"type":' }),
         400, 'INVALID_PARAMETER_VALUE', 'input_schema must be JSON text',
         message => qr/input_schema/);
is_error(api(POST => '/agents', body => { %agent, input_schema => { type => 'x' } }),
         400, 'INVALID_PARAMETER_VALUE', 'input_schema is a string',
         message => qr/input_schema/);
is_error(api(POST => '/agents', body => { %agent, capabilities => 'all' }),
         400, 'INVALID_PARAMETER_VALUE', 'capabilities is a list',
         message => qr/capabilities/);
is_error(api(POST => '/agents', body => { %agent, name => 'helper' }),
         400, 'RESOURCE_ALREADY_EXISTS', 'duplicate agent -> 400');
$res = api(PATCH => "/agents/$cat.sch.helper", body => {
    invocation_protocol => 'A2A', endpoint => 'https://new.example/a2a',
    capabilities => ['code_execution'], new_name => 'assistant' });
is_ok_json($res, 'PATCH /agents/{name}');
$a = json_of($res) || {};
ok($a->{name} eq 'assistant' && $a->{invocation_protocol} eq 'A2A'
   && $a->{endpoint} eq 'https://new.example/a2a'
   && $a->{description} eq 'answers questions'
   && "@{ $a->{capabilities} }" eq 'code_execution',
   'updated fields change, others stay') or diag explain $a;
is(scalar @{ (json_of(api(GET => '/agents', query => { %in })) || {})->{agents}
             || [] }, 1, 'GET /agents');
is_deleted(api(DELETE => "/agents/$cat.sch.assistant"), 'DELETE /agents/{name}');
is_error(api(GET => "/agents/$cat.sch.assistant"), 404, 'NOT_FOUND',
         'deleted agent is gone');

# --- skills ----------------------------------------------------------------------
$res = api(POST => '/agent-skills', body => {
    name => 'pdf_reader', %in, agent_skill_type => 'MANAGED',
    allowed_tools => ['Read'], metadata => { version => '1' },
    license => 'Apache-2.0', description => 'reads PDF files' });
is_ok_json($res, 'POST /agent-skills MANAGED');
my $s = json_of($res) || {};
has_keys($s, [qw(name catalog_name schema_name full_name agent_skill_id
                 agent_skill_type description allowed_tools metadata license
                 storage_location comment owner created_at created_by
                 updated_at updated_by metastore_id browse_only)],
         'agent skill: every field');
is($s->{storage_location},
   "$catalog->{storage_location}/agent_skills/$s->{agent_skill_id}",
   'managed skill: location derived');
$res = api(POST => '/agent-skills', body => {
    name => 'ext_skill', %in, agent_skill_type => 'EXTERNAL',
    storage_location => "s3://skills_$$/ext/" });
is((json_of($res) || {})->{storage_location}, "s3://skills_$$/ext",
   'external skill: location normalised');
is_error(api(POST => '/agent-skills', body => { name => 'no_loc', %in,
                                                agent_skill_type => 'EXTERNAL' }),
         400, 'INVALID_PARAMETER_VALUE', 'external skill needs a location',
         message => qr/storage_location/);
is_error(api(POST => '/agent-skills', body => { name => 'a' x 65, %in,
                                                agent_skill_type => 'MANAGED' }),
         400, 'INVALID_PARAMETER_VALUE', 'skill names have at most 64 characters');
is_error(api(POST => '/agent-skills', body => { name => 'no_type', %in }),
         400, 'INVALID_PARAMETER_VALUE', 'agent_skill_type is required',
         message => qr/agent_skill_type/);
$s = json_of(api(PATCH => "/agent-skills/$cat.sch.pdf_reader", body => {
    allowed_tools => ['Read', 'Grep'], description => 'reads PDFs' })) || {};
ok("@{ $s->{allowed_tools} || [] }" eq 'Read Grep' && $s->{license} eq 'Apache-2.0',
   'PATCH /agent-skills/{name}') or diag explain $s;
is_deleted(api(DELETE => "/agent-skills/$cat.sch.pdf_reader"),
           'DELETE /agent-skills/{name}');
is_error(api(GET => "/agent-skills/$cat.sch.pdf_reader"), 404, 'NOT_FOUND',
         'deleted skill is gone');
