package harvest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/stretchr/testify/require"
)

func TestMessagesKeepMarkup(t *testing.T) {
	t.Parallel()
	body := `{"identifier":"html","description":"` + strings.Repeat("<b>x</b> & ", 1000) + `"}`
	m, err := RecordMessage(SubjectCompare, &Record{JobID: "j", Identifier: "html", Body: RawText(body)})
	require.NoError(t, err)
	require.False(t, strings.Contains(string(m.Payload), `\u003c`), "< is not escaped")
	require.False(t, strings.Contains(string(m.Payload), `\u0026`), "& is not escaped")
	require.Less(t, len(m.Payload), len(body)+300, "the body travels at about its own size")
	require.False(t, strings.HasSuffix(string(m.Payload), "\n"), "no trailing newline")
	var rec Record
	require.NoError(t, Decode(m, &rec))
	require.Equal(t, body, string(rec.Body))

	raw, err := marshal(RawText("<a href=\"x\">&</a>\n"))
	require.NoError(t, err)
	require.Equal(t, `"<a href=\"x\">&</a>\n"`, string(raw))
	var back RawText
	require.NoError(t, json.Unmarshal(raw, &back))
	require.Equal(t, "<a href=\"x\">&</a>\n", string(back))
}

// TestDecodeChecksVersion: a body of another envelope version, or with none, is refused, also
// into a value that already holds the current version; a type without V still works.
func TestDecodeChecksVersion(t *testing.T) {
	for body, ok := range map[string]bool{
		`{"v": 1, "job_id": "j"}`:  Version == 1,
		`{"v": 99, "job_id": "j"}`: false,
		`{"job_id": "j"}`:          false,
	} {
		rec := Record{V: Version}
		err := Decode(message.NewMessage("m", []byte(body)), &rec)
		if ok {
			require.NoError(t, err, body)
			require.Equal(t, "j", rec.JobID)
		} else {
			require.ErrorContains(t, err, "envelope version", body)
		}
		var loose map[string]any
		err = Decode(message.NewMessage("m", []byte(body)), &loose)
		if ok {
			require.NoError(t, err, body)
		} else {
			require.ErrorContains(t, err, "envelope version", body)
		}
	}
}

// TestRawTextWire: a RawText goes on the wire exactly as the JSON string of its bytes written
// by marshal (what its MarshalJSON wrote before it became a MarshalText), markup, line
// separators, control characters and bytes that are not UTF-8 included.
func TestRawTextWire(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		"", `{"a": 1}`, "<b>x</b> & y", "line\u2028sep\u2029para", "tab\tnl\ncr\r\x00\x1f\x7f",
		`quote " backslash \\ slash /`, "caf\xe9 \xff\xfe", "ü ☃ 𝄞", "{\n  \"identifier\": \"x\"\n}\n",
	} {
		want, err := marshal(string(body))
		require.NoError(t, err)
		got, err := marshal(RawText(body))
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "%q", body)

		m, err := RecordMessage(SubjectCompare, &Record{JobID: "j", Identifier: "i", Body: RawText(body),
			Transformed: RawText(body)})
		require.NoError(t, err)
		wantRec := `{"v":1,"job_id":"j","source_id":"","record_id":"","job_type":"","schema_type":"",` +
			`"identifier":"i","position":0`
		if body != "" {
			wantRec += `,"body":` + string(want) + `,"transformed":` + string(want)
		}
		require.Equal(t, wantRec+"}", string(m.Payload))
	}
}

// TestRawTextDecode: a RawText reads back the exact bytes of its JSON string; null leaves it
// empty; a JSON value that is not a string is refused.
func TestRawTextDecode(t *testing.T) {
	t.Parallel()
	var rec Record
	require.NoError(t, json.Unmarshal([]byte(`{"body": "<b>\"x\"</b>\n\u00e9", "transformed": null}`), &rec))
	require.Equal(t, "<b>\"x\"</b>\n\u00e9", string(rec.Body))
	require.Empty(t, rec.Transformed)
	require.Error(t, json.Unmarshal([]byte(`{"body": {"title": "x"}}`), &rec))
	require.Error(t, json.Unmarshal([]byte(`{"body": 7}`), &rec))
}
