package extract

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/fetch"
)

// countingTransport counts the response body bytes the client read.
type countingTransport struct {
	next http.RoundTripper
	read atomic.Int64
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err == nil {
		resp.Body = &countingBody{ReadCloser: resp.Body, n: &c.read}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// gzipBomb is an XML document of expanded bytes (mostly one comment), gzipped.
func gzipBomb(t *testing.T, expanded int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	require.NoError(t, err)
	_, err = io.WriteString(zw, `<?xml version="1.0"?><gmd:MD_Metadata><!--`)
	require.NoError(t, err)
	chunk := bytes.Repeat([]byte{'a'}, 1<<20)
	for range expanded >> 20 {
		_, err = zw.Write(chunk)
		require.NoError(t, err)
	}
	_, err = io.WriteString(zw, `--></gmd:MD_Metadata>`)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// TestXMLRecordReadNoFurtherThanTheCap: an XML record over the record size cap, plain or a
// gzip bomb served as .xml, is refused having read little more than the cap (the download
// stops: counted on the client's side of the connection), and a record under the cap is read.
func TestXMLRecordReadNoFurtherThanTheCap(t *testing.T) {
	t.Parallel()
	const limit = 1 << 20
	bomb := gzipBomb(t, 256<<20)                 // 256 MiB expanded, ~250 KB on the wire
	plain := bytes.Repeat([]byte("<a/>"), 8<<20) // 32 MiB
	small := []byte(`<?xml version="1.0"?><gmd:MD_Metadata/>`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/bomb.xml":
			_, _ = w.Write(bomb)
		case "/plain.xml":
			_, _ = w.Write(plain)
		case "/small.xml":
			_, _ = w.Write(small)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	for _, tc := range []struct {
		path    string
		served  int
		maxRead int64
	}{
		{"/bomb.xml", len(bomb), 64 << 10}, // 1 MiB expanded is ~1 KB compressed; buffers aside
		{"/plain.xml", len(plain), limit + 256<<10},
	} {
		ct := &countingTransport{next: http.DefaultTransport}
		fc := fetch.Config{Client: &http.Client{Transport: ct, Timeout: time.Minute}, Attempts: 1}
		h := New(nil, nil, fc, WithMaxRecordBytes(limit))
		_, err := h.ReadXML(ctx, srv.URL+tc.path)
		var tle *RecordTooLargeError
		require.True(t, errors.As(err, &tle), "%s: %v", tc.path, err)
		require.ErrorContains(t, err, "more than 1048576 bytes, over the record size cap")
		require.Less(t, ct.read.Load(), tc.maxRead, "%s: bytes read of %d served", tc.path, tc.served)
	}
	h := New(nil, nil, fetch.Config{AllowPrivate: true}, WithMaxRecordBytes(limit))
	body, err := h.ReadXML(ctx, srv.URL+"/small.xml")
	require.NoError(t, err)
	require.Equal(t, small, body)

	// A file source is read no further either.
	path := filepath.Join(t.TempDir(), "big.xml")
	require.NoError(t, os.WriteFile(path, plain, 0o644))
	_, err = h.ReadXML(ctx, path)
	var tle *RecordTooLargeError
	require.True(t, errors.As(err, &tle), "%v", err)
}
