-- The stored size of a row's large fields (comment, properties, details),
-- kept with the row so that a page can end at its byte budget without
-- measuring text as it reads.
ALTER TABLE securables ADD COLUMN stored_bytes BIGINT NOT NULL DEFAULT 0;
UPDATE securables SET stored_bytes =
    length(CAST(COALESCE(comment, '') AS BLOB)) +
    length(CAST(properties AS BLOB)) + length(CAST(details AS BLOB));
