package portal

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/dcatus"
)

// mapping collects one item's DCAT-US dataset (Socrata, ArcGIS, OpenDataSoft) and the
// warnings made on the way; publisher, contact and spatial are set by finish.
type mapping struct {
	ds                   *dcatus.Dataset
	publisher, fn, email string
	spatial              string
	warnings             []Warning
}

func newMapping(identifier string) *mapping {
	return &mapping{ds: dcatus.NewDataset(identifier)}
}

func (m *mapping) warn(field, format string, args ...any) {
	m.warnings = append(m.warnings, Warning{Field: field, Message: fmt.Sprintf(format, args...)})
}

// finish completes the dataset and encodes it (keys in a stable order). As for every portal
// item, a required field the item does not have is left out (no placeholder), so VALIDATE
// names it; publisherName, the harvest source's organization, names the publisher of an item
// that names none, with a warning.
func (m *mapping) finish(publisherName string) ([]byte, []Warning, error) {
	ds := m.ds
	if r := []rune(ds.Description); len(r) > 10000 {
		ds.Description = string(r[:10000])
		m.warn("description", "description cut to 10000 characters (DCAT-US's maximum)")
	}
	if m.publisher == "" && publisherName != "" {
		m.publisher = publisherName
		m.warn("publisher", "the item names no publisher: the source's organization names it")
	}
	if m.publisher != "" {
		ds.Publisher = dcatus.NewOrganization(m.publisher)
	}
	if m.fn != "" || m.email != "" {
		ds.ContactPoint = dcatus.NewContactPoint(m.fn, m.email)
	}
	if ds.Modified == "" && ds.Issued != "" {
		ds.Modified = ds.Issued
		m.warn("modified", "the item has no modification date: its creation date is used")
	}
	if r := []rune(ds.Rights); len(r) > 255 {
		ds.Rights = string(r[:255])
		m.warn("rights", "rights cut to 255 characters (DCAT-US's maximum)")
	}
	ds.Spatial = m.spatial
	out, err := ds.Encode()
	if err != nil {
		return nil, nil, fmt.Errorf("encode DCAT-US: %w", err)
	}
	return out, m.warnings, nil
}

// setEmail sets the contact e-mail as a mailto: URI, or warns when s is not an address.
func (m *mapping) setEmail(s string) {
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "mailto:"))
	if s == "" {
		return
	}
	if at := strings.IndexByte(s, '@'); at <= 0 || at == len(s)-1 || strings.ContainsAny(s, " \t<>") {
		m.warn("contactPoint", "contact e-mail %q is not an e-mail address; dropped", s)
		return
	}
	m.email = "mailto:" + s
}

// addDistribution appends a distribution whose URLs are absolute http(s) URLs (a URL that is
// not is dropped with a warning). A downloadURL without a media type becomes the accessURL, as
// DCAT-US requires mediaType with downloadURL.
func (m *mapping) addDistribution(d dcatus.Distribution) {
	for _, u := range []*string{&d.AccessURL, &d.DownloadURL} {
		if *u != "" && !isWebURL(*u) {
			m.warn("distribution", "URL %q is not an absolute http(s) URL; dropped", *u)
			*u = ""
		}
	}
	if d.DownloadURL != "" && d.MediaType == "" {
		if d.AccessURL == "" {
			d.AccessURL = d.DownloadURL
		}
		d.DownloadURL = ""
	}
	if d.AccessURL == "" && d.DownloadURL == "" {
		return
	}
	d.Type = dcatus.TypeDistribution
	m.ds.Distribution = append(m.ds.Distribution, d)
}

// setLicense sets the license from a URL, or from a license name or id known to licenseURLs;
// anything else is kept as rights text, with a warning (DCAT-US license is a URI).
func (m *mapping) setLicense(s string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return
	}
	if isWebURL(s) {
		m.ds.License = s
		return
	}
	if u, ok := licenseNames[normLicense(s)]; ok {
		m.ds.License = u
		return
	}
	if m.ds.Rights == "" {
		m.ds.Rights = s
	}
	m.warn("license", "license %q is neither a URL nor a known license name; kept as rights", s)
}

func normLicense(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(strings.NewReplacer("-", " ", "_", " ", "(", " ", ")", " ").Replace(s))), " ")
}

// licenseNames maps license names and ids as Socrata, ArcGIS and OpenDataSoft write them
// (normLicense form) to their URLs.
var licenseNames = map[string]string{
	"public domain":                  "https://creativecommons.org/publicdomain/mark/1.0/",
	"pddl":                           "https://opendatacommons.org/licenses/pddl/1-0/",
	"cc0":                            "https://creativecommons.org/publicdomain/zero/1.0/",
	"cc0 10":                         "https://creativecommons.org/publicdomain/zero/1.0/",
	"cc0 1.0":                        "https://creativecommons.org/publicdomain/zero/1.0/",
	"creative commons 1.0 universal": "https://creativecommons.org/publicdomain/zero/1.0/",
	"cc by":                          "https://creativecommons.org/licenses/by/4.0/",
	"cc by 4.0":                      "https://creativecommons.org/licenses/by/4.0/",
	"cc by 3.0":                      "https://creativecommons.org/licenses/by/3.0/",
	"cc by sa":                       "https://creativecommons.org/licenses/by-sa/4.0/",
	"cc by sa 4.0":                   "https://creativecommons.org/licenses/by-sa/4.0/",
	"cc by sa 3.0":                   "https://creativecommons.org/licenses/by-sa/3.0/",
	"cc 30 by":                       "https://creativecommons.org/licenses/by/3.0/",
	"cc 30 by sa":                    "https://creativecommons.org/licenses/by-sa/3.0/",
	"cc 30 by nd":                    "https://creativecommons.org/licenses/by-nd/3.0/",
	"cc 30 by nc":                    "https://creativecommons.org/licenses/by-nc/3.0/",
	"open database license":          "https://opendatacommons.org/licenses/odbl/1-0/",
	"cc by nc":                       "https://creativecommons.org/licenses/by-nc/4.0/",
	"creative commons attribution 3.0 unported":                  "https://creativecommons.org/licenses/by/3.0/",
	"creative commons attribution 4.0 international":             "https://creativecommons.org/licenses/by/4.0/",
	"creative commons attribution share alike 4.0 international": "https://creativecommons.org/licenses/by-sa/4.0/",
	"odbl":                       "https://opendatacommons.org/licenses/odbl/1-0/",
	"open database license odbl": "https://opendatacommons.org/licenses/odbl/1-0/",
	"open data commons open database license odbl": "https://opendatacommons.org/licenses/odbl/1-0/",
	"odc by":                         "https://opendatacommons.org/licenses/by/1-0/",
	"licence ouverte":                "https://www.etalab.gouv.fr/licence-ouverte-open-licence/",
	"licence ouverte etalab":         "https://www.etalab.gouv.fr/licence-ouverte-open-licence/",
	"licence ouverte / open licence": "https://www.etalab.gouv.fr/licence-ouverte-open-licence/",
	"licence ouverte v2.0 etalab":    "https://www.etalab.gouv.fr/licence-ouverte-open-licence/",
	"open government licence v3.0":   "https://www.nationalarchives.gov.uk/doc/open-government-licence/version/3/",
}

// frequencies maps update frequencies as portals write them (lower case) to ISO 8601 repeating
// durations (DCAT-US accrualPeriodicity, Project Open Data's list).
var frequencies = map[string]string{
	"decennial": "R/P10Y", "quadrennial": "R/P4Y", "annual": "R/P1Y", "annually": "R/P1Y", "yearly": "R/P1Y",
	"bimonthly": "R/P2M", "semiweekly": "R/P3.5D", "daily": "R/P1D", "biweekly": "R/P2W",
	"semiannual": "R/P6M", "semiannually": "R/P6M", "biennial": "R/P2Y", "triennial": "R/P3Y",
	"three times a week": "R/P0.33W", "three times a month": "R/P0.33M", "continuous": "R/PT1S",
	"continuously updated": "R/PT1S", "real-time": "R/PT1S", "realtime": "R/PT1S", "monthly": "R/P1M",
	"quarterly": "R/P3M", "semimonthly": "R/P0.5M", "three times a year": "R/P4M", "weekly": "R/P1W",
	"hourly": "R/PT1H", "twice weekly": "R/P3.5D", "twice a week": "R/P3.5D", "irregular": "irregular",
	"as needed": "irregular", "as-needed": "irregular",
}

// setFrequency sets accrualPeriodicity from an ISO 8601 repeating duration or a frequency word;
// anything else is dropped with a warning.
func (m *mapping) setFrequency(s string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return
	}
	if strings.HasPrefix(s, "R/P") {
		m.ds.AccrualPeriodicity = s
		return
	}
	if p, ok := frequencies[strings.ToLower(s)]; ok {
		m.ds.AccrualPeriodicity = p
		return
	}
	m.warn("accrualPeriodicity", "update frequency %q is not one DCAT-US names; dropped", s)
}

// setTemporal sets temporal from a start and an end date (either may be empty: an open
// interval is written with the other end repeated, as DCAT-US needs both), each an ISO 8601
// date or date-time; anything else is dropped with a warning.
func (m *mapping) setTemporal(start, end string) {
	start, end = strings.TrimSpace(start), strings.TrimSpace(end)
	if start == "" && end == "" {
		return
	}
	s, okS := isoDate(start)
	e, okE := isoDate(end)
	switch {
	case okS && okE:
		m.ds.Temporal = s + "/" + e
	case okS && end == "":
		m.ds.Temporal = s + "/" + s
	case okE && start == "":
		m.ds.Temporal = e + "/" + e
	default:
		m.warn("temporal", "temporal coverage %q/%q is not a pair of ISO 8601 dates; dropped", start, end)
	}
}

// isoDate returns s as an ISO 8601 date or date-time (RFC 3339 when it has a time), and whether
// it is one. Date-only values stay date-only.
func isoDate(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.Format(time.RFC3339), true
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05", "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, s); err == nil { // no zone: kept local to the publisher
			return t.Format("2006-01-02T15:04:05"), true
		}
	}
	if _, err := time.Parse("2006-01-02", s); err == nil {
		return s, true
	}
	return "", false
}

// epochDate turns epoch seconds (or milliseconds when ms) into an RFC 3339 UTC date-time; 0 or
// less is no date.
func epochDate(n int64, ms bool) string {
	if n <= 0 {
		return ""
	}
	if ms {
		return time.UnixMilli(n).UTC().Format(time.RFC3339)
	}
	return time.Unix(n, 0).UTC().Format(time.RFC3339)
}

// bboxString writes a bounding box as DCAT-US allows for spatial: "minx,miny,maxx,maxy" (west, south,
// east, north), or "" when it is not four finite numbers in order.
func bboxString(minx, miny, maxx, maxy float64) string {
	if minx > maxx || miny > maxy {
		return ""
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	return f(minx) + "," + f(miny) + "," + f(maxx) + "," + f(maxy)
}

// appendUnique appends the non-empty trimmed strings of vs that s does not hold yet.
func appendUnique(s []string, vs ...string) []string {
	for _, v := range vs {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		dup := false
		for _, have := range s {
			if have == v {
				dup = true
				break
			}
		}
		if !dup {
			s = append(s, v)
		}
	}
	return s
}

// isWebURL reports whether s is an absolute http or https URL with a host.
func isWebURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && !strings.ContainsAny(s, " \t\n")
}

// stringOrList decodes a JSON value that portals write as a string or as a list of strings
// (OpenDataSoft keyword and theme, NOTES §16); null and anything else are no strings.
type stringOrList []string

func (s *stringOrList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*s = stringOrList{one}
		return nil
	}
	var many []any
	if err := json.Unmarshal(b, &many); err == nil {
		for _, v := range many {
			if str, ok := v.(string); ok {
				*s = append(*s, str)
			}
		}
		return nil
	}
	*s = nil
	return nil
}

// lenientString decodes a JSON string, and takes a number or boolean as its JSON text and null
// or anything else as "", so one odd value does not fail a whole item.
type lenientString string

func (s *lenientString) UnmarshalJSON(b []byte) error {
	var str string
	if err := json.Unmarshal(b, &str); err == nil {
		*s = lenientString(str)
		return nil
	}
	t := strings.TrimSpace(string(b))
	if t == "null" || strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		*s = ""
		return nil
	}
	*s = lenientString(t)
	return nil
}

// lenientInt decodes a JSON number, or a string holding one; anything else is 0.
type lenientInt int64

func (n *lenientInt) UnmarshalJSON(b []byte) error {
	t := strings.Trim(strings.TrimSpace(string(b)), `"`)
	if f, err := strconv.ParseFloat(t, 64); err == nil {
		*n = lenientInt(f)
	} else {
		*n = 0
	}
	return nil
}

// decodeItem decodes one portal item into v, naming the platform in the error.
func decodeItem(platform string, item []byte, v any) error {
	if err := json.Unmarshal(item, v); err != nil {
		return fmt.Errorf("%w: %s item: %v", ErrNotItem, platform, err)
	}
	return nil
}
