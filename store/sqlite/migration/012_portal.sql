-- +goose Up
-- Kept in step with store/postgres/migration/012_portal.sql: "dkan" is a source type, and
-- datasets are found by identifier across sources. SQLite cannot alter a CHECK constraint and
-- rebuilding harvest_source would cascade-delete its jobs, so the table's CHECK text is
-- edited in place (the documented writable_schema way for CHECK changes, which existing rows
-- meet); writable_schema = RESET makes this connection read the schema again, and creating the
-- index changes the schema version, so every other connection re-reads it.
PRAGMA writable_schema = ON;
UPDATE sqlite_master SET sql = replace(sql, '''ckan'', ''socrata''', '''ckan'', ''dkan'', ''socrata''')
    WHERE type = 'table' AND name = 'harvest_source';
PRAGMA writable_schema = RESET;
CREATE INDEX dataset_identifier ON dataset (identifier);

-- +goose Down
DROP INDEX dataset_identifier;
PRAGMA writable_schema = ON;
UPDATE sqlite_master SET sql = replace(sql, '''ckan'', ''dkan'', ''socrata''', '''ckan'', ''socrata''')
    WHERE type = 'table' AND name = 'harvest_source';
PRAGMA writable_schema = RESET;
