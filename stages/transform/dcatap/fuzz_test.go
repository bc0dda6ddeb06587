package dcatap

import (
	"encoding/json"
	"os"
	"testing"
)

// FuzzTransform: whatever the record graph, Transform returns an error or a JSON object with
// the identifier, never panics.
func FuzzTransform(f *testing.F) {
	for _, name := range []string{"full.nq", "warnings.nq"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`<https://example.org/d> <http://purl.org/dc/terms/spatial> _:p .
_:p <http://www.w3.org/ns/locn#geometry> "POLYGON((1 2, 3" .
<https://example.org/d> <http://purl.org/dc/terms/temporal> _:t .
_:t <http://www.w3.org/2006/time#hasBeginning> _:i .
_:i <http://www.w3.org/2006/time#inXSDDate> "2020-02-30" .
`))
	f.Fuzz(func(t *testing.T, nq []byte) {
		out, _, err := Transform(nq, "https://example.org/d", []string{"nb", "en"})
		if err != nil {
			return
		}
		var d map[string]any
		if err := json.Unmarshal(out, &d); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, out)
		}
		if d["identifier"] != "https://example.org/d" {
			t.Fatalf("identifier %v", d["identifier"])
		}
	})
}
