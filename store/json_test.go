package store

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStorableJSON(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"a":"x"}`:                       `{"a":"x"}`,
		`{"a":"\ud800"}`:                  `{"a":"\ufffd"}`,
		`{"a":"\uDBFFz"}`:                 `{"a":"\ufffdz"}`,
		`{"a":"\udc00\ud800"}`:            `{"a":"\ufffd\ufffd"}`,
		`{"a":"\ud800\ud800\udc00"}`:      `{"a":"\ufffd\ud800\udc00"}`,
		`{"a":"\ud83d\ude00 \u00e9"}`:     `{"a":"\ud83d\ude00 \u00e9"}`,
		`{"a":"\u0000", "\u0000":1}`:      `{"a":"\ufffd", "\ufffd":1}`,
		`{"a":"\\ud800", "b":"\\\ud800"}`: `{"a":"\\ud800", "b":"\\\ufffd"}`,
		`{"a":"\u00"}`:                    `{"a":"\u00"}`, // not JSON: left alone
		`"\ud800`:                         `"\ufffd`,
	} {
		got := StorableJSON(json.RawMessage(in))
		require.Equal(t, want, string(got), "in: %s", in)
		var a, b any
		if json.Unmarshal([]byte(in), &a) == nil {
			require.NoError(t, json.Unmarshal(got, &b))
			if in != `{"a":"\u0000", "\u0000":1}` {
				require.Equal(t, a, b, "encoding/json reads both the same: %s", in)
			}
		}
	}
}
