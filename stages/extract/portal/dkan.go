package portal

import (
	"context"
	"encoding/json"

	"github.com/harvester-dev/harvester/catalog"
	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
)

// dkanPager lists a DKAN 2 metastore: GET <base>/api/1/metastore/schemas/dataset/items
// ?show-reference-ids, a bare JSON array of DCAT-US datasets whose keyword, theme, publisher
// and distributions are wrapped as {identifier, data}. The metastore has no paging envelope
// and no total (DKAN's /api/1/search can report total 0 while datasets exist, NOTES §16, so
// it is not asked): the listing is that one answer, complete when it was read whole. An item
// is keyed "<base>/dataset/<identifier>" (CKANIdentifier), as DKAN's dataset pages are.
// The answer is read as it streams (readPage): an item over extract.Config.MaxRecordBytes is measured,
// never held.
func (h *handler) dkanPager(fc fetch.Config, job *harvest.Job) *extract.Pager {
	base := CKANBaseURL(job.URL)
	u := base + "/api/1/metastore/schemas/dataset/items?show-reference-ids"
	return &extract.Pager{Name: "DKAN metastore " + u, PageSize: 1, Window: 1,
		Page: func(ctx context.Context, _ int) (*extract.PortalPage, error) {
			items, err := readPage(ctx, fc, u, dkanShape, h.Config().MaxRecordBytes, nil)
			if err != nil {
				return nil, err
			}
			i := -1
			return &extract.PortalPage{URL: u, Total: -1, Last: true, Items: portalItems(items, func(raw json.RawMessage) extract.PortalItem {
				i++
				e := catalog.Identify(i, raw)
				it := extract.PortalItem{Raw: raw, Title: e.Title, Err: e.Err}
				if e.Err == nil {
					it.Identifier = CKANIdentifier(base, e.Identifier)
				}
				return it
			})}, nil
		}}
}

// dkanShape: the metastore answers a bare array of DCAT-US datasets, keyed by identifier.
var dkanShape = &pageShape{items: []string{""}, keys: []string{"/identifier", "/identifier/@id", "/title"}}
