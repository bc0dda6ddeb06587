// Package dublincore transforms CSW Dublin Core records (csw:Record, csw:SummaryRecord and
// csw:BriefRecord of OGC CSW 2.0.2 and 3.0: what a catalogue's GetRecords returns with
// outputSchema http://www.opengis.net/cat/csw/2.0.2, e.g. when it offers no ISO 19139) into
// DCAT-US 1.1 dataset objects, with the ISO mapper's placeholders and warnings for missing
// required fields. TRANSFORM picks it by the record's root element ([IsRecord]).
//
// Mapping (DCAT-US 1.1 field: Dublin Core source; dc = http://purl.org/dc/elements/1.1/,
// dct = http://purl.org/dc/terms/, ows = OWS 1.x or 2.0):
//
//	title          first dc:title (none: left out, VALIDATE names it; several: first, warning)
//	description    dct:abstract, else dc:description, else iso.PlaceholderDescription; cut at
//	               a word to DCAT-US's 10,000 characters
//	keyword        every dc:subject, trimmed, repeats dropped, order kept, the first 1,000
//	               (DCAT-US's most, with a warning); none: "__"
//	modified       dct:modified, else dc:date (W3C-DTF), else the time of transformation
//	issued         dct:issued
//	publisher      dc:publisher, else the source's organization, else "Not provided"
//	contactPoint   fn: dc:creator, else dc:publisher, else dc:contributor; hasEmail: the first
//	               e-mail address in them; Data.gov's placeholders for what is missing
//	identifier     the harvest identifier (the record's dc:identifier)
//	accessLevel    dct:accessRights/dc:rights saying non-public or "not public": non-public;
//	               "restricted": restricted public; else public
//	rights         dct:accessRights and dc:rights texts joined by "; ", cut to 255 characters
//	license        dct:license URL, else a dc:rights that is a URL alone
//	spatial        ows:WGS84BoundingBox, else ows:BoundingBox (EPSG:4326 URN/URI: latitude
//	               first; CRS84 or none: longitude first) as "W,S,E,N"; else dct:spatial or
//	               dc:coverage text (a place name)
//	temporal       dct:temporal "start/end" or DCMI Period "start=…; end=…"
//	distribution   dct:references: downloadURL when a file (by extension, or a download scheme
//	               with a single media-type dc:format), else accessURL; @scheme is the protocol
//	landingPage    the first web-link dct:references (scheme WWW:LINK… or none) that is a page,
//	               also kept as the last distribution; else an http(s) dc:identifier
//	references     dc:relation and dct:relation URLs
//	language       dc:language as RFC 5646 ("en", "en-US"; "eng" → "en")
//	theme          "geospatial" (as the ISO mapping gives every CSW or WAF record)
//
// dc:type (dataset, service, image…) is not mapped: DCAT-US 1.1 has one resource type; dc:source
// and other elements are not read.
package dublincore
