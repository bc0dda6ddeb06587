package api

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/harvester-dev/harvester/search"
)

// searchList answers GET /api/v1/search from the configured search index: one page of hits
// with the total and facets by organization and keyword. 503 when no index is configured; 422
// for bad parameters, including a page past search.MaxWindow.
func (s *server) searchList(w http.ResponseWriter, r *http.Request) error {
	fields := fieldErrors{}
	q := readQuery(r, fields, append([]string{"q", "organization", "keyword", "source_id"}, pagingParams...)...)
	pg := parsePaging(q, fields)
	if err := fields.err(); err != nil {
		return err
	}
	if s.search == nil {
		return errorf(http.StatusServiceUnavailable, "no search index is configured on this server")
	}
	query := search.Query{Text: q["q"], Organization: q["organization"], Keyword: q["keyword"],
		SourceID: filterID(q, "source_id"), Page: pg.page, PerPage: pg.perPage}
	if _, err := query.Normalize(); errors.Is(err, search.ErrTooDeep) {
		return (fieldErrors{"page": err.Error()}).err()
	}
	res, err := s.search.Search(r.Context(), query)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	return writeJSON(w, http.StatusOK, res)
}
