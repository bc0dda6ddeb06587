package extract

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/text/encoding/charmap"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
)

// A downloaded JSON catalog in a declared charset is read as UTF-8 (fetch.ToUTF8); an ISO XML
// document keeps its bytes: its own encoding declaration governs.
func TestDecodeCharset(t *testing.T) {
	t.Parallel()
	const doc = `{"dataset":[{"identifier":"café – ü"}]}`
	latin1, err := charmap.Windows1252.NewEncoder().String(doc)
	require.NoError(t, err)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=windows-1252")
		_, _ = io.WriteString(w, latin1)
	}))
	defer srv.Close()
	cfg := fetch.Config{Backoff: time.Millisecond, AllowPrivate: true}.WithDefaults()
	h := &Handler{fetch: cfg}
	for schema, want := range map[harvest.SchemaType]string{
		harvest.SchemaDCATUS11Federal: doc,
		harvest.SchemaISO19115_2:      latin1,
	} {
		d, err := fetch.GetDocument(context.Background(), cfg, srv.URL, fetch.Validators{})
		require.NoError(t, err)
		f, err := h.decodeCharset(d, &harvest.Job{SchemaType: schema})
		require.NoError(t, err, schema)
		got, err := io.ReadAll(f)
		require.NoError(t, err)
		f.Close()
		os.Remove(f.Name())
		require.Equal(t, want, string(got), schema)
	}
}
