package sources

import (
	"context"
	"fmt"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// NormalURL is a source URL of type t in its normal form (harvest.NormalizeSourceURL: RFC 3986
// §6 normalization; a portal's URL as its portal's base, a csw source's as its endpoint), or u
// as it is when it has none (a local file path, or a URL the rule table refuses).
func NormalURL(t harvest.SourceType, u string) string {
	if n, err := harvest.NormalizeSourceURL(t, u); err == nil {
		return n
	}
	return u
}

// normalParentURL is a waf-collection's parent record URL in its normal form
// (harvest.NormalizeURL), or u as it is when it has none ("" stays "").
func normalParentURL(u string) string {
	if n, err := harvest.NormalizeURL(u); err == nil && u != "" {
		return n
	}
	return u
}

// Normalize puts p's url and collection_parent_url in their normal forms (NormalURL), as every
// write of this package stores them.
func Normalize(p *store.SourceInsertParams) {
	p.URL = NormalURL(p.SourceType, p.URL)
	p.CollectionParentURL = normalParentURL(p.CollectionParentURL)
}

// ByURL returns the harvest source whose URL names the same catalog as url, a URL in its
// normal form (NormalURL), or store.ErrNotFound: harvest.SameSourceURL of url and each stored
// source's URL in its normal form for its type, so one stored before URLs were normalised (with
// a fragment, a default port, "/./"…) is found too, and so is a portal source stored as its API
// endpoint (".../api/3/action/package_search") before portal URLs were normalised to their
// base. A source stored with exactly url comes first. It reads every source, a page at a time:
// the unique index on harvest_source.url only sees URLs written alike.
func ByURL(ctx context.Context, st store.Store, url string) (*store.Source, error) {
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
			case found == nil && harvest.SameSourceURL(NormalURL(src.SourceType, src.URL), url):
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
