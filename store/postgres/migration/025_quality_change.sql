-- +goose Up
-- Kept in step with store/sqlite/migration/025_quality_change.sql. A mark per change to what a
-- source's quality score reads (quality/assess.SourceQuality): its live datasets' set and
-- records, their records' graphs and validation rows, and the stored link checks. The triggers
-- below write the marks in the statement that changes those inputs; LinkResultUpsert and
-- LinkResultPrune mark every source (a URL may be any source's). quality/assess.RecordJob reads
-- a source's marks before it scores the source and deletes those it read once the job's
-- aggregate is stored: a source without marks has the inputs its newest aggregate was scored
-- from, and that aggregate's summary is its score (store.Store QualityChangeList).
CREATE TABLE quality_change (
    id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source_id uuid NOT NULL
);
CREATE INDEX quality_change_source ON quality_change (source_id);
-- Every source has an aggregate scored before the marks existed: score each again.
INSERT INTO quality_change (source_id) SELECT id FROM harvest_source;

-- A dataset inserted or deleted: one mark per source a statement touches.
-- +goose StatementBegin
CREATE FUNCTION quality_change_dataset_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO quality_change (source_id) SELECT DISTINCT harvest_source_id FROM quality_change_new;
    ELSE
        INSERT INTO quality_change (source_id) SELECT DISTINCT harvest_source_id FROM quality_change_old;
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER quality_change_dataset_insert AFTER INSERT ON dataset REFERENCING NEW TABLE AS quality_change_new
    FOR EACH STATEMENT EXECUTE FUNCTION quality_change_dataset_rows();
CREATE TRIGGER quality_change_dataset_delete AFTER DELETE ON dataset REFERENCING OLD TABLE AS quality_change_old
    FOR EACH STATEMENT EXECUTE FUNCTION quality_change_dataset_rows();

-- A dataset updated in what the score reads (its record, identifier, source, or whether it is
-- live): a mark for its source, and for the one it left; one INSERT a statement (an upsert's
-- DO UPDATE fires it too), its rows paired by id (an UPDATE never changes a dataset's id).
-- +goose StatementBegin
CREATE FUNCTION quality_change_dataset_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO quality_change (source_id)
    SELECT DISTINCT s.source_id FROM quality_change_old o JOIN quality_change_new n ON n.id = o.id
        CROSS JOIN LATERAL (VALUES (n.harvest_source_id), (o.harvest_source_id)) s (source_id)
    WHERE o.harvest_record_id IS DISTINCT FROM n.harvest_record_id OR o.identifier IS DISTINCT FROM n.identifier
        OR o.harvest_source_id IS DISTINCT FROM n.harvest_source_id
        OR (o.duplicate_of IS NULL) <> (n.duplicate_of IS NULL) OR o.dcat IS DISTINCT FROM n.dcat;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER quality_change_dataset_update AFTER UPDATE ON dataset
    REFERENCING OLD TABLE AS quality_change_old NEW TABLE AS quality_change_new
    FOR EACH STATEMENT EXECUTE FUNCTION quality_change_dataset_update();

-- A record's graph or schema changed (no statement does today).
-- +goose StatementBegin
CREATE FUNCTION quality_change_record_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO quality_change (source_id) VALUES (NEW.harvest_source_id);
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER quality_change_record_update AFTER UPDATE OF source_raw, schema_type ON harvest_record FOR EACH ROW
    WHEN (OLD.source_raw IS DISTINCT FROM NEW.source_raw OR OLD.schema_type IS DISTINCT FROM NEW.schema_type)
    EXECUTE FUNCTION quality_change_record_update();

-- A record's validation rows changed: a mark for the record's source. A carried copy (a later
-- job's copy of a row, store.Store's carried errors) is left unmarked when a row its record was
-- found with (not a copy) of the same type exists: the record had a row of that type before,
-- so whether it has findings did not change (that row's delete marks it). Inserts and deletes
-- mark once a statement (transition tables); an update (no statement does today) once a row.
-- +goose StatementBegin
CREATE FUNCTION quality_change_record_error_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Each record's source by its primary key (a subquery a record: a transition table has no
    -- statistics, and a join to harvest_record was planned as a scan of the whole table).
    IF TG_OP = 'INSERT' THEN
        INSERT INTO quality_change (source_id)
        SELECT DISTINCT s.source_id FROM (SELECT DISTINCT n.harvest_record_id FROM quality_change_new n
            WHERE n.harvest_record_id IS NOT NULL AND NOT (n.carried_from_job_id IS NOT NULL
                AND EXISTS (SELECT 1 FROM harvest_record_error e WHERE e.harvest_record_id = n.harvest_record_id
                    AND e.type = n.type AND e.carried_from_job_id IS NULL))) n
        CROSS JOIN LATERAL (SELECT r.harvest_source_id FROM harvest_record r WHERE r.id = n.harvest_record_id) s (source_id);
    ELSE
        INSERT INTO quality_change (source_id)
        SELECT DISTINCT s.source_id FROM (SELECT DISTINCT o.harvest_record_id FROM quality_change_old o
            WHERE o.harvest_record_id IS NOT NULL) o
        CROSS JOIN LATERAL (SELECT r.harvest_source_id FROM harvest_record r WHERE r.id = o.harvest_record_id) s (source_id);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER quality_change_record_error_insert AFTER INSERT ON harvest_record_error
    REFERENCING NEW TABLE AS quality_change_new FOR EACH STATEMENT EXECUTE FUNCTION quality_change_record_error_rows();
CREATE TRIGGER quality_change_record_error_delete AFTER DELETE ON harvest_record_error
    REFERENCING OLD TABLE AS quality_change_old FOR EACH STATEMENT EXECUTE FUNCTION quality_change_record_error_rows();
-- +goose StatementBegin
CREATE FUNCTION quality_change_record_error() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO quality_change (source_id)
    SELECT harvest_source_id FROM harvest_record WHERE id IN (OLD.harvest_record_id, NEW.harvest_record_id);
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER quality_change_record_error_update AFTER UPDATE ON harvest_record_error FOR EACH ROW
    WHEN (OLD.harvest_record_id IS DISTINCT FROM NEW.harvest_record_id OR OLD.type IS DISTINCT FROM NEW.type)
    EXECUTE FUNCTION quality_change_record_error();

-- +goose Down
DROP TRIGGER quality_change_record_error_update ON harvest_record_error;
DROP TRIGGER quality_change_record_error_delete ON harvest_record_error;
DROP TRIGGER quality_change_record_error_insert ON harvest_record_error;
DROP FUNCTION quality_change_record_error();
DROP FUNCTION quality_change_record_error_rows();
DROP TRIGGER quality_change_record_update ON harvest_record;
DROP FUNCTION quality_change_record_update();
DROP TRIGGER quality_change_dataset_update ON dataset;
DROP FUNCTION quality_change_dataset_update();
DROP TRIGGER quality_change_dataset_delete ON dataset;
DROP TRIGGER quality_change_dataset_insert ON dataset;
DROP FUNCTION quality_change_dataset_rows();
DROP TABLE quality_change;
