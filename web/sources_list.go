package web

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/harvester-dev/harvester/store"
)

// sourceListData is the sources list: one page of sources with their health (store.SourceHealth),
// and the search form's values (query parameters q, organization_id, health and sort).
type sourceListData struct {
	Items          []*store.SourceSummary
	Orgs           map[string]string // organization names by id, for the rows and the filter
	OrgOptions     []*store.Organization
	Q              string
	OrganizationID string
	Health         string
	Sort           string
	Healths        []store.SourceHealth
	Sorts          []sourceSortOption
	Paging         paging
}

// sourceSortOption is one choice of the list's sort select.
type sourceSortOption struct {
	Value store.SourceSort
	Label string
}

var sourceSortOptions = []sourceSortOption{{store.SortName, "Name"}, {store.SortHealth, "Health, worst first"},
	{store.SortLastRun, "Last run, newest first"}}

// sourceList is GET /harvest_sources: the sources matching the query parameters q (a part of the
// name), organization_id, health (a store.SourceHealth) and sort (a store.SourceSort), one page
// of them. An unknown health or sort is a 400.
func (s *server) sourceList(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	d := sourceListData{Q: strings.TrimSpace(q.Get("q")), OrganizationID: q.Get("organization_id"),
		Health: q.Get("health"), Sort: q.Get("sort"), Healths: store.SourceHealths, Sorts: sourceSortOptions,
		Paging: pageOf(r, listPerPage)}
	if d.Health != "" && !slices.Contains(store.SourceHealths, store.SourceHealth(d.Health)) {
		return errorf(http.StatusBadRequest, "unknown health %q: want failing, stale, errors, new or ok", d.Health)
	}
	if d.Sort != "" && !slices.Contains(store.SourceSorts, store.SourceSort(d.Sort)) {
		return errorf(http.StatusBadRequest, "unknown sort %q: want name, health or last_run", d.Sort)
	}
	var err error
	if d.OrgOptions, d.Orgs, err = s.orgNames(r); err != nil {
		return err
	}
	rows, total, err := s.store.SourceSummaryList(r.Context(), &store.SourceSummaryListParams{
		OrganizationID: d.OrganizationID, Name: d.Q, Health: store.SourceHealth(d.Health),
		Sort: store.SourceSort(d.Sort), Now: s.now(), PageParams: d.Paging.params()})
	if err != nil {
		return fmt.Errorf("list harvest sources: %w", err)
	}
	d.Items, d.Paging.Total = rows, total
	return s.render(w, r, http.StatusOK, "sources.html", "Harvest sources", d)
}
