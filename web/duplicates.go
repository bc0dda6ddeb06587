package web

import (
	"context"
	"fmt"
	"net/http"

	"github.com/harvester-dev/harvester/store"
)

// duplicateRowsShown is how many cross-source duplicates a source's, an organization's or a
// job's page lists; its duplicates page (duplicateList's All) pages through every one.
const duplicateRowsShown = 10

// duplicateList is a list of cross-source duplicates as a page shows them (the template
// "duplicates"): Total pairs, of which Rows are listed. All links the page listing all of
// them ("" on that page itself); Source is the id of the source whose page it is (its side of
// each pair is marked "this source"), "" elsewhere.
type duplicateList struct {
	Rows   []store.CrossSourceDuplicate
	Total  int
	All    string
	Source string
}

// duplicates reads the first duplicateRowsShown pairs that p selects (store.CrossSourceDuplicateList).
func (s *server) duplicates(ctx context.Context, p store.CrossSourceDuplicateListParams, all, source string) (duplicateList, error) {
	p.PageParams = store.PageParams{Limit: duplicateRowsShown}
	rows, total, err := s.store.CrossSourceDuplicateList(ctx, &p)
	if err != nil {
		return duplicateList{}, fmt.Errorf("list cross-source duplicates: %w", err)
	}
	return duplicateList{Rows: rows, Total: total, All: all, Source: source}, nil
}

// duplicatesPageData is a duplicates page: every pair of a source, an organization or a job,
// paged; Back links the page of what they are the pairs of.
type duplicatesPageData struct {
	List     duplicateList
	Paging   paging
	Back     string
	BackName string
	// Of says what the pairs are of, for the caption: "source", "organization" or "job".
	Of string
}

// duplicatesPage renders the page of p's pairs, paged by ?page=; the side of source this (when
// not "") is marked as this source's.
func (s *server) duplicatesPage(w http.ResponseWriter, r *http.Request, p store.CrossSourceDuplicateListParams,
	this string, d duplicatesPageData) error {
	d.Paging = pageOf(r, listPerPage)
	p.PageParams = d.Paging.params()
	rows, total, err := s.store.CrossSourceDuplicateList(r.Context(), &p)
	if err != nil {
		return fmt.Errorf("list cross-source duplicates: %w", err)
	}
	d.Paging.Total = total
	d.List = duplicateList{Rows: rows, Total: total, Source: this}
	return s.render(w, r, http.StatusOK, "duplicates.html", "Cross-source duplicates: "+d.BackName, d)
}

// sourceDuplicates lists every cross-source duplicate that has the source on either side.
func (s *server) sourceDuplicates(w http.ResponseWriter, r *http.Request) error {
	src, err := s.getSource(r)
	if err != nil {
		return err
	}
	return s.duplicatesPage(w, r, store.CrossSourceDuplicateListParams{SourceID: src.ID}, src.ID,
		duplicatesPageData{Back: "/harvest_sources/" + src.ID, BackName: src.Name, Of: "source"})
}

// organizationDuplicates lists every cross-source duplicate with a source of the organization
// on either side.
func (s *server) organizationDuplicates(w http.ResponseWriter, r *http.Request) error {
	o, err := pathGet(r, "organization", s.store.OrganizationGet)
	if err != nil {
		return err
	}
	return s.duplicatesPage(w, r, store.CrossSourceDuplicateListParams{OrganizationID: o.ID}, "",
		duplicatesPageData{Back: "/organizations/" + o.ID, BackName: o.Name, Of: "organization"})
}

// jobDuplicates lists the cross-source duplicates the job found first.
func (s *server) jobDuplicates(w http.ResponseWriter, r *http.Request) error {
	j, err := s.getJob(r)
	if err != nil {
		return err
	}
	return s.duplicatesPage(w, r, store.CrossSourceDuplicateListParams{JobID: j.ID}, j.SourceID,
		duplicatesPageData{Back: "/harvest_jobs/" + j.ID, BackName: "job " + j.ID, Of: "job"})
}
