-- +goose Up
-- Kept in step with store/sqlite/migration/021_link_result.sql. The latest check of each
-- distribution URL (stages/check: check.Stored), one row per URL however many datasets share it.
-- Rows of URLs that no live dataset uses any more are dropped (store.Store LinkResultPrune).
CREATE TABLE link_result (
    url                  text PRIMARY KEY,
    status               integer NOT NULL,
    error_class          text NOT NULL,
    error                text NOT NULL,
    final_url            text NOT NULL,
    content_type         text NOT NULL,
    content_length       bigint NOT NULL,
    redirects            integer NOT NULL,
    ok                   boolean NOT NULL,
    checked_at           timestamptz NOT NULL,
    last_ok_at           timestamptz,
    consecutive_failures integer NOT NULL
);

-- +goose Down
DROP TABLE link_result;
