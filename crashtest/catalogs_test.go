package crashtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/stretchr/testify/require"
)

// schemaType is the crash test source's schema.
const schemaType = harvest.SchemaDCATUS11NonFederal

// loadBase reads the base records every test catalog is built from.
func loadBase(t *testing.T) []map[string]any {
	t.Helper()
	baseOnce.Do(func() {
		raw, err := os.ReadFile(corpustest.Path(t, "dcatus/agency-dhs-2025-07.data.json"))
		if err != nil {
			baseErr = err
			return
		}
		var cat struct {
			Dataset []json.RawMessage `json:"dataset"`
		}
		if baseErr = json.Unmarshal(raw, &cat); baseErr != nil {
			return
		}
		v, err := dcatus.NewValidator(string(schemaType))
		if err != nil {
			baseErr = err
			return
		}
		for _, d := range cat.Dataset {
			if problems, err := v.Validate(d); err != nil || len(problems) > 0 {
				continue
			}
			var m map[string]any
			if baseErr = json.Unmarshal(d, &m); baseErr != nil {
				return
			}
			base = append(base, m)
		}
	})
	require.NoError(t, baseErr)
	require.NotEmpty(t, base)
	return base
}

var (
	baseOnce sync.Once
	base     []map[string]any
	baseErr  error
)

// Catalog generation. Record i of a test catalog is base record i mod len(base) with the
// identifier crash-%06d and a title that names i (unique slugs); every 50th record (i%50 == 49)
// has no identifier (an error row at extract), and the one before it (i%50 == 48) an
// accessLevel that fails validation. The second catalog of a source drops every record with
// i%10 == 0 (deletes), changes the description of i%10 == 1 (updates), keeps the rest as they
// were (unchanged), and adds n/20 new records after them.

func record(t *testing.T, i int, revised bool) map[string]any {
	b := loadBase(t)
	src := b[i%len(b)]
	m := make(map[string]any, len(src))
	for k, v := range src {
		m[k] = v
	}
	m["identifier"] = fmt.Sprintf("crash-%06d", i)
	m["title"] = fmt.Sprintf("%v #%d", src["title"], i)
	switch i % 50 {
	case 49:
		delete(m, "identifier")
	case 48:
		m["accessLevel"] = "Public"
	}
	if revised {
		m["description"] = fmt.Sprintf("%v (revised)", src["description"])
	}
	return m
}

func catalog(t *testing.T, recs []map[string]any) []byte {
	t.Helper()
	var buf bytes.Buffer
	buf.WriteString(`{"conformsTo":"https://project-open-data.cio.gov/v1.1/schema","dataset":[`)
	for i, r := range recs {
		if i > 0 {
			buf.WriteByte(',')
		}
		b, err := json.Marshal(r)
		require.NoError(t, err)
		buf.Write(b)
	}
	buf.WriteString("]}")
	return buf.Bytes()
}

// expectation is what an uninterrupted run of a job gives.
type expectation struct {
	counts harvest.Counts
	live   []string // identifiers of the live datasets after the job, sorted
}

// firstCatalog is the catalog of n records and what its first harvest gives.
func firstCatalog(t *testing.T, n int) ([]byte, expectation) {
	var recs []map[string]any
	var want expectation
	for i := range n {
		recs = append(recs, record(t, i, false))
		switch i % 50 {
		case 49, 48:
			want.counts.Errored++
		default:
			want.counts.Added++
			want.counts.Validated++
			want.live = append(want.live, fmt.Sprintf("crash-%06d", i))
		}
	}
	want.counts.Total = n
	return catalog(t, recs), want
}

// secondCatalog is the changed catalog of a source whose first catalog had n records, and what
// its harvest gives after the first one.
func secondCatalog(t *testing.T, n int) ([]byte, expectation) {
	var recs []map[string]any
	var want expectation
	for i := range n + n/20 {
		id := fmt.Sprintf("crash-%06d", i)
		switch {
		case i < n && i%10 == 0:
			want.counts.Deleted++ // i%50 is neither 48 nor 49: it had a dataset
			continue
		case i%50 == 49:
			want.counts.Errored++
		case i%50 == 48:
			want.counts.Errored++ // invalid; when it did not change (i < n), errored again without validation
		case i >= n:
			want.counts.Added++
			want.counts.Validated++
			want.live = append(want.live, id)
		case i%10 == 1:
			want.counts.Updated++
			want.counts.Validated++
			want.live = append(want.live, id)
		default:
			want.counts.Unchanged++
			want.live = append(want.live, id)
		}
		recs = append(recs, record(t, i, i < n && i%10 == 1))
	}
	want.counts.Total = len(recs) + want.counts.Deleted
	return catalog(t, recs), want
}
