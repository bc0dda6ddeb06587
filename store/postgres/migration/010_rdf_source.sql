-- +goose Up
-- Per-source fetch settings (issue 15, FDK's acceptHeaderValue and authHeader): the Accept header
-- sent for the source's documents, a secret header sent to the source's own host only, and the
-- source type's own settings (a JSON object of string to string, e.g. shacl_profile, languages).
ALTER TABLE harvest_source ADD COLUMN accept text;
ALTER TABLE harvest_source ADD COLUMN auth_header_name text;
ALTER TABLE harvest_source ADD COLUMN auth_header_value text;
ALTER TABLE harvest_source ADD COLUMN options jsonb;

-- fdkId of a resource IRI (or a DCAT-US identifier): minted once (FDK's name-based UUID of the
-- IRI) and kept, whatever source lists it later; global, as FDK's.
CREATE TABLE resource_identity (
    uri        text PRIMARY KEY,
    fdk_id     text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- The catalogs (dcat:Catalog) an rdf source's last harvests saw, with the checksum of each
-- catalog's graph; changed_job_id is the last job that found it new or changed (the report's
-- changedCatalogs).
CREATE TABLE rdf_catalog (
    source_id      uuid NOT NULL REFERENCES harvest_source (id) ON DELETE CASCADE,
    uri            text NOT NULL,
    fdk_id         text NOT NULL,
    checksum       text NOT NULL,
    changed_job_id uuid,
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (source_id, uri)
);
CREATE INDEX rdf_catalog_changed_job ON rdf_catalog (changed_job_id) WHERE changed_job_id IS NOT NULL;

-- The hash of the whole parsed graph a job fetched (an rdf source's "not modified" check, FDK's
-- first layer), next to the fetch's cache validators.
ALTER TABLE harvest_job ADD COLUMN fetch_graph_hash text;

-- +goose Down
ALTER TABLE harvest_job DROP COLUMN fetch_graph_hash;
DROP TABLE rdf_catalog;
DROP TABLE resource_identity;
ALTER TABLE harvest_source DROP COLUMN options;
ALTER TABLE harvest_source DROP COLUMN auth_header_value;
ALTER TABLE harvest_source DROP COLUMN auth_header_name;
ALTER TABLE harvest_source DROP COLUMN accept;
