package web

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/fetch"
)

// TestValidatePage: the validate page checks with the site's api.Validator (typed, in
// process) and lists its verdicts: a pasted dataset's errors, a document that cannot be read,
// and a downloaded catalog cut at the validator's MaxRecords.
func TestValidatePage(t *testing.T) {
	t.Parallel()
	catalog := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"dataset": [{"identifier": "a"}, {"identifier": "b"}]}`))
	}))
	t.Cleanup(catalog.Close)
	st := sqliteStore(t)
	log := slog.New(slog.DiscardHandler)
	h, err := api.New(api.Config{APIKey: testKey}, api.Deps{Store: st, Logger: log})
	require.NoError(t, err)
	w, err := New(Config{APIKey: testKey}, Deps{Store: st, API: h, Logger: log,
		Validator: api.Validator{Fetch: fetch.Config{AllowPrivate: true}, MaxRecords: 1}})
	require.NoError(t, err)
	srv := httptest.NewServer(w)
	t.Cleanup(srv.Close)
	b := (&site{store: st, url: srv.URL}).browser(t)
	b.signIn()
	post := func(form url.Values, status int) string {
		t.Helper()
		form.Set("csrf_token", b.csrf("/validate"))
		res, body := b.post("/validate", form)
		require.Equal(t, status, res.StatusCode, body)
		return body
	}

	body := post(url.Values{"schema_type": {"dcatus1.1: federal"}, "method": {"paste"},
		"json": {`{"identifier": "COT-1", "title": "Trade"}`}}, http.StatusOK)
	require.Contains(t, body, "Not valid. 1 records checked.")
	require.Contains(t, body, "COT-1")

	body = post(url.Values{"schema_type": {"dcatus1.1: federal"}, "method": {"paste"}, "json": {`{"dataset": [`}},
		http.StatusUnprocessableEntity)
	require.Contains(t, body, "the document is not a readable DCAT-US catalog")

	body = post(url.Values{"schema_type": {"dcatus1.1: federal"}, "method": {"url"}, "url": {catalog.URL + "/data.json"}},
		http.StatusOK)
	require.Contains(t, body, "1 records checked (truncated: the rest of the document was not read).")
}
