package trigger

import (
	"context"
	"fmt"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// SourceByURL returns the harvest source whose URL names the same catalog as url
// (harvest.SameSourceURL), or store.ErrNotFound. Sources are compared on their normal form, so
// one stored before URLs were normalised (with a fragment, a default port, "/./"…) is found
// too; a source stored with exactly url comes first. It reads every source, a page at a time:
// the unique index on harvest_source.url only sees URLs written alike.
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
			case found == nil && harvest.SameSourceURL(src.URL, url):
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
