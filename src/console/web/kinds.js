// SPDX-License-Identifier: Apache-2.0
// The securables of the explorer, as data: where the API lists and keeps
// each kind, what may be changed, and what lies inside it.

// The query that lists the objects of a schema, from its full name.
const inSchema = (schema) => {
  const [catalog_name, schema_name] = schema.split('.');
  return { catalog_name, schema_name };
};

const EDIT_ALL = ['comment', 'owner', 'properties', 'new_name'];
const EDIT_NAMED = ['comment', 'owner', 'new_name'];

export const kinds = {
  catalog: {
    label: 'Catalog', plural: 'Catalogs', api: 'catalogs', key: 'catalogs',
    securable: 'catalog', tags: 'catalogs', edit: EDIT_ALL,
    children: ['schema'], listQuery: () => ({}),
  },
  schema: {
    label: 'Schema', plural: 'Schemas', api: 'schemas', key: 'schemas',
    securable: 'schema', tags: 'schemas', edit: EDIT_ALL,
    children: ['table', 'volume', 'function', 'model', 'agent', 'agent_skill'],
    listQuery: (catalog) => ({ catalog_name: catalog }),
  },
  table: {
    label: 'Table', plural: 'Tables', api: 'tables', key: 'tables',
    securable: 'table', tags: 'tables', edit: [], listQuery: inSchema,
  },
  volume: {
    label: 'Volume', plural: 'Volumes', api: 'volumes', key: 'volumes',
    securable: 'volume', tags: 'volumes', edit: EDIT_NAMED, listQuery: inSchema,
  },
  function: {
    label: 'Function', plural: 'Functions', api: 'functions', key: 'functions',
    securable: 'function', edit: ['owner'], listQuery: inSchema,
  },
  model: {
    label: 'Registered model', plural: 'Registered models', api: 'models',
    key: 'registered_models', securable: 'registered_model', edit: EDIT_NAMED,
    listQuery: inSchema,
  },
  agent: {
    label: 'Agent', plural: 'Agents', api: 'agents', key: 'agents',
    securable: 'agent', edit: EDIT_NAMED, listQuery: inSchema,
  },
  agent_skill: {
    label: 'Agent skill', plural: 'Agent skills', api: 'agent-skills',
    key: 'agent_skills', securable: 'agent_skill', edit: EDIT_NAMED,
    listQuery: inSchema,
  },
};

// The full name of an object of a list answer.
export function fullName(kind, item) {
  if (kind === 'catalog') return item.name;
  if (item.full_name) return item.full_name;
  if (kind === 'schema') return `${item.catalog_name}.${item.name}`;
  return `${item.catalog_name}.${item.schema_name}.${item.name}`;
}

// The parents of a full name, from the catalog down, with their kinds.
export function lineage(kind, full) {
  const parts = full.split('.');
  const chain = [['catalog', parts[0]]];
  if (parts.length > 1) chain.push(['schema', parts.slice(0, 2).join('.')]);
  if (parts.length > 2) chain.push([kind, full]);
  return chain;
}

// The console's address of an object (and of one of its tabs).
export function href(kind, full, tab) {
  return `#/${kind}/${encodeURIComponent(full)}${tab ? '/' + tab : ''}`;
}
