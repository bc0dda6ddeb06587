package assess

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/harvester-dev/harvester/quality"
)

// RecordsStore is what ScoreRecords needs of store.Store.
type RecordsStore interface {
	Store
	DatasetFindings(ctx context.Context, ids []string) (map[string]bool, error)
	DatasetGraphs(ctx context.Context, ids []string) (map[string][]byte, error)
}

// Record is a stored dataset the caller has read already: its id, identifier and record
// (dataset.dcat).
type Record struct {
	ID         string
	Identifier string // the dataset IRI a DCAT-AP record's graph describes
	DCAT       json.RawMessage
}

// ScoreRecords scores records the caller holds (a feed's page) from stored data with three
// reads whatever their number: whether each has a validation row that counts against
// compliance (DatasetFindings), the record graphs of the DCAT-AP ones (DatasetGraphs), which
// they are scored on, and the stored checks of their distribution URLs. It returns the scores
// by dataset id.
func ScoreRecords(ctx context.Context, st RecordsStore, recs []Record) (map[string]quality.Score, error) {
	out := make(map[string]quality.Score, len(recs))
	if len(recs) == 0 {
		return out, nil
	}
	ids := make([]string, len(recs))
	urls := make([][]string, len(recs))
	var all []string
	for i, r := range recs {
		ids[i], urls[i] = r.ID, quality.LinkURLs(r.DCAT)
		all = append(all, urls[i]...)
	}
	findings, err := st.DatasetFindings(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("read the datasets' validation rows: %w", err)
	}
	graphs, err := st.DatasetGraphs(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("read the datasets' record graphs: %w", err)
	}
	slices.Sort(all)
	links, err := storedChecks(ctx, st, slices.Compact(all))
	if err != nil {
		return nil, err
	}
	for i, r := range recs {
		in := quality.Input{DCAT: r.DCAT, Graph: graphs[r.ID], Identifier: r.Identifier, Findings: findings[r.ID],
			Links: map[string]quality.LinkResult{}}
		for _, u := range urls[i] {
			if c := links[u]; c != nil {
				in.Links[u] = c.LinkResult()
			}
		}
		out[r.ID] = quality.Assess(in)
	}
	return out, nil
}
