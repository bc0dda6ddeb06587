package quality

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/dcatus"
)

// corpusCatalogs are the DCAT-US catalogs of ../shared/corpus (SOURCES.md) scored for
// docs/quality.md, with the schema type VALIDATE would check them by.
var corpusCatalogs = []struct{ file, schemaType string }{
	{"agency-cfpb-2025-07.data.json", "dcatus1.1: federal"},
	{"agency-cms-2025-07.data.json", "dcatus1.1: federal"},
	{"agency-dhs-2025-07.data.json", "dcatus1.1: federal"},
	{"agency-dol-2025-07.data.json", "dcatus1.1: federal"},
	{"agency-energy-2025-07.data.json", "dcatus1.1: federal"},
	{"agency-fcc-socrata-2025-07.data.json", "dcatus1.1: federal"},
	{"agency-gsa-2025-07.data.json", "dcatus1.1: federal"},
	{"agency-healthdata-gov-2019.data.json", "dcatus1.1: federal"},
	{"agency-usaid-2015.data.json", "dcatus1.1: federal"},
	{"agency-va-2025-07.data.json", "dcatus1.1: federal"},
	{"arcgis-hub-apur-paris.data.json", "dcatus1.1: non-federal"},
	{"city-philadelphia-2015.data.json", "dcatus1.1: non-federal"},
	{"city-philadelphia-with-nulls.data.json", "dcatus1.1: non-federal"},
	{"datagov-cftc.data.json", "dcatus1.1: federal"},
	{"dcatus3-catalog.json", dcatus.SchemaTypeDCATUS30},
}

const (
	corpusBegin = "<!-- corpus-scores:begin (TestCorpusScores writes this table; -update) -->\n"
	corpusEnd   = "<!-- corpus-scores:end -->\n"
)

// TestCorpusScores scores every dataset of the corpus catalogs (compliance from the validator
// VALIDATE runs; links not checked, and again as if every link answered 200) and holds the table
// in docs/quality.md to the result: the scores are stable, and the docs show them (-update
// rewrites the table).
func TestCorpusScores(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("| catalog | datasets | mean (links not checked) | rating | mean if every link answered 200 | rating | the indicators that cost the most, links aside (mean points lost) |\n")
	b.WriteString("| --- | ---: | ---: | --- | ---: | --- | --- |\n")
	for _, c := range corpusCatalogs {
		records := corpusRecords(t, c.file)
		require.NotEmpty(t, records, c.file)
		unchecked, checked := make([]Score, 0, len(records)), make([]Score, 0, len(records))
		for _, rec := range records {
			in := Input{DCAT: rec, Findings: hasFindings(t, c.schemaType, rec)}
			unchecked = append(unchecked, Assess(in))
			in.Links = everyLinkOK(rec)
			checked = append(checked, Assess(in))
		}
		u, k := Aggregate(unchecked), Aggregate(checked)
		var costly []string
		for _, is := range k.Costliest(len(Indicators)) { // links aside: what the publisher's metadata costs
			if is.Metric != AccessURLStatusCode && is.Metric != DownloadURLStatusCode && len(costly) < 3 {
				costly = append(costly, fmt.Sprintf("%s %.1f", strings.TrimPrefix(string(is.Metric), "pv:"), is.Lost))
			}
		}
		fmt.Fprintf(&b, "| `%s` | %d | %.1f | %s | %.1f | %s | %s |\n", c.file, u.Datasets, u.Mean, u.Rating,
			k.Mean, k.Rating, strings.Join(costly, ", "))
	}
	table := b.String()
	t.Log("\n" + table)

	docsMu.Lock()
	defer docsMu.Unlock()
	path := filepath.Join("..", "docs", "quality.md")
	doc, err := os.ReadFile(path)
	require.NoError(t, err)
	before, rest, ok := strings.Cut(string(doc), corpusBegin)
	require.True(t, ok, "docs/quality.md has no corpus-scores block")
	_, after, ok := strings.Cut(rest, corpusEnd)
	require.True(t, ok, "docs/quality.md: corpus-scores block not closed")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(before+corpusBegin+table+corpusEnd+after), 0o644))
		return
	}
	require.Equal(t, table, rest[:len(rest)-len(after)-len(corpusEnd)],
		"the corpus scores changed: go test ./quality -run TestCorpusScores -update, and say why in the commit")
}

// corpusRecords returns the dataset objects of a corpus catalog: its "dataset" array, or the
// file itself when it is an array (POD 1.0), a UTF-8 byte order mark dropped.
func corpusRecords(t *testing.T, file string) []json.RawMessage {
	data, err := os.ReadFile(corpustest.Path(t, filepath.Join("dcatus", file)))
	require.NoError(t, err)
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var records []json.RawMessage
	if json.Unmarshal(data, &records) == nil {
		return records
	}
	var catalog struct {
		Dataset []json.RawMessage `json:"dataset"`
	}
	require.NoError(t, json.Unmarshal(data, &catalog), file)
	return catalog.Dataset
}

// hasFindings reports whether VALIDATE would write a validation row for rec: a schema problem,
// or for DCAT-US 3.0 a content-rule warning.
func hasFindings(t *testing.T, schemaType string, rec json.RawMessage) bool {
	var v *dcatus.Validator
	var err error
	if schemaType == dcatus.SchemaTypeDCATUS30 {
		v, err = dcatus.NewValidator3("dataset")
	} else {
		v, err = dcatus.NewValidator(schemaType)
	}
	require.NoError(t, err)
	problems, err := v.Validate(rec)
	require.NoError(t, err)
	if schemaType == dcatus.SchemaTypeDCATUS30 {
		problems = append(problems, dcatus.Warnings3(rec)...)
	}
	return len(problems) > 0
}

// everyLinkOK returns a 200 for every accessURL and downloadURL of rec.
func everyLinkOK(rec json.RawMessage) map[string]LinkResult {
	links := map[string]LinkResult{}
	for _, d := range readRecord(rec).distributions {
		for _, k := range []string{"accessURL", "downloadURL"} {
			if u := text(d[k]); u != "" {
				links[u] = LinkResultOf(200)
			}
		}
	}
	return links
}
