-- Tables, volumes, functions, registered models, agents and agent skills
-- are rows of securables under their schema (kind = the securable type).
-- What they need besides that lives here.

-- The id and location POST /staging-tables reserves for a managed table
-- before its data is written; POST /tables uses a reservation once.
-- Committed rows stay, so that a second commit of the same location is told
-- apart from a location that was never reserved.
CREATE TABLE staging_tables (
    id           TEXT PRIMARY KEY,
    schema_id    TEXT NOT NULL REFERENCES securables (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    location     TEXT NOT NULL UNIQUE,
    created_at   BIGINT NOT NULL,
    created_by   TEXT,
    committed_at BIGINT
);
CREATE INDEX staging_tables_open ON staging_tables (schema_id, committed_at);

-- Versions of a registered model. Numbers come from the model's counter
-- (max_version_number in its details), raised in the transaction that
-- inserts the version, so they are never reused.
CREATE TABLE model_versions (
    model_id         TEXT NOT NULL REFERENCES securables (id) ON DELETE CASCADE,
    version          BIGINT NOT NULL,
    id               TEXT NOT NULL UNIQUE,
    source           TEXT NOT NULL,
    run_id           TEXT,
    status           TEXT NOT NULL,
    storage_location TEXT,
    comment          TEXT,
    created_at       BIGINT NOT NULL,
    created_by       TEXT,
    updated_at       BIGINT NOT NULL,
    updated_by       TEXT,
    PRIMARY KEY (model_id, version)
);

-- Storage overlap checks look a location up with its ancestors and its
-- subtree.
CREATE INDEX securables_by_location ON securables (storage_location);
