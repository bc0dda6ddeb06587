-- +goose Up
-- Kept in step with store/postgres/migration/017_csw_source.sql: "csw" is a source type. The
-- CHECK text is edited in place, as 012_portal.sql does (see there why); creating and dropping
-- an index changes the schema version, so every other connection re-reads the schema.
PRAGMA writable_schema = ON;
UPDATE sqlite_master SET sql = replace(sql, '''arcgis'', ''opendatasoft'')', '''arcgis'', ''opendatasoft'', ''csw'')')
    WHERE type = 'table' AND name = 'harvest_source';
PRAGMA writable_schema = RESET;
CREATE INDEX csw_source_schema_bump ON harvest_source (id);
DROP INDEX csw_source_schema_bump;

-- +goose Down
PRAGMA writable_schema = ON;
UPDATE sqlite_master SET sql = replace(sql, '''arcgis'', ''opendatasoft'', ''csw'')', '''arcgis'', ''opendatasoft'')')
    WHERE type = 'table' AND name = 'harvest_source';
PRAGMA writable_schema = RESET;
CREATE INDEX csw_source_schema_bump ON harvest_source (id);
DROP INDEX csw_source_schema_bump;
