package dcatus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"
)

// Shared test data, relative to this package's directory (../shared/corpus beside the repository).
var (
	corpusDir          = filepath.Join("..", "..", "shared", "corpus", "dcatus")
	datagovSchemaDir   = filepath.Join("..", "..", "shared", "corpus", "schemas", "dcat-us-1.1-datagov-harvester")
	datagovSchemaFiles = map[string]string{
		schemaTypeFederal:    "federal_dataset.json",
		schemaTypeNonFederal: "non-federal_dataset.json",
	}
)

// corpusRecord is one dataset object of one corpus file.
type corpusRecord struct {
	file  string
	index int
	data  json.RawMessage
}

// loadCatalogRecords returns the dataset objects of one catalog file: the
// elements of its "dataset" array, or of the file itself when its top level
// is an array. ok is false when the file is not JSON or has no dataset array.
func loadCatalogRecords(data []byte) (records []json.RawMessage, ok bool) {
	// Some agencies publish data.json with a UTF-8 byte order mark; the
	// EXTRACT stage strips it, so the records are still worth comparing.
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if err := json.Unmarshal(data, &records); err == nil {
		return records, true
	}
	var catalog struct {
		Dataset *[]json.RawMessage `json:"dataset"`
	}
	if err := json.Unmarshal(data, &catalog); err != nil || catalog.Dataset == nil {
		return nil, false
	}
	return *catalog.Dataset, true
}

// loadCorpus reads every dataset record of every corpus file. It fails the
// test (it does not skip) when the corpus is missing.
func loadCorpus(t testing.TB) []corpusRecord {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no DCAT-US corpus files in %s", corpusDir)
	var records []corpusRecord
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		recs, ok := loadCatalogRecords(data)
		if !ok {
			t.Logf("skipping %s: not JSON or no dataset array", filepath.Base(file))
			continue
		}
		for i, r := range recs {
			records = append(records, corpusRecord{file: filepath.Base(file), index: i, data: r})
		}
	}
	return records
}

// compileDatagovSchema compiles the Data.gov harvester's schema for
// schemaType with the same library and settings as NewValidator.
func compileDatagovSchema(t testing.TB, schemaType string) *jsonschema.Schema {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(datagovSchemaDir, datagovSchemaFiles[schemaType]))
	require.NoError(t, err)
	sch, err := compileSchema(data)
	require.NoError(t, err)
	return sch
}

// verdicts compares our validator with Data.gov's schema on one record and
// returns a description of the disagreement, or "" when they agree.
func verdicts(t testing.TB, ours *Validator, theirs *jsonschema.Schema, data []byte) (string, bool) {
	t.Helper()
	problems, err := ours.Validate(data)
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	require.NoError(t, err)
	theirErr := theirs.Validate(inst)
	if (len(problems) == 0) == (theirErr == nil) {
		return "", problems == nil
	}
	ourResult, theirResult := "valid", "valid"
	if problems != nil {
		ourResult = fmt.Sprintf("invalid %v", problems)
	}
	if theirErr != nil {
		theirResult = "invalid: " + theirErr.Error()
	}
	return fmt.Sprintf("ours: %s; datagov: %s", ourResult, theirResult), problems == nil
}

// TestVerdictsMatchDatagovOnCorpus requires our schemas to give the same
// valid/invalid verdict as the Data.gov harvester's schemas on every dataset
// of the corpus.
func TestVerdictsMatchDatagovOnCorpus(t *testing.T) {
	t.Parallel()
	records := loadCorpus(t)
	require.Greater(t, len(records), 5000, "too few corpus records compared")

	for _, schemaType := range []string{schemaTypeFederal, schemaTypeNonFederal} {
		t.Run(schemaType, func(t *testing.T) {
			t.Parallel()
			ours := newValidator(t, schemaType)
			theirs := compileDatagovSchema(t, schemaType)
			valid := 0
			for _, r := range records {
				diff, ok := verdicts(t, ours, theirs, r.data)
				require.Empty(t, diff, "%s dataset[%d] (%s): verdicts differ", r.file, r.index, schemaType)
				if ok {
					valid++
				}
			}
			t.Logf("%s: %d records compared, %d valid, %d invalid, all verdicts agree",
				schemaType, len(records), valid, len(records)-valid)
		})
	}
}

// TestVerdictsMatchDatagovOnMutations compares verdicts on variants of corpus
// records: every property deleted or replaced by values of every JSON type,
// including near misses of the patterns, so that both the valid and the
// invalid side of each rule are compared, not only the corpus's mostly
// valid records.
func TestVerdictsMatchDatagovOnMutations(t *testing.T) {
	t.Parallel()
	records := loadCorpus(t)
	values := []any{
		nil, true, false, 0, 1.5, "", " ", "x", "center", "[[REDACTED-EX B3]]", "[[REDACTED]]", "[[REDACTED",
		"https://example.gov/x", "https://example.gov/a b", "https://example.gov/x ", "http://", "www.example.gov",
		"mailto:a@b.co", "mailto:a@b.co\n", "mailto:a@b", "a@b.co",
		"2025", "2025-07-01", "2025-7-1", "20250701", "2025-07-01T10:00:00Z", "2025-07-01 10:00", "2025-13-01",
		"2025-W27", "2025-182", "P1Y", "R/P1M", "R5/P1D", "irregular", "R/2020-01-01/P1M",
		"2020-01-01/2020-12-31", "2020-01-01/P1Y", "P1Y/2020-01-01", "2020/2021",
		"text/csv", "text", "application/vnd.ms-excel", "en", "en-US", "english",
		"015:11", "015:011", "15:11", "abc", "public", "non-public", "restricted public", "Public",
		"023-000000001", "dcat:Dataset", "dcat:Distribution", "org:Organization", "vcard:Contact",
		strings.Repeat("y", 256), strings.Repeat("z", 10001),
		[]any{}, []any{"x"}, []any{"x", "x"}, []any{""}, []any{1}, []any{nil}, []any{"015:11"}, []any{"015:011"},
		[]any{"[[REDACTED-EX B3]]"}, []any{"https://example.gov/x"}, []any{"center"}, []any{"en"}, []any{"english"},
		[]any{[]any{1, 2}}, []any{map[string]any{}},
		map[string]any{}, map[string]any{"name": "x"}, map[string]any{"name": ""},
		map[string]any{"name": "x", "subOrganizationOf": map[string]any{"name": 1}},
		map[string]any{"fn": "x", "hasEmail": "mailto:a@b.co"}, map[string]any{"fn": "x", "hasEmail": "a@b.co"},
		map[string]any{"fn": "", "hasEmail": "[[REDACTED-EX B6]]"},
		map[string]any{"type": "Polygon", "coordinates": []any{[]any{1, 2}}},
		map[string]any{"type": "Polygon", "coordinates": []any{[]any{[]any{1, 2}}}},
		[]any{map[string]any{"downloadURL": "https://example.gov/x"}},
		[]any{map[string]any{"downloadURL": "https://example.gov/x", "mediaType": nil}},
		[]any{map[string]any{"downloadURL": "https://example.gov/x", "mediaType": "text/csv"}},
		[]any{map[string]any{"accessURL": "center"}}, []any{"[[REDACTED-EX B5]]"}, []any{"x"},
	}

	for _, schemaType := range []string{schemaTypeFederal, schemaTypeNonFederal} {
		t.Run(schemaType, func(t *testing.T) {
			t.Parallel()
			ours := newValidator(t, schemaType)
			theirs := compileDatagovSchema(t, schemaType)
			bases := mutationBases(t, records, theirs)
			compared, valid := 0, 0
			check := func(base corpusRecord, what string, m map[string]any) {
				data, err := json.Marshal(m)
				require.NoError(t, err)
				diff, ok := verdicts(t, ours, theirs, data)
				require.Empty(t, diff, "%s dataset[%d] with %s: verdicts differ", base.file, base.index, what)
				compared++
				if ok {
					valid++
				}
			}
			for _, base := range bases {
				var rec map[string]any
				require.NoError(t, json.Unmarshal(base.data, &rec))
				keys := propertyNames(rec, datasetProperties)

				// Top-level properties.
				for _, k := range keys {
					check(base, "no "+k, withValue(rec, nil, k, nil, true))
					for _, v := range values {
						check(base, fmt.Sprintf("%s=%v", k, v), withValue(rec, nil, k, v, false))
					}
				}
				// Nested objects: publisher, contactPoint, the first distribution.
				for _, parent := range []string{"publisher", "contactPoint", "distribution"} {
					obj, ok := rec[parent].(map[string]any)
					if d, isArr := rec[parent].([]any); isArr && len(d) > 0 {
						obj, ok = d[0].(map[string]any)
					}
					if !ok {
						continue
					}
					for _, k := range propertyNames(obj, nestedProperties[parent]) {
						check(base, fmt.Sprintf("no %s.%s", parent, k), withValue(rec, []string{parent}, k, nil, true))
						for _, v := range values {
							check(base, fmt.Sprintf("%s.%s=%v", parent, k, v), withValue(rec, []string{parent}, k, v, false))
						}
					}
				}
			}
			t.Logf("%s: %d mutated records compared, %d valid, all verdicts agree", schemaType, compared, valid)
		})
	}
}

// Properties the DCAT-US 1.1 schemas know, per object.
var (
	datasetProperties = []string{
		"@type", "accessLevel", "accrualPeriodicity", "bureauCode", "conformsTo", "contactPoint", "dataQuality",
		"describedBy", "describedByType", "description", "distribution", "identifier", "isPartOf", "issued",
		"keyword", "landingPage", "language", "license", "modified", "primaryITInvestmentUII", "programCode",
		"publisher", "references", "rights", "spatial", "systemOfRecords", "temporal", "theme", "title",
	}
	nestedProperties = map[string][]string{
		"publisher":    {"@type", "name", "subOrganizationOf"},
		"contactPoint": {"@type", "fn", "hasEmail"},
		"distribution": {"@type", "accessURL", "conformsTo", "describedBy", "describedByType", "description",
			"downloadURL", "format", "mediaType", "title"},
	}
)

// mutationBases picks a few small records, from different files, that are
// valid under the Data.gov schema and have distributions, so that each
// mutation alone decides the verdict.
func mutationBases(t *testing.T, records []corpusRecord, theirs *jsonschema.Schema) []corpusRecord {
	t.Helper()
	const maxBases, maxSize = 6, 4 << 10
	var bases []corpusRecord
	seen := map[string]bool{}
	for _, r := range records {
		if len(bases) == maxBases {
			break
		}
		if seen[r.file] || len(r.data) > maxSize {
			continue
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(r.data))
		require.NoError(t, err)
		m, _ := inst.(map[string]any)
		if d, ok := m["distribution"].([]any); !ok || len(d) == 0 || theirs.Validate(inst) != nil {
			continue
		}
		seen[r.file] = true
		bases = append(bases, r)
	}
	require.Len(t, bases, maxBases)
	return bases
}

// propertyNames lists the object's properties plus the known ones, sorted.
func propertyNames(m map[string]any, known []string) []string {
	names := slices.Clone(known)
	for k := range m {
		if !slices.Contains(names, k) {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	return names
}

// withValue returns a deep copy of rec with key set to v (or deleted) in the
// object at parent (a distribution array means its first element).
func withValue(rec map[string]any, parent []string, key string, v any, del bool) map[string]any {
	data, _ := json.Marshal(rec)
	var cp map[string]any
	_ = json.Unmarshal(data, &cp)
	obj := cp
	for _, p := range parent {
		switch c := obj[p].(type) {
		case map[string]any:
			obj = c
		case []any:
			obj = c[0].(map[string]any)
		}
	}
	if del {
		delete(obj, key)
	} else {
		obj[key] = v
	}
	return cp
}

// BenchmarkValidate measures Validate on the records of one agency catalog;
// one op is one record (ns/op = ns per record).
func BenchmarkValidate(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(corpusDir, "agency-gsa-2025-07.data.json"))
	require.NoError(b, err)
	records, ok := loadCatalogRecords(data)
	require.True(b, ok)
	require.NotEmpty(b, records)
	v := newValidator(b, schemaTypeFederal)

	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := v.Validate(records[i%len(records)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
