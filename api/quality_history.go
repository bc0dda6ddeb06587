package api

import (
	"net/http"
	"time"

	"github.com/harvester-dev/harvester/quality"
	"github.com/harvester-dev/harvester/quality/assess"
	"github.com/harvester-dev/harvester/store"
)

// The recorded quality routes (docs/quality.md): the latest quality of an organization and of
// the whole catalog, and the history (the trend) of a source's, an organization's and the
// catalog's, read from the aggregates each finished job stored (store.QualityAggregate).

// qualityAggregateJSON is a stored aggregate as the API shows it: the summary, and when and by
// which job it was recorded (null when none was yet).
type qualityAggregateJSON struct {
	*assess.Source
	ComputedAt *time.Time `json:"computed_at"`
	JobID      *string    `json:"job_id"`
}

// qualityPointJSON is one point of a quality history.
type qualityPointJSON struct {
	JobID       string    `json:"job_id"`
	SourceID    string    `json:"source_id"`
	ComputedAt  time.Time `json:"computed_at"`
	Datasets    int       `json:"datasets"`
	Mean        float64   `json:"mean"`
	Rating      string    `json:"rating"`
	LinksURLs   int       `json:"links_urls"`
	LinksBroken int       `json:"links_broken"`
}

// latestQuality answers with the newest stored aggregate of scope and scopeID, or the summary
// of no dataset when there is none yet.
func (s *server) latestQuality(w http.ResponseWriter, r *http.Request, scope, scopeID string) error {
	rows, err := s.store.QualityAggregateHistory(r.Context(), &store.QualityAggregateHistoryParams{Scope: scope,
		ScopeID: scopeID, Limit: 1, Summaries: true})
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return writeJSON(w, http.StatusOK, qualityAggregateJSON{Source: &assess.Source{Summary: quality.Aggregate(nil)}})
	}
	src, err := assess.SourceOf(rows[0])
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, qualityAggregateJSON{Source: src, ComputedAt: &rows[0].ComputedAt, JobID: &rows[0].JobID})
}

// organizationQuality answers GET /api/v1/organizations/{id}/quality.
func (s *server) organizationQuality(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if _, err := s.store.OrganizationGet(r.Context(), id); err != nil {
		return describe(err, orgNotFound(id), "")
	}
	return s.latestQuality(w, r, store.QualityScopeOrganization, id)
}

// catalogQuality answers GET /api/v1/quality.
func (s *server) catalogQuality(w http.ResponseWriter, r *http.Request) error {
	return s.latestQuality(w, r, store.QualityScopeCatalog, "")
}

// qualityHistory answers a page of the history of scope and scopeID, oldest first.
func (s *server) qualityHistory(w http.ResponseWriter, r *http.Request, scope, scopeID string, pg paging) error {
	page, total, err := s.store.QualityAggregateHistoryPage(r.Context(), &store.QualityAggregateHistoryParams{Scope: scope,
		ScopeID: scopeID}, store.PageParams{Limit: pg.perPage, Offset: (pg.page - 1) * pg.perPage})
	if err != nil {
		return err
	}
	items := make([]qualityPointJSON, 0, len(page))
	for _, a := range page {
		items = append(items, qualityPointJSON{JobID: a.JobID, SourceID: a.SourceID, ComputedAt: a.ComputedAt,
			Datasets: a.Datasets, Mean: a.Mean, Rating: a.Rating, LinksURLs: a.LinksURLs, LinksBroken: a.LinksBroken})
	}
	return writeJSON(w, http.StatusOK, newList(items, total, pg))
}

// historyPaging reads a history route's query: page and per_page.
func historyPaging(r *http.Request) (paging, error) {
	fields := fieldErrors{}
	q := readQuery(r, fields, pagingParams...)
	pg := parsePaging(q, fields)
	return pg, fields.err()
}

// sourceQualityHistory answers GET /api/v1/harvest_sources/{id}/quality/history.
func (s *server) sourceQualityHistory(w http.ResponseWriter, r *http.Request) error {
	pg, err := historyPaging(r)
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	if _, err := s.store.SourceGet(r.Context(), id); err != nil {
		return describe(err, sourceNotFound(id), "")
	}
	return s.qualityHistory(w, r, store.QualityScopeSource, id, pg)
}

// organizationQualityHistory answers GET /api/v1/organizations/{id}/quality/history.
func (s *server) organizationQualityHistory(w http.ResponseWriter, r *http.Request) error {
	pg, err := historyPaging(r)
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	if _, err := s.store.OrganizationGet(r.Context(), id); err != nil {
		return describe(err, orgNotFound(id), "")
	}
	return s.qualityHistory(w, r, store.QualityScopeOrganization, id, pg)
}

// catalogQualityHistory answers GET /api/v1/quality/history.
func (s *server) catalogQualityHistory(w http.ResponseWriter, r *http.Request) error {
	pg, err := historyPaging(r)
	if err != nil {
		return err
	}
	return s.qualityHistory(w, r, store.QualityScopeCatalog, "", pg)
}
