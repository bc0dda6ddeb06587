package dublincore

import (
	"strings"
	"time"

	"github.com/harvester-dev/harvester/stages/transform/iso"
)

// The layouts of the dates written: modified and issued as the ISO mapper writes them, so a
// record harvested as csw:Record or as gmd:MD_Metadata has the same modified.
const (
	dateLayout     = "2006-01-02T15:04:05.000-07:00"
	temporalLayout = "2006-01-02T15:04:05-07:00"
)

// dateLayouts are W3C-DTF's forms (the profile of ISO 8601 Dublin Core dates use: YYYY,
// YYYY-MM, YYYY-MM-DD, with a time and zone) and the zone-less date-times servers write.
var dateLayouts = []string{
	time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04Z07:00", "2006-01-02T15:04",
	"2006-01-02", "2006-01", "2006", "2006-01-02 15:04:05", "2006-01-02Z07:00",
}

// parseDate reads a W3C-DTF date; a time without a zone is UTC.
func parseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 64 {
		return time.Time{}, false
	}
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			if t.Year() < 1 || t.Year() > 9999 {
				return time.Time{}, false
			}
			return t, true
		}
	}
	return time.Time{}, false
}

// languageTag returns an RFC 5646 tag for a dc:language value: a tag of a 2-letter primary
// language and an optional 2-letter region ("en", "en-US", "EN_us"), normalised; an ISO 639-2
// code or English name of a common language ("eng", "English"); "" for anything else.
func languageTag(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "_", "-")
	lang, region, _ := strings.Cut(s, "-")
	lang = strings.ToLower(lang)
	if l, ok := iso.LanguageCode(lang); ok {
		lang = l
	}
	if len(lang) != 2 || !iso.IsLetters(lang) {
		return ""
	}
	if region == "" {
		return lang
	}
	if len(region) == 2 && iso.IsLetters(region) {
		return lang + "-" + strings.ToUpper(region)
	}
	return ""
}
