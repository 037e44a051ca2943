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
CREATE TRIGGER securables_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON securables
    FOR EACH STATEMENT EXECUTE FUNCTION catalog_version_bump();
CREATE TRIGGER grants_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON grants
    FOR EACH STATEMENT EXECUTE FUNCTION catalog_version_bump();
CREATE TRIGGER staging_tables_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON staging_tables
    FOR EACH STATEMENT EXECUTE FUNCTION catalog_version_bump();
CREATE TRIGGER model_versions_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON model_versions
    FOR EACH STATEMENT EXECUTE FUNCTION catalog_version_bump();
CREATE TRIGGER share_objects_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON share_objects
    FOR EACH STATEMENT EXECUTE FUNCTION catalog_version_bump();
CREATE TRIGGER recipient_tokens_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON recipient_tokens
    FOR EACH STATEMENT EXECUTE FUNCTION catalog_version_bump();
CREATE TRIGGER share_recipients_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON share_recipients
    FOR EACH STATEMENT EXECUTE FUNCTION catalog_version_bump();
CREATE TRIGGER share_schemas_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON share_schemas
    FOR EACH STATEMENT EXECUTE FUNCTION catalog_version_bump();
CREATE TRIGGER entity_tags_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON entity_tags
    FOR EACH STATEMENT EXECUTE FUNCTION catalog_version_bump();
CREATE TRIGGER abac_policies_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON abac_policies
    FOR EACH STATEMENT EXECUTE FUNCTION catalog_version_bump();
CREATE TRIGGER delta_commits_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON delta_commits
    FOR EACH STATEMENT EXECUTE FUNCTION catalog_version_bump();
