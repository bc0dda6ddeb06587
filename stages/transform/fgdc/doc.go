// Package fgdc transforms FGDC CSDGM geospatial metadata records (FGDC-STD-001-1998, root
// element <metadata> without a namespace, with the elements of its Biological Data Profile,
// FGDC-STD-001.1-1999, and its Extensions for Remote Sensing Metadata, FGDC-STD-012-2002)
// into DCAT-US 1.1 dataset objects, natively in Go. It follows the field mapping of ADIwg
// MDTranslator's FGDC reader (readers/fgdc) with its DCAT-US writer, and Data.gov
// Harvesting 1.0's rules for geospatial records (ckanext-geodatagov turned FGDC into ISO
// 19115-2 with an XSLT, then ISO into CKAN), in the shape the ISO mapper (package iso)
// writes: the same placeholders, theme "geospatial", the landing page as a distribution.
//
// The mapping (element paths under metadata/):
//
//	title               idinfo/citation/citeinfo/title (white space made single spaces); required
//	description         idinfo/descript/abstract; else purpose; else a placeholder; wholly
//	                    HTML markup (ArcGIS exports) made text; cut at a word to DCAT-US's
//	                    10,000 characters (dcatus.ShortenDescription)
//	keyword             idinfo/keywords theme/themekey, place/placekey, stratum/stratkey,
//	                    temporal/tempkey; BDP idinfo/taxonomy/keywtax/taxonkey; RSE
//	                    idinfo/plainsid names (mission, platform, instrument); the first
//	                    1,000 (DCAT-US's most, dcatus.ShortenKeywords)
//	modified, issued    citeinfo/pubdate (+pubtime), at its precision; modified falls back to
//	                    metainfo/metd
//	spatial             idinfo/spdom/bounding "westbc,southbc,eastbc,northbc"; else BDP descgeog
//	temporal            idinfo/timeperd/timeinfo sngdate, mdattim (earliest/latest), rngdates;
//	                    a year-only begin before an end with a day widened to January 1st
//	contactPoint        cntinfo of idinfo/ptcontac, metainfo/metc, distinfo/distrib: the first
//	                    with an e-mail address (cntemail; one that holds none, a web page, is
//	                    skipped with a warning: iso.EmailAddress), fn its primary person or
//	                    organization
//	publisher           citeinfo/pubinfo/publish; else a distributor's organization; else
//	                    citeinfo/origin; else the source's organization
//	distribution        distinfo/stdorder/digform: digtopt/onlinopt/computer/networka/networkr
//	                    URLs, digtinfo/formname as format, distinfo/resdesc as title; the other
//	                    citeinfo/onlink URLs
//	landingPage         the first citeinfo/onlink URL (also a text/html distribution)
//	references          onlink of idinfo/crossref, citeinfo/lworkcit, RSE descript/documnts
//	accessLevel, rights idinfo/accconst ("public", "restricted public", "non-public", or
//	                    public with the constraint as rights)
//	license             the first URL in idinfo/useconst
//	accrualPeriodicity  idinfo/status/update
//	identifier          the record's identifier (its file's URL), as for ISO records
//
// bureauCode and programCode are not written: the records are non-federal DCAT-US. Every
// lossy choice and placeholder is a Warning.
package fgdc
