package dcatapfeed

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	vocab "github.com/harvester-dev/harvester/dcatap"
	"github.com/harvester-dev/harvester/feeds"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/quality"
	"github.com/harvester-dev/harvester/quality/assess"
	"github.com/harvester-dev/harvester/rdf"
	"github.com/harvester-dev/harvester/store"
)

// The dataset's MQA score in the W3C Data Quality Vocabulary, under piveau's metric names
// (reference/mqa/edp-dqv-vocabulary.ttl), as data.europa.eu publishes its scores
// (docs/quality.md).
const (
	nsDQV = vocab.NSDQV
	nsPV  = vocab.NSPV

	xsdBooleanType = "http://www.w3.org/2001/XMLSchema#boolean"
	xsdIntegerType = "http://www.w3.org/2001/XMLSchema#integer"
)

var (
	dqvHasQualityMeasurement = rdf.IRI(nsDQV + "hasQualityMeasurement")
	dqvQualityMeasurement    = rdf.IRI(nsDQV + "QualityMeasurement")
	dqvIsMeasurementOf       = rdf.IRI(nsDQV + "isMeasurementOf")
	dqvComputedOn            = rdf.IRI(nsDQV + "computedOn")
	dqvValue                 = rdf.IRI(nsDQV + "value")
	pvScore                  = rdf.IRI(nsPV + "score")
)

// scores scores the datasets of rows (not the DCAT-US 3.0 catalog records, which are no
// datasets) from the stored records (a DCAT-AP one on its graph) and link checks, by dataset id:
// three reads for the page.
func (f *Feed) scores(ctx context.Context, rows []*store.LiveDataset) (map[string]quality.Score, error) {
	recs := make([]assess.Record, 0, len(rows))
	for _, ds := range rows {
		if ds.RecordType != harvest.RecordTypeCatalogRecord {
			recs = append(recs, assess.Record{ID: ds.ID, Identifier: ds.Identifier, DCAT: ds.DCAT})
		}
	}
	scores, err := assess.ScoreRecords(ctx, f.Store, recs)
	if err != nil {
		return nil, fmt.Errorf("score the page's datasets: %w", err)
	}
	return scores, nil
}

// measure adds the quality measurements of the dataset s (its score in scores by ds's id;
// none when it has no score there): s dqv:hasQualityMeasurement one dqv:QualityMeasurement per
// piveau metric, each with dqv:isMeasurementOf the metric, dqv:computedOn s and dqv:value:
//   - pv:score: the dataset's points (0–405), rounded to an xsd:integer as piveau's metric
//     declares;
//   - each indicator (pv:keywordAvailability, pv:accessUrlStatusCode, …): an xsd:boolean, true
//     when the dataset meets it, and for an indicator judged per distribution when every
//     distribution does (none: false). The status-code metrics say whether every URL answered
//     2xx or 3xx rather than a status code: the codes are a dataset's quality route's
//     (GET /api/v1/datasets/{id}/quality).
func (b *builder) measure(s rdf.Term, ds *store.LiveDataset, scores map[string]quality.Score) {
	sc, ok := scores[ds.ID]
	if !ok {
		return
	}
	add := func(metric, value rdf.Term) {
		m := b.node(dqvQualityMeasurement)
		b.add(s, dqvHasQualityMeasurement, m)
		b.add(m, dqvIsMeasurementOf, metric)
		b.add(m, dqvComputedOn, s)
		b.add(m, dqvValue, value)
	}
	add(pvScore, rdf.Literal(fmt.Sprint(int(math.Round(sc.Points))), xsdIntegerType, ""))
	for _, in := range sc.Indicators {
		met := in.Of > 0 && in.Met == in.Of
		add(rdf.IRI(nsPV+strings.TrimPrefix(string(in.Metric), "pv:")), rdf.Literal(fmt.Sprint(met), xsdBooleanType, ""))
	}
}

// withChecks returns the validators of a document that carries scores: etag with the newest
// stored link check folded in, and the later of modified and that check (a check changes the
// scores the document carries without changing its datasets).
func (f *Feed) withChecks(ctx context.Context, etag string, modified time.Time) (string, time.Time, error) {
	checked, err := f.Store.LinkResultNewest(ctx)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("read the newest link check: %w", err)
	}
	if checked.After(modified) {
		modified = checked
	}
	return feeds.ETag(etag, checked.Format(time.RFC3339Nano)), modified, nil
}
