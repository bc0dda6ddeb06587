package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/fetch"
)

// federalDataset is a DCAT-US 1.1 federal dataset that passes validation.
func federalDataset(identifier string) map[string]any {
	return map[string]any{
		"@type": "dcat:Dataset", "title": "Commitments of Traders", "description": "Weekly positions.",
		"keyword": []string{"futures"}, "modified": "2024-01-05", "identifier": identifier, "accessLevel": "public",
		"publisher":    map[string]any{"@type": "org:Organization", "name": "CFTC"},
		"contactPoint": map[string]any{"@type": "vcard:Contact", "fn": "Data Team", "hasEmail": "mailto:data@cftc.gov"},
		"bureauCode":   []string{"339:00"}, "programCode": []string{"000:000"},
	}
}

func validateBody(doc any) map[string]any {
	return map[string]any{"schema_type": "dcatus1.1: federal", "json": doc}
}

// validate POSTs body to /api/v1/validate.
func (b *testBundle) validate(t *testing.T, body any) response {
	t.Helper()
	return b.write(t, http.MethodPost, "/api/v1/validate", body)
}

func TestValidatePasted(t *testing.T) {
	t.Parallel()
	b := setup(t)
	post := b.validate

	t.Run("valid dataset", func(t *testing.T) {
		t.Parallel()
		r := post(t, validateBody(federalDataset("COT-1")))
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		requireSchema(t, "ValidationResult", r.object(t))
		require.Equal(t, ValidationResult{Valid: true, Records: []RecordResult{
			{Index: 0, Identifier: "COT-1", Valid: true, Errors: []Problem{}}}}, decode[ValidationResult](t, r))
	})
	t.Run("invalid dataset", func(t *testing.T) {
		t.Parallel()
		ds := federalDataset("COT-2")
		delete(ds, "title")
		ds["contactPoint"].(map[string]any)["hasEmail"] = "data@cftc.gov"
		res := decode[ValidationResult](t, post(t, validateBody(ds)))
		require.False(t, res.Valid)
		require.Len(t, res.Records, 1)
		require.Equal(t, "COT-2", res.Records[0].Identifier)
		require.Equal(t, []Problem{
			{Path: "$", Message: "'title' is a required property"},
			{Path: "$.contactPoint.hasEmail", Message: res.Records[0].Errors[1].Message},
		}, res.Records[0].Errors)
		require.Contains(t, res.Records[0].Errors[1].Message, "data@cftc.gov")
	})
	t.Run("dataset as text", func(t *testing.T) {
		t.Parallel()
		text, err := json.Marshal(federalDataset("COT-3"))
		require.NoError(t, err)
		res := decode[ValidationResult](t, post(t, validateBody(string(text))))
		require.True(t, res.Valid)
		require.Equal(t, "COT-3", res.Records[0].Identifier)
	})
	t.Run("catalog with a duplicate and a blank identifier", func(t *testing.T) {
		t.Parallel()
		catalog := map[string]any{"conformsTo": "https://project-open-data.cio.gov/v1.1/schema",
			"dataset": []any{federalDataset("A"), federalDataset("B"), federalDataset("A"), federalDataset(" ")}}
		res := decode[ValidationResult](t, post(t, validateBody(catalog)))
		require.False(t, res.Valid)
		require.Len(t, res.Records, 4)
		require.True(t, res.Records[0].Valid)
		require.True(t, res.Records[1].Valid)
		require.Equal(t, []Problem{{Path: "$.identifier",
			Message: `dataset #3 repeats identifier "A" of dataset #1 in this catalog; the first one is kept`}},
			res.Records[2].Errors)
		require.Equal(t, 3, res.Records[3].Index)
		require.False(t, res.Records[3].Valid)
		require.Contains(t, res.Records[3].Errors[len(res.Records[3].Errors)-1].Message, "has no identifier")
	})
	t.Run("identifier with U+0000", func(t *testing.T) {
		t.Parallel()
		catalog := map[string]any{"conformsTo": "https://project-open-data.cio.gov/v1.1/schema",
			"dataset": []any{federalDataset("a\x00b")}}
		res := decode[ValidationResult](t, post(t, validateBody(catalog)))
		require.False(t, res.Valid, "a harvest makes it an InvalidIdentifier error row")
		require.Equal(t, []Problem{{Path: "$.identifier", Message: `dataset #1 (title "` +
			federalDataset("x")["title"].(string) + `"): identifier "a\x00b" contains U+0000 (NUL), ` +
			`which a database text column cannot hold`}}, res.Records[0].Errors)
	})
	t.Run("corpus catalog", func(t *testing.T) {
		t.Parallel()
		data, err := os.ReadFile(corpustest.Path(t, "dcatus/datagov-cftc.data.json"))
		require.NoError(t, err)
		res := decode[ValidationResult](t, post(t, validateBody(json.RawMessage(data))))
		requireCFTC(t, data, res)
	})
}

// TestValidateUnreadable: a pasted text that is not a DCAT-US catalog or dataset is a 422 that
// says why.
func TestValidateUnreadable(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, tt := range []struct {
		name string
		text any
		want string // in the answer's error
	}{
		{"text that is not JSON", "{\n  \"dataset\": [\n    {\"title\": oops}\n  ]\n}", "line 3, column 15"},
		{"Project Open Data 1.0 array", []any{federalDataset("A")}, "Project Open Data 1.0"},
		{"dataset is not an array", map[string]any{"dataset": "none"}, `"dataset" is a JSON string, not an array`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := b.validate(t, validateBody(tt.text))
			require.Equal(t, http.StatusUnprocessableEntity, r.status, "body: %s", r.body)
			res := decode[ValidationResult](t, r)
			require.False(t, res.Valid)
			require.Empty(t, res.Records)
			require.Contains(t, res.Error, tt.want)
		})
	}
}

func TestValidateBadFields(t *testing.T) {
	t.Parallel()
	b := setup(t)
	post := b.validate
	bad := []struct {
		name   string
		body   any
		fields []string
	}{
		{"schema_type missing", map[string]any{"json": federalDataset("A")}, []string{"schema_type"}},
		{"schema_type unknown", map[string]any{"schema_type": "dcatus9", "json": federalDataset("A")}, []string{"schema_type"}},
		{"schema_type dcat-ap", map[string]any{"schema_type": "dcat-ap", "json": federalDataset("A")}, []string{"schema_type"}},
		{"schema_type iso19115_1", map[string]any{"schema_type": "iso19115_1", "json": federalDataset("A")}, []string{"schema_type"}},
		{"schema_type iso19115_2", map[string]any{"schema_type": "iso19115_2", "url": "https://example.gov/iso.xml"}, []string{"schema_type"}},
		{"neither json nor url", map[string]any{"schema_type": "dcatus1.1: federal"}, []string{"json"}},
		{"json null", map[string]any{"schema_type": "dcatus1.1: federal", "json": nil}, []string{"json"}},
		{"both json and url", map[string]any{"schema_type": "dcatus1.1: federal", "json": federalDataset("A"),
			"url": "https://example.gov/data.json"}, []string{"url"}},
		{"url not http", map[string]any{"schema_type": "dcatus1.1: federal", "url": "file:///etc/passwd"}, []string{"url"}},
		{"unknown field", map[string]any{"schema_type": "dcatus1.1: federal", "json": federalDataset("A"),
			"fetch_method": "paste"}, []string{"fetch_method"}},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			requireFields(t, post(t, tt.body), tt.fields...)
		})
	}
	t.Run("ISO schema types are refused", func(t *testing.T) {
		t.Parallel()
		f := requireFields(t, post(t, map[string]any{"schema_type": "iso19115_2", "json": "<MI_Metadata/>"}), "schema_type")
		require.Contains(t, f["schema_type"], "validating ISO 19115 XML here is not supported yet")
	})
}

// requireCFTC checks the verdicts on the corpus's CFTC catalog: one record per dataset, in
// order, with the catalog's identifiers.
func requireCFTC(t *testing.T, data []byte, res ValidationResult) {
	t.Helper()
	var catalog struct {
		Dataset []struct {
			Identifier string `json:"identifier"`
		} `json:"dataset"`
	}
	require.NoError(t, json.Unmarshal(data, &catalog))
	require.Len(t, res.Records, len(catalog.Dataset))
	valid := true
	for i, rec := range res.Records {
		require.Equal(t, i, rec.Index)
		require.Equal(t, catalog.Dataset[i].Identifier, rec.Identifier)
		require.Equal(t, len(rec.Errors) == 0, rec.Valid)
		valid = valid && rec.Valid
	}
	require.Equal(t, valid, res.Valid)
	require.True(t, res.Valid, "the CFTC catalog is a valid federal catalog: %+v", res.Records)
}

func TestValidateURL(t *testing.T) {
	t.Parallel()
	b := setup(t)
	post := func(t *testing.T, url string) response {
		t.Helper()
		return b.write(t, http.MethodPost, "/api/v1/validate", map[string]any{"schema_type": "dcatus1.1: federal", "url": url})
	}

	t.Run("catalog", func(t *testing.T) {
		t.Parallel()
		file := corpustest.Path(t, "dcatus/datagov-cftc.data.json")
		srv := corpustest.NewServer(t)
		srv.Serve(file)
		r := post(t, srv.URL())
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		requireCFTC(t, data, decode[ValidationResult](t, r))
	})
	t.Run("HTTP 404", func(t *testing.T) {
		t.Parallel()
		srv := corpustest.NewServer(t)
		srv.Fail(http.StatusNotFound)
		r := post(t, srv.URL())
		require.Equal(t, http.StatusUnprocessableEntity, r.status, "body: %s", r.body)
		res := decode[ValidationResult](t, r)
		require.False(t, res.Valid)
		require.NotNil(t, res.Records)
		require.Equal(t, "the document could not be downloaded: GET "+srv.URL()+": HTTP 404 Not Found", res.Error)
		require.Equal(t, res.Error, r.object(t)["error"], "an error body like every other")
	})
	t.Run("not JSON", func(t *testing.T) {
		t.Parallel()
		srv := corpustest.NewServer(t)
		srv.Serve(corpustest.Path(t, "dcatus/INVALID-not-json.data.json"))
		r := post(t, srv.URL())
		require.Equal(t, http.StatusUnprocessableEntity, r.status, "body: %s", r.body)
		res := decode[ValidationResult](t, r)
		require.True(t, strings.HasPrefix(res.Error, "the document is not a readable DCAT-US catalog: line 3, column 5: "), res.Error)
	})
	t.Run("JSON but not a catalog", func(t *testing.T) {
		t.Parallel()
		srv := corpustest.NewServer(t)
		srv.Serve(corpustest.Path(t, "dcatus/INVALID-json-but-not-catalog.json"))
		r := post(t, srv.URL())
		require.Equal(t, http.StatusUnprocessableEntity, r.status, "body: %s", r.body)
		require.Contains(t, decode[ValidationResult](t, r).Error, "not a DCAT-US catalog")
	})
	t.Run("no server", func(t *testing.T) {
		t.Parallel()
		srv := corpustest.NewServer(t)
		url := srv.URL()
		srv.Close()
		r := post(t, url)
		require.Equal(t, http.StatusUnprocessableEntity, r.status, "body: %s", r.body)
		require.Contains(t, decode[ValidationResult](t, r).Error, "the document could not be downloaded: GET "+url)
	})
}

func TestValidateBodyTooLarge(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *Config, _ *Deps) { c.MaxBodyBytes = 1024 })
	r := b.write(t, http.MethodPost, "/api/v1/validate", validateBody(strings.Repeat("x", 2048)))
	requireError(t, r, http.StatusRequestEntityTooLarge, "larger than 1024 bytes")
	ok := b.write(t, http.MethodPost, "/api/v1/validate", validateBody(federalDataset("small")))
	require.Equal(t, http.StatusOK, ok.status, "body: %s", ok.body)
}

// TestValidateRetryBudget: the validate endpoint gives a failing URL at most 20 s of retries,
// and keeps a shorter budget it is given.
func TestValidateRetryBudget(t *testing.T) {
	t.Parallel()
	require.Equal(t, 20*time.Second, setup(t, func(_ *Config, d *Deps) { d.Fetch = fetch.Config{} }).api.fetch.RetryBudget)
	require.Equal(t, 5*time.Second, setup(t, func(_ *Config, d *Deps) {
		d.Fetch = fetch.Config{RetryBudget: 5 * time.Second}
	}).api.fetch.RetryBudget)
}

// TestValidateBounded: the answer for a catalog of any size holds at most ValidateMaxRecords
// verdicts (the rest of the document is not read, and it says so), and a verdict at most
// maxRecordProblems errors and one naming how many more there were. Counted, not timed.
func TestValidateBounded(t *testing.T) {
	t.Parallel()
	require.Equal(t, 10_000, setup(t).api.cfg.ValidateMaxRecords, "the default")
	const limit = 50
	b := setup(t, func(c *Config, _ *Deps) { c.ValidateMaxRecords = limit })
	catalog := func(n int) []byte {
		var sb strings.Builder
		sb.WriteString(`{"dataset": [`)
		for i := range n {
			if i > 0 {
				sb.WriteString(",")
			}
			fmt.Fprintf(&sb, `{"identifier": "tiny-%d"}`, i)
		}
		sb.WriteString(`]}`)
		return []byte(sb.String())
	}
	served := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served++
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(catalog(20_000))
	}))
	t.Cleanup(srv.Close)

	r := b.write(t, http.MethodPost, "/api/v1/validate", map[string]any{"schema_type": "dcatus1.1: federal", "url": srv.URL})
	require.Equal(t, http.StatusOK, r.status, "body: %.500s", r.body)
	require.Equal(t, 1, served)
	requireSchema(t, "ValidationResult", r.object(t))
	res := decode[ValidationResult](t, r)
	require.True(t, res.Truncated)
	require.False(t, res.Valid, "records past the cap were not checked")
	require.Len(t, res.Records, limit, "20,000 datasets, %d verdicts", limit)
	require.Equal(t, limit-1, res.Records[limit-1].Index)
	require.Less(t, len(r.body), limit*2000, "the answer's size follows the cap, not the catalog")

	for _, n := range []int{limit - 1, limit} { // at the cap: everything checked, not truncated
		r = b.write(t, http.MethodPost, "/api/v1/validate", validateBody(string(catalog(n))))
		res = decode[ValidationResult](t, r)
		require.False(t, res.Truncated, "%d datasets", n)
		require.Len(t, res.Records, n)
	}
	ok := map[string]any{"dataset": []any{federalDataset("a"), federalDataset("b")}}
	res = decode[ValidationResult](t, b.write(t, http.MethodPost, "/api/v1/validate", validateBody(ok)))
	require.Equal(t, ValidationResult{Valid: true, Records: []RecordResult{
		{Index: 0, Identifier: "a", Valid: true, Errors: []Problem{}},
		{Index: 1, Identifier: "b", Valid: true, Errors: []Problem{}}}}, res)

	ds := federalDataset("many-problems")
	var dists []any
	for range 3 * maxRecordProblems {
		dists = append(dists, map[string]any{"@type": "dcat:Distribution", "mediaType": "not a media type",
			"downloadURL": "not a url"})
	}
	ds["distribution"] = dists
	res = decode[ValidationResult](t, b.write(t, http.MethodPost, "/api/v1/validate", validateBody(ds)))
	require.Len(t, res.Records, 1)
	errs := res.Records[0].Errors
	require.Equal(t, maxRecordProblems+1, len(errs))
	require.Regexp(t, `^\d+ more errors not listed \(at most 100 are\)$`, errs[maxRecordProblems].Message)
}

// TestValidateDCATUS3 checks POST /api/v1/validate with schema_type dcatus3.0: every record of a
// 3.0 catalog (nested catalogs and services included) against its record type's schema, with
// the harvest's verdicts on the corpus files and H2.0's warnings; a 1.1 catalog is a 422.
// pastedDCATUS3 validates the corpus file dcatus/<file> as pasted DCAT-US 3.0.
func (b *testBundle) pastedDCATUS3(t *testing.T, file string) (response, ValidationResult) {
	t.Helper()
	data, err := os.ReadFile(corpustest.Path(t, "dcatus/"+file))
	require.NoError(t, err)
	r := b.write(t, http.MethodPost, "/api/v1/validate", map[string]any{"schema_type": "dcatus3.0", "json": string(data)})
	if r.status == http.StatusOK {
		requireSchema(t, "ValidationResult", r.object(t))
	}
	return r, decode[ValidationResult](t, r)
}

// verdict is one record's identifier, record type and validity.
type verdict struct {
	identifier, recordType string
	valid                  bool
}

func verdicts(res ValidationResult) []verdict {
	var out []verdict
	for _, r := range res.Records {
		out = append(out, verdict{r.Identifier, r.RecordType, r.Valid})
	}
	return out
}

func TestValidateDCATUS3(t *testing.T) {
	t.Parallel()
	b := setup(t)
	pasted := b.pastedDCATUS3
	t.Run("catalog", func(t *testing.T) {
		t.Parallel()
		r, res := pasted(t, "dcatus3-catalog.json")
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		require.True(t, res.Valid, "body: %s", r.body)
		require.Len(t, res.Records, 4)
	})
	t.Run("nested catalog", func(t *testing.T) {
		t.Parallel()
		_, res := pasted(t, "dcatus3-nested-catalog.json")
		require.True(t, res.Valid)
		require.ElementsMatch(t, []verdict{{"https://example.gov/datasets/nested-parent", "dataset", true},
			{"https://example.gov/datasets/nested-child", "dataset", true},
			{"https://example.gov/datasets/nested-grandchild", "dataset", true}}, verdicts(res))
	})
	t.Run("services", func(t *testing.T) {
		t.Parallel()
		_, res := pasted(t, "dcatus3-with-services.json")
		require.ElementsMatch(t, []verdict{{"https://example.gov/datasets/one", "dataset", true},
			{"https://example.gov/services/one", "dataservice", true},
			{"https://example.gov/services/two", "dataservice", true}}, verdicts(res))
	})
	t.Run("invalid record", func(t *testing.T) {
		t.Parallel()
		_, res := pasted(t, "INVALID-dcatus3-missing-contactpoint.json")
		require.False(t, res.Valid)
		require.Contains(t, verdicts(res), verdict{"https://example.gov/datasets/valid", "dataset", true})
		var bad []RecordResult
		for _, r := range res.Records {
			if !r.Valid {
				bad = append(bad, r)
			}
		}
		require.Len(t, bad, 1)
		require.Equal(t, []Problem{{Path: "$", Message: "'contactPoint' is a required property"}}, bad[0].Errors)
		require.NotEmpty(t, bad[0].Path)
	})
	t.Run("warnings", func(t *testing.T) {
		t.Parallel()
		_, res := pasted(t, "dcatus3-warning.json")
		require.True(t, res.Valid, "warnings never make a record invalid")
		warned := map[string][]Problem{}
		for _, r := range res.Records {
			if len(r.Warnings) > 0 {
				warned[r.Identifier] = r.Warnings
			}
		}
		require.Len(t, warned, 2)
		require.Contains(t, warned["https://example.gov/datasets/warning-two"],
			Problem{Path: "$.distribution[0].mediaType", Message: `"notareal/type" is not an IANA media type`})
	})
	t.Run("one dataset", func(t *testing.T) {
		t.Parallel()
		r := b.write(t, http.MethodPost, "/api/v1/validate", map[string]any{"schema_type": "dcatus3.0",
			"json": map[string]any{"@type": "dcat:Dataset", "identifier": "x", "title": "T"}})
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		res := decode[ValidationResult](t, r)
		require.Len(t, res.Records, 1)
		require.Equal(t, "x", res.Records[0].Identifier)
		require.False(t, res.Records[0].Valid)
		require.NotEmpty(t, res.Records[0].Errors)
	})
}

func TestValidateDCATUS3ByURL(t *testing.T) {
	t.Parallel()
	b := setup(t)
	t.Run("DCAT-US 1.1 catalog by url", func(t *testing.T) {
		t.Parallel()
		srv := corpustest.NewServer(t)
		srv.Serve(corpustest.Path(t, "dcatus/datagov-cftc.data.json"))
		r := b.write(t, http.MethodPost, "/api/v1/validate", map[string]any{"schema_type": "dcatus3.0", "url": srv.URL()})
		require.Equal(t, http.StatusUnprocessableEntity, r.status, "body: %s", r.body)
		require.Contains(t, decode[ValidationResult](t, r).Error, "wrong schema type")
	})
	t.Run("catalog by url", func(t *testing.T) {
		t.Parallel()
		srv := corpustest.NewServer(t)
		srv.Serve(corpustest.Path(t, "dcatus/dcatus3-nested-catalog.json"))
		r := b.write(t, http.MethodPost, "/api/v1/validate", map[string]any{"schema_type": "dcatus3.0", "url": srv.URL()})
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		require.Len(t, decode[ValidationResult](t, r).Records, 3)
	})
}
