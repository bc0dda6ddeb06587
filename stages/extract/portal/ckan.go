package portal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
)

// CKANBaseURL returns the portal base URL of a CKAN (or DKAN) source's URL
// (harvest.PortalBaseURL): the URL without a query, a trailing slash or an "/api/…" path the
// user may have pasted (".../api/3/action/package_search" gives "..."). Record identifiers and
// landing pages are made from it.
func CKANBaseURL(raw string) string { return harvest.PortalBaseURL(harvest.SourceCKAN, raw) }

// CKANIdentifier is the harvest identifier of the CKAN package id of the portal at base:
// "<base>/dataset/<id>", which is also the package's page on stock CKAN. Two portals' "123"
// never collide.
func CKANIdentifier(base, id string) string { return base + "/dataset/" + id }

// ckanPager lists a CKAN (2.8+) or CKAN-compatible Action API: package_search paged by
// start/rows, sorted by "id asc" (a stable order: a modification-date sort shifts pages under
// a live portal, Magda #26), filtered by the source's "fq" option, with the page size from
// its "rows" option (its default in the rule table). It reads the envelope {help, success, result}
// where result is {count, results} (or, as DKAN 7 answers, a list holding that object);
// success false is an error naming CKAN's error message.
func (h *handler) ckanPager(fc fetch.Config, job *harvest.Job) (*extract.Pager, error) {
	base := CKANBaseURL(job.URL)
	rows, err := extract.PageSize(job, "rows", 1000)
	if err != nil {
		return nil, err
	}
	fq := extract.Setting(job, "fq")
	return &extract.Pager{Name: "CKAN package_search " + base + "/api/3/action/package_search", PageSize: rows, PageSizeOption: "rows",
		Page: func(ctx context.Context, offset int) (*extract.PortalPage, error) {
			q := url.Values{}
			q.Set("rows", strconv.Itoa(rows))
			q.Set("start", strconv.Itoa(offset))
			q.Set("sort", "id asc")
			if fq != "" {
				q.Set("fq", fq)
			}
			u := base + "/api/3/action/package_search?" + q.Encode()
			var env ckanEnvelope
			items, err := readPage(ctx, fc, u, ckanShape, h.Config().MaxRecordBytes, &env)
			if err != nil {
				return nil, err
			}
			count, err := env.search(u)
			if err != nil {
				return nil, err
			}
			return &extract.PortalPage{URL: u, Total: count, Items: portalItems(items, func(raw json.RawMessage) extract.PortalItem {
				return ckanItem(base, job.SourceID, raw)
			})}, nil
		}}, nil
}

// ckanEnvelope is a CKAN Action API answer.
type ckanEnvelope struct {
	Help    json.RawMessage `json:"help"` // a URL, or an old CKAN's docstring: not read
	Success *bool           `json:"success"`
	Error   json.RawMessage `json:"error"`
	Result  json.RawMessage `json:"result"`
}

// ckanShape is where a package_search answer holds its packages (DKAN 7 wraps the result in a
// list of one), and the members that key a package (ckanPackageKeys but the extras).
var ckanShape = &pageShape{items: []string{"/result/results", "/result/0/results"}, keys: []string{"/id", "/title"}}

// ckanSearch is package_search's result (its results are read by readPage, as they stream).
type ckanSearch struct {
	Count *int `json:"count"`
}

// search reads the count of a package_search result from the envelope of the answer to u.
func (e *ckanEnvelope) search(u string) (count int, err error) {
	if e.Success != nil && !*e.Success {
		return 0, fmt.Errorf("GET %s: CKAN answered success false: %s", u, compactJSON(e.Error))
	}
	raw := bytes.TrimSpace(e.Result)
	if len(raw) > 0 && raw[0] == '[' { // DKAN 7 wraps results in a list of one
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil || len(list) != 1 {
			return 0, fmt.Errorf("GET %s: result is a list of %d, not a package_search result", u, len(list))
		}
		raw = list[0]
	}
	var s ckanSearch
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil || s.Count == nil {
		return 0, fmt.Errorf("GET %s: not a CKAN package_search answer: no result.count", u)
	}
	return *s.Count, nil
}

// compactJSON returns raw on one line, cut to 500 bytes, for an error message.
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		b.Reset()
		b.Write(raw)
	}
	s := b.String()
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s
}

// ckanPackageKeys are the members of a package EXTRACT reads: its id (a string, or a number
// on some CKAN-compatible portals), title, and the extras naming where the portal harvested it.
type ckanPackageKeys struct {
	ID     json.RawMessage `json:"id"`
	Title  any             `json:"title"`
	Extras json.RawMessage `json:"extras"`
}

// ckanItem is the extract.PortalItem of one package of the portal at base, listed for harvest source
// self. A package whose harvest_source_id extra is self is this source's own dataset served
// back to it (a catalog harvesting its own CKAN-compatible API, a cycle): it is skipped, so
// that the cycle does not copy its copies on every harvest.
func ckanItem(base, self string, raw json.RawMessage) extract.PortalItem {
	it := extract.PortalItem{Raw: raw}
	var k ckanPackageKeys
	if err := json.Unmarshal(raw, &k); err != nil {
		it.Err = fmt.Errorf("package is not a JSON object: %v", err)
		return it
	}
	if t, ok := k.Title.(string); ok {
		it.Title = t
	}
	id, err := jsonScalar(k.ID)
	if err != nil || strings.TrimSpace(id) == "" {
		it.Err = fmt.Errorf("package%s has no id", titled(it.Title))
		return it
	}
	it.Identifier = CKANIdentifier(base, id)
	extras := ckanExtras(k.Extras)
	if self != "" && extras["harvest_source_id"] == self {
		it.Skip = "this source's own dataset, served back by the catalog it harvests"
		return it
	}
	if extras["harvest_source_id"] != "" && extras["identifier"] != "" {
		it.Origin = &extract.PortalOrigin{Identifier: extras["identifier"], Source: extras["harvest_source_title"]}
		if it.Origin.Source == "" {
			it.Origin.Source = extras["harvest_source_id"]
		}
	}
	return it
}

// ckanExtras returns the string values of a package's extras (a list of {key, value}; the
// first of a repeated key wins; values that are not strings are left out).
func ckanExtras(raw json.RawMessage) map[string]string {
	var list []struct {
		Key   string          `json:"key"`
		Value json.RawMessage `json:"value"`
	}
	out := map[string]string{}
	if json.Unmarshal(raw, &list) != nil {
		return out
	}
	for _, kv := range list {
		var v string
		if _, dup := out[kv.Key]; !dup && json.Unmarshal(kv.Value, &v) == nil {
			out[kv.Key] = strings.TrimSpace(v)
		}
	}
	return out
}

// titled is ` (title "t")`, or "" for no title.
func titled(t string) string {
	if t == "" {
		return ""
	}
	return fmt.Sprintf(" (title %q)", t)
}

// jsonScalar returns a JSON string's value or a number's text; an error for anything else.
func jsonScalar(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", errors.New("missing")
	}
	var s string
	if raw[0] == '"' {
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return "", err
	}
	return n.String(), nil
}
