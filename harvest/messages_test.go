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

	raw, err := RawText("<a href=\"x\">&</a>\n").MarshalJSON()
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
