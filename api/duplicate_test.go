package api

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSourcePrecedence: precedence is kept by POST and PUT, shown by GET, 0 when left out (a
// PUT replaces every field); a value out of -1000..1000, not an integer, or null is a 422
// naming the member, with the rule table's message (harvest.ParsePrecedence's for what is not a
// whole number, as the form and the CLI give it).
func TestSourcePrecedence(t *testing.T) {
	t.Parallel()
	b := setup(t)
	body := validSource("https://precedence.example.gov/data.json")
	body["precedence"] = 1000
	created := b.write(t, http.MethodPost, "/api/v1/harvest_sources", body)
	require.Equal(t, http.StatusCreated, created.status, created.body)
	src := created.object(t)
	require.Equal(t, 1000.0, src["precedence"])
	path := "/api/v1/harvest_sources/" + src["id"].(string)
	require.Equal(t, 1000.0, b.get(t, path).object(t)["precedence"])

	body["precedence"] = -1000
	require.Equal(t, -1000.0, b.write(t, http.MethodPut, path, body).object(t)["precedence"])
	delete(body, "precedence")
	require.Equal(t, 0.0, b.write(t, http.MethodPut, path, body).object(t)["precedence"], "left out: 0")

	for value, want := range map[any]string{
		1001:                                "1001 is out of range: want a whole number from -1000 to 1000 (higher wins a cross-source duplicate)",
		-100000:                             "-100000 is out of range: want a whole number from -1000 to 1000 (higher wins a cross-source duplicate)",
		1.5:                                 `"1.5" is not a whole number: want one from -1000 to 1000 (higher wins a cross-source duplicate)`,
		"abc":                               `"abc" is not a whole number: want one from -1000 to 1000 (higher wins a cross-source duplicate)`,
		" 5 ":                               `" 5 " is not a whole number: want one from -1000 to 1000`,
		"10":                                "must be an integer",
		true:                                "must be an integer",
		nil:                                 "must not be null",
		json.Number("99999999999999999999"): "99999999999999999999 is out of range: want a whole number from -1000 to 1000",
		json.Number("1e2"):                  `"1e2" is not a whole number`,
	} {
		body["precedence"] = value
		for _, method := range []string{http.MethodPost, http.MethodPut} {
			p := "/api/v1/harvest_sources"
			if method == http.MethodPut {
				p = path
			}
			f := requireFields(t, b.write(t, method, p, body), "precedence")
			require.Contains(t, f["precedence"], want, "%s %v", method, value)
		}
	}
	require.Equal(t, 0.0, b.get(t, path).object(t)["precedence"], "a refused PUT changed nothing")
}
