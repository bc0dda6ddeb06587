package portal

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
	"github.com/harvester-dev/harvester/stages/extract/portal/portaltest"
)

// socrataResult is a generated Discovery API result of view id on domain, of resource type typ,
// with a description of pad bytes.
func socrataResult(id, domain, typ string, pad int) string {
	return fmt.Sprintf(`{"resource": {"id": %q, "name": "View %s", "type": %q, "parent_fxf": [], "description": %q},
	 "classification": {"categories": []}, "metadata": {"domain": %q}, "permalink": "https://%s/d/%s"}`,
		id, id, typ, strings.Repeat("d", pad), domain, domain, id)
}

// TestPortalItemOverTheCapIsAnErrorRow: a portal item over --max-record-bytes, in each family's
// answer, is measured as it streams past and settles as a RecordTooLarge error row naming its
// size and the cap; nothing of it goes to COMPARE, and its identifier is seen, so the live
// dataset it has is not deleted.
func TestPortalItemOverTheCapIsAnErrorRow(t *testing.T) {
	t.Parallel()
	const limit = 4096
	t.Run("ckan", func(t *testing.T) {
		t.Parallel()
		big := fmt.Sprintf(`{"id":"big","title":"Big","notes":%q}`, strings.Repeat("n", limit))
		ckan := portaltest.NewCKAN(t, []json.RawMessage{json.RawMessage(`{"id": "a"}`), json.RawMessage(big)})
		r := runPortal(t, openSQLite(t), harvest.SourceCKAN, ckan.URL(), nil, []string{ckan.URL() + "/dataset/big"},
			testPortalFetch(), extract.WithMaxRecordBytes(limit))
		requireTooLarge(t, r, ckan.URL()+"/dataset/big", len(big))
		require.Equal(t, []string{ckan.URL() + "/dataset/a"}, identifiers(r.records(t)))
	})
	t.Run("socrata", func(t *testing.T) {
		t.Parallel()
		const domain = "127.0.0.1" // the test server's host
		big := socrataResult("bigg-2222", domain, "dataset", limit)
		body := `{"resultSetSize": 2, "results": [` + socrataResult("aaaa-1111", domain, "dataset", 10) + `, ` + big + `]}`
		srv, _ := servePages(t, []byte(body))
		live := SocrataIdentifier(domain, "bigg-2222")
		r := runPortal(t, openSQLite(t), harvest.SourceSocrata, srv.URL, nil, []string{live}, testPortalFetch(),
			extract.WithMaxRecordBytes(limit))
		requireTooLarge(t, r, live, len(big))
		require.Equal(t, []string{SocrataIdentifier(domain, "aaaa-1111")}, identifiers(r.records(t)))
	})
	t.Run("opendatasoft", func(t *testing.T) {
		t.Parallel()
		big := fmt.Sprintf(`{"dataset": {"dataset_id": "b", "dataset_uid": "da_big", "metas": {"default": {"title": "Big", "description": %q}}}}`,
			strings.Repeat("m", limit))
		srv, _ := servePages(t, []byte(`{"total_count": 2, "results": [{"dataset_uid": "da_a"}, `+big+`]}`))
		r := runPortal(t, openSQLite(t), harvest.SourceOpenDataSoft, srv.URL, nil, []string{srv.URL + "/datasets/da_big"},
			testPortalFetch(), extract.WithMaxRecordBytes(limit))
		requireTooLarge(t, r, srv.URL+"/datasets/da_big", len(big))
	})
}

// requireTooLarge checks a listing of two items, the second over the cap and keyed id.
func requireTooLarge(t *testing.T, r *extractRun, id string, size int) {
	t.Helper()
	require.NoError(t, r.err)
	require.Empty(t, r.jobErrors(t), "an item over the cap does not fail the job")
	require.Equal(t, 2, r.listed(t))
	errs := r.recordErrors(t)
	require.Len(t, errs, 1)
	s := errs["RecordTooLarge"]
	require.Equal(t, id, s.Identifier)
	require.Equal(t, harvest.PositionKey(1), s.Key)
	require.Contains(t, s.Errors[0].Message, fmt.Sprintf("is %d bytes, over the record size cap of 4096 bytes", size))
	for _, rec := range r.records(t) {
		require.NotEqual(t, id, rec.Identifier, "nothing of the item goes on: no source_raw is stored")
	}
	require.Empty(t, r.unseenAtListing, "the item is in the portal: its live dataset is not deleted")
}

// socrataDerived is a generated Discovery API result of a view derived from parent, of type typ.
func socrataDerived(id, parent, typ string) string {
	return fmt.Sprintf(`{"resource": {"id": %q, "name": "View %s", "type": %q, "parent_fxf": [%q]},
	 "classification": {}, "metadata": {"domain": "127.0.0.1"}}`, id, id, typ, parent)
}

// TestSocrataListsItsOwnDomainsDatasets: a Socrata source harvests the datasets of its own
// domain (the source URL's host, 127.0.0.1 here), keyed under it. A result naming another
// domain in metadata.domain is a ForeignDomain error row, keyed under neither domain, so no
// source mints another domain's identifiers: the row names the view by its own domain's
// identifier (issue 34 item 17); a derived view (a filter, a chart, a map over a
// dataset: resource.type, parent_fxf) is skipped: no record, no error row, counted against the
// portal's total only.
func TestSocrataListsItsOwnDomainsDatasets(t *testing.T) {
	t.Parallel()
	const domain = "127.0.0.1"
	results := []string{
		socrataResult("aaaa-1111", domain, "dataset", 10),
		socrataDerived("bbbb-2222", "aaaa-1111", "filter"),
		socrataDerived("cccc-3333", "aaaa-1111", "map"),
		socrataResult("dddd-4444", "data.cityofchicago.org", "dataset", 10),
		socrataResult("eeee-5555", strings.ToUpper(domain), "map", 10), // a geospatial dataset, not derived
		`{"resource": {"id": "ffff-6666", "name": "Chart", "type": "chart", "parent_fxf": []}, "metadata": {"domain": "127.0.0.1"}}`,
	}
	srv, _ := servePages(t, []byte(`{"resultSetSize": 6, "results": [`+strings.Join(results, ",")+`]}`))
	r := runPortal(t, openSQLite(t), harvest.SourceSocrata, srv.URL, map[string]string{"limit": "10"}, nil, testPortalFetch())
	require.NoError(t, r.err)
	require.Empty(t, r.jobErrors(t), "the listing is complete: skipped views count against the total")
	require.Equal(t, []string{SocrataIdentifier(domain, "aaaa-1111"), SocrataIdentifier(domain, "eeee-5555")},
		identifiers(r.records(t)))
	errs := r.recordErrors(t)
	require.Len(t, errs, 1)
	fd := errs["ForeignDomain"]
	require.Equal(t, SocrataIdentifier("data.cityofchicago.org", "dddd-4444"), fd.Identifier)
	require.Contains(t, fd.Errors[0].Message, `dddd-4444 (title "View dddd-4444") is a view of domain "data.cityofchicago.org", `+
		`not of this source's domain "127.0.0.1"`)
	require.Equal(t, 3, r.listed(t), "two datasets and the foreign result; the three derived views are no records")
}

// TestReadPage: how readPage reads a page: an item of exactly the cap is kept as served, one
// byte more keeps only its key members (nested ones too); a page with two items arrays, an
// envelope over the cap, or bytes that are not JSON (a syntax error, trailing garbage) fail
// the page, naming the URL.
func TestReadPage(t *testing.T) {
	t.Parallel()
	const limit = 100
	item := func(n int) string { // an ODS v2.0 dataset of n bytes
		head := `{"dataset": {"dataset_uid": "da_1", "metas": {"default": {"title": "T"}}}, "pad": "`
		return head + strings.Repeat("p", n-len(head)-2) + `"}`
	}
	var env struct {
		TotalCount int `json:"total_count"`
	}
	srv, _ := servePages(t, []byte(`{"total_count": 2, "results": [`+item(limit)+" ,\n "+item(limit+1)+`]}`))
	items, err := readPage(context.Background(), fastFetch(), srv.URL, odsShape, limit, &env)
	require.NoError(t, err)
	require.Equal(t, 2, env.TotalCount)
	require.Len(t, items, 2)
	require.Equal(t, item(limit), string(items[0].raw), "kept exactly as served")
	require.Nil(t, items[1].raw)
	require.EqualValues(t, limit+1, items[1].size)
	require.JSONEq(t, `{"dataset": {"dataset_uid": "da_1", "metas": {"default": {"title": "T"}}}}`, string(items[1].keys))
	it := portalItems(items, func(raw json.RawMessage) extract.PortalItem { return odsItem("https://o.example", raw) })[1]
	require.True(t, it.TooLarge)
	require.Equal(t, "https://o.example/datasets/da_1", it.Identifier)
	require.Equal(t, "T", it.Title)

	for body, want := range map[string]string{
		`{"total_count": 0, "results": [], "results": []}`:                             `second items array at "/results"`,
		`{"total_count": 0, "results": [], "x": "` + strings.Repeat("x", limit) + `"}`: "bytes outside its items, over the record size cap of 100 bytes",
		`{"total_count": 0, "results": [1,]}`:                                          "not JSON at byte",
		`{"total_count": 0, "results": []} x`:                                          "not JSON at byte",
	} {
		srv, _ := servePages(t, []byte(body))
		_, err := readPage(context.Background(), fastFetch(), srv.URL, odsShape, limit, &env)
		require.ErrorContains(t, err, want, body)
		require.ErrorContains(t, err, "GET "+srv.URL, body)
	}
}
