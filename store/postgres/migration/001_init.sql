-- +goose Up
CREATE TABLE organization (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name        text NOT NULL,
    slug        text NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE harvest_source (
    id                     uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id        uuid REFERENCES organization (id) ON DELETE CASCADE,
    name                   text NOT NULL,
    url                    text NOT NULL UNIQUE,
    source_type            text NOT NULL CHECK (source_type IN ('document', 'waf', 'waf-collection', 'rdf', 'ckan', 'socrata', 'arcgis', 'opendatasoft')),
    schema_type            text NOT NULL,
    frequency              text NOT NULL DEFAULT 'manual' CHECK (frequency IN ('manual', 'daily', 'weekly', 'biweekly', 'monthly')),
    notification_emails    text[] NOT NULL DEFAULT '{}',
    notification_frequency text NOT NULL DEFAULT 'on_error' CHECK (notification_frequency IN ('on_error', 'always', 'on_error_or_update')),
    created_at             timestamptz NOT NULL DEFAULT now(),
    updated_at             timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE harvest_job (
    id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    harvest_source_id uuid NOT NULL REFERENCES harvest_source (id) ON DELETE CASCADE,
    job_type          text NOT NULL CHECK (job_type IN ('harvest', 'force_harvest', 'validate', 'clear')),
    status            text NOT NULL CHECK (status IN ('new', 'in_progress', 'complete', 'error')),
    date_created      timestamptz NOT NULL DEFAULT now(),
    date_finished     timestamptz,
    heartbeat_at      timestamptz,
    records_total     integer NOT NULL DEFAULT 0,
    records_added     integer NOT NULL DEFAULT 0,
    records_updated   integer NOT NULL DEFAULT 0,
    records_deleted   integer NOT NULL DEFAULT 0,
    records_unchanged integer NOT NULL DEFAULT 0,
    records_errored   integer NOT NULL DEFAULT 0,
    records_validated integer NOT NULL DEFAULT 0,
    records_warned    integer NOT NULL DEFAULT 0,
    records_settled   integer NOT NULL DEFAULT 0,
    records_expected  integer
);
-- Rule: one job in progress per source, enforced by the database.
CREATE UNIQUE INDEX harvest_job_one_in_progress ON harvest_job (harvest_source_id) WHERE status = 'in_progress';
CREATE INDEX harvest_job_source ON harvest_job (harvest_source_id, date_created DESC);

CREATE TABLE harvest_record (
    id                uuid PRIMARY KEY,
    harvest_job_id    uuid NOT NULL REFERENCES harvest_job (id) ON DELETE CASCADE,
    harvest_source_id uuid NOT NULL REFERENCES harvest_source (id) ON DELETE CASCADE,
    identifier        text NOT NULL,
    action            text NOT NULL CHECK (action IN ('create', 'update', 'delete')),
    source_hash       text,
    source_raw        text,
    source_transform  jsonb,
    status            text NOT NULL CHECK (status IN ('pending', 'success', 'error_validation', 'error_transform', 'error')),
    date_created      timestamptz NOT NULL DEFAULT clock_timestamp(),
    date_finished     timestamptz,
    UNIQUE (harvest_job_id, identifier)
);
-- The current state of a record key: newest row first.
CREATE INDEX harvest_record_current ON harvest_record (harvest_source_id, identifier, date_created DESC);

CREATE TABLE harvest_record_error (
    id                bigserial PRIMARY KEY,
    harvest_job_id    uuid NOT NULL REFERENCES harvest_job (id) ON DELETE CASCADE,
    harvest_record_id uuid REFERENCES harvest_record (id) ON DELETE SET NULL,
    identifier        text NOT NULL DEFAULT '',
    type              text NOT NULL,
    message           text NOT NULL,
    severity          text NOT NULL CHECK (severity IN ('error', 'warning')),
    date_created      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX harvest_record_error_job ON harvest_record_error (harvest_job_id);

CREATE TABLE harvest_job_error (
    id             bigserial PRIMARY KEY,
    harvest_job_id uuid NOT NULL REFERENCES harvest_job (id) ON DELETE CASCADE,
    type           text NOT NULL,
    message        text NOT NULL,
    date_created   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX harvest_job_error_job ON harvest_job_error (harvest_job_id);

-- The identifiers a job's listing contained: stored minus seen are the deletes.
CREATE TABLE harvest_job_identifier (
    harvest_job_id uuid NOT NULL REFERENCES harvest_job (id) ON DELETE CASCADE,
    identifier     text NOT NULL,
    PRIMARY KEY (harvest_job_id, identifier)
);

-- The aggregator's ledger: one row per settled record key, so redelivery never counts twice.
CREATE TABLE harvest_job_outcome (
    harvest_job_id uuid NOT NULL REFERENCES harvest_job (id) ON DELETE CASCADE,
    key            text NOT NULL,
    outcome        text NOT NULL CHECK (outcome IN ('added', 'updated', 'deleted', 'unchanged', 'errored')),
    PRIMARY KEY (harvest_job_id, key)
);

CREATE TABLE dataset (
    id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    slug                text NOT NULL UNIQUE,
    identifier          text NOT NULL,
    dcat                jsonb NOT NULL,
    organization_id     uuid REFERENCES organization (id),
    harvest_source_id   uuid NOT NULL REFERENCES harvest_source (id),
    harvest_record_id   uuid NOT NULL UNIQUE REFERENCES harvest_record (id),
    last_harvested_date timestamptz NOT NULL,
    UNIQUE (harvest_source_id, identifier)
);

-- +goose Down
DROP TABLE dataset, harvest_job_outcome, harvest_job_identifier, harvest_job_error,
    harvest_record_error, harvest_record, harvest_job, harvest_source, organization;
