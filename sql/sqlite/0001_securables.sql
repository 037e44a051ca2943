-- Every securable (metastore, catalog, schema, and later the objects under a
-- schema) is one row. Children point at their parent by id, so a rename
-- changes one row and full names are derived; deleting a row removes its
-- whole subtree through the cascading foreign key.
CREATE TABLE securables (
    id               TEXT PRIMARY KEY,
    kind             TEXT NOT NULL,
    parent_id        TEXT REFERENCES securables (id) ON DELETE CASCADE,
    name             TEXT NOT NULL,
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
SELECT lower(substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-4' ||
             substr(h, 14, 3) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) ||
             substr(h, 18, 3) || '-' || substr(h, 21, 12)),
       'metastore', NULL, 'metastore', now_ms, now_ms
FROM (SELECT hex(randomblob(16)) AS h,
             CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) AS now_ms);
