package quality

import (
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// LinkClass is what the check of a distribution URL found, as CHECK records it.
type LinkClass int

// The classes. The zero value is LinkUnknown, so a URL missing from Input.Links is unknown.
const (
	// LinkUnknown is a URL not checked yet (or not checkable, e.g. ftp:): it scores nothing on
	// the status-code indicators and is counted in IndicatorScore.Unknown.
	LinkUnknown LinkClass = iota
	// LinkOK is a URL that answered 2xx, or 3xx ending in 2xx.
	LinkOK
	// LinkBroken is a URL that answered anything else, or failed (DNS, refused, timeout, TLS,
	// too many redirects).
	LinkBroken
)

// String returns "unknown", "ok" or "broken".
func (c LinkClass) String() string {
	switch c {
	case LinkOK:
		return "ok"
	case LinkBroken:
		return "broken"
	}
	return "unknown"
}

// LinkResult is the stored result of checking one URL: its class and the HTTP status of the
// last answer (0 when there was none).
type LinkResult struct {
	Class  LinkClass
	Status int
}

// LinkResultOf returns the result of an HTTP answer with status: OK for 200–399 (piveau's
// accessUrlStatusCode and downloadUrlStatusCode pass 2xx and 3xx), else broken.
func LinkResultOf(status int) LinkResult {
	if status >= 200 && status < 400 {
		return LinkResult{Class: LinkOK, Status: status}
	}
	return LinkResult{Class: LinkBroken, Status: status}
}

// LinkURLs returns the distribution URLs of a stored DCAT-US record that the status-code
// indicators look up in Input.Links: each distribution's accessURL and downloadURL, read as
// Assess reads them (surrounding space trimmed; the first string of a list, a 3.0 object's
// @id; one distribution not in a list), distinct, in the order of their first appearance. nil
// for a record with none, or that is not a JSON object.
func LinkURLs(dcat []byte) []string {
	var out []string
	seen := map[string]bool{}
	var m struct {
		Distribution jsontext.Value `json:"distribution"`
	}
	if jsonv2.Unmarshal(dcat, &m, readOptions) != nil { // as readRecord: only the distributions are decoded
		return nil
	}
	for _, dist := range distributions(value(m.Distribution)) {
		for _, key := range []string{"accessURL", "downloadURL"} {
			if u := text(dist[key]); u != "" && !seen[u] {
				seen[u] = true
				out = append(out, u)
			}
		}
	}
	return out
}
