package catalog

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
)

// walk3 runs Check3 and WalkEntries3 over a corpus file and returns its entries.
func walk3(t *testing.T, name string) []Entry {
	t.Helper()
	path := corpustest.Path(t, "dcatus/"+name)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	links, err := Check3(f)
	require.NoError(t, err)
	_, err = f.Seek(0, 0)
	require.NoError(t, err)
	var out []Entry
	require.NoError(t, WalkEntries3(f, DefaultMaxRecordBytes, links, func(e Entry) error {
		out = append(out, e)
		return nil
	}))
	return out
}

// brief is what a test compares of an entry: type, identifier, parent, path and error.
type brief struct{ Type, ID, IsPartOf, Path, Err string }

func briefs(es []Entry) []brief {
	out := make([]brief, len(es))
	for i, e := range es {
		out[i] = brief{e.RecordType, e.Identifier, e.IsPartOf, e.Path, ""}
		if e.Err != nil {
			out[i].Err = e.Err.Error()
		}
	}
	return out
}

func TestWalkEntries3Corpus(t *testing.T) {
	t.Parallel()
	for name, want := range map[string][]brief{
		"dcatus3-catalog.json": {
			{"dataset", "https://example.gov/datasets/one", "", "$.dataset[0]", ""},
			{"dataset", "https://example.gov/datasets/two", "", "$.dataset[1]", ""},
			{"dataset", "https://example.gov/datasets/three", "", "$.dataset[2]", ""},
			{"dataset", "NCDC-CLIMATE-OBS-2024", "", "$.dataset[3]", ""},
		},
		"dcatus3-nested-catalog.json": {
			{"dataset", "https://example.gov/datasets/nested-parent", "", "$.dataset[0]", ""},
			{"dataset", "https://example.gov/datasets/nested-child", "", "$.catalog[0].dataset[0]", ""},
			{"dataset", "https://example.gov/datasets/nested-grandchild", "", "$.catalog[0].catalog[0].dataset[0]", ""},
		},
		"dcatus3-series-with-members.json": {
			{"datasetseries", "https://example.gov/series/annual-report", "", "$.datasetSeries[0]", ""},
			{"dataset", "https://example.gov/datasets/annual-report-2023", "https://example.gov/series/annual-report",
				"$.datasetSeries[0].seriesMember[0]", ""},
			{"dataset", "https://example.gov/datasets/annual-report-2024", "https://example.gov/series/annual-report",
				"$.datasetSeries[0].seriesMember[1]", ""},
		},
		"dcatus3-series-member-also-top-level.json": {
			{"dataset", "https://example.gov/datasets/annual-report-2023", "https://example.gov/series/annual-report", "$.dataset[0]", ""},
			{"datasetseries", "https://example.gov/series/annual-report", "", "$.datasetSeries[0]", ""},
			{"dataset", "https://example.gov/datasets/annual-report-2024", "https://example.gov/series/annual-report",
				"$.datasetSeries[0].seriesMember[1]", ""},
		},
		"dcatus3-service-serves-dataset.json": {
			{"dataservice", "https://example.gov/services/one", "", "$.service[0]", ""},
			{"dataset", "https://example.gov/datasets/served-by-service-one", "https://example.gov/services/one",
				"$.service[0].servesDataset[0]", ""},
		},
		"dcatus3-service-no-identifier.json": {
			{"dataset", "https://example.gov/datasets/one", "", "$.dataset[0]", ""},
			{"dataservice", "", "", "$.service[0]",
				`data service #2 at $.service[0] (title "Data Service Without Identifier") has no identifier (missing or blank)`},
		},
		"dcatus3-with-records.json": {
			{"dataset", "https://example.gov/datasets/one", "", "$.dataset[0]", ""},
			{"catalogrecord", "https://example.gov/catalog-records/one", "", "$.record[0]", ""},
			{"catalogrecord", "https://example.gov/catalog-records/two", "", "$.record[1]", ""},
		},
		"dcatus3-record-no-id.json": {
			{"dataset", "https://example.gov/datasets/one", "", "$.dataset[0]", ""},
			{"catalogrecord", SynthesizedRecordID("https://example.gov/datasets/one", "2024-06-15"), "", "$.record[0]", ""},
		},
		"INVALID-dcatus3-no-identifier.json": {
			{"dataset", "", "", "$.dataset[0]", `dataset #1 at $.dataset[0] (title "Dataset With Invalid Object Identifier") ` +
				`has an Identifier object with no usable "@id" or "notation"`},
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, want, briefs(walk3(t, name)))
		})
	}
}

// TestSynthesizedRecordID pins the id H2.0 computes: sha256("https://example.gov/datasets/one|2024-06-15"),
// checked with Python's hashlib.
func TestSynthesizedRecordID(t *testing.T) {
	t.Parallel()
	require.Equal(t, "urn:datagov:catalogrecord:02bf56dcdd4eb09520b1eeb6890b093d8073eb24b0261309767d4f02aac9a125", SynthesizedRecordID("https://example.gov/datasets/one", "2024-06-15"))
	require.True(t, strings.HasSuffix(SynthesizedRecordID(nil, "x"), SynthesizedRecordID("None", "x")[len("urn:datagov:catalogrecord:"):]))
}

func TestCheck3WrongSchema(t *testing.T) {
	t.Parallel()
	f, err := os.Open(corpustest.Path(t, "dcatus/agency-gsa-2025-01.data.json"))
	require.NoError(t, err)
	defer f.Close()
	_, err = Check3(f)
	require.ErrorIs(t, err, ErrDCATUS11)
	f3, err := os.Open(corpustest.Path(t, "dcatus/dcatus3-catalog.json"))
	require.NoError(t, err)
	defer f3.Close()
	require.ErrorIs(t, Check(f3), ErrDCATUS3)
}
