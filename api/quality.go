package api

import (
	"encoding/csv"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/quality/assess"
)

// The metadata quality routes (docs/quality.md): a source's MQA summary and its broken links,
// and a dataset's score, computed from the stored records and link checks (quality/assess).

// sourceQuality answers GET /api/v1/harvest_sources/{id}/quality.
func (s *server) sourceQuality(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if _, err := s.store.SourceGet(r.Context(), id); err != nil {
		return describe(err, sourceNotFound(id), "")
	}
	q, err := assess.SourceQuality(r.Context(), s.store, id)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, q)
}

// jobQuality answers GET /api/v1/harvest_jobs/{id}/quality: the quality event CHECK published
// when the job's link checks settled (harvest.QualityReport), as kept in the store; 404 for a job
// without one (not settled yet, a source that does not check its links, not a harvest).
func (s *server) jobQuality(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if _, err := s.store.JobGet(r.Context(), id); err != nil {
		return describe(err, jobNotFound(id), "")
	}
	q, err := s.store.QualityReportGet(r.Context(), id)
	if err != nil {
		return describe(err, fmt.Sprintf("job %q has no quality report: its link checks have not settled, its source "+
			"does not check links, or it is no harvest", id), "")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(q.Report)
	return err
}

// datasetQuality answers GET /api/v1/datasets/{id}/quality.
func (s *server) datasetQuality(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	q, err := assess.DatasetQuality(r.Context(), s.store, id)
	if err != nil {
		return describe(err, fmt.Sprintf("dataset %q not found", id), "")
	}
	return writeJSON(w, http.StatusOK, q)
}

// brokenLinkJSON is a broken link as the API shows it.
type brokenLinkJSON struct {
	URL                 string     `json:"url"`
	Status              int        `json:"status"` // 0: no HTTP answer (Error says why)
	Error               string     `json:"error"`  // the error class, "" when answered
	Detail              string     `json:"detail"`
	FinalURL            string     `json:"final_url"`
	CheckedAt           time.Time  `json:"checked_at"`
	LastOKAt            *time.Time `json:"last_ok_at"` // null: never answered OK
	ConsecutiveFailures int        `json:"consecutive_failures"`
	Datasets            []string   `json:"datasets"` // the slugs of the source's datasets that use it
}

func brokenLinkOf(b *assess.BrokenLink) brokenLinkJSON {
	out := brokenLinkJSON{URL: b.URL, Status: b.Status, Error: string(b.Error), Detail: b.Detail, FinalURL: b.FinalURL,
		CheckedAt: b.CheckedAt, ConsecutiveFailures: b.ConsecutiveFailures, Datasets: b.Datasets}
	if !b.LastOKAt.IsZero() {
		out.LastOKAt = &b.LastOKAt
	}
	return out
}

// brokenLinkColumns is the header row of the broken links CSV.
var brokenLinkColumns = []string{"url", "status", "error", "detail", "final_url", "checked_at", "last_ok_at",
	"consecutive_failures", "datasets"}

// sourceBrokenLinks answers GET /api/v1/harvest_sources/{id}/broken_links: the source's broken
// links, the longest broken first, a page at a time, or all of them with ?format=csv.
func (s *server) sourceBrokenLinks(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	pg, asCSV, err := parseListQuery(r)
	if err != nil {
		return err
	}
	if _, err := s.store.SourceGet(r.Context(), id); err != nil {
		return describe(err, sourceNotFound(id), "")
	}
	links, err := assess.BrokenLinks(r.Context(), s.store, id)
	if err != nil {
		return err
	}
	if asCSV {
		return writeBrokenLinksCSV(w, id, links)
	}
	start := min(len(links), (pg.page-1)*pg.perPage)
	page := links[start:min(len(links), start+pg.perPage)]
	items := make([]brokenLinkJSON, 0, len(page))
	for _, b := range page {
		items = append(items, brokenLinkOf(b))
	}
	return writeJSON(w, http.StatusOK, newList(items, len(links), pg))
}

// writeBrokenLinksCSV writes links as a CSV download (brokenLinkColumns; cells defused by
// safeCells, URLs and slugs come from publishers). The links are in memory already (a source's
// broken links, not a catalog's rows), so it writes them at once.
func writeBrokenLinksCSV(w http.ResponseWriter, sourceID string, links []*assess.BrokenLink) error {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment",
		map[string]string{"filename": "harvest-source-" + sourceID + "-broken-links.csv"}))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	cw := csv.NewWriter(w)
	_ = cw.Write(brokenLinkColumns)
	for _, b := range links {
		lastOK := ""
		if !b.LastOKAt.IsZero() {
			lastOK = b.LastOKAt.UTC().Format(time.RFC3339)
		}
		_ = cw.Write(safeCells(b.URL, strconv.Itoa(b.Status), string(b.Error), b.Detail, b.FinalURL,
			b.CheckedAt.UTC().Format(time.RFC3339), lastOK, strconv.Itoa(b.ConsecutiveFailures),
			strings.Join(b.Datasets, " ")))
	}
	cw.Flush()
	return nil // the status is out: a write error is the client's going away
}
