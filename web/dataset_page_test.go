package web

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/feeds"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/internal/testenv"
	"github.com/harvester-dev/harvester/store"
)

// publicDataset is a live dataset seeded for the public page's tests, with its record.
type publicDataset struct {
	org  *store.Organization
	src  *store.Source
	ds   *store.Dataset
	dcat map[string]any
}

// seedPublic stores one live dataset of an organization's source with record dcat.
func seedPublic(t *testing.T, st store.Store, dcat []byte) *publicDataset {
	t.Helper()
	ctx := t.Context()
	org, err := st.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: "Agency " + uuid.NewString()[:6],
		Slug: "agency-" + uuid.NewString()[:8]})
	require.NoError(t, err)
	src, err := st.SourceInsert(ctx, &store.SourceInsertParams{OrganizationID: org.ID, Name: "Agency <b>catalog</b>",
		URL: "https://example.gov/" + uuid.NewString() + "/data.json", SourceType: harvest.SourceDocument,
		SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	var rec map[string]any
	require.NoError(t, json.Unmarshal(dcat, &rec))
	ident, _ := rec["identifier"].(string)
	ident = strings.TrimSpace(ident)
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	r, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: src.ID,
		Identifier: ident, Action: harvest.ActionCreate, SourceHash: "h", SourceRaw: string(dcat), SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	ds, err := st.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: ident,
		Slug: "ds-" + uuid.NewString()[:8], DCAT: dcat, RecordID: r.ID})
	require.NoError(t, err)
	return &publicDataset{org: org, src: src, ds: ds, dcat: rec}
}

// corpusRecord is the first dataset of a corpus data.json.
func corpusRecord(t *testing.T, file string) []byte {
	t.Helper()
	body, err := os.ReadFile(corpustest.Path(t, file))
	require.NoError(t, err)
	var cat struct{ Dataset []json.RawMessage }
	require.NoError(t, json.Unmarshal(body, &cat))
	require.NotEmpty(t, cat.Dataset)
	return cat.Dataset[0]
}

// lyingRecord is a record as a careless catalog publishes it: markup and a closing script tag
// in its fields, a description of a megabyte, a keyword that is one string, a distribution that
// is one object, a publisher that is a string, a contact list, a number, a javascript: URL.
func lyingRecord() []byte {
	rec := map[string]any{
		"identifier":  "lying-1",
		"title":       `Bad </script><script>alert("t")</script> title`,
		"description": "<b>bold</b> " + strings.Repeat("déjà vu ", 1<<17) + "THE-END",
		"keyword":     "one, string",
		"publisher":   "<i>Publisher</i>",
		"contactPoint": []any{map[string]any{"fn": "Ann <x>", "hasEmail": "mailto:ann@example.gov"},
			map[string]any{"fn": "Bob", "hasEmail": []any{"bob@example.gov"}}},
		"distribution": map[string]any{"downloadURL": "https://example.gov/d.csv", "mediaType": "text/csv",
			"title": "<script>alert(1)</script>"},
		"landingPage": "javascript:alert(1)",
		"modified":    2024,
		"spatial":     "-77.1,38.8,-76.9,39.0",
		"temporal":    "2000-01-01/2010-12-31",
		"license":     "https://creativecommons.org/publicdomain/zero/1.0/",
		"x-custom":    map[string]any{"deep": []any{1, 2}},
		"theme":       nil,
	}
	b, _ := json.Marshal(rec)
	return b
}

// publicSite serves st with the catalog titled "Test catalog".
func publicSite(t *testing.T, st store.Store) *site {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	a, err := api.New(api.Config{APIKey: testKey}, api.Deps{Store: st, Logger: log})
	require.NoError(t, err)
	h, err := New(Config{APIKey: testKey, Catalog: feeds.Catalog{Title: "Test <catalog>"}}, Deps{Store: st, API: a, Logger: log})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &site{store: st, url: srv.URL}
}

// TestPublicDatasetPage: /dataset/{slug} shows a corpus record's fields, its distributions as
// links, where it was harvested from, and schema.org JSON-LD that says the same; the public
// sees no operator link or control, a signed-in operator sees links to the source and record
// (and the answer is not cached for others). The page has an ETag that a conditional GET
// answers 304 to.
func TestPublicDatasetPage(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		p := seedPublic(t, st, corpusRecord(t, "dcatus/agency-gsa-2025-07.data.json"))
		s := publicSite(t, st)
		b := s.browser(t)
		code, body := b.get("/dataset/" + p.ds.Slug)
		require.Equal(t, http.StatusOK, code, body)
		doc := parseHTML(t, body)
		require.Equal(t, "Networx Business Volume FY2013, 3rd Qtr", textByID(doc, "page-title"))
		require.Equal(t, "Test <catalog>", textByID(doc, "catalog-title"))
		require.Contains(t, textByID(doc, "dataset-description"), "Networx Universal and Enterprise business volume")
		require.Equal(t, "GSA-2015-02-26-1", textByID(doc, "dataset-identifier"))
		require.Equal(t, "Networxtelecommunications", textByID(doc, "dataset-keyword"))
		require.Equal(t, "General Services Administration", textByID(doc, "dataset-publisher"))
		require.Equal(t, "Toni L. Hollowaytoni.holloway@gsa.gov", textByID(doc, "dataset-contactPoint"))
		require.Equal(t, "2019-06-12", textByID(doc, "dataset-modified"))
		require.Equal(t, "2015-02-27", textByID(doc, "dataset-issued"))
		require.Equal(t, "National", textByID(doc, "dataset-spatial"))
		require.Equal(t, "Procurement", textByID(doc, "dataset-theme"))
		require.Contains(t, body, `<a href="https://creativecommons.org/publicdomain/zero/1.0/" rel="nofollow">`)
		require.Contains(t, body, `<a href="mailto:toni.holloway@gsa.gov" rel="nofollow">`)
		require.Contains(t, body, `href="https://www.asap.gsa.gov/datagov/TotRevFY13_3rdQtr.xlsx" class="distribution-download url"`)
		require.Contains(t, textByID(doc, "dataset-distributions"), "Networx Business Volume_FY2013_3rd Qtr")
		require.Contains(t, textByID(doc, "dataset-distributions"), "xlsx")
		require.Equal(t, "Agency <b>catalog</b>"+p.src.URL, textByID(doc, "dataset-source"))
		require.Equal(t, p.org.Name, textByID(doc, "dataset-organization"))
		require.NotEqual(t, "—", textByID(doc, "dataset-last-changed"))
		for _, nav := range []string{"/dataset", "/data.json", "/catalog.ttl"} {
			require.Contains(t, body, `href="`+nav+`"`)
		}
		for _, op := range []string{"/harvest_sources", "/harvest_records", "csrf_token", "sign-out", "nav-sources", "sign-in"} {
			require.NotContains(t, body, op, "the public page shows no operator link or control")
		}
		require.Contains(t, b.header("/dataset/"+p.ds.Slug, "Cache-Control"), "public")
		etag := b.header("/dataset/"+p.ds.Slug, "ETag")
		require.NotEmpty(t, etag)
		req, err := http.NewRequest(http.MethodGet, s.url+"/dataset/"+p.ds.Slug, nil)
		require.NoError(t, err)
		req.Header.Set("If-None-Match", etag)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, http.StatusNotModified, res.StatusCode, "a conditional GET of the page as it is")

		ld := jsonLD(t, doc)
		require.Equal(t, "Dataset", ld["@type"])
		require.Equal(t, "Networx Business Volume FY2013, 3rd Qtr", ld["name"])
		require.Equal(t, s.url+"/dataset/"+p.ds.Slug, ld["url"])
		require.Equal(t, "GSA-2015-02-26-1", ld["identifier"])
		require.Equal(t, []any{"Networx", "telecommunications"}, ld["keywords"])
		require.Equal(t, "2019-06-12", ld["dateModified"])
		require.Equal(t, map[string]any{"@type": "Organization", "name": "General Services Administration"}, ld["creator"])
		require.Equal(t, []any{map[string]any{"@type": "DataDownload", "name": "Networx Business Volume_FY2013_3rd Qtr",
			"contentUrl":     "https://www.asap.gsa.gov/datagov/TotRevFY13_3rdQtr.xlsx",
			"encodingFormat": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}}, ld["distribution"])
		require.Equal(t, map[string]any{"@type": "Place", "name": "National"}, ld["spatialCoverage"])

		b.signIn()
		code, body = b.get("/dataset/" + p.ds.Slug)
		require.Equal(t, http.StatusOK, code)
		require.Contains(t, body, `<a href="/harvest_records/`+p.ds.RecordID+`" id="dataset-record">`)
		require.Contains(t, body, `<a href="/harvest_sources/`+p.src.ID+`" id="dataset-source-page">`)
		require.Equal(t, "private, no-store", b.header("/dataset/"+p.ds.Slug, "Cache-Control"))
		require.NotEqual(t, etag, b.header("/dataset/"+p.ds.Slug, "ETag"), "the operator's page is another page")
	})
}

// TestPublicDatasetPageLyingRecord: a record of odd shapes and hostile text renders what is
// there, escaped: nothing breaks out of the JSON-LD script, a megabyte description is cut with
// a link to the whole record, a javascript: URL is not a link; a slug of 10,000 characters is
// a 404.
func TestPublicDatasetPageLyingRecord(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		p := seedPublic(t, st, lyingRecord())
		b := publicSite(t, st).browser(t)
		code, body := b.get("/dataset/" + p.ds.Slug)
		require.Equal(t, http.StatusOK, code, body[:min(len(body), 2000)])
		for _, bad := range []string{"<script>alert", "<b>bold", "<i>Publisher", `href="javascript:`} {
			require.False(t, strings.Contains(body, bad), "markup in fields is escaped: %q", bad)
		}
		require.Less(t, len(body), 100_000, "the megabyte description is cut")
		doc := parseHTML(t, body)
		require.Equal(t, `Bad </script><script>alert("t")</script> title`, textByID(doc, "page-title"))
		desc := textByID(doc, "dataset-description")
		require.True(t, strings.HasPrefix(desc, "<b>bold</b> déjà vu"), desc[:40])
		require.True(t, strings.HasSuffix(desc, "…"))
		require.NotContains(t, desc, "THE-END")
		require.True(t, strings.Contains(body, `<a href="/dataset/`+p.ds.Slug+`.json" id="dataset-description-more">`), "a link to the whole record")
		require.Equal(t, "one, string", textByID(doc, "dataset-keyword"))
		require.Equal(t, "<i>Publisher</i>", textByID(doc, "dataset-publisher"))
		require.Equal(t, "Ann <x>ann@example.govBobbob@example.gov", textByID(doc, "dataset-contactPoint"))
		require.Equal(t, "2024", textByID(doc, "dataset-modified"))
		require.Equal(t, "javascript:alert(1)", textByID(doc, "dataset-landingPage"))
		require.Contains(t, textByID(doc, "dataset-distributions"), "<script>alert(1)</script>")
		require.Equal(t, `{"deep":[1,2]}`, ddAfter(doc, "x-custom"), "a field the page does not know is shown by its name")

		ld := jsonLD(t, doc)
		require.Equal(t, `Bad </script><script>alert("t")</script> title`, ld["name"])
		require.Equal(t, feeds.MaxSchemaOrgText+1, len([]rune(ld["description"].(string))))
		require.Equal(t, []any{"one, string"}, ld["keywords"])
		require.Equal(t, "2024", ld["dateModified"])
		require.Nil(t, ld["sameAs"], "a javascript: landing page is no URL")
		require.Equal(t, map[string]any{"@type": "Place", "geo": map[string]any{"@type": "GeoShape", "box": "38.8 -77.1 39 -76.9"}},
			ld["spatialCoverage"])
		require.Len(t, ld["distribution"], 1)

		code, body = b.get("/dataset/" + strings.Repeat("x", 10_000))
		require.Equal(t, http.StatusNotFound, code)
		require.Contains(t, body, `id="error-message"`)
		require.Contains(t, body, `id="catalog-title"`, "a public 404 is in the public layout")
		require.NotContains(t, body, "/harvest_sources", "a public 404 shows no operator link")
		code, _ = b.get("/dataset/" + strings.Repeat("x", 10_000) + ".json")
		require.Equal(t, http.StatusNotFound, code)
	})
}

// TestPublicDatasetJSON: /dataset/{slug}.json is the stored record byte for byte as
// application/json, with an ETag that a conditional GET answers 304 to, until the dataset
// changes.
func TestPublicDatasetJSON(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		raw := corpusRecord(t, "dcatus/agency-gsa-2025-07.data.json")
		p := seedPublic(t, st, raw)
		s := publicSite(t, st)
		get := func(etag string) *http.Response {
			req, err := http.NewRequest(http.MethodGet, s.url+"/dataset/"+p.ds.Slug+".json", nil)
			require.NoError(t, err)
			if etag != "" {
				req.Header.Set("If-None-Match", etag)
			}
			res, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			t.Cleanup(func() { res.Body.Close() })
			return res
		}
		res := get("")
		require.Equal(t, http.StatusOK, res.StatusCode)
		require.Equal(t, "application/json", res.Header.Get("Content-Type"))
		require.Equal(t, "*", res.Header.Get("Access-Control-Allow-Origin"))
		body, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		require.JSONEq(t, string(raw), string(body))
		etag := res.Header.Get("ETag")
		require.NotEmpty(t, etag)
		require.NotEmpty(t, res.Header.Get("Last-Modified"))
		require.Equal(t, http.StatusNotModified, get(etag).StatusCode)

		_, err = st.DatasetUpsert(t.Context(), &store.DatasetUpsertParams{SourceID: p.src.ID, Identifier: p.ds.Identifier,
			DCAT: json.RawMessage(`{"identifier":"GSA-2015-02-26-1","title":"Changed"}`), RecordID: p.ds.RecordID})
		require.NoError(t, err)
		res = get(etag)
		require.Equal(t, http.StatusOK, res.StatusCode, "a changed dataset has another ETag")
		body, err = io.ReadAll(res.Body)
		require.NoError(t, err)
		require.JSONEq(t, `{"identifier":"GSA-2015-02-26-1","title":"Changed"}`, string(body))
	})
}

// schemaOrgCheck reads an HTML page on stdin, takes its application/ld+json script with
// Python's own HTML parser, parses it as JSON-LD with rdflib (schema.org's context given
// locally: no network) and prints what the graph says of the schema:Dataset, as JSON.
const schemaOrgCheck = `
import json, sys
from html.parser import HTMLParser
import rdflib

class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.on = False; self.data = []
    def handle_starttag(self, tag, attrs):
        self.on = tag == "script" and dict(attrs).get("type") == "application/ld+json"
    def handle_endtag(self, tag):
        self.on = False
    def handle_data(self, d):
        if self.on: self.data.append(d)

p = P(); p.feed(sys.stdin.read())
doc = json.loads("".join(p.data))
assert doc["@context"] == "https://schema.org/", doc["@context"]
doc["@context"] = {"@vocab": "https://schema.org/", "url": {"@type": "@id"}, "contentUrl": {"@type": "@id"},
                   "sameAs": {"@type": "@id"}}
g = rdflib.Graph().parse(data=json.dumps(doc), format="json-ld")
S = rdflib.Namespace("https://schema.org/")
ds = list(g.subjects(rdflib.RDF.type, S.Dataset))
assert len(ds) == 1, ds
d = ds[0]
one = lambda s, p: str(g.value(s, p)) if g.value(s, p) is not None else None
out = {"id": str(d), "name": one(d, S.name), "description": one(d, S.description), "url": one(d, S.url),
       "identifier": one(d, S.identifier), "license": one(d, S.license), "dateModified": one(d, S.dateModified),
       "temporalCoverage": one(d, S.temporalCoverage),
       "keywords": sorted(str(k) for k in g.objects(d, S.keywords)),
       "creator": one(g.value(d, S.creator), S.name), "publisher": one(g.value(d, S.publisher), S.name),
       "spatial": one(g.value(d, S.spatialCoverage), S.name),
       "box": one(g.value(g.value(d, S.spatialCoverage), S.geo), S.box),
       "downloads": sorted([str(g.value(x, S.contentUrl)), str(g.value(x, S.encodingFormat))]
                           for x in g.objects(d, S.distribution) if (x, rdflib.RDF.type, S.DataDownload) in g)}
print(json.dumps(out))
`

// TestPublicDatasetSchemaOrgInRDFLib: the page's JSON-LD, taken out of the HTML by Python's
// parser and read by rdflib (a JSON-LD processor we did not write), is one schema:Dataset with
// the record's name, description, url, identifier, keywords, license, creator, publisher,
// distribution (DataDownload with contentUrl and encodingFormat), spatial and temporal
// coverage and dateModified; the lying record's </script> title stays inside the script.
func TestPublicDatasetSchemaOrgInRDFLib(t *testing.T) {
	py := os.Getenv("HARVESTER_TEST_PYTHON")
	if py == "" {
		testenv.Missing(t, `HARVESTER_TEST_PYTHON is not set: eval "$(scripts/services.sh)" makes a venv with rdflib; schema.org JSON-LD not checked`)
	}
	if err := exec.Command(py, "-c", "import rdflib").Run(); err != nil {
		testenv.Missing(t, py+" cannot import rdflib ("+err.Error()+"): schema.org JSON-LD not checked")
	}
	check := func(t *testing.T, page string) map[string]any {
		cmd := exec.Command(py, "-c", schemaOrgCheck)
		cmd.Stdin = strings.NewReader(page)
		out, err := cmd.Output()
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		require.NoError(t, err, stderr)
		var got map[string]any
		require.NoError(t, json.Unmarshal(out, &got), string(out))
		return got
	}
	backends(t, func(t *testing.T, st store.Store) {
		p := seedPublic(t, st, corpusRecord(t, "dcatus/agency-gsa-2025-07.data.json"))
		lying := seedPublic(t, st, lyingRecord())
		s := publicSite(t, st)
		b := s.browser(t)
		_, page := b.get("/dataset/" + p.ds.Slug)
		got := check(t, page)
		require.Equal(t, map[string]any{
			"id": s.url + "/dataset/" + p.ds.Slug, "name": "Networx Business Volume FY2013, 3rd Qtr",
			"description": p.dcat["description"], "url": s.url + "/dataset/" + p.ds.Slug,
			"identifier": "GSA-2015-02-26-1", "license": "https://creativecommons.org/publicdomain/zero/1.0/",
			"dateModified": "2019-06-12", "temporalCoverage": nil, "keywords": []any{"Networx", "telecommunications"},
			"creator": "General Services Administration", "publisher": "General Services Administration",
			"spatial": "National", "box": nil,
			"downloads": []any{[]any{"https://www.asap.gsa.gov/datagov/TotRevFY13_3rdQtr.xlsx",
				"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}},
		}, got)
		_, page = b.get("/dataset/" + lying.ds.Slug)
		got = check(t, page)
		require.Equal(t, `Bad </script><script>alert("t")</script> title`, got["name"])
		require.Equal(t, "2000-01-01/2010-12-31", got["temporalCoverage"])
		require.Equal(t, "38.8 -77.1 39 -76.9", got["box"])
		require.Equal(t, "<i>Publisher</i>", got["creator"])
		require.Equal(t, []any{[]any{"https://example.gov/d.csv", "text/csv"}}, got["downloads"])
	})
}

// ddAfter is the text of the <dd> after the <dt> whose text is label; "" when there is none.
func ddAfter(doc *html.Node, label string) string {
	var found string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "dt" && n.FirstChild != nil && n.FirstChild.Data == label {
			for dd := n.NextSibling; dd != nil; dd = dd.NextSibling {
				if dd.Type == html.ElementNode && dd.Data == "dd" && dd.FirstChild != nil {
					found = dd.FirstChild.Data
					return
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return found
}

func parseHTML(t *testing.T, body string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(body))
	require.NoError(t, err)
	return doc
}

// byID is the element of doc with id, or nil.
func byID(n *html.Node, id string) *html.Node {
	if n.Type == html.ElementNode && attr(n, "id") == id {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := byID(c, id); f != nil {
			return f
		}
	}
	return nil
}

// textByID is the text of the element with id, trimmed; "" when there is none.
func textByID(doc *html.Node, id string) string {
	n := byID(doc, id)
	if n == nil {
		return ""
	}
	var sb strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			sb.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.TrimSpace(sb.String())
}

// jsonLD is the page's schema.org JSON-LD, as an HTML parser finds the script's text.
func jsonLD(t *testing.T, doc *html.Node) map[string]any {
	t.Helper()
	n := byID(doc, "dataset-jsonld")
	require.NotNil(t, n, "the page has its JSON-LD script")
	require.Equal(t, "application/ld+json", attr(n, "type"))
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(textByID(doc, "dataset-jsonld")), &v))
	return v
}

// header is the response header name of a GET of path.
func (b *browser) header(path, name string) string {
	b.t.Helper()
	res, err := b.c.Get(b.base + path)
	require.NoError(b.t, err)
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	return res.Header.Get(name)
}
