package quality

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// readRecordMap is readRecord as it was, over a map[string]any of the whole record: the
// reference the struct reading must agree with.
func readRecordMap(dcat json.RawMessage) record {
	var m map[string]any
	if json.Unmarshal(dcat, &m) != nil || m == nil {
		return record{}
	}
	r := record{keyword: present(m["keyword"]), theme: present(m["theme"]) || present(m["category"]),
		spatial: present(m["spatial"]), temporal: present(m["temporal"]), contactPoint: present(m["contactPoint"]),
		publisher: present(m["publisher"]), issued: present(m["issued"]), modified: present(m["modified"]),
		accessRights: text(m["accessLevel"]), license: m["license"], rights: m["rights"]}
	if r.accessRights == "" {
		r.accessRights = text(m["accessRights"])
	}
	switch d := m["distribution"].(type) {
	case []any:
		for _, x := range d {
			if dist, ok := x.(map[string]any); ok {
				r.distributions = append(r.distributions, dist)
			}
		}
	case map[string]any:
		r.distributions = append(r.distributions, d)
	}
	return r
}

// TestReadRecordAsAMap: readRecord and LinkURLs, which read only the members the MQA uses, read every
// dataset of the corpus catalogs, and records built to differ (a name in another case, a name
// twice, invalid UTF-8, not an object, nulls), as reading the whole record into a map did.
func TestReadRecordAsAMap(t *testing.T) {
	t.Parallel()
	records := []json.RawMessage{
		json.RawMessage(`{"Keyword": ["a"], "KEYWORD": "b", "accesslevel": "public", "Distribution": [{"downloadURL": "x"}]}`),
		json.RawMessage(`{"keyword": ["a"], "keyword": [], "accessLevel": "public", "accessLevel": " restricted public "}`),
		json.RawMessage(`{"distribution": [{"downloadURL": "a"}], "distribution": {"accessURL": "b"}}`),
		json.RawMessage(`{"distribution": {"accessURL": "b"}, "distribution": [{"downloadURL": "a"}, 3, null]}`),
		json.RawMessage("{\"title\": \"\xff\", \"publisher\": {\"name\": \"caf\xc3\"}, \"keyword\": [\"\xfe\"]}"),
		json.RawMessage(`{"license": null, "rights": 3, "issued": 2020, "modified": true, "theme": [" "], "category": [{"@type": "x"}]}`),
		json.RawMessage(`[{"keyword": ["a"]}]`),
		json.RawMessage(`"a string"`),
		json.RawMessage(`null`),
		json.RawMessage(`{"keyword": ["a"]} trailing`),
		json.RawMessage(``),
		json.RawMessage(`{"contactPoint": {"@type": "vcard:Contact"}, "spatial": {"@type": "x", "@id": " "}, "temporal": "  "}`),
	}
	for _, c := range corpusCatalogs {
		records = append(records, corpusRecords(t, c.file)...)
	}
	for i, rec := range records {
		want := readRecordMap(rec)
		require.Equal(t, want, readRecord(rec), "record %d: %.200s", i, rec)
		var urls []string // LinkURLs as it read them, from the whole record's distributions
		seen := map[string]bool{}
		for _, dist := range want.distributions {
			for _, key := range []string{"accessURL", "downloadURL"} {
				if u := text(dist[key]); u != "" && !seen[u] {
					seen[u] = true
					urls = append(urls, u)
				}
			}
		}
		require.Equal(t, urls, LinkURLs(rec), "record %d: %.200s", i, rec)
	}
}
