package portal

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
)

// ODSBaseURL returns the portal base of an opendatasoft source's URL (harvest.PortalBaseURL):
// without a trailing slash, a query, or an "/api/…" or "/explore…" path pasted with it.
func ODSBaseURL(raw string) string { return harvest.PortalBaseURL(harvest.SourceOpenDataSoft, raw) }

// ODSIdentifier is the harvest identifier of the dataset uid (or, for the v1 API, which has
// no uid, the dataset id) of the OpenDataSoft portal at base: "<base>/datasets/<uid>". The uid
// stays when a dataset's id is renamed; the landing page is made from the id.
func ODSIdentifier(base, uid string) string { return base + "/datasets/" + uid }

// odsPager lists an OpenDataSoft portal. The "api" option picks the API: "v2.1" (default) is
// the Explore API, GET <base>/api/explore/v2.1/catalog/datasets?limit=<n>&offset=<k>
// &order_by=dataset_id, paged by offset/limit with the total from total_count (the API serves
// offsets below 10,000 only); "v1" is the older search, GET <base>/api/datasets/1.0/search/
// ?rows=<n>&start=<k>, whose nhits can disagree with the datasets it serves (NOTES §16): it is
// not trusted as a total, and the listing pages until a page is short. The page size is the
// "limit" option (default in the rule table, at most 100). ODS's DCAT export
// (catalog/exports/dcat) is RDF: harvest it as an rdf source instead.
func (h *handler) odsPager(fc fetch.Config, job *harvest.Job) (*extract.Pager, error) {
	base, limit, err := portalStart(job, ODSBaseURL,
		"opendatasoft source URL %q: want the portal's http(s) URL, e.g. https://example.opendatasoft.com", "limit", 100)
	if err != nil {
		return nil, err
	}
	switch api := extract.Setting(job, "api"); api {
	case "", "v2.1", "v2":
		return &extract.Pager{Name: "OpenDataSoft Explore API " + base + "/api/explore/v2.1/catalog/datasets", PageSize: limit, PageSizeOption: "limit", ResultWindow: 10_000,
			Page: func(ctx context.Context, offset int) (*extract.PortalPage, error) {
				v := url.Values{}
				v.Set("limit", strconv.Itoa(limit))
				v.Set("offset", strconv.Itoa(offset))
				v.Set("order_by", "dataset_id")
				pageURL := base + "/api/explore/v2.1/catalog/datasets?" + v.Encode()
				var env struct {
					TotalCount *int `json:"total_count"`
				}
				items, err := readPage(ctx, fc, pageURL, odsShape, h.Config().MaxRecordBytes, &env)
				if err != nil {
					return nil, err
				}
				if env.TotalCount == nil {
					return nil, fmt.Errorf("GET %s: not an OpenDataSoft catalog/datasets answer: no total_count", pageURL)
				}
				return odsPage(base, pageURL, *env.TotalCount, items), nil
			}}, nil
	case "v1":
		return &extract.Pager{Name: "OpenDataSoft search API v1 " + base + "/api/datasets/1.0/search/", PageSize: limit, PageSizeOption: "limit",
			Page: func(ctx context.Context, offset int) (*extract.PortalPage, error) {
				v := url.Values{}
				v.Set("rows", strconv.Itoa(limit))
				v.Set("start", strconv.Itoa(offset))
				pageURL := base + "/api/datasets/1.0/search/?" + v.Encode()
				var env struct {
					NHits *int `json:"nhits"`
				}
				items, err := readPage(ctx, fc, pageURL, odsShape, h.Config().MaxRecordBytes, &env)
				if err != nil {
					return nil, err
				}
				if env.NHits == nil {
					return nil, fmt.Errorf("GET %s: not an OpenDataSoft v1 search answer: no nhits", pageURL)
				}
				return odsPage(base, pageURL, -1, items), nil // nhits is not a trustworthy total
			}}, nil
	default:
		return nil, fmt.Errorf("the source's api option %q: want v2.1 or v1", api)
	}
}

// odsShape: where the Explore API (results) and the v1 search (datasets) hold their datasets,
// and the members odsItem keys and names one by.
var odsShape = &pageShape{items: []string{"/results", "/datasets"}, keys: []string{
	"/dataset_uid", "/dataset_id", "/datasetid", "/metas/title", "/metas/default/title",
	"/dataset/dataset_uid", "/dataset/dataset_id", "/dataset/metas/title", "/dataset/metas/default/title"}}

// odsPage is the extract.PortalPage of one page of datasets.
func odsPage(base, pageURL string, total int, datasets []pageItem) *extract.PortalPage {
	return &extract.PortalPage{URL: pageURL, Total: total, Items: portalItems(datasets, func(raw json.RawMessage) extract.PortalItem {
		return odsItem(base, raw)
	})}
}

// odsItem is the extract.PortalItem of one dataset: keyed by dataset_uid, else dataset_id (v1:
// datasetid).
func odsItem(base string, raw json.RawMessage) extract.PortalItem {
	it := extract.PortalItem{Raw: raw}
	type keys struct {
		UID   json.RawMessage `json:"dataset_uid"`
		ID    json.RawMessage `json:"dataset_id"`
		IDv1  json.RawMessage `json:"datasetid"`
		Metas struct {
			Title   any `json:"title"`
			Default struct {
				Title any `json:"title"`
			} `json:"default"`
		} `json:"metas"`
	}
	var k struct {
		keys
		Dataset *keys `json:"dataset"` // Explore API v2.0 wraps the dataset
	}
	if err := json.Unmarshal(raw, &k); err != nil {
		it.Err = fmt.Errorf("dataset is not a JSON object: %v", err)
		return it
	}
	if k.Dataset != nil {
		k.keys = *k.Dataset
	}
	for _, t := range []any{k.Metas.Default.Title, k.Metas.Title} {
		if s, ok := t.(string); ok && s != "" {
			it.Title = s
			break
		}
	}
	for _, raw := range []json.RawMessage{k.UID, k.ID, k.IDv1} {
		if id, err := jsonScalar(raw); err == nil && strings.TrimSpace(id) != "" {
			it.Identifier = ODSIdentifier(base, strings.TrimSpace(id))
			return it
		}
	}
	it.Err = fmt.Errorf("dataset%s has no dataset_uid or dataset_id", titled(it.Title))
	return it
}
