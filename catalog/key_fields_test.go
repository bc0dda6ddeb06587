package catalog

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// identified returns the Entry identify makes of raw, its key fields decoded by decode.
func identified(raw []byte, decode func([]byte, any) error) Entry {
	var d keyFields
	return identify(3, raw, &d, decode(raw, &d))
}

// requireSameEntry: raw identifies as the same Entry by the stream as by json.Unmarshal.
func requireSameEntry(t *testing.T, raw []byte) {
	t.Helper()
	want := identified(raw, json.Unmarshal)
	got := identified(raw, func(raw []byte, v any) error { return decodeKeyFields(raw, v.(*keyFields)) })
	require.Equal(t, want.Identifier, got.Identifier, "%q", raw)
	require.Equal(t, want.Title, got.Title, "%q", raw)
	require.Equal(t, errString(want.Err), errString(got.Err), "%q", raw)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// The stream takes the usual records, and gives their key fields as json.Unmarshal does: names
// matched without regard to case, the last match winning; what it refuses goes to the
// reference, whose answer (and error) is kept.
func TestKeyFieldsStreamMatchesReference(t *testing.T) {
	t.Parallel()
	streamed := []string{
		`{"identifier":"a","title":"T"}`,
		` {"title":"T \u00e9\n","x":{"identifier":"no"},"identifier":{"@id":"b"}} `,
		`{"IDENTIFIER":"c","Title":"T","identifier":"d"}`, // the last wins
		`{"Identifier":"case","TITLE":"T"}`,
		`{"identifier":"e","title":null}`,
		`{"identifier":"f","title":true}`,
		`{"identifier":5}`,
		`{"identifier":"  "}`,
		`{"identifier":"g","identifier":"h"}`,
		`{"d":[1,{"a":[]}],"ident\u0069fier":"i"}`,
		`{}`,
	}
	for _, in := range streamed {
		var d keyFields
		require.NoError(t, streamKeyFields([]byte(in), &d), "the stream takes %s", in)
		requireSameEntry(t, []byte(in))
	}
	refused := []string{
		`"s"`, `[{"identifier":"a"}]`, `5`, `null`,
		`{"identifier":"a","title":1e999}`, `{"Identifier":"a","title":[1e999]}`, `{"identifier":"a","title":["x"]}`,
		"{\"identifier\":\"bad \xff byte\"}", `{"identifier":"\ud800"}`,
		`{"identifier":"a"} x`, `{"identifier":"a",}`, `{"identifier":`, ``,
	}
	for _, in := range refused {
		var d keyFields
		require.Error(t, streamKeyFields([]byte(in), &d), "the stream refuses %q", in)
		requireSameEntry(t, []byte(in))
	}
}

// FuzzKeyFieldsStream: every element identifies as the same Entry by the stream as by
// json.Unmarshal.
func FuzzKeyFieldsStream(f *testing.F) {
	for _, s := range []string{`{"identifier":"a","title":"T"}`, `{"Identifier":{"@id":"b"},"TITLE":null}`,
		`{"identifier":"a","identifier":"b","title":1}`, `[]`, `{"x":[{"identifier":1}],"identifier":"\u00e9"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) { requireSameEntry(t, in) })
}
