package dcatus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Warnings3 returns the content-quality warnings of one DCAT-US 3.0 record, after Data.gov
// H2.0's detect_dcat_warnings: problems that the JSON Schema lets through and that never fail
// a record. It walks every object of the record (datasets, distributions, contact points,
// addresses, periods of time, restrictions…) and notes, at the JSON path of the value:
//
//   - a keyword repeated in one keyword array (compared ignoring case and surrounding space);
//   - dates out of order: issued after modified, created after issued or modified, startDate
//     after endDate (dates or date-times, compared by their day when one has no time);
//   - a language that is not a BCP 47 tag ("en", "en-US", "spa");
//   - a mediaType, compressFormat or packageFormat that is not an IANA media type
//     (type/subtype with a registered top-level type);
//   - a characterEncoding that is not an IANA charset name Data.gov knows;
//   - a byteSize that is not a non-negative whole number;
//   - a US postal-code that is not ZIP or ZIP+4;
//   - a tel with fewer than 7 or more than 15 digits, or with letters;
//   - a cuiBannerMarking that does not start with "CUI";
//   - an accessRights that is a DCAT-US 1.1 accessLevel word ("public", "restricted public",
//     "non-public"), legacy vocabulary where 3.0 wants a rights statement.
//
// The result is sorted by path; a record that is not a JSON object has none. Messages name the
// value, e.g. `$.distribution[0].mediaType: "notareal/type" is not an IANA media type`.
func Warnings3(record []byte) []Problem {
	var v any
	d := json.NewDecoder(bytes.NewReader(record))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return nil
	}
	var out []Problem
	walkWarnings("$", v, &out)
	slices.SortStableFunc(out, func(a, b Problem) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// walkWarnings adds the warnings of v, at path, and of everything inside it, to out.
func walkWarnings(path string, v any, out *[]Problem) {
	switch v := v.(type) {
	case []any:
		for i, x := range v {
			walkWarnings(fmt.Sprintf("%s[%d]", path, i), x, out)
		}
	case map[string]any:
		objectWarnings(path, v, out)
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range v {
				if !yield(k) {
					return
				}
			}
		}) {
			walkWarnings(path+"."+k, v[k], out)
		}
	}
}

var (
	languageTag = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?(-[A-Za-z0-9]{5,8}|-[0-9][A-Za-z0-9]{3})*$`)
	mediaType   = regexp.MustCompile(`^(application|audio|font|example|image|message|model|multipart|text|video)/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(\s*;.*)?$`)
	zipCode     = regexp.MustCompile(`^[0-9]{5}(-[0-9]{4})?$`)
	wholeNumber = regexp.MustCompile(`^[0-9]+$`)
	telChars    = regexp.MustCompile(`^(tel:)?[0-9+().\s/-]+((\s*(x|ext\.?)\s*[0-9]+))?$`)
)

// charsets are the IANA charset names (lowercase) that count as known.
var charsets = map[string]bool{"utf-8": true, "utf8": true, "us-ascii": true, "ascii": true, "utf-16": true,
	"utf-16le": true, "utf-16be": true, "utf-32": true, "iso-8859-1": true, "iso-8859-2": true,
	"iso-8859-15": true, "latin1": true, "windows-1250": true, "windows-1251": true, "windows-1252": true,
	"shift_jis": true, "euc-jp": true, "euc-kr": true, "gb2312": true, "gbk": true, "gb18030": true,
	"big5": true, "koi8-r": true}

// legacyAccess are DCAT-US 1.1's accessLevel words.
var legacyAccess = map[string]bool{"public": true, "restricted public": true, "non-public": true}

// objectWarnings adds the warnings of the members of one object.
func objectWarnings(path string, o map[string]any, out *[]Problem) {
	add := func(member, format string, args ...any) {
		*out = append(*out, Problem{Path: path + "." + member, Message: fmt.Sprintf(format, args...)})
	}
	if kws, ok := o["keyword"].([]any); ok {
		seen := map[string]bool{}
		for _, k := range kws {
			s, ok := k.(string)
			key := strings.ToLower(strings.TrimSpace(s))
			if !ok || key == "" {
				continue
			}
			if seen[key] {
				add("keyword", "duplicate keyword %s", quote(s))
			}
			seen[key] = true
		}
	}
	for _, pair := range [][2]string{{"issued", "modified"}, {"created", "issued"}, {"created", "modified"}, {"startDate", "endDate"}} {
		a, okA := dateOf(o[pair[0]])
		b, okB := dateOf(o[pair[1]])
		if okA && okB && a.After(b) {
			add(pair[0], "%s %s is later than %s %s", pair[0], quote(o[pair[0]]), pair[1], quote(o[pair[1]]))
		}
	}
	for _, lang := range strings1(o["language"]) {
		if !languageTag.MatchString(lang) {
			add("language", "%s is not a BCP 47 language tag", quote(lang))
		}
	}
	for _, m := range []string{"mediaType", "compressFormat", "packageFormat"} {
		if s, ok := o[m].(string); ok && !mediaType.MatchString(strings.TrimPrefix(s, "https://www.iana.org/assignments/media-types/")) {
			add(m, "%s is not an IANA media type", quote(s))
		}
	}
	if s, ok := o["characterEncoding"].(string); ok && !charsets[strings.ToLower(strings.TrimSpace(s))] {
		add("characterEncoding", "%s is not a known IANA charset", quote(s))
	}
	if b, ok := o["byteSize"]; ok && b != nil {
		if s := fmt.Sprint(b); !wholeNumber.MatchString(s) {
			add("byteSize", "%s is not a non-negative whole number of bytes", quote(b))
		}
	}
	if s, ok := o["postal-code"].(string); ok && usCountry(o["country-name"]) && !zipCode.MatchString(strings.TrimSpace(s)) {
		add("postal-code", "%s is not a US ZIP or ZIP+4 code", quote(s))
	}
	if s, ok := o["tel"].(string); ok {
		digits := 0
		for _, r := range s {
			if r >= '0' && r <= '9' {
				digits++
			}
		}
		if !telChars.MatchString(strings.TrimSpace(s)) || digits < 7 || digits > 15 {
			add("tel", "%s is not a telephone number", quote(s))
		}
	}
	if s, ok := o["cuiBannerMarking"].(string); ok && !strings.HasPrefix(strings.TrimSpace(s), "CUI") {
		add("cuiBannerMarking", "%s is not a CUI banner marking (it starts with \"CUI\")", quote(s))
	}
	if s, ok := o["accessRights"].(string); ok && legacyAccess[strings.ToLower(strings.TrimSpace(s))] {
		add("accessRights", "%s is DCAT-US 1.1 accessLevel vocabulary; DCAT-US 3.0 accessRights is a rights statement", quote(s))
	}
}

// usCountry reports whether an address's country-name is the United States or missing.
func usCountry(v any) bool {
	s, _ := v.(string)
	switch strings.ToLower(strings.TrimSpace(strings.ReplaceAll(s, ".", ""))) {
	case "", "us", "usa", "united states", "united states of america":
		return true
	}
	return false
}

// dateOf reads an ISO 8601 date or date-time string.
func dateOf(v any) (time.Time, bool) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, false
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, strings.TrimSpace(s)); err == nil {
			return t.Truncate(24 * time.Hour), true
		}
	}
	return time.Time{}, false
}

// strings1 returns a string or the strings of an array.
func strings1(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func quote(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
