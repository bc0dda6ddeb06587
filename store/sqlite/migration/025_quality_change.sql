-- +goose Up
-- Kept in step with store/postgres/migration/025_quality_change.sql: a mark per change to what
-- a source's quality score reads (store.Store QualityChangeList), written by the triggers below
-- (one a row: SQLite has no statement triggers) and by LinkResultUpsert and LinkResultPrune.
-- A trigger's mark replaces its source's older marks (deletes them, then inserts itself): a
-- mark may be deleted once a newer mark of its source is committed (sqlstore markAllSources
-- says why), and both are committed together, so a source keeps one mark however many rows a
-- harvest writes. AUTOINCREMENT: a mark's id is never used again, so a job's end that read a
-- mark since replaced deletes nothing newer.
CREATE TABLE quality_change (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    source_id TEXT NOT NULL
);
CREATE INDEX quality_change_source ON quality_change (source_id);
INSERT INTO quality_change (source_id) SELECT id FROM harvest_source;

-- +goose StatementBegin
CREATE TRIGGER quality_change_dataset_insert AFTER INSERT ON dataset BEGIN
    DELETE FROM quality_change WHERE source_id = new.harvest_source_id;
    INSERT INTO quality_change (source_id) VALUES (new.harvest_source_id);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER quality_change_dataset_delete AFTER DELETE ON dataset BEGIN
    DELETE FROM quality_change WHERE source_id = old.harvest_source_id;
    INSERT INTO quality_change (source_id) VALUES (old.harvest_source_id);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER quality_change_dataset_update AFTER UPDATE ON dataset
    WHEN old.harvest_record_id IS NOT new.harvest_record_id OR old.identifier IS NOT new.identifier
        OR old.harvest_source_id IS NOT new.harvest_source_id
        OR (old.duplicate_of IS NULL) <> (new.duplicate_of IS NULL) OR old.dcat IS NOT new.dcat
BEGIN
    DELETE FROM quality_change WHERE source_id = new.harvest_source_id;
    -- two statements: the same as one with IN (new, old) costs half as much again a row
    DELETE FROM quality_change WHERE source_id = old.harvest_source_id AND old.harvest_source_id <> new.harvest_source_id;
    INSERT INTO quality_change (source_id) VALUES (new.harvest_source_id);
    INSERT INTO quality_change (source_id) SELECT old.harvest_source_id WHERE old.harvest_source_id <> new.harvest_source_id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER quality_change_record_update AFTER UPDATE OF source_raw, schema_type ON harvest_record
    WHEN old.source_raw IS NOT new.source_raw OR old.schema_type IS NOT new.schema_type
BEGIN
    DELETE FROM quality_change WHERE source_id = new.harvest_source_id;
    INSERT INTO quality_change (source_id) VALUES (new.harvest_source_id);
END;
-- +goose StatementEnd
-- A carried copy is left unmarked when a row of the same type its record was found with exists
-- (the Postgres migration says why).
-- +goose StatementBegin
CREATE TRIGGER quality_change_record_error_insert AFTER INSERT ON harvest_record_error
    WHEN new.harvest_record_id IS NOT NULL AND NOT (new.carried_from_job_id IS NOT NULL
        AND EXISTS (SELECT 1 FROM harvest_record_error e WHERE e.harvest_record_id = new.harvest_record_id
            AND e.type = new.type AND e.carried_from_job_id IS NULL))
BEGIN
    DELETE FROM quality_change WHERE source_id IN (SELECT harvest_source_id FROM harvest_record WHERE id = new.harvest_record_id);
    INSERT INTO quality_change (source_id) SELECT harvest_source_id FROM harvest_record WHERE id = new.harvest_record_id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER quality_change_record_error_delete AFTER DELETE ON harvest_record_error
    WHEN old.harvest_record_id IS NOT NULL
BEGIN
    DELETE FROM quality_change WHERE source_id IN (SELECT harvest_source_id FROM harvest_record WHERE id = old.harvest_record_id);
    INSERT INTO quality_change (source_id) SELECT harvest_source_id FROM harvest_record WHERE id = old.harvest_record_id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER quality_change_record_error_update AFTER UPDATE ON harvest_record_error
    WHEN old.harvest_record_id IS NOT new.harvest_record_id OR old.type IS NOT new.type
BEGIN
    DELETE FROM quality_change WHERE source_id IN (SELECT harvest_source_id FROM harvest_record
        WHERE id IN (old.harvest_record_id, new.harvest_record_id));
    INSERT INTO quality_change (source_id) SELECT DISTINCT harvest_source_id FROM harvest_record
        WHERE id IN (old.harvest_record_id, new.harvest_record_id);
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER quality_change_record_error_update;
DROP TRIGGER quality_change_record_error_delete;
DROP TRIGGER quality_change_record_error_insert;
DROP TRIGGER quality_change_record_update;
DROP TRIGGER quality_change_dataset_update;
DROP TRIGGER quality_change_dataset_delete;
DROP TRIGGER quality_change_dataset_insert;
DROP TABLE quality_change;
