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
-- SQLite writes one transaction at a time: one row is enough.
CREATE TABLE catalog_version (
    shard   INTEGER PRIMARY KEY,
    version BIGINT NOT NULL
);
INSERT INTO catalog_version (shard, version) VALUES (0, 0);
CREATE TRIGGER securables_insert_version AFTER INSERT ON securables BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER securables_update_version AFTER UPDATE ON securables BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER securables_delete_version AFTER DELETE ON securables BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER grants_insert_version AFTER INSERT ON grants BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER grants_update_version AFTER UPDATE ON grants BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER grants_delete_version AFTER DELETE ON grants BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER staging_tables_insert_version AFTER INSERT ON staging_tables BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER staging_tables_update_version AFTER UPDATE ON staging_tables BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER staging_tables_delete_version AFTER DELETE ON staging_tables BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER model_versions_insert_version AFTER INSERT ON model_versions BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER model_versions_update_version AFTER UPDATE ON model_versions BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER model_versions_delete_version AFTER DELETE ON model_versions BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER share_objects_insert_version AFTER INSERT ON share_objects BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER share_objects_update_version AFTER UPDATE ON share_objects BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER share_objects_delete_version AFTER DELETE ON share_objects BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER recipient_tokens_insert_version AFTER INSERT ON recipient_tokens BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER recipient_tokens_update_version AFTER UPDATE ON recipient_tokens BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER recipient_tokens_delete_version AFTER DELETE ON recipient_tokens BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER share_recipients_insert_version AFTER INSERT ON share_recipients BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER share_recipients_update_version AFTER UPDATE ON share_recipients BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER share_recipients_delete_version AFTER DELETE ON share_recipients BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER share_schemas_insert_version AFTER INSERT ON share_schemas BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER share_schemas_update_version AFTER UPDATE ON share_schemas BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER share_schemas_delete_version AFTER DELETE ON share_schemas BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER entity_tags_insert_version AFTER INSERT ON entity_tags BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER entity_tags_update_version AFTER UPDATE ON entity_tags BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER entity_tags_delete_version AFTER DELETE ON entity_tags BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER abac_policies_insert_version AFTER INSERT ON abac_policies BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER abac_policies_update_version AFTER UPDATE ON abac_policies BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER abac_policies_delete_version AFTER DELETE ON abac_policies BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER delta_commits_insert_version AFTER INSERT ON delta_commits BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER delta_commits_update_version AFTER UPDATE ON delta_commits BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
CREATE TRIGGER delta_commits_delete_version AFTER DELETE ON delta_commits BEGIN UPDATE catalog_version SET version = MAX(version + 1, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)); END;
