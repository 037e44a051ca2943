-- The catalog's version: a number that goes up in the transaction of
-- every change to what the catalog answers, so that an answer kept at one
-- version (the answer cache, src/core/uc_answer_cache.h) is known to be
-- current while the version has not moved. Triggers keep it, so no write
-- can forget it, whoever makes it. The audit and the asynchronous sharing
-- queries are left out: they are written while the catalog is only read,
-- and no answer kept is made of them. A change sets it to the time in
-- microseconds, or one more than it was when that is larger: a catalog
-- restored from a backup, or a standby promoted in place of its primary,
-- moves on from its first change past every version the old one had,
-- rather than counting up to one of them with other contents.
-- Writers on several PostgreSQL connections would queue on one row, so
-- the version is the sum of 16 rows and each connection moves its own
-- (by its backend's pid): the sum still goes up with every change.
CREATE TABLE catalog_version (
    shard   INTEGER PRIMARY KEY,
    version BIGINT NOT NULL
);
INSERT INTO catalog_version (shard, version)
    SELECT shard, 0 FROM generate_series(0, 15) AS shard;
CREATE FUNCTION catalog_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE catalog_version SET version = GREATEST(version + 1, CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)) WHERE shard = pg_backend_pid() % 16; RETURN NULL; END $$;
-- Every table an answer is made of moves it, once per statement.
DO $$ DECLARE t text; BEGIN FOREACH t IN ARRAY ARRAY['securables', 'grants', 'staging_tables', 'model_versions', 'share_objects', 'recipient_tokens', 'share_recipients', 'share_schemas', 'entity_tags', 'abac_policies', 'delta_commits'] LOOP EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION catalog_version_bump()', t || '_version', t); END LOOP; END $$;
