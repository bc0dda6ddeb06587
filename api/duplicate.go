package api

import (
	"net/http"
	"time"

	"github.com/harvester-dev/harvester/store"
)

// duplicateJSON is a cross-source duplicate as the API shows it: two sources publish the same
// dataset (Match says by what, Key is the shared value); Kept's dataset is the live one, Held's
// record stays harvested and linked, not published.
type duplicateJSON struct {
	Match       string            `json:"match"`
	Key         string            `json:"key"`
	Kept        duplicateSideJSON `json:"kept"`
	Held        duplicateSideJSON `json:"held"`
	FirstJobID  *string           `json:"first_job_id"` // null: not known (found before jobs recorded it)
	FirstSeenAt time.Time         `json:"first_seen_at"`
}

// duplicateSideJSON is one source's side of a cross-source duplicate.
type duplicateSideJSON struct {
	SourceID         string  `json:"source_id"`
	SourceName       string  `json:"source_name"`
	OrganizationID   *string `json:"organization_id"` // null: the source has no organization
	OrganizationName *string `json:"organization_name"`
	DatasetID        *string `json:"dataset_id"` // null: no dataset row (a held record has none)
	DatasetSlug      *string `json:"dataset_slug"`
	Identifier       string  `json:"identifier"`
	HarvestRecordID  *string `json:"harvest_record_id"` // null: no harvest record is known
	Precedence       int     `json:"precedence"`
}

// orNull is nil for "", else a pointer to s: the API's null for "none".
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func duplicateSideOf(d store.DuplicateSide) duplicateSideJSON {
	return duplicateSideJSON{SourceID: d.SourceID, SourceName: d.SourceName, OrganizationID: orNull(d.OrganizationID),
		OrganizationName: orNull(d.OrganizationName), DatasetID: orNull(d.DatasetID), DatasetSlug: orNull(d.DatasetSlug),
		Identifier: d.Identifier, HarvestRecordID: orNull(d.RecordID), Precedence: d.Precedence}
}

func duplicateOf(d *store.CrossSourceDuplicate) duplicateJSON {
	return duplicateJSON{Match: string(d.Match), Key: d.Key, Kept: duplicateSideOf(d.Kept), Held: duplicateSideOf(d.Held),
		FirstJobID: orNull(d.FirstJobID), FirstSeenAt: d.FirstSeenAt.UTC()}
}

// crossSourceDuplicateList answers GET /api/v1/cross_source_duplicates: the pairs of datasets
// that two sources publish, filtered by a source (on either side), an organization (of either
// side's source) and the job that found them first, paged as every list is. An id that no row
// has (or that is not a UUID) is an empty list, as in the other lists' filters.
func (s *server) crossSourceDuplicateList(w http.ResponseWriter, r *http.Request) error {
	fields := fieldErrors{}
	q := readQuery(r, fields, append([]string{"source_id", "organization_id", "job_id"}, pagingParams...)...)
	pg := parsePaging(q, fields)
	if err := fields.err(); err != nil {
		return err
	}
	rows, total, err := s.store.CrossSourceDuplicateList(r.Context(), &store.CrossSourceDuplicateListParams{
		SourceID: filterID(q, "source_id"), OrganizationID: filterID(q, "organization_id"), JobID: filterID(q, "job_id"),
		PageParams: pg.params()})
	if rows, total, err = filtered("cross-source duplicates", rows, total, err); err != nil {
		return err
	}
	items := make([]duplicateJSON, 0, len(rows))
	for i := range rows {
		items = append(items, duplicateOf(&rows[i]))
	}
	return writeJSON(w, http.StatusOK, newList(items, total, pg))
}
