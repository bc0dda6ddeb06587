package portal

import (
	"bytes"
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

// ArcGISBaseURL returns the portal or Hub site base of an arcgis source's URL
// (harvest.PortalBaseURL, without its "/sharing/rest"): without a trailing slash, a query, a
// "/data.json", or a "/sharing/rest…", "/home…" or "/api/…" path pasted with it.
func ArcGISBaseURL(raw string) string {
	return strings.TrimSuffix(harvest.PortalBaseURL(harvest.SourceArcGIS, raw), "/sharing/rest")
}

// ArcGISItemIdentifier is the harvest identifier of an item of the ArcGIS portal at base: its
// item page "<base>/home/item.html?id=<id>".
func ArcGISItemIdentifier(base, id string) string { return base + "/home/item.html?id=" + id }

// ArcGISHubIdentifier is the harvest identifier of a dataset of the ArcGIS Hub site at base:
// "<base>/datasets/<id>" (the Hub dataset id, "<item id>" or "<item id>_<layer>").
func ArcGISHubIdentifier(base, id string) string { return base + "/datasets/" + id }

// arcgisPager lists an ArcGIS source. Which API is told by the "api" option: "search" (the
// portal search, sharing/rest/search), "hub" (the Hub site's dataset search), or, unset,
// "search" when the source has a "q" or "orgid" option or its URL a /sharing/rest path, and
// "hub" otherwise. A Hub site's DCAT-US feed (/api/feed/dcat-us/1.1.json) is a data.json:
// harvest it as a document source instead.
func (h *handler) arcgisPager(fc fetch.Config, job *harvest.Job) (*extract.Pager, error) {
	base, num, err := portalStart(job, ArcGISBaseURL, "arcgis source URL %q: want the portal's or Hub site's http(s) URL",
		"num", 100)
	if err != nil {
		return nil, err
	}
	api := extract.Setting(job, "api")
	if api == "" {
		api = "hub"
		if extract.Setting(job, "q") != "" || extract.Setting(job, "orgid") != "" || strings.Contains(job.URL, "/sharing/rest") {
			api = "search"
		}
	}
	switch api {
	case "search":
		return arcgisSearchPager(fc, job, base, num, h.Config().MaxRecordBytes)
	case "hub":
		return arcgisHubPager(fc, base, num, h.Config().MaxRecordBytes), nil
	}
	return nil, fmt.Errorf("the source's api option %q: want search or hub", api)
}

// arcgisSearchPager lists the portal search API: GET <base>/sharing/rest/search?f=json&q=<q>
// &sortField=created&sortOrder=asc&start=<s>&num=<n>, pages starting at 1 (start = 1, 1+num…),
// the total from "total"; nextStart -1 marks the last page. q is the source's "q" option (an
// ArcGIS search query such as `type:"Feature Service"`), ANDed with orgid:<orgid> when the
// "orgid" option is set; with neither, "access:public". Sorting by creation date keeps the
// order stable while items are edited. An item is keyed ArcGISItemIdentifier(base, id).
func arcgisSearchPager(fc fetch.Config, job *harvest.Job, base string, num, limit int) (*extract.Pager, error) {
	q := extract.Setting(job, "q")
	if org := extract.Setting(job, "orgid"); org != "" {
		if q == "" {
			q = "orgid:" + org
		} else {
			q = "(" + q + ") AND orgid:" + org
		}
	}
	if q == "" {
		q = "access:public"
	}
	return &extract.Pager{Name: "ArcGIS portal search " + base + "/sharing/rest/search", PageSize: num, PageSizeOption: "num", ResultWindow: 10_000, Start: 1,
		Page: func(ctx context.Context, start int) (*extract.PortalPage, error) {
			v := url.Values{}
			v.Set("f", "json")
			v.Set("q", q)
			v.Set("sortField", "created")
			v.Set("sortOrder", "asc")
			v.Set("start", strconv.Itoa(start))
			v.Set("num", strconv.Itoa(num))
			pageURL := base + "/sharing/rest/search?" + v.Encode()
			var env struct {
				Total     *int            `json:"total"`
				NextStart *int            `json:"nextStart"`
				Error     json.RawMessage `json:"error"`
			}
			items, err := readPage(ctx, fc, pageURL, arcgisSearchShape, limit, &env)
			if err != nil {
				return nil, err
			}
			if len(bytes.TrimSpace(env.Error)) > 0 && string(bytes.TrimSpace(env.Error)) != "null" {
				// ArcGIS answers errors with HTTP 200 and {"error": {code, message}}.
				return nil, fmt.Errorf("GET %s: ArcGIS answered an error: %s", pageURL, compactJSON(env.Error))
			}
			if env.Total == nil {
				return nil, fmt.Errorf("GET %s: not an ArcGIS search answer: no total", pageURL)
			}
			return &extract.PortalPage{URL: pageURL, Total: *env.Total, Last: env.NextStart != nil && *env.NextStart == -1,
				Items: portalItems(items, func(raw json.RawMessage) extract.PortalItem {
					return arcgisItem(raw, "item", func(id string) string { return ArcGISItemIdentifier(base, id) })
				})}, nil
		}}, nil
}

// arcgisHubPager lists a Hub site's datasets through the Hub search API (OGC API - Records):
// GET <base>/api/search/v1/collections/dataset/items?limit=<n>&startindex=<s>, pages starting
// at 1, the total from numberMatched; a page without a "next" link is the last. Each feature
// is a Hub dataset search record, keyed ArcGISHubIdentifier(base, its id).
func arcgisHubPager(fc fetch.Config, base string, num, limit int) *extract.Pager {
	return &extract.Pager{Name: "ArcGIS Hub search " + base + "/api/search/v1/collections/dataset/items", PageSize: num, PageSizeOption: "num", Start: 1,
		Page: func(ctx context.Context, start int) (*extract.PortalPage, error) {
			v := url.Values{}
			v.Set("limit", strconv.Itoa(num))
			v.Set("startindex", strconv.Itoa(start))
			pageURL := base + "/api/search/v1/collections/dataset/items?" + v.Encode()
			var env struct {
				NumberMatched *int `json:"numberMatched"`
				Links         []struct {
					Rel string `json:"rel"`
				} `json:"links"`
			}
			items, err := readPage(ctx, fc, pageURL, arcgisHubShape, limit, &env)
			if err != nil {
				return nil, err
			}
			if env.NumberMatched == nil {
				return nil, fmt.Errorf("GET %s: not an ArcGIS Hub search answer: no numberMatched", pageURL)
			}
			page := &extract.PortalPage{URL: pageURL, Total: *env.NumberMatched, Last: true,
				Items: portalItems(items, func(raw json.RawMessage) extract.PortalItem {
					return arcgisItem(raw, "feature", func(id string) string { return ArcGISHubIdentifier(base, id) })
				})}
			for _, l := range env.Links {
				if l.Rel == "next" {
					page.Last = false
				}
			}
			return page, nil
		}}
}

// arcgisSearchShape and arcgisHubShape: where the portal search and the Hub search answers hold
// their items, and the members arcgisItem keys and names one by.
var (
	arcgisSearchShape = &pageShape{items: []string{"/results"}, keys: []string{"/id", "/title", "/name"}}
	arcgisHubShape    = &pageShape{items: []string{"/features"}, keys: []string{"/id", "/title", "/name",
		"/properties/id", "/properties/title", "/properties/name"}}
)

// arcgisItem is the extract.PortalItem of a portal search item or a Hub record (a Feature whose
// properties hold the item; its id is the feature's, else the properties').
func arcgisItem(raw json.RawMessage, what string, identifier func(id string) string) extract.PortalItem {
	it := extract.PortalItem{Raw: raw}
	var r struct {
		ID         json.RawMessage `json:"id"`
		Title      any             `json:"title"`
		Name       any             `json:"name"`
		Properties *struct {
			ID    json.RawMessage `json:"id"`
			Title any             `json:"title"`
			Name  any             `json:"name"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		it.Err = fmt.Errorf("%s is not a JSON object: %v", what, err)
		return it
	}
	titles := []any{r.Title, r.Name}
	if p := r.Properties; p != nil && what == "feature" {
		titles = append(titles, p.Title, p.Name)
		if len(r.ID) == 0 || string(r.ID) == "null" {
			r.ID = p.ID
		}
	}
	for _, t := range titles {
		if s, ok := t.(string); ok && s != "" {
			it.Title = s
			break
		}
	}
	id, err := jsonScalar(r.ID)
	if err != nil || strings.TrimSpace(id) == "" {
		it.Err = fmt.Errorf("%s%s has no id", what, titled(it.Title))
		return it
	}
	it.Identifier = identifier(strings.TrimSpace(id))
	return it
}
