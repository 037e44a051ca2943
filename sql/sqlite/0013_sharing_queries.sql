-- Asynchronous queries of the Delta Sharing server (POST …/query with
-- asyncquery=true, polled at POST …/queries/{id}), kept here so that any
-- child or node answers a poll. A query belongs to its recipient and its
-- table: the same idempotency key of the same recipient on the same table
-- is the same query. `params` is the submitted body without its paging
-- fields, with the capabilities and fileidhash of the submit (what the
-- result is computed from); `params_hash` its SHA-256, compared when a key
-- comes back. `version` is the latest version the query was pinned to
-- (NULL until its snapshot was read). `preparer` names the process whose
-- threads read the snapshot while state is 'pending'; 'ready' once read.
-- A row past expires_at answers as a missing one and is deleted by the
-- next submit.
CREATE TABLE sharing_queries (
    id            TEXT NOT NULL PRIMARY KEY,
    recipient_id  TEXT NOT NULL
                  REFERENCES securables (id) ON DELETE CASCADE,
    table_id      TEXT NOT NULL,
    key_hash      TEXT NOT NULL,
    params_hash   TEXT NOT NULL,
    params        TEXT NOT NULL,
    state         TEXT NOT NULL,
    preparer      TEXT,
    version       BIGINT,
    created_at    BIGINT NOT NULL,
    expires_at    BIGINT NOT NULL,
    UNIQUE (recipient_id, table_id, key_hash)
);
CREATE INDEX sharing_queries_expiry ON sharing_queries (expires_at);
