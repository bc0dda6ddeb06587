package csw_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/internal/pycswtest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
)

// recordingProxy forwards every request to a real CSW and keeps, for each GetRecords or
// GetRecordById, its request and the number of records its answer held.
type recordingProxy struct {
	*httptest.Server
	mu   sync.Mutex
	seen []proxied
	// capabilities, when set, rewrites the GetCapabilities answer.
	capabilities func([]byte) []byte
}

type proxied struct {
	kind, elementSet, constraint string
	returned                     int
}

var returnedAttr = regexp.MustCompile(`numberOfRecordsReturned="(\d+)"`)

func newRecordingProxy(t *testing.T, target string) *recordingProxy {
	u, err := url.Parse(target)
	require.NoError(t, err)
	p := &recordingProxy{}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	rp.ModifyResponse = func(resp *http.Response) error {
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		req := resp.Request
		if strings.EqualFold(req.URL.Query().Get("request"), "GetCapabilities") && p.capabilities != nil {
			body = p.capabilities(body)
			resp.ContentLength = int64(len(body))
			resp.Header.Del("Content-Length")
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		var reqBody string
		if b, ok := req.Context().Value(bodyKey{}).([]byte); ok {
			reqBody = string(b)
		}
		q := req.URL.Query()
		kind := q.Get("request")
		switch {
		case strings.Contains(reqBody, "<csw:GetRecords "):
			kind = "GetRecords"
		case strings.Contains(reqBody, "<csw:GetRecordById "):
			kind = "GetRecordById"
		}
		if kind != "GetRecords" && kind != "GetRecordById" {
			return nil
		}
		pr := proxied{kind: kind, elementSet: q.Get("elementSetName"), constraint: q.Get("constraint")}
		if m := postElement.FindStringSubmatch(reqBody); m != nil {
			pr.elementSet = m[1]
		}
		if m := postFilter.FindString(reqBody); m != "" {
			pr.constraint = m
		}
		if m := returnedAttr.FindSubmatch(body); m != nil {
			fmt.Sscan(string(m[1]), &pr.returned)
		} else if kind == "GetRecordById" {
			pr.returned = 1
		}
		p.mu.Lock()
		p.seen = append(p.seen, pr)
		p.mu.Unlock()
		return nil
	}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), bodyKey{}, body)))
	}))
	t.Cleanup(p.Close)
	return p
}

type bodyKey struct{}

// take returns the requests recorded since the last take.
func (p *recordingProxy) take() []proxied {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.seen
	p.seen = nil
	return out
}

// dcRecord is a Dublin Core record for pycsw's CSW-T Insert.
func dcRecord(id, title, modified string) []byte {
	return []byte(`<csw:Record xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" xmlns:dc="http://purl.org/dc/elements/1.1/" ` +
		`xmlns:dct="http://purl.org/dc/terms/"><dc:identifier>` + id + `</dc:identifier><dc:title>` + title +
		`</dc:title><dc:type>dataset</dc:type><dc:subject>test</dc:subject><dc:publisher>Example Coastal Agency</dc:publisher>` +
		`<dct:abstract>` + title + `, added to the catalogue by the test.</dct:abstract><dct:modified>` + modified +
		`</dct:modified><dct:references scheme="WWW:LINK-1.0-http--link">https://data.example.org/` + id +
		`</dct:references></csw:Record>`)
}

// TestHarvestPycsw (issue 27's acceptance): a csw source of a real pycsw server harvests every
// record with exact counts (its 13 records, over pages of 5, by POST in ISO 19139); the second
// run is unchanged, and downloads no full record (the modified constraint matches none: a
// brief listing and an empty modified listing); a record removed from the server is deleted;
// of two records added, the one modified today comes in the modified listing, the one dated
// 2019 by GetRecordById, and nothing the modified listing did not list is deleted. With
// binding=get, force_harvest lists all 14 in full. A source with the constraint setting lists
// only the records it matches.
func TestHarvestPycsw(t *testing.T) {
	t.Parallel()
	csw := pycswtest.Start(t)
	proxy := newRecordingProxy(t, csw.URL)
	h := pipelinetest.New(t)
	src := cswSource(proxy.URL+"/csw", harvest.SchemaISO19115_1, map[string]string{"max_records": "5"})

	first := h.Harvest(t, src)
	pipelinetest.MustComplete(t, first)
	require.Equal(t, 13, first.Total)
	require.Equal(t, 13, first.Added, "%v", h.ErrorMessages(t, first.JobID, harvest.SeverityError))
	full := proxy.take()
	require.Len(t, full, 3, "13 records in pages of 5: %+v", full)
	for _, r := range full {
		require.Equal(t, "full", r.elementSet)
		require.Empty(t, r.constraint)
	}
	require.ElementsMatch(t, pycswtest.SampleIdentifiers, h.LiveIdentifiers(t, first.SourceID))

	second := h.Harvest(t, src)
	pipelinetest.MustComplete(t, second)
	require.Equal(t, 13, second.Unchanged)
	require.Zero(t, second.Added+second.Updated+second.Deleted+second.Errored)
	incremental := proxy.take()
	var briefs, modified int
	for _, r := range incremental {
		switch r.elementSet {
		case "brief":
			briefs += r.returned
		case "full":
			require.Contains(t, r.constraint, "dct:modified", "a full page only with the modified constraint")
			require.Contains(t, r.constraint, time.Now().UTC().Add(-24*time.Hour-5*time.Minute).Format(time.DateOnly))
			modified += r.returned
		}
	}
	require.Equal(t, 13, briefs, "every identifier listed, brief")
	require.Zero(t, modified, "no record is newer than the last harvest")

	csw.Remove(t, pycswtest.SampleIdentifiers[0])
	third := h.Harvest(t, src)
	pipelinetest.MustComplete(t, third)
	require.Equal(t, 1, third.Deleted)
	require.Equal(t, 12, third.Unchanged)
	proxy.take()

	csw.Add(t, dcRecord("urn:uuid:added-today", "Record added today", time.Now().UTC().Format(time.DateOnly)))
	csw.Add(t, dcRecord("urn:uuid:added-2019", "Record added with an old date", "2019-05-05"))
	fourth := h.Harvest(t, src)
	pipelinetest.MustComplete(t, fourth)
	require.Equal(t, 2, fourth.Added, "%v", h.ErrorMessages(t, fourth.JobID, harvest.SeverityError))
	require.Equal(t, 12, fourth.Unchanged)
	require.Zero(t, fourth.Deleted, "nothing the modified listing did not list is deleted")
	modified, byID := 0, 0
	for _, r := range proxy.take() {
		switch {
		case r.kind == "GetRecordById":
			byID++
		case r.elementSet == "full":
			modified += r.returned
		}
	}
	require.Equal(t, 1, modified, "only the record modified today comes in full")
	require.Equal(t, 1, byID, "the old-dated new record by GetRecordById")
	require.Len(t, h.LiveIdentifiers(t, first.SourceID), 14)

	force := h.Harvest(t, pipelinetest.Source{URL: src.URL, SourceType: harvest.SourceCSW, SchemaType: harvest.SchemaISO19115_1,
		JobType: harvest.JobForceHarvest, Options: map[string]string{"max_records": "5", "binding": "get"}})
	pipelinetest.MustComplete(t, force)
	require.Equal(t, 14, force.Total)
	require.Zero(t, force.Deleted+force.Errored)
	for _, r := range proxy.take() {
		require.Equal(t, "full", r.elementSet, "force_harvest lists everything in full")
		require.Empty(t, r.constraint)
	}

	// A catalog of its own: in h, the constraint source's one record would be held as a
	// cross-source duplicate of the sources above (same identifier).
	harvestPycswConstraint(t, pipelinetest.New(t), csw)
}

// harvestPycswConstraint: a source with the constraint setting lists only the records it
// matches (CQL text in the POST: one service record), and its incremental harvest sends the
// constraint AND the modified date.
func harvestPycswConstraint(t *testing.T, h *pipelinetest.Harness, csw *pycswtest.Server) {
	t.Helper()
	serviceSrc := cswSource(csw.URL, harvest.SchemaISO19115_1, map[string]string{"constraint": "dc:type = 'service'"})
	services := h.Harvest(t, serviceSrc)
	pipelinetest.MustComplete(t, services)
	require.Equal(t, 1, services.Total)
	require.Equal(t, []string{pycswtest.SampleIdentifiers[5]}, h.LiveIdentifiers(t, services.SourceID))
	again := h.Harvest(t, serviceSrc) // incremental: the constraint AND the modified date
	pipelinetest.MustComplete(t, again)
	require.Equal(t, 1, again.Unchanged)
}

// TestHarvestPycswCSW30: a catalogue that offers CSW 3.0 only (pycsw, its capabilities
// rewritten to leave 2.0.2 out) harvests all 13 records by 3.0 requests, POST and GET; the
// incremental run sends the modified date as an FES 2.0 filter.
func TestHarvestPycswCSW30(t *testing.T) {
	t.Parallel()
	csw := pycswtest.Start(t)
	proxy := newRecordingProxy(t, csw.URL)
	proxy.capabilities = func(b []byte) []byte {
		b = bytes.ReplaceAll(b, []byte("<ows:ServiceTypeVersion>2.0.2</ows:ServiceTypeVersion>"), nil)
		b = bytes.ReplaceAll(b, []byte("<ows20:ServiceTypeVersion>2.0.2</ows20:ServiceTypeVersion>"), nil)
		return bytes.ReplaceAll(b, []byte(`version="2.0.2"`), []byte(`version="3.0.0"`))
	}
	h := pipelinetest.New(t)
	for _, binding := range []string{"post", "get"} {
		src := cswSource(proxy.URL+"/csw?"+binding, harvest.SchemaISO19115_1, map[string]string{"max_records": "5",
			"binding": binding})
		first := h.Harvest(t, src)
		pipelinetest.MustComplete(t, first)
		require.Equal(t, 13, first.Added, "%s: %v", binding, h.ErrorMessages(t, first.JobID, harvest.SeverityError))
		proxy.take()
		second := h.Harvest(t, src)
		pipelinetest.MustComplete(t, second)
		require.Equal(t, 13, second.Unchanged, binding)
		for _, r := range proxy.take() {
			if r.elementSet == "full" {
				require.Zero(t, r.returned, "%s: the modified filter matches nothing", binding)
				require.Contains(t, r.constraint, "dct:modified", binding)
			}
		}
	}
}

// TestHarvestPycswDublinCore: a catalogue that does not offer ISO 19139 (pycsw, gmd taken out
// of its capabilities) is harvested in Dublin Core (csw:Record), which TRANSFORM maps by its
// root element: every record added, keyed by dc:identifier.
func TestHarvestPycswDublinCore(t *testing.T) {
	t.Parallel()
	csw := pycswtest.Start(t)
	proxy := newRecordingProxy(t, csw.URL)
	proxy.capabilities = func(b []byte) []byte {
		return bytes.ReplaceAll(b, []byte(">http://www.isotc211.org/2005/gmd<"), []byte(">http://example.org/not-gmd<"))
	}
	h := pipelinetest.New(t)
	rep := h.Harvest(t, cswSource(proxy.URL+"/csw", harvest.SchemaISO19115_1, nil))
	pipelinetest.MustComplete(t, rep)
	require.Equal(t, 13, rep.Total)
	require.Equal(t, 13, rep.Added, "%v", h.ErrorMessages(t, rep.JobID, harvest.SeverityError))
	require.ElementsMatch(t, pycswtest.SampleIdentifiers, h.LiveIdentifiers(t, rep.SourceID))
	bodies := h.RecordBodies(t, rep.SourceID)
	require.Contains(t, bodies[pycswtest.SampleIdentifiers[0]], "<csw:Record")
}
