package assess

import (
	"context"
	"fmt"

	"github.com/harvester-dev/harvester/stages/check"
	"github.com/harvester-dev/harvester/store"
)

// SaveChecks stores checks: each URL's stored state becomes check.Fold of the stored one (the
// zero Stored for a URL never checked) and its result, in the order of rs, so that a late result
// older than the stored one changes nothing. The read and the write are two statements: two
// writers of one URL at once can lose one fold (a count of consecutive failures one short),
// never a result.
func SaveChecks(ctx context.Context, st Store, rs []check.Result) error {
	urls := make([]string, len(rs))
	for i, r := range rs {
		urls[i] = r.URL
	}
	stored, err := storedChecks(ctx, st, urls)
	if err != nil {
		return err
	}
	for _, r := range rs {
		var prev check.Stored
		if p := stored[r.URL]; p != nil {
			prev = *p
		}
		next := check.Fold(prev, r)
		stored[r.URL] = &next
	}
	rows := make([]*store.LinkResult, 0, len(rs))
	for _, r := range rs {
		if s := stored[r.URL]; s != nil {
			rows = append(rows, rowOf(s))
			delete(stored, r.URL) // once per URL
		}
	}
	if err := st.LinkResultUpsert(ctx, rows); err != nil {
		return fmt.Errorf("store link checks: %w", err)
	}
	return nil
}

// storedChecks reads the stored checks of urls as check.Stored, by URL.
func storedChecks(ctx context.Context, st Store, urls []string) (map[string]*check.Stored, error) {
	rows, err := st.LinkResultGet(ctx, urls)
	if err != nil {
		return nil, fmt.Errorf("read link checks: %w", err)
	}
	out := make(map[string]*check.Stored, len(rows))
	for u, r := range rows {
		out[u] = &check.Stored{Result: check.Result{URL: r.URL, Status: r.Status, Error: check.ErrorClass(r.ErrorClass),
			Detail: r.Error, FinalURL: r.FinalURL, ContentType: r.ContentType, ContentLength: r.ContentLength,
			Redirects: r.Redirects, CheckedAt: r.CheckedAt, OK: r.OK}, LastOKAt: r.LastOKAt,
			ConsecutiveFailures: r.ConsecutiveFailures}
	}
	return out, nil
}

// rowOf is s as a link_result row.
func rowOf(s *check.Stored) *store.LinkResult {
	return &store.LinkResult{URL: s.URL, Status: s.Status, ErrorClass: string(s.Error), Error: s.Detail,
		FinalURL: s.FinalURL, ContentType: s.ContentType, ContentLength: s.ContentLength, Redirects: s.Redirects,
		OK: s.OK, CheckedAt: s.CheckedAt.UTC(), LastOKAt: s.LastOKAt.UTC(), ConsecutiveFailures: s.ConsecutiveFailures}
}
