package fetch

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// A JSON catalog in another encoding is read as UTF-8: a UTF-16 byte order mark, or a declared
// charset when the bytes are not UTF-8. A declared charset that the bytes contradict (valid
// UTF-8) is ignored; an unknown one is an error; the converted document is capped.
func TestToUTF8(t *testing.T) {
	t.Parallel()
	const doc = `{"dataset":[{"identifier":"café – ü"}]}`
	latin1, err := charmap.Windows1252.NewEncoder().String(doc)
	require.NoError(t, err)
	utf16, err := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().String(doc)
	require.NoError(t, err)
	for _, tc := range []struct {
		name, contentType, body string
		want, wantErr           string
	}{
		{"utf-8", "application/json", doc, doc, ""},
		{"declared windows-1252", "application/json; charset=windows-1252", latin1, doc, ""},
		{"declared iso-8859-1", "application/json; Charset=\"ISO-8859-1\"", latin1, doc, ""},
		{"utf-16 with a BOM", "application/json", utf16, doc, ""},
		{"mislabelled utf-8", "application/json; charset=iso-8859-1", doc, doc, ""},
		{"unknown charset", "application/json; charset=klingon", latin1, "", `charset "klingon"`},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", tc.contentType)
			_, _ = io.WriteString(w, tc.body)
		}))
		cfg := testFetchConfig().WithDefaults()
		d, err := GetDocument(context.Background(), cfg, srv.URL, Validators{})
		srv.Close()
		require.NoError(t, err, tc.name)
		f, err := ToUTF8(d, cfg.MaxBytes)
		if tc.wantErr != "" {
			require.ErrorContains(t, err, tc.wantErr, tc.name)
			d.Close()
			continue
		}
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, body(t, f), tc.name)
	}
}

// validUTF8 reads in chunks: a character split between two reads is still valid, a truncated
// or bad one is not.
func TestValidUTF8(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 64<<10-1) + "€" + strings.Repeat("ü", 100)
	for s, want := range map[string]bool{
		"": true, "plain": true, "café": true, long: true,
		"caf\xe9": false, long + "\xe2\x82": false, "\xff" + long: false,
	} {
		require.Equal(t, want, validUTF8(strings.NewReader(s)), "%.20q", s)
		require.Equal(t, want, validUTF8(iotest.OneByteReader(bytes.NewReader([]byte(s)))), "%.20q one byte at a time", s)
	}
}

func TestNotHTML(t *testing.T) {
	t.Parallel()
	for doc, title := range map[string]string{
		"\xEF\xBB\xBF\n  <!DOCTYPE html><html><head><title>Sign in</title>": "Sign in",
		"<HTML><TITLE>Error</TITLE>":                                        "Error",
	} {
		err := NotHTML([]byte(doc))
		require.ErrorIs(t, err, ErrHTMLPage, doc)
		require.ErrorContains(t, err, `title "`+title+`"`)
	}
	for _, doc := range []string{`<?xml version="1.0"?><gmi:MI_Metadata>`, "<gmd:MD_Metadata><!-- <html> -->", "", "<!-- <html>", "<?xml <html"} {
		require.NoError(t, NotHTML([]byte(doc)), doc)
	}
}

// A document over the cap once converted to UTF-8 is ErrTooLarge (windows-1252 "é" is one
// byte, two in UTF-8).
func TestToUTF8Cap(t *testing.T) {
	t.Parallel()
	latin1, err := charmap.Windows1252.NewEncoder().String(`{"dataset":["` + strings.Repeat("é", 600) + `"]}`)
	require.NoError(t, err)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=windows-1252")
		_, _ = io.WriteString(w, latin1)
	}))
	defer srv.Close()
	cfg := testFetchConfig()
	cfg.MaxBytes = 1000
	cfg = cfg.WithDefaults()
	d, err := GetDocument(context.Background(), cfg, srv.URL, Validators{})
	require.NoError(t, err, "the download fits")
	defer d.Close()
	_, err = ToUTF8(d, cfg.MaxBytes)
	require.ErrorIs(t, err, ErrTooLarge)
	require.ErrorContains(t, err, "after conversion to UTF-8")
}

// HTMLPage finds an HTML page where a JSON catalog was expected (EXTRACT asks only once the
// document has failed to read as JSON), and its title.
func TestHTMLPage(t *testing.T) {
	t.Parallel()
	for doc, want := range map[string]string{
		"\xEF\xBB\xBF <!DOCTYPE html><html><head><title>Sign in</title>": "Sign in",
		"<!-- portal --><HTML><TITLE>Error &amp; more</TITLE>":           "Error & more",
	} {
		title, ok := HTMLPage(strings.NewReader(doc))
		require.True(t, ok, doc)
		require.Equal(t, want, title)
	}
	for _, doc := range []string{`{"dataset":[]}`, "", "not JSON" + strings.Repeat(".", 2048) + "<html>"} {
		_, ok := HTMLPage(strings.NewReader(doc))
		require.False(t, ok, doc)
	}
}
