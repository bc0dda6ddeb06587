package dcatapfeed_test

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/feeds"
	"github.com/harvester-dev/harvester/feeds/dcatapfeed"
	"github.com/harvester-dev/harvester/quality"
	"github.com/harvester-dev/harvester/quality/assess"
	"github.com/harvester-dev/harvester/rdf"
	"github.com/harvester-dev/harvester/stages/check"
	"github.com/harvester-dev/harvester/store"
)

const (
	dqv = "http://www.w3.org/ns/dqv#"
	pv  = "https://piveau.eu/ns/voc#"
)

// measurements returns the dqv:value of each measurement of s by its metric, checking that
// each is a dqv:QualityMeasurement computed on s.
func measurements(t *testing.T, ts []rdf.Triple, s rdf.Term) map[string]rdf.Term {
	t.Helper()
	out := map[string]rdf.Term{}
	for _, m := range objects(ts, s, dqv+"hasQualityMeasurement") {
		require.Equal(t, []rdf.Term{rdf.IRI(dqv + "QualityMeasurement")}, objects(ts, m, rdf.RDFType))
		require.Equal(t, []rdf.Term{s}, objects(ts, m, dqv+"computedOn"))
		metric := objects(ts, m, dqv+"isMeasurementOf")
		value := objects(ts, m, dqv+"value")
		require.Len(t, metric, 1)
		require.Len(t, value, 1)
		out[metric[0].Value] = value[0]
	}
	return out
}

// TestQualityMeasurements: a dataset's document and its catalog page carry its MQA score as
// dqv:hasQualityMeasurement, one measurement per piveau metric (pv:score and each indicator's);
// pv:score is its points rounded; a link check changes the measurements and the validators (the
// old ETag is not answered 304); rdflib reads every serialization with our triple count. Both
// stores.
func TestQualityMeasurements(t *testing.T) {
	py := python(t)
	backends(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		s := newSource(t, st, "measured")
		link := "https://files.example.gov/water.csv"
		ds := s.add(t, st, "water", json.RawMessage(`{"identifier": "water", "title": "Water", "keyword": ["water"],
			"distribution": [{"accessURL": "`+link+`", "format": "CSV", "mediaType": "text/csv"}]}`))
		srv := feedServer(t, st, feeds.Catalog{Title: "Q", Publisher: "Tester"})
		saveCheck := func(status int, at time.Time) {
			require.NoError(t, assess.SaveChecks(ctx, st, []check.Result{{URL: link, Status: status, OK: status == 200,
				FinalURL: link, ContentLength: -1, CheckedAt: at}}))
		}
		saveCheck(404, time.Now().UTC().Add(-time.Hour))

		fetch := func(etag string) (*http.Response, []rdf.Triple, map[string]rdf.Term) {
			req, err := http.NewRequest(http.MethodGet, srv.URL+"/dataset/"+ds.Slug+".ttl", nil)
			require.NoError(t, err)
			if etag != "" {
				req.Header.Set("If-None-Match", etag)
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode)
			var body []byte
			body, err = io.ReadAll(resp.Body)
			require.NoError(t, err)
			ts := parse(t, body, rdf.Turtle, srv.URL)
			var subject rdf.Term
			for _, tr := range ts {
				if tr.P.Value == dqv+"hasQualityMeasurement" {
					subject = tr.S
				}
			}
			return resp, ts, measurements(t, ts, subject)
		}
		resp, _, got := fetch("")
		want, err := assess.DatasetQuality(ctx, st, ds.ID)
		require.NoError(t, err)
		require.Len(t, got, 1+len(quality.Indicators))
		require.Equal(t, rdf.Literal(fmt.Sprint(int(math.Round(want.Score.Points))), "http://www.w3.org/2001/XMLSchema#integer", ""),
			got[pv+"score"])
		boolean := func(v bool) rdf.Term {
			return rdf.Literal(fmt.Sprint(v), "http://www.w3.org/2001/XMLSchema#boolean", "")
		}
		require.Equal(t, boolean(true), got[pv+"keywordAvailability"])
		require.Equal(t, boolean(false), got[pv+"categoryAvailability"])
		require.Equal(t, boolean(true), got[pv+"formatMediaTypeMachineInterpretable"])
		require.Equal(t, boolean(false), got[pv+"accessUrlStatusCode"], "its accessURL answered 404")

		saveCheck(200, time.Now().UTC())
		again, _, mended := fetch(resp.Header.Get("ETag"))
		require.NotEqual(t, resp.Header.Get("ETag"), again.Header.Get("ETag"), "a check changes the document")
		require.Equal(t, boolean(true), mended[pv+"accessUrlStatusCode"])

		pageResp, pageBody := get(t, srv.URL+"/catalog.ttl", "")
		require.Equal(t, http.StatusOK, pageResp.StatusCode)
		pageTriples := parse(t, pageBody, rdf.Turtle, srv.URL)
		var onPage rdf.Term
		for _, tr := range pageTriples {
			if tr.P.Value == dqv+"hasQualityMeasurement" {
				onPage = tr.S
			}
		}
		require.Equal(t, mended, measurements(t, pageTriples, onPage), "the page carries the dataset's measurements")

		dir := t.TempDir()
		var graphs []rdflibGraph
		counts := map[string]int{}
		for ext, format := range dcatapfeed.Extensions {
			r, body := get(t, srv.URL+"/dataset/"+ds.Slug+ext, "")
			require.Equal(t, http.StatusOK, r.StatusCode, ext)
			counts[ext] = len(parse(t, body, format, srv.URL))
			graphs = append(graphs, rdflibGraph{ID: ext, Docs: []rdflibDoc{{Path: writeTemp(t, dir, "d"+ext, body),
				Format: rdflibFormat[format]}}})
		}
		for ext, res := range rdflibRead(t, py, graphs) {
			require.Empty(t, res.Error, ext)
			require.Equal(t, counts[ext], res.Triples, "%s: rdflib reads our triples", ext)
		}
	})
}
