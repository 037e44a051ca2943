-- The schemas a share declares through the Delta Sharing API's
-- CreateSchema: names for groups of its data objects (the schema part of
-- their shared_as), shown to recipients even while they hold no table.
CREATE TABLE share_schemas (
    id          TEXT PRIMARY KEY,
    share_id    TEXT NOT NULL REFERENCES securables (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    comment     TEXT,
    properties  TEXT,                -- JSON object, or NULL
    created_at  BIGINT NOT NULL,
    created_by  TEXT NOT NULL,
    UNIQUE (share_id, name)
);
