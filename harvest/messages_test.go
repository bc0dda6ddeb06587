package harvest

import (
	"encoding/json"
	"strings"
	"testing"

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
