package pycswtest

import (
	"bytes"
	"encoding/xml"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A started server answers GetCapabilities with GetRecords and both output schemas, holds
// exactly the sample records, and Remove and Add change what GetRecords counts.
func TestServerHoldsSampleRecordsAndChanges(t *testing.T) {
	s := Start(t)
	caps := s.Get(t, url.Values{"service": {"CSW"}, "version": {"2.0.2"}, "request": {"GetCapabilities"}})
	for _, want := range []string{`name="GetRecords"`, "http://www.isotc211.org/2005/gmd", "http://www.opengis.net/cat/csw/2.0.2"} {
		if !bytes.Contains(caps, []byte(want)) {
			t.Errorf("GetCapabilities does not name %s", want)
		}
	}
	if s.Loaded != len(SampleIdentifiers) {
		t.Fatalf("loaded %d records, want %d", s.Loaded, len(SampleIdentifiers))
	}
	if got := s.Identifiers(t); !slices.Equal(got, SampleIdentifiers) {
		t.Fatalf("Identifiers = %q,\nwant %q", got, SampleIdentifiers)
	}
	if got := matched(t, s, "http://www.isotc211.org/2005/gmd"); got != len(SampleIdentifiers) {
		t.Fatalf("GetRecords gmd matched %d, want %d", got, len(SampleIdentifiers))
	}

	gone := SampleIdentifiers[9]
	s.Remove(t, gone)
	if got := matched(t, s, "http://www.opengis.net/cat/csw/2.0.2"); got != len(SampleIdentifiers)-1 {
		t.Fatalf("after Remove, GetRecords matched %d, want %d", got, len(SampleIdentifiers)-1)
	}
	if slices.Contains(s.Identifiers(t), gone) {
		t.Fatalf("Identifiers still lists %s after Remove", gone)
	}

	doc, err := os.ReadFile(filepath.Join(RecordsDir(), "0c1e7a52-3b7e-4f4a-9d1a-5e0f2c6b8a10.xml"))
	if err != nil {
		t.Fatal(err)
	}
	s.Add(t, doc)
	if got := s.Identifiers(t); len(got) != len(SampleIdentifiers) || !slices.Contains(got, gone) {
		t.Fatalf("after Add, Identifiers = %q", got)
	}
}

// Two servers are independent: removing a record from one leaves the other whole.
func TestServersAreIndependent(t *testing.T) {
	a, b := Start(t), Start(t)
	if a.URL == b.URL {
		t.Fatalf("both servers at %s", a.URL)
	}
	a.Remove(t, SampleIdentifiers[0])
	if got := len(b.Identifiers(t)); got != len(SampleIdentifiers) {
		t.Fatalf("the other server holds %d records, want %d", got, len(SampleIdentifiers))
	}
}

// matched returns numberOfRecordsMatched of a CSW 2.0.2 GetRecords in outputSchema schema.
func matched(t *testing.T, s *Server, schema string) int {
	t.Helper()
	body := s.Get(t, url.Values{
		"service": {"CSW"}, "version": {"2.0.2"}, "request": {"GetRecords"},
		"typeNames": {"csw:Record"}, "resultType": {"results"}, "elementSetName": {"full"},
		"outputSchema": {schema}, "maxRecords": {"1000"},
	})
	var resp struct {
		Results struct {
			Matched  int    `xml:"numberOfRecordsMatched,attr"`
			Returned int    `xml:"numberOfRecordsReturned,attr"`
			Schema   string `xml:"recordSchema,attr"`
		} `xml:"SearchResults"`
	}
	if err := xml.Unmarshal(body, &resp); err != nil {
		t.Fatalf("GetRecords: %v: %.300s", err, body)
	}
	if resp.Results.Returned != resp.Results.Matched || resp.Results.Schema != schema {
		t.Fatalf("GetRecords returned %d of %d in %s", resp.Results.Returned, resp.Results.Matched, resp.Results.Schema)
	}
	return resp.Results.Matched
}
