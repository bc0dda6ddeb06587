package api

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// validSource is a source body that passes validation; tests change one field at a time.
func validSource(url string) map[string]any {
	return map[string]any{"name": "CFTC data.json", "url": url, "schema_type": "dcatus1.1: federal"}
}

func TestSourceCRUD(t *testing.T) {
	t.Parallel()
	b := setup(t)
	org := b.newOrganization(t)

	body := validSource("https://www.cftc.gov/data.json")
	body["organization_id"] = org.ID
	created := b.write(t, http.MethodPost, "/api/v1/harvest_sources", body)
	require.Equal(t, http.StatusCreated, created.status, "body: %s", created.body)
	src := created.object(t)
	requireSchema(t, "HarvestSource", src)
	id := src["id"].(string)
	require.Equal(t, "/api/v1/harvest_sources/"+id, created.header.Get("Location"))
	require.Equal(t, map[string]any{"name": "CFTC data.json", "url": "https://www.cftc.gov/data.json",
		"organization_id": org.ID, "source_type": "document", "schema_type": "dcatus1.1: federal",
		"frequency": "manual", "notification_emails": []any{}, "notification_frequency": "on_error",
		"next_run_at": nil, "collection_parent_url": nil, "waf_time_zone": nil, "accept": nil, "auth_header": nil,
		"options": nil, "precedence": 0.0}, without(src, "id", "created_at", "updated_at"), "defaults")

	got := b.get(t, "/api/v1/harvest_sources/"+id)
	require.Equal(t, http.StatusOK, got.status)
	require.Equal(t, src, got.object(t))

	other := b.newSource(t, "") // no organization
	all := decode[list[sourceJSON]](t, b.get(t, "/api/v1/harvest_sources"))
	require.Equal(t, 2, all.Total)
	byOrg := decode[list[sourceJSON]](t, b.get(t, "/api/v1/harvest_sources?organization_id="+org.ID))
	require.Equal(t, 1, byOrg.Total)
	require.Equal(t, id, byOrg.Items[0].ID)
	otherJSON := b.get(t, "/api/v1/harvest_sources/"+other.ID).object(t)
	require.Nil(t, otherJSON["organization_id"])

	put := map[string]any{"name": "CFTC", "url": "https://www.cftc.gov/data2.json", "organization_id": nil,
		"source_type": "document", "schema_type": "dcatus1.1: non-federal", "frequency": "daily",
		"notification_emails": []string{"data@cftc.gov", "ops@cftc.gov"}, "notification_frequency": "always",
		"precedence": -7}
	updated := b.write(t, http.MethodPut, "/api/v1/harvest_sources/"+id, put)
	require.Equal(t, http.StatusOK, updated.status, "body: %s", updated.body)
	u := updated.object(t)
	requireSchema(t, "HarvestSource", u)
	require.Equal(t, map[string]any{"name": "CFTC", "url": "https://www.cftc.gov/data2.json", "organization_id": nil,
		"source_type": "document", "schema_type": "dcatus1.1: non-federal", "frequency": "daily",
		"notification_emails": []any{"data@cftc.gov", "ops@cftc.gov"}, "notification_frequency": "always",
		"collection_parent_url": nil, "waf_time_zone": nil, "accept": nil, "auth_header": nil, "options": nil,
		"precedence": -7.0}, without(u, "id", "created_at", "updated_at", "next_run_at"))
	require.NotNil(t, u["next_run_at"], "a daily source is scheduled")
	require.Equal(t, u, b.get(t, "/api/v1/harvest_sources/"+id).object(t))

	deleted := b.write(t, http.MethodDelete, "/api/v1/harvest_sources/"+id, nil)
	require.Equal(t, http.StatusNoContent, deleted.status, "body: %s", deleted.body)
	requireError(t, b.get(t, "/api/v1/harvest_sources/"+id), http.StatusNotFound, `harvest source "`+id+`" not found`)
	requireError(t, b.write(t, http.MethodDelete, "/api/v1/harvest_sources/"+id, nil), http.StatusNotFound, "not found")
	requireError(t, b.write(t, http.MethodPut, "/api/v1/harvest_sources/"+id, put), http.StatusNotFound, "not found")
}

// without returns m minus keys.
func without(m map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

// invalidSources are bodies of POST and PUT with bad fields: each changes validSource (nil:
// drops the member) and names the bad fields, and a text of the first one's message.
var invalidSources = []struct {
	name   string
	change map[string]any
	fields []string
	want   string // in the message of the first field
}{
	{"name missing", map[string]any{"name": nil}, []string{"name"}, "required"},
	{"url missing", map[string]any{"url": nil}, []string{"url"}, "required"},
	{"url relative", map[string]any{"url": "/data.json"}, []string{"url"}, "not an absolute http(s) URL"},
	{"url ftp", map[string]any{"url": "ftp://example.gov/data.json"}, []string{"url"}, "not an absolute http(s) URL"},
	{"url no host", map[string]any{"url": "https:///data.json"}, []string{"url"}, "not an absolute http(s) URL"},
	{"schema_type missing", map[string]any{"schema_type": nil}, []string{"schema_type"}, "required"},
	{"schema_type unknown", map[string]any{"schema_type": "csdgm"}, []string{"schema_type"}, `unknown schema type "csdgm"`},
	{"source_type unknown", map[string]any{"source_type": "geonode"}, []string{"source_type"}, `unknown source type "geonode"`},
	{"waf with a DCAT-US schema", map[string]any{"source_type": "waf"}, []string{"schema_type"},
		`a waf source lists ISO 19115 or FGDC XML files: want "iso19115_1", "iso19115_2" or "fgdc", not "dcatus1.1: federal"`},
	{"waf-collection with a DCAT-US schema", map[string]any{"source_type": "waf-collection", "schema_type": "dcatus1.1: non-federal",
		"collection_parent_url": "https://example.gov/waf/parent.xml"}, []string{"schema_type"}, "a waf-collection source lists ISO 19115 or FGDC XML files"},
	{"waf-collection without a parent", map[string]any{"source_type": "waf-collection", "schema_type": "iso19115_2"},
		[]string{"collection_parent_url"}, "required for a waf-collection source"},
	{"waf-collection with an empty parent", map[string]any{"source_type": "waf-collection", "schema_type": "iso19115_2",
		"collection_parent_url": ""}, []string{"collection_parent_url"}, "required for a waf-collection source"},
	{"waf-collection parent relative", map[string]any{"source_type": "waf-collection", "schema_type": "iso19115_2",
		"collection_parent_url": "/waf/parent.xml"}, []string{"collection_parent_url"}, "not an absolute http(s) URL"},
	{"waf-collection parent ftp", map[string]any{"source_type": "waf-collection", "schema_type": "iso19115_1",
		"collection_parent_url": "ftp://example.gov/parent.xml"}, []string{"collection_parent_url"}, "not an absolute http(s) URL"},
	{"waf-collection, neither", map[string]any{"source_type": "waf-collection"}, []string{"schema_type", "collection_parent_url"},
		"a waf-collection source lists ISO 19115 or FGDC XML files"},
	{"document with a parent", map[string]any{"collection_parent_url": "https://example.gov/waf/parent.xml"},
		[]string{"collection_parent_url"}, "only a waf-collection source has one, not a document source"},
	{"waf with a parent", map[string]any{"source_type": "waf", "schema_type": "iso19115_2",
		"collection_parent_url": "https://example.gov/waf/parent.xml"}, []string{"collection_parent_url"}, "not a waf source"},
	{"collection_parent_url not a string", map[string]any{"collection_parent_url": 7}, []string{"collection_parent_url"}, "string"},
	{"waf_time_zone unknown", map[string]any{"source_type": "waf", "schema_type": "iso19115_2", "waf_time_zone": "Mars/Olympus"},
		[]string{"waf_time_zone"}, `unknown time zone "Mars/Olympus": want an IANA time zone name such as "America/New_York"`},
	{"waf_time_zone an abbreviation's offset", map[string]any{"source_type": "waf", "schema_type": "iso19115_2", "waf_time_zone": "+0100"},
		[]string{"waf_time_zone"}, "unknown time zone"},
	{"waf_time_zone Local", map[string]any{"source_type": "waf", "schema_type": "iso19115_2", "waf_time_zone": "Local"},
		[]string{"waf_time_zone"}, "unknown time zone"},
	{"waf_time_zone padded", map[string]any{"source_type": "waf", "schema_type": "iso19115_2", "waf_time_zone": " UTC"},
		[]string{"waf_time_zone"}, "unknown time zone"},
	{"document with a waf_time_zone", map[string]any{"waf_time_zone": "America/New_York"},
		[]string{"waf_time_zone"}, "only a waf or waf-collection source has one, not a document source"},
	{"waf_time_zone not a string", map[string]any{"source_type": "waf", "schema_type": "iso19115_2", "waf_time_zone": -5},
		[]string{"waf_time_zone"}, "string"},
	{"frequency", map[string]any{"frequency": "hourly"}, []string{"frequency"}, `unknown frequency "hourly"`},
	{"notification_frequency", map[string]any{"notification_frequency": "never"}, []string{"notification_frequency"}, "unknown notification frequency"},
	{"email", map[string]any{"notification_emails": []string{"ok@agency.gov", "not-an-email"}}, []string{"notification_emails"}, `item 2, "not-an-email"`},
	{"email with a display name", map[string]any{"notification_emails": []string{"Jane <jane@agency.gov>"}}, []string{"notification_emails"}, "not an email address"},
	{"emails not an array", map[string]any{"notification_emails": "a@b.gov"}, []string{"notification_emails"}, "must be an array of strings, not string"},
	{"organization unknown", map[string]any{"organization_id": "no-such-org"}, []string{"organization_id"}, `no organization has id "no-such-org"`},
	{"unknown field", map[string]any{"parent_url": "x"}, []string{"parent_url"}, "unknown field"},
	{"every field at once", map[string]any{"name": "", "url": "data.json", "schema_type": "x", "frequency": "x",
		"notification_emails": []string{"x"}, "source_type": "geonode", "notification_frequency": "x", "organization_id": "x", "z": 1},
		[]string{"name", "url", "schema_type", "frequency", "notification_emails", "source_type", "notification_frequency", "organization_id", "z"}, ""},
}

func TestSourceInvalid(t *testing.T) {
	t.Parallel()
	b := setup(t)
	src := b.newSource(t, "")
	for _, tt := range invalidSources {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := validSource("https://example.gov/" + tt.name + "/data.json")
			for k, v := range tt.change {
				if v == nil {
					delete(body, k)
				} else {
					body[k] = v
				}
			}
			for _, method := range []string{http.MethodPost, http.MethodPut} {
				path := "/api/v1/harvest_sources"
				if method == http.MethodPut {
					path += "/" + src.ID
				}
				fields := requireFields(t, b.write(t, method, path, body), tt.fields...)
				require.Contains(t, fields[tt.fields[0]], tt.want, method)
			}
		})
	}
}

func TestSourceConflicts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	taken := b.newSource(t, "")

	t.Run("duplicate url on create", func(t *testing.T) {
		t.Parallel()
		r := b.write(t, http.MethodPost, "/api/v1/harvest_sources", validSource(taken.URL))
		requireError(t, r, http.StatusConflict, `a harvest source with url "`+taken.URL+`" already exists`)
	})
	t.Run("duplicate url on update", func(t *testing.T) {
		t.Parallel()
		other := b.newSource(t, "")
		requireError(t, b.write(t, http.MethodPut, "/api/v1/harvest_sources/"+other.ID, validSource(taken.URL)),
			http.StatusConflict, "already exists")
	})
	t.Run("delete with an unfinished job", func(t *testing.T) {
		t.Parallel()
		src, job := b.newHarvestJob(t)
		requireError(t, b.write(t, http.MethodDelete, "/api/v1/harvest_sources/"+src.ID, nil), http.StatusConflict,
			"unfinished job")
		b.failJob(t, job.ID)
		require.Equal(t, http.StatusNoContent, b.write(t, http.MethodDelete, "/api/v1/harvest_sources/"+src.ID, nil).status)
	})
	t.Run("delete with datasets", func(t *testing.T) {
		t.Parallel()
		src, job := b.newHarvestJob(t)
		rec, err := b.store.RecordInsert(ctx, &store.RecordInsertParams{ID: "rec-" + src.ID, JobID: job.ID, SourceID: src.ID,
			Identifier: "ds-1", Action: harvest.ActionCreate, SourceHash: "abc", SourceRaw: `{"identifier":"ds-1"}`})
		require.NoError(t, err)
		_, err = b.store.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: "ds-1",
			Slug: "ds-1-" + src.ID[:8], DCAT: json.RawMessage(`{"identifier":"ds-1"}`), RecordID: rec.ID})
		require.NoError(t, err)
		b.failJob(t, job.ID)
		requireError(t, b.write(t, http.MethodDelete, "/api/v1/harvest_sources/"+src.ID, nil), http.StatusConflict,
			"has 1 live datasets: run a clear job first")
	})
}

// TestSourceKinds creates a source of each kind the harvester harvests, and carries a
// waf-collection's collection_parent_url through create, read, list and replace.
// createSource POSTs body, which must be created, and returns the source as answered (and
// read back).
func (b *testBundle) createSource(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	r := b.write(t, http.MethodPost, "/api/v1/harvest_sources", body)
	require.Equal(t, http.StatusCreated, r.status, "body: %s", r.body)
	src := r.object(t)
	requireSchema(t, "HarvestSource", src)
	require.Equal(t, src, b.get(t, "/api/v1/harvest_sources/"+src["id"].(string)).object(t))
	return src
}

// putSource PUTs body to the source id, which must succeed, and returns the source as answered
// (and read back).
func (b *testBundle) putSource(t *testing.T, id string, body map[string]any) map[string]any {
	t.Helper()
	r := b.write(t, http.MethodPut, "/api/v1/harvest_sources/"+id, body)
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
	u := r.object(t)
	requireSchema(t, "HarvestSource", u)
	require.Equal(t, u, b.get(t, "/api/v1/harvest_sources/"+id).object(t))
	return u
}

func TestSourceKinds(t *testing.T) {
	t.Parallel()
	b := setup(t)
	kinds := []struct {
		name, sourceType, schemaType string
		parent                       any // sent as collection_parent_url when not nil
		wantParent                   any
	}{
		{"DCAT-US document", "document", "dcatus1.1: non-federal", nil, nil},
		{"ISO 19115-1 document", "document", "iso19115_1", nil, nil},
		{"ISO 19115-2 document, parent null", "document", "iso19115_2", "null", nil},
		{"waf", "waf", "iso19115_2", nil, nil},
		{"waf, parent empty", "waf", "iso19115_1", "", nil},
		{"waf-collection", "waf-collection", "iso19115_2", "https://waf.example.gov/cfg/series.xml",
			"https://waf.example.gov/cfg/series.xml"},
		{"waf-collection, parent case", "waf-collection", "iso19115_1", "HTTPS://WAF.Example.GOV/Cfg/Series.xml?A=B",
			"https://waf.example.gov/Cfg/Series.xml?A=B"},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			body := validSource("https://waf.example.gov/" + uuid.NewString() + "/")
			body["source_type"], body["schema_type"] = k.sourceType, k.schemaType
			switch k.parent {
			case nil:
			case "null":
				body["collection_parent_url"] = nil
			default:
				body["collection_parent_url"] = k.parent
			}
			src := b.createSource(t, body)
			require.Equal(t, []any{k.sourceType, k.schemaType, k.wantParent},
				[]any{src["source_type"], src["schema_type"], src["collection_parent_url"]})
		})
	}
}

// wafBody is a good body of a waf or waf-collection source with a new URL, plus extra.
func wafBody(sourceType string, extra map[string]any) map[string]any {
	body := validSource("https://waf.example.gov/" + uuid.NewString() + "/")
	body["source_type"], body["schema_type"] = sourceType, "iso19115_2"
	maps.Copy(body, extra)
	return body
}

func TestSourceWAFTimeZoneRoundTrip(t *testing.T) {
	t.Parallel()
	b := setup(t)
	body := wafBody("waf", map[string]any{"waf_time_zone": "America/New_York"})
	src := b.createSource(t, body)
	require.Equal(t, "America/New_York", src["waf_time_zone"])
	stored, err := b.store.SourceGet(context.Background(), src["id"].(string))
	require.NoError(t, err)
	require.Equal(t, "America/New_York", stored.WAFTimeZone)

	body["waf_time_zone"] = "Asia/Tokyo"
	require.Equal(t, "Asia/Tokyo", b.putSource(t, stored.ID, body)["waf_time_zone"], "replaced")
	u := b.putSource(t, stored.ID, without(body, "waf_time_zone"))
	require.Nil(t, u["waf_time_zone"], "PUT replaces every field: omitted is UTC")
}

func TestSourceCollectionParentRoundTrip(t *testing.T) {
	t.Parallel()
	b := setup(t)
	body := wafBody("waf-collection", map[string]any{"collection_parent_url": "https://waf.example.gov/cfg/parent.xml"})
	src := b.createSource(t, body)
	id := src["id"].(string)
	stored, err := b.store.SourceGet(context.Background(), id)
	require.NoError(t, err)
	require.Equal(t, "https://waf.example.gov/cfg/parent.xml", stored.CollectionParentURL)
	listed := decode[list[sourceJSON]](t, b.get(t, "/api/v1/harvest_sources?per_page=100"))
	found := false
	for _, it := range listed.Items {
		if it.ID == id {
			found = true
			require.Equal(t, "https://waf.example.gov/cfg/parent.xml", *it.CollectionParentURL)
		}
	}
	require.True(t, found, "listed")

	put := func(t *testing.T, body map[string]any) map[string]any { return b.putSource(t, id, body) }
	body["collection_parent_url"] = "https://waf.example.gov/cfg/other-parent.xml"
	require.Equal(t, "https://waf.example.gov/cfg/other-parent.xml", put(t, body)["collection_parent_url"], "replaced")

	requireFields(t, b.write(t, http.MethodPut, "/api/v1/harvest_sources/"+id, without(body, "collection_parent_url")),
		"collection_parent_url") // PUT replaces every field: omitted is none, which a waf-collection needs
	body["source_type"] = "waf"
	requireFields(t, b.write(t, http.MethodPut, "/api/v1/harvest_sources/"+id, body), "collection_parent_url")
	body["collection_parent_url"] = nil
	u := put(t, body)
	require.Equal(t, []any{"waf", nil}, []any{u["source_type"], u["collection_parent_url"]}, "cleared")
	stored, err = b.store.SourceGet(context.Background(), id)
	require.NoError(t, err)
	require.Empty(t, stored.CollectionParentURL)

	body["source_type"] = "waf-collection"
	body["collection_parent_url"] = "https://waf.example.gov/cfg/parent.xml"
	u = put(t, body)
	require.Equal(t, []any{"waf-collection", "https://waf.example.gov/cfg/parent.xml"},
		[]any{u["source_type"], u["collection_parent_url"]}, "set again")

	// A source read back can be written back once its read-only members are dropped.
	u = put(t, without(u, "id", "created_at", "updated_at", "next_run_at"))
	require.Equal(t, "https://waf.example.gov/cfg/parent.xml", u["collection_parent_url"])
}

// TestSourcePortalDefaultsToNonFederal: a portal source sent without a schema type gets
// "dcatus1.1: non-federal", the DCAT-US its items are mapped to.
func TestSourcePortalDefaultsToNonFederal(t *testing.T) {
	t.Parallel()
	p := &store.SourceInsertParams{Name: "Portal", URL: "https://catalog.example.org", SourceType: harvest.SourceCKAN,
		Frequency: harvest.FrequencyManual, NotificationFrequency: harvest.NotifyOnError}
	fields := fieldErrors{}
	store.CheckSource(p, "", fields)
	require.Empty(t, fields)
	require.Equal(t, harvest.SchemaDCATUS11NonFederal, p.SchemaType)

	p = &store.SourceInsertParams{Name: "Doc", URL: "https://example.gov/data.json", SourceType: harvest.SourceDocument}
	store.CheckSource(p, "", fields)
	require.Contains(t, fields, "schema_type", "a document source still needs one")
}

// insertLegacy stores a source as it was sent before source URLs were normalised, past the API.
func (b *testBundle) insertLegacy(t *testing.T, url string, st harvest.SourceType, schema harvest.SchemaType) *store.Source {
	t.Helper()
	src, err := b.store.SourceInsert(context.Background(), &store.SourceInsertParams{Name: "legacy", URL: url,
		SourceType: st, SchemaType: schema, Frequency: harvest.FrequencyManual, NotificationFrequency: harvest.NotifyOnError})
	require.NoError(t, err)
	return src
}

// TestSourceURLNormalForm registers one catalog written many ways: the first is stored in its
// normal form, every other is a 409 naming it, on POST and PUT; a source stored before URLs
// were normalised is found the same way; a different path case or query is another source.
func TestSourceURLNormalForm(t *testing.T) {
	t.Parallel()
	b := setup(t)
	require.Contains(t, schemaAt(t, "schemas", "HarvestSourceInput", "properties", "url")["description"],
		"stored in its normal form")

	created := b.write(t, http.MethodPost, "/api/v1/harvest_sources", validSource("HTTP://Data.Example.GOV:0080/./Path/Data.JSON?Key=%7e#top"))
	require.Equal(t, http.StatusCreated, created.status, "body: %s", created.body)
	src := created.object(t)
	const stored = "http://data.example.gov/Path/Data.JSON?Key=~"
	require.Equal(t, stored, src["url"])

	other := b.newSource(t, "")
	for _, u := range []string{stored, stored + "#frag", stored + "#", "hTTp://DATA.example.gov/Path/Data.JSON?Key=%7E",
		"http://data.example.gov:80/Path/Data.JSON?Key=~", "http://data.example.gov:0080/Path/Data.JSON?Key=~",
		"http://data.example.gov/Path/./Data.JSON?Key=~", "http://data.example.gov/x/../Path/Data.JSON?Key=~",
		"http://data.example.gov//Path//Data.JSON?Key=~", "http://data.example.gov/%50ath/Data.JSON?Key=~",
		" http://data.example.gov/Path/Data.JSON?Key=~ \n"} {
		requireError(t, b.write(t, http.MethodPost, "/api/v1/harvest_sources", validSource(u)), http.StatusConflict,
			`a harvest source with url "`+stored+`"`)
		requireError(t, b.write(t, http.MethodPut, "/api/v1/harvest_sources/"+other.ID, validSource(u)), http.StatusConflict,
			"already exists: harvest source "+src["id"].(string))
	}
	put := b.write(t, http.MethodPut, "/api/v1/harvest_sources/"+src["id"].(string), validSource("HTTP://DATA.EXAMPLE.GOV/Path/Data.JSON?Key=%7E#x"))
	require.Equal(t, http.StatusOK, put.status, "its own url, written another way: %s", put.body)
	require.Equal(t, stored, put.object(t)["url"])

	for _, u := range []string{"http://data.example.gov/path/data.json?Key=~", "http://data.example.gov/Path/Data.JSON?Key=~&b=1",
		"http://data.example.gov/Path/Data.JSON", "http://data.example.gov/Path/Data.JSON?Key=%7E%2F"} {
		r := b.write(t, http.MethodPost, "/api/v1/harvest_sources", validSource(u))
		require.Equal(t, http.StatusCreated, r.status, "another catalog: %s: %s", u, r.body)
	}

	// A source stored before normalisation, as it was sent then.
	legacy := b.insertLegacy(t, "https://Legacy.Example.gov:443/a/./data.json#x", harvest.SourceDocument,
		harvest.SchemaDCATUS11Federal)
	requireError(t, b.write(t, http.MethodPost, "/api/v1/harvest_sources", validSource("https://legacy.example.gov/a/data.json")),
		http.StatusConflict, `a harvest source with url "https://Legacy.Example.gov:443/a/./data.json#x" (the same catalog as "https://legacy.example.gov/a/data.json") already exists: harvest source `+legacy.ID)
	put = b.write(t, http.MethodPut, "/api/v1/harvest_sources/"+legacy.ID, validSource("https://legacy.example.gov/a/data.json"))
	require.Equal(t, http.StatusOK, put.status, "the legacy source takes its normal form: %s", put.body)
	require.Equal(t, "https://legacy.example.gov/a/data.json", put.object(t)["url"])
}

// TestSourcePutBackWhatGetGave runs the precedence recipe as the docs write it: GET a source,
// change one member, PUT the whole body back. The read-only members GET answers with (id,
// created_at, updated_at, next_run_at) are accepted and ignored, even when they no longer
// match (an edit or a frequency change in between moved them): issue 34 item 12.
func TestSourcePutBackWhatGetGave(t *testing.T) {
	t.Parallel()
	b := setup(t)
	body := validSource("https://www.hhs.gov/data.json")
	body["frequency"] = "daily"
	created := b.write(t, http.MethodPost, "/api/v1/harvest_sources", body)
	require.Equal(t, http.StatusCreated, created.status, "body: %s", created.body)
	id := created.object(t)["id"].(string)

	got := b.get(t, "/api/v1/harvest_sources/"+id).object(t)
	require.NotNil(t, got["next_run_at"])
	got["precedence"] = -10
	put := b.write(t, http.MethodPut, "/api/v1/harvest_sources/"+id, got)
	require.Equal(t, http.StatusOK, put.status, "body: %s", put.body)
	after := put.object(t)
	require.Equal(t, -10.0, after["precedence"])
	require.Equal(t, id, after["id"])
	require.Equal(t, got["created_at"], after["created_at"])

	// Stale or made-up read-only values change nothing.
	stale := maps.Clone(after)
	stale["id"], stale["created_at"], stale["updated_at"], stale["next_run_at"] = "not-this-id", "1999-01-01T00:00:00Z", nil, nil
	stale["precedence"] = 3
	again := b.write(t, http.MethodPut, "/api/v1/harvest_sources/"+id, stale)
	require.Equal(t, http.StatusOK, again.status, "body: %s", again.body)
	a := again.object(t)
	require.Equal(t, id, a["id"])
	require.Equal(t, got["created_at"], a["created_at"])
	require.NotNil(t, a["next_run_at"], "a daily source stays scheduled")
	require.Equal(t, 3.0, a["precedence"])

	// A member GET never gives is still refused.
	stale["colour"] = "blue"
	require.Equal(t, "unknown field", requireFields(t, b.write(t, http.MethodPut, "/api/v1/harvest_sources/"+id, stale), "colour")["colour"])
}
