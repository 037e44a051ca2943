-- The data objects of a share (a securable of kind 'share'): tables and
-- schemas, each once per share, under a shared_as name unique in it. Both
-- ends are securables, so that a dropped object leaves its shares with it
-- and a renamed one stays, found by id, under the name it is shared as.
CREATE TABLE share_objects (
    id                          TEXT PRIMARY KEY,
    share_id                    TEXT NOT NULL
                                REFERENCES securables (id) ON DELETE CASCADE,
    object_id                   TEXT NOT NULL
                                REFERENCES securables (id) ON DELETE CASCADE,
    data_object_type            TEXT NOT NULL,
    name                        TEXT NOT NULL,   -- full name when added
    shared_as                   TEXT NOT NULL,
    comment                     TEXT,
    partitions                  TEXT,            -- JSON array, or NULL
    cdf_enabled                 INTEGER NOT NULL DEFAULT 0,
    history_data_sharing_status TEXT NOT NULL DEFAULT 'DISABLED',
    start_version               BIGINT,
    added_at                    BIGINT NOT NULL,
    added_by                    TEXT NOT NULL,
    UNIQUE (share_id, object_id),
    UNIQUE (share_id, shared_as)
);
-- Dropping an object finds its share entries through the foreign key.
CREATE INDEX share_objects_by_object ON share_objects (object_id);
