-- +goose Up
-- Portal sources: "dkan" (a DKAN 2 metastore) is a source type, and a dataset can be looked up
-- by identifier across sources (a CKAN package the portal harvested from a data.json that
-- another harvest source harvests too: a cross-source duplicate).
ALTER TABLE harvest_source DROP CONSTRAINT harvest_source_source_type_check;
ALTER TABLE harvest_source ADD CONSTRAINT harvest_source_source_type_check CHECK (source_type IN
    ('document', 'waf', 'waf-collection', 'rdf', 'ckan', 'dkan', 'socrata', 'arcgis', 'opendatasoft'));
CREATE INDEX dataset_identifier ON dataset (identifier);

-- +goose Down
DROP INDEX dataset_identifier;
ALTER TABLE harvest_source DROP CONSTRAINT harvest_source_source_type_check;
ALTER TABLE harvest_source ADD CONSTRAINT harvest_source_source_type_check CHECK (source_type IN
    ('document', 'waf', 'waf-collection', 'rdf', 'ckan', 'socrata', 'arcgis', 'opendatasoft'));
