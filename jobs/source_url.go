package jobs

import (
	"context"
	"fmt"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// SourceByURL returns the harvest source whose URL names the same catalog as url, a URL in
// its normal form (harvest.NormalizeSourceURL), or store.ErrNotFound: harvest.SameSourceURL of
// url and each stored source's URL in its normal form for its type, so one stored before URLs
// were normalised (with a fragment, a default port, "/./"…) is found too, and so is a portal
// source stored as its API endpoint (".../api/3/action/package_search") before portal URLs were
// normalised to their base. A source stored with exactly url comes first. It reads every
// source, a page at a time: the unique index on harvest_source.url only sees URLs written alike.
func SourceByURL(ctx context.Context, st store.Store, url string) (*store.Source, error) {
	var found *store.Source
	for offset := 0; ; {
		srcs, total, err := st.SourceList(ctx, &store.SourceListParams{PageParams: store.PageParams{
			Limit: 500, Offset: offset}})
		if err != nil {
			return nil, fmt.Errorf("list harvest sources: %w", err)
		}
		for _, src := range srcs {
			switch {
			case src.URL == url:
				return src, nil
			case found == nil && harvest.SameSourceURL(normalForm(src), url):
				found = src
			}
		}
		offset += len(srcs)
		if len(srcs) == 0 || offset >= total {
			break
		}
	}
	if found == nil {
		return nil, store.ErrNotFound
	}
	return found, nil
}

// normalForm is the URL of src in its normal form for its type, or as stored when it has none
// (a file path).
func normalForm(src *store.Source) string {
	if n, err := harvest.NormalizeSourceURL(src.SourceType, src.URL); err == nil {
		return n
	}
	return src.URL
}
