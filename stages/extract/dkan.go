package extract

import (
	"context"
	"encoding/json"

	"github.com/harvester-dev/harvester/catalog"
	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
)

// dkanPager lists a DKAN 2 metastore: GET <base>/api/1/metastore/schemas/dataset/items
// ?show-reference-ids, a bare JSON array of DCAT-US datasets whose keyword, theme, publisher
// and distributions are wrapped as {identifier, data}. The metastore has no paging envelope
// and no total (DKAN's /api/1/search can report total 0 while datasets exist, NOTES §16, so
// it is not asked): the listing is that one answer, complete when it was read whole. An item
// is keyed "<base>/dataset/<identifier>" (CKANIdentifier), as DKAN's dataset pages are.
// The answer is held whole while its items are sent: a DKAN catalog is one document, as a
// data.json is.
func (h *Handler) dkanPager(fc fetch.Config, job *harvest.Job) *Pager {
	base := CKANBaseURL(job.URL)
	u := base + "/api/1/metastore/schemas/dataset/items?show-reference-ids"
	return &Pager{Name: "DKAN metastore " + u, PageSize: 1, Window: 1,
		Page: func(ctx context.Context, _ int) (*PortalPage, error) {
			var items []json.RawMessage
			if err := getJSON(ctx, fc, u, &items); err != nil {
				return nil, err
			}
			page := &PortalPage{URL: u, Total: -1, Last: true, Items: make([]PortalItem, 0, len(items))}
			for i, raw := range items {
				e := catalog.Identify(i, raw)
				it := PortalItem{Raw: raw, Title: e.Title, Err: e.Err}
				if e.Err == nil {
					it.Identifier = CKANIdentifier(base, e.Identifier)
				}
				page.Items = append(page.Items, it)
			}
			return page, nil
		}}
}
