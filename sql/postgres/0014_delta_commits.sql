-- The commits a catalog-managed Delta table's writers posted to the commit
-- coordinator (/delta/preview/commits) and the catalog ratified, as long
-- as they are not backfilled into _delta_log/<version>.json; the highest
-- one stays, flagged, once it is, so that the table's latest version is
-- never forgotten. A version is ratified once: the primary key is the
-- last word between two writers. Times are epoch milliseconds. The rows
-- go with their table.
CREATE TABLE delta_commits (
    table_id             TEXT NOT NULL
                         REFERENCES securables (id) ON DELETE CASCADE,
    commit_version       BIGINT NOT NULL,
    commit_filename      TEXT NOT NULL,
    commit_filesize      BIGINT NOT NULL,
    commit_file_mtime_ms BIGINT NOT NULL,
    commit_timestamp_ms  BIGINT NOT NULL,
    is_backfilled_latest INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (table_id, commit_version)
);
