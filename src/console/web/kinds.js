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
  // Securables directly under the metastore, in the console's sections.
  credential: {
    label: 'Credential', plural: 'Credentials', api: 'credentials', key: 'credentials',
    securable: 'credential', edit: EDIT_NAMED, section: 'governance', listQuery: () => ({}),
  },
  external_location: {
    label: 'External location', plural: 'External locations', api: 'external-locations',
    key: 'external_locations', securable: 'external_location', edit: EDIT_NAMED,
    section: 'governance', listQuery: () => ({}),
  },
  tag_policy: {
    label: 'Tag policy', plural: 'Tag policies', api: 'tag-policies', key: 'tag_policies',
    securable: 'tag_policy', edit: [], section: 'governance', listQuery: () => ({}), nameField: 'tag_key',
  },
  share: {
    label: 'Share', plural: 'Shares', api: 'shares', key: 'shares', securable: 'share',
    edit: EDIT_NAMED, section: 'sharing', listQuery: () => ({}),
  },
  recipient: {
    label: 'Recipient', plural: 'Recipients', api: 'recipients', key: 'recipients',
    securable: 'recipient', edit: EDIT_ALL, section: 'sharing', listQuery: () => ({}),
  },
  provider: {
    label: 'Provider', plural: 'Providers', api: 'providers', key: 'providers',
    securable: 'provider', edit: EDIT_ALL, section: 'sharing', listQuery: () => ({}),
  },
};

export const sections = {
  governance: { label: 'Storage governance', kinds: ['credential', 'external_location', 'tag_policy'] },
  sharing: { label: 'Sharing', kinds: ['share', 'recipient', 'provider'] },
};

// The full name of an object of a list answer.
export function fullName(kind, item) {
  if (kinds[kind].nameField) return item[kinds[kind].nameField];
  if (kind === 'catalog' || kinds[kind].section) return item.name;
  if (item.full_name) return item.full_name;
  if (kind === 'schema') return `${item.catalog_name}.${item.name}`;
  return `${item.catalog_name}.${item.schema_name}.${item.name}`;
}

// The parents of a full name, from the catalog down, with their kinds.
export function lineage(kind, full) {
  if (kinds[kind].section) return [[kind, full]];
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
