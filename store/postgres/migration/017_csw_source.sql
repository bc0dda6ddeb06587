-- +goose Up
-- "csw" (an OGC Catalogue Service for the Web) is a source type.
ALTER TABLE harvest_source DROP CONSTRAINT harvest_source_source_type_check;
ALTER TABLE harvest_source ADD CONSTRAINT harvest_source_source_type_check CHECK (source_type IN
    ('document', 'waf', 'waf-collection', 'rdf', 'ckan', 'dkan', 'socrata', 'arcgis', 'opendatasoft', 'csw'));

-- +goose Down
ALTER TABLE harvest_source DROP CONSTRAINT harvest_source_source_type_check;
ALTER TABLE harvest_source ADD CONSTRAINT harvest_source_source_type_check CHECK (source_type IN
    ('document', 'waf', 'waf-collection', 'rdf', 'ckan', 'dkan', 'socrata', 'arcgis', 'opendatasoft'));
