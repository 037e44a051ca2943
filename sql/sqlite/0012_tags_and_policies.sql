-- Governed tags are securables (kind 'tag_policy', under the metastore,
-- named by their tag key), so that ASSIGN and MANAGE are granted on them
-- like any privilege. What they govern lives here.

-- A tag on a catalog, schema, table, volume or column (column_name, '' for
-- the entity itself). It follows its entity: a rename keeps it, a delete
-- takes it with the entity's subtree.
CREATE TABLE entity_tags (
    entity_id   TEXT NOT NULL REFERENCES securables (id) ON DELETE CASCADE,
    column_name TEXT NOT NULL,
    tag_key     TEXT NOT NULL,
    tag_value   TEXT,
    created_at  BIGINT NOT NULL,
    created_by  TEXT NOT NULL,
    updated_at  BIGINT NOT NULL,
    updated_by  TEXT NOT NULL,
    PRIMARY KEY (entity_id, column_name, tag_key)
);
-- Which entities use a governed key's values, when a policy drops one.
CREATE INDEX entity_tags_by_key ON entity_tags (tag_key, tag_value);

-- Row-filter and column-mask policies of a catalog, schema or table. What
-- the query engine reads of them besides the indexed columns is one JSON
-- document (principals, condition, columns, function), stored as sent.
CREATE TABLE abac_policies (
    id           TEXT PRIMARY KEY,
    securable_id TEXT NOT NULL REFERENCES securables (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    policy_type  TEXT NOT NULL,
    document     TEXT NOT NULL,
    comment      TEXT,
    created_at   BIGINT NOT NULL,
    created_by   TEXT NOT NULL,
    updated_at   BIGINT NOT NULL,
    updated_by   TEXT NOT NULL,
    UNIQUE (securable_id, name)
);
