package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/change"
	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/harvest"
)

// The synthetic catalog has n valid records with unique identifiers and titles, more than the
// corpus has distinct records, and the changed catalog differs in exactly changedCount of them.
func TestCatalogHasUniqueValidRecordsAndTenPercentChanged(t *testing.T) {
	templates, err := loadTemplates(corpustest.Dir(t))
	require.NoError(t, err)
	n := len(templates) + 25 // wraps round the templates
	read := func(changed bool) []json.RawMessage {
		var buf bytes.Buffer
		require.NoError(t, writeCatalog(&buf, templates, n, changed))
		var cat struct {
			Dataset []json.RawMessage `json:"dataset"`
		}
		require.NoError(t, json.Unmarshal(buf.Bytes(), &cat))
		require.Len(t, cat.Dataset, n)
		return cat.Dataset
	}
	plain, changed := read(false), read(true)
	v, err := dcatus.NewValidator(string(harvest.SchemaDCATUS11Federal))
	require.NoError(t, err)
	ids, titles, links := map[string]bool{}, map[string]bool{}, map[string]bool{}
	differ := 0
	for i := range n {
		var rec struct {
			Identifier, Title, LandingPage string
			Distribution                   []struct{ DownloadURL string }
		}
		require.NoError(t, json.Unmarshal(plain[i], &rec))
		require.Equal(t, benchIdentifier(i), rec.Identifier)
		require.False(t, ids[rec.Identifier], "identifier %q repeats", rec.Identifier)
		require.False(t, titles[rec.Title], "title %q repeats", rec.Title)
		ids[rec.Identifier], titles[rec.Title] = true, true
		// No landingPage or downloadURL repeats either: the fleet's sources would otherwise
		// be cross-source duplicates of each other, with warning rows.
		for _, d := range rec.Distribution {
			rec.LandingPage += " " + d.DownloadURL
		}
		mine := map[string]bool{}
		for _, u := range strings.Fields(rec.LandingPage) {
			require.False(t, links[u] && !mine[u], "link %q repeats", u)
			links[u], mine[u] = true, true
		}
		if i%97 == 0 || strings.Contains(rec.LandingPage, "#") { // validating all would take long
			problems, err := v.Validate(plain[i])
			require.NoError(t, err)
			require.Empty(t, problems, "record %d", i)
		}
		a, err := change.SourceHash(plain[i])
		require.NoError(t, err)
		b, err := change.SourceHash(changed[i])
		require.NoError(t, err)
		if a != b {
			differ++
		}
	}
	require.Equal(t, changedCount(n), differ)
}
