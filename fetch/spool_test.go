package fetch

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue 25 D22: a download, and its conversion to UTF-8, is a file with no name on disk, so a
// process killed (kill -9) while it holds one leaves no file behind; the file reads whole.
func TestDownloadHasNoName(t *testing.T) {
	t.Parallel()
	const doc = "{\"dataset\":[{\"identifier\":\"caf\xe9\"}]}" // windows-1252
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=windows-1252")
		_, _ = io.WriteString(w, doc)
	}))
	defer srv.Close()
	cfg := testFetchConfig().WithDefaults()
	d, err := GetDocument(context.Background(), cfg, srv.URL, Validators{})
	require.NoError(t, err)
	_, err = os.Stat(d.File.Name())
	require.True(t, errors.Is(err, os.ErrNotExist), "the download's name is gone: %v", err)
	f, err := ToUTF8(d, cfg.MaxBytes)
	require.NoError(t, err)
	defer f.Close()
	require.NotEqual(t, d.File, f, "converted")
	_, err = os.Stat(f.Name())
	require.True(t, errors.Is(err, os.ErrNotExist), "the converted file's name is gone: %v", err)
	require.Equal(t, `{"dataset":[{"identifier":"café"}]}`, body(t, f))
}
