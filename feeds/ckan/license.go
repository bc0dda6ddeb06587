package ckan

import "strings"

// licenseIDs are ckanext-datajson's license table (parse_datajson_entry): a licence URL,
// without its scheme and trailing slash, to CKAN's license id and title.
var licenseIDs = map[string][2]string{
	"creativecommons.org/licenses/by/4.0":                               {"cc-by", "Creative Commons Attribution"},
	"creativecommons.org/licenses/by-sa/4.0":                            {"cc-by-sa", "Creative Commons Attribution Share-Alike"},
	"creativecommons.org/publicdomain/zero/1.0":                         {"cc-zero", "Creative Commons CCZero"},
	"creativecommons.org/licenses/by-nc/4.0":                            {"cc-nc", "Creative Commons Non-Commercial (Any)"},
	"www.gnu.org/copyleft/fdl.html":                                     {"gfdl", "GNU Free Documentation License"},
	"opendatacommons.org/licenses/by/1-0":                               {"odc-by", "Open Data Commons Attribution License"},
	"opendatacommons.org/licenses/odbl":                                 {"odc-odbl", "Open Data Commons Open Database License (ODbL)"},
	"opendatacommons.org/licenses/pddl":                                 {"odc-pddl", "Open Data Commons Public Domain Dedication and License (PDDL)"},
	"project-open-data.cio.gov/unknown-license/#v1-legacy/other-at":     {"other-at", "Other (Attribution)"},
	"project-open-data.cio.gov/unknown-license/#v1-legacy/other-nc":     {"other-nc", "Other (Non-Commercial)"},
	"project-open-data.cio.gov/unknown-license/#v1-legacy/other-closed": {"other-closed", "Other (Not Open)"},
	"project-open-data.cio.gov/unknown-license/#v1-legacy/other-open":   {"other-open", "Other (Open)"},
	"creativecommons.org/publicdomain/mark/1.0/other-pd":                {"other-pd", "Other (Public Domain)"},
	"www.nationalarchives.gov.uk/doc/open-government-licence/version/3": {"uk-ogl", "UK Open Government Licence (OGL)"},
	"www.usa.gov/publicdomain/label/1.0":                                {"us-pd", "U.S. Public Domain Works"},
}

// openLicenses are the CKAN license ids that CKAN's default licence list marks open (isopen).
var openLicenses = map[string]bool{"cc-by": true, "cc-by-sa": true, "cc-zero": true, "gfdl": true, "odc-by": true,
	"odc-odbl": true, "odc-pddl": true, "other-at": true, "other-open": true, "other-pd": true, "uk-ogl": true, "us-pd": true}

// LicenseID is the CKAN license id and title of a DCAT-US licence URL, as ckanext-datajson
// finds them: "other-license-specified" (title "License not specified") for a URL it does not
// know.
func LicenseID(license string) (id, title string) {
	key := strings.TrimPrefix(strings.TrimPrefix(license, "http://"), "https://")
	key = strings.TrimRight(key, "/")
	if l, ok := licenseIDs[key]; ok {
		return l[0], l[1]
	}
	return "other-license-specified", "License not specified"
}
