-- +goose Up
-- Kept in step with store/postgres/migration/023_quality_aggregate.sql: the MQA summaries of a
-- source, an organization and the catalog per finished job (store.QualityAggregate), never
-- pruned.
CREATE TABLE quality_aggregate (
    scope        TEXT NOT NULL CHECK (scope IN ('source', 'organization', 'catalog')),
    scope_id     TEXT NOT NULL,
    job_id       TEXT NOT NULL,
    source_id    TEXT NOT NULL,
    computed_at  TEXT NOT NULL,
    datasets     INTEGER NOT NULL,
    mean         REAL NOT NULL,
    rating       TEXT NOT NULL,
    links_urls   INTEGER NOT NULL,
    links_broken INTEGER NOT NULL,
    summary      TEXT NOT NULL,
    PRIMARY KEY (scope, scope_id, job_id)
);
CREATE INDEX quality_aggregate_trend ON quality_aggregate (scope, scope_id, computed_at);

-- The newest link check (store.Store LinkResultNewest): part of the DCAT-AP feed's validators,
-- whose documents carry the scores the checks change.
CREATE INDEX link_result_checked_at ON link_result (checked_at);

-- +goose Down
DROP INDEX link_result_checked_at;
DROP TABLE quality_aggregate;
