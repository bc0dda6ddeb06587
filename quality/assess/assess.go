// Package assess scores stored datasets by the MQA (package quality) from what the store keeps:
// each live dataset's record, whether its record has a validation row, and the stored link
// checks of its distribution URLs (link_result). CheckSource checks a source's distribution URLs
// with a check.Checker and stores the results first. The harvest command's --check-links and
// the API's quality endpoints call it; it reads and writes only through Store.
package assess

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/harvester-dev/harvester/quality"
	"github.com/harvester-dev/harvester/stages/check"
	"github.com/harvester-dev/harvester/store"
)

// Store is what assess needs of store.Store.
type Store interface {
	DatasetLinkURLs(ctx context.Context, sourceID string) ([]string, error)
	DatasetQualityStream(ctx context.Context, p *store.DatasetQualityParams, fn func(*store.DatasetQuality) error) error
	LinkResultGet(ctx context.Context, urls []string) (map[string]*store.LinkResult, error)
	LinkResultUpsert(ctx context.Context, rows []*store.LinkResult) error
}

// Links counts the distinct distribution URLs of some datasets by their stored check.
type Links struct {
	URLs      int `json:"urls"`      // distinct distribution URLs
	Checked   int `json:"checked"`   // with a stored check that requested them (check.Result.Checked)
	OK        int `json:"ok"`        // of Checked, answered 2xx or 3xx
	Broken    int `json:"broken"`    // of Checked, not OK
	Unchecked int `json:"unchecked"` // never checked, not checkable (ftp:, mailto:) or excluded
}

// add counts url by its stored check r (nil: never checked).
func (l *Links) add(r *check.Stored) {
	l.URLs++
	switch {
	case r == nil || !r.Checked():
		l.Unchecked++
	case r.OK:
		l.Checked++
		l.OK++
	default:
		l.Checked++
		l.Broken++
	}
}

// Source is a source's quality: the MQA summary of its live datasets and its links.
type Source struct {
	quality.Summary
	Links Links `json:"links"`
}

// batch is how many datasets are scored between two reads of link results.
const batch = 500

// SourceQuality scores every live dataset of the source sourceID from stored data and
// aggregates the scores (quality.Aggregate, combined batch by batch so that memory holds one
// batch of records and a 128-bit hash of each of the source's distinct URLs, urlSet). A source without datasets has a Summary of
// no dataset (mean 0, rating bad).
func SourceQuality(ctx context.Context, st Store, sourceID string) (*Source, error) {
	out := &Source{Summary: quality.Aggregate(nil)}
	if err := scoreSource(ctx, st, sourceID, out, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// scoreSource streams the live datasets of the source sourceID, scores them batch by batch
// (batch datasets between two reads of link results), counts each distinct URL's stored check
// into out.Links and combines each batch's scores into out.Summary. visit, when not nil, sees
// each batch with its scores (scores[i] is ds[i]'s) before the next is read.
func scoreSource(ctx context.Context, st Store, sourceID string, out *Source,
	visit func(ds []*store.DatasetQuality, scores []quality.Score)) error {
	seen := newURLSet()
	var pending []*store.DatasetQuality
	flush := func() error {
		scores, links, err := score(ctx, st, pending)
		if err != nil {
			return err
		}
		for _, d := range pending {
			for _, u := range d.URLs {
				if seen.add(u) {
					out.Links.add(links[u])
				}
			}
		}
		if visit != nil {
			visit(pending, scores)
		}
		out.Summary = quality.Combine(out.Summary, quality.Aggregate(scores))
		pending = pending[:0]
		return nil
	}
	err := st.DatasetQualityStream(ctx, &store.DatasetQualityParams{SourceID: sourceID}, func(d *store.DatasetQuality) error {
		if pending = append(pending, d); len(pending) == batch {
			return flush()
		}
		return nil
	})
	if err == nil && len(pending) > 0 {
		err = flush()
	}
	if err != nil {
		return fmt.Errorf("score the datasets of source %s: %w", sourceID, err)
	}
	return nil
}

// Dataset is one dataset's quality: its score and the stored checks of its distribution URLs.
type Dataset struct {
	ID         string        `json:"id"`
	Slug       string        `json:"slug"`
	Identifier string        `json:"identifier"`
	Score      quality.Score `json:"score"`
	Links      []DatasetLink `json:"links"`
	Findings   bool          `json:"findings"` // its record has a validation row (an error or a warning)
}

// DatasetLink is a distribution URL of a dataset with its stored check; Check is nil when it was
// never checked.
type DatasetLink struct {
	URL   string        `json:"url"`
	Check *check.Stored `json:"check"`
}

// DatasetQuality scores the dataset datasetID (live or held) from stored data; store.ErrNotFound
// when there is no such dataset.
func DatasetQuality(ctx context.Context, st Store, datasetID string) (*Dataset, error) {
	var d *store.DatasetQuality
	err := st.DatasetQualityStream(ctx, &store.DatasetQualityParams{DatasetID: datasetID}, func(x *store.DatasetQuality) error {
		d = x
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read dataset %s: %w", datasetID, err)
	}
	if d == nil {
		return nil, fmt.Errorf("dataset %s: %w", datasetID, store.ErrNotFound)
	}
	scores, links, err := score(ctx, st, []*store.DatasetQuality{d})
	if err != nil {
		return nil, err
	}
	out := &Dataset{ID: d.ID, Slug: d.Slug, Identifier: d.Identifier, Score: scores[0], Findings: d.Findings,
		Links: []DatasetLink{}}
	for _, u := range d.URLs {
		out.Links = append(out.Links, DatasetLink{URL: u, Check: links[u]})
	}
	return out, nil
}

// score assesses ds with the stored checks of their URLs, which it returns too.
func score(ctx context.Context, st Store, ds []*store.DatasetQuality) ([]quality.Score, map[string]*check.Stored, error) {
	var urls []string
	for _, d := range ds {
		urls = append(urls, d.URLs...)
	}
	slices.Sort(urls)
	links, err := storedChecks(ctx, st, slices.Compact(urls))
	if err != nil {
		return nil, nil, err
	}
	scores := make([]quality.Score, len(ds))
	for i, d := range ds {
		in := quality.Input{DCAT: d.DCAT, Graph: d.Graph, Identifier: d.Identifier, Findings: d.Findings,
			Links: map[string]quality.LinkResult{}}
		for _, u := range d.URLs {
			if r := links[u]; r != nil {
				in.Links[u] = r.LinkResult()
			}
		}
		scores[i] = quality.Assess(in)
	}
	return scores, links, nil
}

// BrokenLink is a distribution URL whose stored check found it broken, with the datasets of the
// source that use it (by slug, sorted).
type BrokenLink struct {
	check.Stored
	Datasets []string `json:"datasets"`
}

// BrokenLinks returns the broken links of the source's live datasets, the longest broken first
// (most consecutive failures, then by URL).
func BrokenLinks(ctx context.Context, st Store, sourceID string) ([]*BrokenLink, error) {
	users := map[string][]string{}
	err := st.DatasetQualityStream(ctx, &store.DatasetQualityParams{SourceID: sourceID}, func(d *store.DatasetQuality) error {
		for _, u := range d.URLs {
			users[u] = append(users[u], d.Slug)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the datasets of source %s: %w", sourceID, err)
	}
	urls := make([]string, 0, len(users))
	for u := range users {
		urls = append(urls, u)
	}
	links, err := storedChecks(ctx, st, urls)
	if err != nil {
		return nil, err
	}
	var out []*BrokenLink
	for u, r := range links {
		if r.Checked() && !r.OK {
			slugs := users[u]
			slices.Sort(slugs)
			out = append(out, &BrokenLink{Stored: *r, Datasets: slices.Compact(slugs)})
		}
	}
	slices.SortFunc(out, func(a, b *BrokenLink) int {
		return cmp.Or(cmp.Compare(b.ConsecutiveFailures, a.ConsecutiveFailures), cmp.Compare(a.URL, b.URL))
	})
	return out, nil
}

// CheckSource checks the distribution URLs of the source's live datasets with c, each distinct
// URL once, and stores the results (Store.LinkResultSave). It returns how many URLs it checked.
// When ctx ends first, the results finished so far are stored and ctx's error returned.
func CheckSource(ctx context.Context, c *check.Checker, st Store, sourceID string) (int, error) {
	urls, err := st.DatasetLinkURLs(ctx, sourceID)
	if err != nil {
		return 0, fmt.Errorf("read the distribution URLs of source %s: %w", sourceID, err)
	}
	results, cerr := c.Check(ctx, urls)
	if err := SaveChecks(context.WithoutCancel(ctx), st, results); err != nil {
		return 0, err
	}
	return len(results), cerr
}
