package assess

import (
	"context"
	"time"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/quality"
	"github.com/harvester-dev/harvester/stages/check"
	"github.com/harvester-dev/harvester/store"
)

// StageStore is the CHECK stage's check.Store and check.RecheckStore over a store.Store.
type StageStore struct{ store.Store }

var (
	_ check.Store        = StageStore{}
	_ check.RecheckStore = StageStore{}
)

// LinkCheckedAt implements check.Store.
func (s StageStore) LinkCheckedAt(ctx context.Context, urls []string) (map[string]time.Time, error) {
	rows, err := s.LinkResultGet(ctx, urls)
	if err != nil {
		return nil, err
	}
	out := make(map[string]time.Time, len(rows))
	for u, r := range rows {
		out[u] = r.CheckedAt
	}
	return out, nil
}

// LinkSave implements check.Store (SaveChecks).
func (s StageStore) LinkSave(ctx context.Context, rs []check.Result) error {
	if len(rs) == 0 {
		return nil
	}
	return SaveChecks(ctx, s.Store, rs)
}

// SourceLinkURLs implements check.Store.
func (s StageStore) SourceLinkURLs(ctx context.Context, sourceID string) ([]string, error) {
	return s.DatasetLinkURLs(ctx, sourceID)
}

// SourceLinkChecks implements check.Store: the source's link_checks setting.
func (s StageStore) SourceLinkChecks(ctx context.Context, sourceID string) (bool, error) {
	src, err := s.SourceGet(ctx, sourceID)
	if err != nil {
		return false, err
	}
	return harvest.LinkChecksOn(src.Options), nil
}

// SourceQuality implements check.Store: SourceQuality as a harvest.QualityReport (Report).
func (s StageStore) SourceQuality(ctx context.Context, sourceID string) (*harvest.QualityReport, error) {
	q, err := SourceQuality(ctx, s.Store, sourceID)
	if err != nil {
		return nil, err
	}
	return Report(q), nil
}

// JobCreated implements check.Store.
func (s StageStore) JobCreated(ctx context.Context, jobID string) (time.Time, error) {
	j, err := s.JobGet(ctx, jobID)
	if err != nil {
		return time.Time{}, err
	}
	return j.CreatedAt, nil
}

// LinkCheckSources implements check.RecheckStore: every source whose link_checks is not off.
func (s StageStore) LinkCheckSources(ctx context.Context) ([]string, error) {
	var ids []string
	for page := 0; ; page++ {
		srcs, _, err := s.SourceList(ctx, &store.SourceListParams{PageParams: store.PageParams{Limit: 500, Offset: 500 * page}})
		if err != nil {
			return nil, err
		}
		for _, src := range srcs {
			if harvest.LinkChecksOn(src.Options) {
				ids = append(ids, src.ID)
			}
		}
		if len(srcs) < 500 {
			return ids, nil
		}
	}
}

// LinkPrune implements check.RecheckStore.
func (s StageStore) LinkPrune(ctx context.Context) (int, error) { return s.LinkResultPrune(ctx) }

// Report is a source's quality as its quality event reports it (without job, source and time):
// the mean, its rating, the links and the five indicators that cost the most points.
func Report(q *Source) *harvest.QualityReport {
	rep := &harvest.QualityReport{Score: q.Mean, Max: quality.MaxPoints, Rating: string(q.Rating), Datasets: q.Datasets,
		Links: harvest.QualityLinks(q.Links), Costliest: []harvest.QualityIndicator{}}
	for _, is := range q.Costliest(5) {
		rep.Costliest = append(rep.Costliest, harvest.QualityIndicator{Metric: string(is.Metric), Lost: is.Lost, Max: is.Max})
	}
	return rep
}
