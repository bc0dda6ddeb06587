package extract

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

	"github.com/harvester-dev/harvester/harvest"
)

// A JSON catalog in another encoding is read as UTF-8: a UTF-16 byte order mark, or a declared
// charset when the bytes are not UTF-8. A declared charset that the bytes contradict (valid
// UTF-8) is ignored; an unknown one is an error; XML is left to its own declaration.
func TestDecodeCharset(t *testing.T) {
	t.Parallel()
	const doc = `{"dataset":[{"identifier":"café – ü"}]}`
	latin1, err := charmap.Windows1252.NewEncoder().String(doc)
	require.NoError(t, err)
	utf16, err := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().String(doc)
	require.NoError(t, err)
	for _, tc := range []struct {
		name, contentType, body string
		schema                  harvest.SchemaType
		want, wantErr           string
	}{
		{"utf-8", "application/json", doc, "", doc, ""},
		{"declared windows-1252", "application/json; charset=windows-1252", latin1, "", doc, ""},
		{"declared iso-8859-1", "application/json; Charset=\"ISO-8859-1\"", latin1, "", doc, ""},
		{"utf-16 with a BOM", "application/json", utf16, "", doc, ""},
		{"mislabelled utf-8", "application/json; charset=iso-8859-1", doc, "", doc, ""},
		{"unknown charset", "application/json; charset=klingon", latin1, "", "", `charset "klingon"`},
		{"xml keeps its bytes", "application/xml; charset=iso-8859-1", latin1, harvest.SchemaISO19115_2, latin1, ""},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", tc.contentType)
			_, _ = io.WriteString(w, tc.body)
		}))
		cfg := testFetchConfig().WithDefaults()
		d, err := FetchDocument(context.Background(), cfg, srv.URL, Validators{})
		srv.Close()
		require.NoError(t, err, tc.name)
		h := &Handler{fetch: cfg}
		f, err := h.decodeCharset(d, &harvest.Job{SchemaType: cmpSchema(tc.schema)})
		if tc.wantErr != "" {
			require.ErrorContains(t, err, tc.wantErr, tc.name)
			d.Close()
			continue
		}
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, body(t, f), tc.name)
	}
}

func cmpSchema(s harvest.SchemaType) harvest.SchemaType {
	if s == "" {
		return harvest.SchemaDCATUS11Federal
	}
	return s
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
		err := notHTML([]byte(doc))
		require.ErrorIs(t, err, ErrHTMLPage, doc)
		require.ErrorContains(t, err, `title "`+title+`"`)
	}
	for _, doc := range []string{`<?xml version="1.0"?><gmi:MI_Metadata>`, "<gmd:MD_Metadata><!-- <html> -->", "", "<!-- <html>", "<?xml <html"} {
		require.NoError(t, notHTML([]byte(doc)), doc)
	}
}
