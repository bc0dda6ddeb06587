-- +goose Up
-- Kept in step with store/sqlite/migration/023_quality_aggregate.sql. The MQA summary of a
-- source's, an organization's and the whole catalog's live datasets when each job finished
-- (store.QualityAggregate; quality/assess.RecordJob): the quality's history, which the trends
-- read. No foreign key to the job or the source: the retention deletes old jobs (JobPrune) and
-- the history outlives them; no prune deletes from this table.
CREATE TABLE quality_aggregate (
    scope        text NOT NULL CHECK (scope IN ('source', 'organization', 'catalog')),
    scope_id     text NOT NULL,
    job_id       text NOT NULL,
    source_id    text NOT NULL,
    computed_at  timestamptz NOT NULL,
    datasets     integer NOT NULL,
    mean         double precision NOT NULL,
    rating       text NOT NULL,
    links_urls   integer NOT NULL,
    links_broken integer NOT NULL,
    summary      jsonb NOT NULL,
    PRIMARY KEY (scope, scope_id, job_id)
);
CREATE INDEX quality_aggregate_trend ON quality_aggregate (scope, scope_id, computed_at);

-- The newest link check (store.Store LinkResultNewest): part of the DCAT-AP feed's validators,
-- whose documents carry the scores the checks change.
CREATE INDEX link_result_checked_at ON link_result (checked_at);

-- +goose Down
DROP INDEX link_result_checked_at;
DROP TABLE quality_aggregate;
