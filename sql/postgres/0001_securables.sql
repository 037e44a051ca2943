-- Every securable (metastore, catalog, schema, and later the objects under a
-- schema) is one row. Children point at their parent by id, so a rename
-- changes one row and full names are derived; deleting a row removes its
-- whole subtree through the cascading foreign key. Names sort bytewise
-- (COLLATE "C") so pages come in the same order on every server.
CREATE TABLE securables (
    id               TEXT PRIMARY KEY,
    kind             TEXT NOT NULL,
    parent_id        TEXT REFERENCES securables (id) ON DELETE CASCADE,
    name             TEXT COLLATE "C" NOT NULL,
    comment          TEXT,
    properties       TEXT NOT NULL DEFAULT '{}',
    storage_root     TEXT,
    storage_location TEXT,
    details          TEXT NOT NULL DEFAULT '{}',
    owner            TEXT,
    created_at       BIGINT NOT NULL,
    created_by       TEXT,
    updated_at       BIGINT NOT NULL,
    updated_by       TEXT,
    UNIQUE (parent_id, kind, name)
);

INSERT INTO securables (id, kind, parent_id, name, created_at, updated_at)
SELECT gen_random_uuid()::text, 'metastore', NULL, 'metastore', now_ms, now_ms
FROM (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now_ms) t;
