package api

import (
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// These tests hold the server to its OpenAPI document where a schemathesis run found them
// apart: bounds of page, blank names, null members, empty, unknown and repeated query
// parameters, the case of source URLs and the Content-Type of request bodies.

// docOp is an operation of the document with its route's pattern ("METHOD /path").
type docOp struct {
	pattern string
	op      map[string]any
}

// docOps returns the document's operations in route table order.
func docOps(t *testing.T, b *testBundle) []docOp {
	t.Helper()
	ops := operations(t, loadOpenAPI(t))
	var out []docOp
	for _, rt := range documentedRoutes(b.api.table) {
		out = append(out, docOp{rt.pattern, ops[rt.pattern]})
	}
	return out
}

// queryParams returns an operation's query parameters by name, resolved.
func queryParams(t *testing.T, op map[string]any) map[string]map[string]any {
	t.Helper()
	doc := loadOpenAPI(t)
	params := map[string]map[string]any{}
	for _, p := range asSlice(op["parameters"]) {
		if param := resolve(t, doc, p); param["in"] == "query" {
			params[param["name"].(string)] = param
		}
	}
	return params
}

// schemaAt returns the schema at a path of the document's components, e.g. "parameters", "Page", "schema".
func schemaAt(t *testing.T, path ...string) map[string]any {
	t.Helper()
	var cur any = loadOpenAPI(t)["components"]
	for _, p := range path {
		cur = cur.(map[string]any)[p]
	}
	return cur.(map[string]any)
}

// listPaths are the paths of the six list endpoints, each with a job that exists.
func listPaths(t *testing.T, b *testBundle) []string {
	t.Helper()
	job := b.newJob(t, b.newSource(t, "").ID, harvest.JobHarvest)
	return []string{"/api/v1/organizations", "/api/v1/harvest_sources", "/api/v1/harvest_jobs",
		"/api/v1/harvest_jobs/" + job.ID + "/record_errors", "/api/v1/harvest_jobs/" + job.ID + "/job_errors",
		"/api/v1/cross_source_duplicates"}
}

func TestPagingBoundsMatchDocument(t *testing.T) {
	t.Parallel()
	b := setup(t)
	page := schemaAt(t, "parameters", "Page", "schema")
	require.Equal(t, map[string]any{"type": "integer", "minimum": 1.0, "maximum": float64(maxPage), "default": 1.0}, page)
	perPage := schemaAt(t, "parameters", "PerPage", "schema")
	require.Equal(t, map[string]any{"type": "integer", "minimum": 1.0, "maximum": float64(maxPerPage),
		"default": float64(defaultPerPage)}, perPage)
	for _, list := range []string{"OrganizationList", "HarvestSourceList", "HarvestJobList", "RecordErrorList", "JobErrorList"} {
		props := schemaAt(t, "schemas", list, "properties")
		require.Equal(t, page["maximum"], props["page"].(map[string]any)["maximum"], list)
		require.Equal(t, perPage["maximum"], props["per_page"].(map[string]any)["maximum"], list)
	}

	for _, path := range listPaths(t, b) {
		r := b.get(t, path+"?page=2147483647&per_page=100")
		require.Equal(t, http.StatusOK, r.status, "%s: the documented maximum: %s", path, r.body)
		require.Equal(t, 2147483647.0, r.object(t)["page"])
		for _, q := range []string{"page=2147483648", "page=9223372036854775808", "page=0"} {
			f := requireFields(t, b.get(t, path+"?"+q), "page")
			require.Equal(t, "must be an integer from 1 to 2147483647", f["page"], "%s?%s", path, q)
		}
		for _, q := range []string{"per_page=101", "per_page=0"} {
			f := requireFields(t, b.get(t, path+"?"+q), "per_page")
			require.Equal(t, "must be an integer from 1 to 100", f["per_page"], "%s?%s", path, q)
		}
	}
}

// namePatterns are the document's patterns for names, by schema.
func namePatterns(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, schema := range []string{"OrganizationInput", "HarvestSourceInput"} {
		name := schemaAt(t, "schemas", schema, "properties", "name")
		require.Equal(t, 1.0, name["minLength"], schema)
		pattern, _ := name["pattern"].(string)
		require.NotEmpty(t, pattern, "%s.name has a pattern", schema)
		out[schema] = pattern
	}
	return out
}

// TestNamePatternIsTrimSpace checks, for every code point, that the document's name pattern
// says what the server does: a name is blank when strings.TrimSpace leaves nothing of it. It
// checks the pattern as an ECMA 262 regex (the dialect of OpenAPI 3.0; regexp2) and as an RE2
// one (Go's regexp); the pattern avoids \s and \S, whose sets differ between dialects (ECMA's
// holds U+FEFF but not U+0085, Python's holds U+001C to U+001F).
func TestNamePatternIsTrimSpace(t *testing.T) {
	t.Parallel()
	patterns := namePatterns(t)
	require.Equal(t, patterns["OrganizationInput"], patterns["HarvestSourceInput"], "one rule for names")
	pattern := patterns["OrganizationInput"]
	require.NotRegexp(t, `\\[sSwWdDbB]`, pattern, "no class shorthands")
	re2 := regexp.MustCompile(pattern)
	ecma := regexp2.MustCompile(pattern, regexp2.ECMAScript)
	check := func(s string) {
		blank := strings.TrimSpace(s) == ""
		if re2.MatchString(s) == blank {
			t.Fatalf("RE2: %+q matches %v, but TrimSpace leaves %+q", s, !blank, strings.TrimSpace(s))
		}
		if ok, err := ecma.MatchString(s); err != nil || ok == blank {
			t.Fatalf("ECMA: %+q matches %v (%v), but TrimSpace leaves %+q", s, ok, err, strings.TrimSpace(s))
		}
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if utf8.ValidRune(r) {
			check(string(r))
		}
	}
	for _, s := range []string{"\u00a0", "\n", " \t\r\n", "\u3000\u2028", " a ", "\u00a0x\u00a0", "\ufeff", "\u200b", "\u0085", "\x1c"} {
		check(s)
	}
}

// TestBlankNames sends names to the server and checks each verdict against the document's.
func TestBlankNames(t *testing.T) {
	t.Parallel()
	b := setup(t)
	patterns := namePatterns(t)
	names := []string{"\n", "\u00a0", " \u00a0\t", "\u0085", "\u2028", "\u3000", "\u200a", // blank
		"\ufeff", "\u200b", "\x1c", " x\u00a0", "Org"} // not blank
	for _, name := range names {
		want := regexp.MustCompile(patterns["OrganizationInput"]).MatchString(name)
		r := b.write(t, http.MethodPost, "/api/v1/organizations", map[string]any{"name": name, "slug": "o-" + uuid.NewString()})
		if want {
			require.Equal(t, http.StatusCreated, r.status, "organization %+q: %s", name, r.body)
			require.Equal(t, strings.TrimSpace(name), r.object(t)["name"], "trimmed")
		} else {
			require.Equal(t, "required", requireFields(t, r, "name")["name"], "organization %+q", name)
		}

		want = regexp.MustCompile(patterns["HarvestSourceInput"]).MatchString(name)
		body := validSource("https://example.gov/" + uuid.NewString() + "/data.json")
		body["name"] = name
		r = b.write(t, http.MethodPost, "/api/v1/harvest_sources", body)
		if want {
			require.Equal(t, http.StatusCreated, r.status, "source %+q: %s", name, r.body)
		} else {
			require.Equal(t, "required", requireFields(t, r, "name")["name"], "source %+q", name)
		}
	}
}

// inputTypes are the Go types that decode the document's request body schemas.
var inputTypes = map[string]reflect.Type{
	"OrganizationInput":  reflect.TypeFor[organizationInput](),
	"HarvestSourceInput": reflect.TypeFor[sourceInput](),
	"JobInput":           reflect.TypeFor[jobInput](),
	"ValidateInput":      reflect.TypeFor[ValidateInput](),
	"ReplayInput":        reflect.TypeFor[replayInput](),
}

// bodySchema returns the name of an operation's request body schema, or "".
func bodySchema(op map[string]any) string {
	rb, _ := op["requestBody"].(map[string]any)
	if rb == nil {
		return ""
	}
	ref := rb["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)["$ref"].(string)
	return strings.TrimPrefix(ref, "#/components/schemas/")
}

// docNullable says whether the document lets a property be null: nullable, or no type at all.
func docNullable(prop map[string]any) bool {
	return prop["nullable"] == true || prop["type"] == nil
}

func TestNullableMembersMatchDocument(t *testing.T) {
	t.Parallel()
	for name, typ := range inputTypes {
		props := schemaAt(t, "schemas", name, "properties")
		fields := jsonFields(typ)
		require.ElementsMatch(t, slices.Collect(maps.Keys(props)), slices.Collect(maps.Keys(fields)), name)
		for member, prop := range props {
			require.Equal(t, docNullable(prop.(map[string]any)), nullable(fields[member]), "%s.%s", name, member)
		}
	}
}

// TestNullMembers sends null for each member of each request body and checks the answer
// against the document: 422 "must not be null" exactly for the members it does not let be null.
func TestNullMembers(t *testing.T) {
	t.Parallel()
	b := setup(t)
	org := b.newOrganization(t)
	src := b.newSource(t, "")
	// base returns a body that the operation accepts, with path ids filled in.
	base := map[string]func() (string, map[string]any){
		"POST /api/v1/organizations": func() (string, map[string]any) {
			return "/api/v1/organizations", map[string]any{"name": "Org", "slug": "o-" + uuid.NewString()}
		},
		"PUT /api/v1/organizations/{id}": func() (string, map[string]any) {
			return "/api/v1/organizations/" + org.ID, map[string]any{"name": "Org", "slug": "o-" + uuid.NewString()}
		},
		"POST /api/v1/harvest_sources": func() (string, map[string]any) {
			return "/api/v1/harvest_sources", validSource("https://example.gov/" + uuid.NewString())
		},
		"PUT /api/v1/harvest_sources/{id}": func() (string, map[string]any) {
			return "/api/v1/harvest_sources/" + src.ID, validSource("https://example.gov/" + uuid.NewString())
		},
		"POST /api/v1/harvest_sources/{id}/jobs": func() (string, map[string]any) {
			return "/api/v1/harvest_sources/" + b.newSource(t, "").ID + "/jobs", map[string]any{"job_type": "validate"}
		},
		"POST /api/v1/validate": func() (string, map[string]any) {
			return "/api/v1/validate", validateBody(federalDataset("A"))
		},
		"POST /api/v1/harvest_jobs/{id}/replay": func() (string, map[string]any) {
			return "/api/v1/harvest_jobs/" + uuid.NewString() + "/replay", map[string]any{"stage": "sync"}
		},
	}
	for _, o := range docOps(t, b) {
		schema := bodySchema(o.op)
		if schema == "" {
			continue
		}
		require.Contains(t, inputTypes, schema, o.pattern)
		require.Contains(t, base, o.pattern, "a base body for every operation with a body")
		method, _, _ := strings.Cut(o.pattern, " ")
		for member, prop := range schemaAt(t, "schemas", schema, "properties") {
			path, body := base[o.pattern]()
			body[member] = nil
			r := b.write(t, method, path, body)
			if docNullable(prop.(map[string]any)) {
				require.NotContains(t, string(r.body), "must not be null", "%s %s: null is documented", o.pattern, member)
				continue
			}
			require.Equal(t, http.StatusUnprocessableEntity, r.status, "%s %s: %s", o.pattern, member, r.body)
			fields, _ := r.object(t)["fields"].(map[string]any)
			require.Contains(t, fields[member], "must not be null", "%s %s", o.pattern, member)
		}
	}

	t.Run("omitted members take their defaults", func(t *testing.T) {
		t.Parallel()
		for _, method := range []string{http.MethodPost, http.MethodPut} {
			path := "/api/v1/harvest_sources"
			if method == http.MethodPut {
				path += "/" + b.newSource(t, "").ID
			}
			body := validSource("https://example.gov/" + uuid.NewString())
			body["organization_id"] = nil
			body["notification_emails"] = nil
			r := b.write(t, method, path, body)
			require.Less(t, r.status, 300, "%s: %s", method, r.body)
			got := r.object(t)
			require.Equal(t, []any{"document", "manual", "on_error", nil, []any{}}, []any{got["source_type"],
				got["frequency"], got["notification_frequency"], got["organization_id"], got["notification_emails"]})

			body["frequency"], body["notification_frequency"], body["source_type"] = nil, nil, nil
			f := requireFields(t, b.write(t, method, path, body), "frequency", "notification_frequency", "source_type")
			require.Equal(t, "must not be null: leave the member out for its default", f["frequency"])
		}
		src := b.newSource(t, "")
		r := b.write(t, http.MethodPost, "/api/v1/harvest_sources/"+src.ID+"/jobs", map[string]any{})
		require.Equal(t, http.StatusAccepted, r.status, "body: %s", r.body)
		require.Equal(t, "harvest", r.object(t)["job_type"])
		requireFields(t, b.write(t, http.MethodPost, "/api/v1/harvest_sources/"+b.newSource(t, "").ID+"/jobs",
			`{"job_type": null}`), "job_type")
	})
}

// TestQueryParameters checks every operation's query against the document: each declared
// parameter is known (a good value passes) and refused when empty or repeated; any other
// parameter is refused where the operation declares any, and ignored where it declares none.
func TestQueryParameters(t *testing.T) {
	t.Parallel()
	b := setup(t)
	good := map[string]string{"page": "1", "per_page": "5", "status": "error", "job_type": "clear",
		"format": "json", "source_id": "x", "organization_id": "x", "q": "water", "organization": "x", "keyword": "x",
		"job_id": "x", "publisher": "x", "theme": "x", "exclude_organization": "x", "exclude_keyword": "x",
		"exclude_format": "x", "exclude_publisher": "x", "exclude_theme": "x", "bbox": "-10,20,30,40", "sort": "title"}
	withQuery := 0
	for _, o := range docOps(t, b) {
		method, path := routePath(o.pattern)
		params := queryParams(t, o.op)
		send := func(query string) response {
			if method == http.MethodGet {
				return b.get(t, path+"?"+query)
			}
			return b.write(t, method, path+"?"+query, nil)
		}
		if len(params) == 0 {
			if method == http.MethodGet && o.pattern != "GET /metrics" {
				r := send("bogus=1&bogus=2&page=")
				require.NotEqual(t, http.StatusUnprocessableEntity, r.status, "%s takes no query: %s", o.pattern, r.body)
				require.NotContains(t, o.op["responses"], "422", o.pattern)
			}
			continue
		}
		withQuery++
		require.Contains(t, o.op["responses"], "422", o.pattern)
		for name, param := range params {
			schema := param["schema"].(map[string]any)
			if schema["type"] == "string" && schema["enum"] == nil {
				require.Equal(t, 1.0, schema["minLength"], "%s %s: empty is not a value", o.pattern, name)
			}
			value, ok := good[name]
			require.True(t, ok, "a good value of %s", name)
			r := send(name + "=" + value)
			require.NotEqual(t, http.StatusUnprocessableEntity, r.status, "%s ?%s=%s: %s", o.pattern, name, value, r.body)

			for _, q := range []string{name + "=", name} {
				f := requireFields(t, send(q), name)
				require.Equal(t, "must not be empty: leave the parameter out for its default", f[name], "%s ?%s", o.pattern, q)
			}
			if schema["type"] == "array" { // a repeatable filter (explode): each value must not be empty
				f := requireFields(t, send(name+"="+value+"&"+name+"="), name)
				require.Equal(t, "must not be empty: leave the parameter out for its default", f[name], "%s ?%s", o.pattern, name)
				continue
			}
			for _, q := range []string{name + "=" + value + "&" + name + "=" + value, name + "=" + value + "&" + name + "="} {
				f := requireFields(t, send(q), name)
				require.Equal(t, "repeated: send the query parameter once", f[name], "%s ?%s", o.pattern, q)
			}
		}
		f := requireFields(t, send("bogus=1&Page=2&page=1"), "bogus", "Page")
		require.Contains(t, f["bogus"], "unknown query parameter: this operation takes ", o.pattern)
		for name := range params {
			require.Contains(t, f["bogus"], name, "the message lists the operation's parameters")
		}
		requireFields(t, send("page=%zz&x%zz=1"), "page", "x%zz")
	}
	require.Equal(t, http.StatusOK, b.get(t, "/api/v1/harvest_jobs?&page=1&").status, "empty pairs are nothing")
	require.Equal(t, 11, withQuery, "the six list operations, search, a source's broken links and the three quality histories")
}

// TestEmptyQueryValues names each empty parameter of a list, with the good ones beside it.
func TestEmptyQueryValues(t *testing.T) {
	t.Parallel()
	b := setup(t)
	job := b.newJob(t, b.newSource(t, "").ID, harvest.JobHarvest)
	for path, query := range map[string]string{
		"/api/v1/organizations":                             "page=&per_page=",
		"/api/v1/harvest_sources":                           "organization_id=&per_page=&page=",
		"/api/v1/harvest_jobs":                              "source_id=&status=&job_type=&page=&per_page=",
		"/api/v1/harvest_jobs/" + job.ID + "/record_errors": "format=&page=&per_page=",
		"/api/v1/harvest_jobs/" + job.ID + "/job_errors":    "per_page=&page=",
		"/api/v1/cross_source_duplicates":                   "source_id=&organization_id=&job_id=&page=&per_page=",
	} {
		var names []string
		for pair := range strings.SplitSeq(query, "&") {
			names = append(names, strings.TrimSuffix(pair, "="))
		}
		f := requireFields(t, b.get(t, path+"?"+query), names...)
		for _, name := range names {
			require.Contains(t, f[name], "must not be empty", path)
		}
	}
}

// TestContentType checks every write against the document: the operations with a request body
// answer 415 for a body that is not application/json and document it; the others do neither.
func TestContentType(t *testing.T) {
	t.Parallel()
	b := setup(t)
	withBody := 0
	for _, o := range docOps(t, b) {
		method, path := routePath(o.pattern)
		if method == http.MethodGet {
			continue
		}
		responses := o.op["responses"].(map[string]any)
		if bodySchema(o.op) == "" {
			require.NotContains(t, responses, "415", o.pattern)
			r := b.request(t, method, path, "ignored", "X-API-Key: "+testKey, "Content-Type: text/plain")
			require.NotEqual(t, http.StatusUnsupportedMediaType, r.status, "%s reads no body: %s", o.pattern, r.body)
			continue
		}
		withBody++
		require.Equal(t, map[string]any{"$ref": "#/components/responses/UnsupportedMediaType"}, responses["415"], o.pattern)
		content := o.op["requestBody"].(map[string]any)["content"].(map[string]any)
		require.Equal(t, []string{"application/json"}, slices.Collect(maps.Keys(content)), o.pattern)
		for _, ct := range []string{"text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded",
			"application/json-patch+json", "application/jsonx", "json", ""} {
			r := b.request(t, method, path, `{}`, "X-API-Key: "+testKey, "Content-Type: "+ct)
			requireError(t, r, http.StatusUnsupportedMediaType, fmt.Sprintf("unsupported Content-Type %q: send the body as application/json", ct))
		}
		for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8", "application/json;"} {
			r := b.request(t, method, path, `{}`, "X-API-Key: "+testKey, "Content-Type: "+ct)
			require.NotEqual(t, http.StatusUnsupportedMediaType, r.status, "%s %s: %s", o.pattern, ct, r.body)
		}
		r := b.request(t, method, path, `{}`, "X-API-Key: "+testKey) // no Content-Type
		require.NotEqual(t, http.StatusUnsupportedMediaType, r.status, "%s: %s", o.pattern, r.body)
		r = b.request(t, method, path, nil, "X-API-Key: "+testKey, "Content-Type: text/plain") // no body
		require.NotEqual(t, http.StatusUnsupportedMediaType, r.status, "%s: %s", o.pattern, r.body)
		requireError(t, b.request(t, method, path, `{}`, "Content-Type: text/plain"), http.StatusUnauthorized, "missing API key")
	}
	require.Equal(t, 7, withBody)

	src := b.newSource(t, "")
	r := b.request(t, http.MethodPost, "/api/v1/harvest_sources/"+src.ID+"/jobs", `{"job_type": "validate"}`,
		"X-API-Key: "+testKey, "Content-Type: text/plain")
	requireError(t, r, http.StatusUnsupportedMediaType, "unsupported Content-Type")
	r = b.request(t, http.MethodPost, "/api/v1/harvest_sources/"+src.ID+"/jobs", `{"job_type": "validate"}`,
		"X-API-Key: "+testKey, "Content-Type: application/json; charset=utf-8")
	require.Equal(t, http.StatusAccepted, r.status, "body: %s", r.body)
}

// TestMalformedTextBothBackends: a NUL or bytes that are not UTF-8 in a path id, a query
// parameter or a body member are refused at the edge with the same 404 or 422 on SQLite and on
// Postgres (which would refuse the bytes with a 500), for anonymous reads as for writes; an id
// in upper case finds its row on both.
func TestMalformedTextBothBackends(t *testing.T) {
	t.Parallel()
	backends := map[string]*testBundle{
		"sqlite":   setup(t),
		"postgres": setup(t, func(_ *Config, d *Deps) { d.Store = dbtest.Store(t) }),
	}
	type want struct {
		status int
		field  string // the 422's field, or "" for a 404
	}
	reads := map[string]want{
		"/api/v1/organizations/%00":                   {http.StatusNotFound, ""},
		"/api/v1/organizations/%FFa":                  {http.StatusNotFound, ""},
		"/api/v1/harvest_sources/%00":                 {http.StatusNotFound, ""},
		"/api/v1/harvest_sources/a%C3":                {http.StatusNotFound, ""},
		"/api/v1/harvest_jobs/%00":                    {http.StatusNotFound, ""},
		"/api/v1/harvest_jobs/%FF":                    {http.StatusNotFound, ""},
		"/api/v1/harvest_jobs/%00/record_errors":      {http.StatusNotFound, ""},
		"/api/v1/harvest_jobs/%FF/job_errors":         {http.StatusNotFound, ""},
		"/api/v1/harvest_records/%00":                 {http.StatusNotFound, ""},
		"/api/v1/harvest_jobs?source_id=%00":          {http.StatusUnprocessableEntity, "source_id"},
		"/api/v1/harvest_jobs?source_id=%FF":          {http.StatusUnprocessableEntity, "source_id"},
		"/api/v1/harvest_sources?organization_id=%00": {http.StatusUnprocessableEntity, "organization_id"},
		"/api/v1/harvest_jobs?status=%FF":             {http.StatusUnprocessableEntity, "status"},
		"/api/v1/search?q=%00":                        {http.StatusUnprocessableEntity, "q"},
		"/api/v1/harvest_jobs?%00=1":                  {http.StatusUnprocessableEntity, "%00"},
	}
	type write struct {
		method, path, body string
		want
	}
	writes := []write{
		{http.MethodPost, "/api/v1/harvest_sources/%00/jobs", "", want{http.StatusNotFound, ""}},
		{http.MethodPost, "/api/v1/harvest_jobs/%FF/cancel", "", want{http.StatusNotFound, ""}},
		{http.MethodDelete, "/api/v1/organizations/%00", "", want{http.StatusNotFound, ""}},
		{http.MethodPut, "/api/v1/harvest_sources/%00", `{}`, want{http.StatusNotFound, ""}},
		{http.MethodPost, "/api/v1/organizations", `{"name": "a\u0000b", "slug": "ok"}`, want{http.StatusUnprocessableEntity, "name"}},
		{http.MethodPost, "/api/v1/harvest_sources", `{"name": "a\u0000", "url": "https://data.example.gov/data.json",
			"schema_type": "dcatus1.1: federal"}`, want{http.StatusUnprocessableEntity, "name"}},
		{http.MethodPost, "/api/v1/harvest_sources", `{"name": "a", "url": "https://data.example.gov/data.json",
			"schema_type": "dcatus1.1: federal", "organization_id": "\u0000"}`, want{http.StatusUnprocessableEntity, "organization_id"}},
	}
	for name, b := range backends {
		check := func(what string, r response, w want) {
			t.Helper()
			require.Equal(t, w.status, r.status, "%s %s: %s", name, what, r.body)
			if w.field != "" {
				requireFields(t, r, w.field)
			}
		}
		for path, w := range reads {
			check(path, b.get(t, path), w)
		}
		for _, w := range writes {
			check(w.method+" "+w.path, b.write(t, w.method, w.path, w.body), w.want)
		}
		src, job := b.newHarvestJob(t)
		r := b.get(t, "/api/v1/harvest_jobs/"+strings.ToUpper(job.ID))
		require.Equal(t, http.StatusOK, r.status, "%s: %s", name, r.body)
		require.Equal(t, job.ID, r.object(t)["id"])
		r = b.get(t, "/api/v1/harvest_jobs?source_id="+strings.ToUpper(src.ID))
		require.Equal(t, 1.0, r.object(t)["total"], "%s: %s", name, r.body)
	}
}
