// Package portal maps the items that portal APIs serve (CKAN, DKAN, Socrata, ArcGIS,
// OpenDataSoft) to DCAT-US 1.1 dataset objects, one file per platform. Each mapping is pure:
// item bytes and the record's identifier in, DCAT-US JSON and warnings out. Missing required
// fields get Data.gov's placeholders (as the ISO transform does), each with a Warning; an item
// that is not its platform's JSON is an error wrapping ErrMalformedItem. The README's "Portal
// sources" section lists every mapping field by field.
package portal
