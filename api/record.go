package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/harvester-dev/harvester/store"
)

// recordJSON is a harvest_record as the API shows it.
type recordJSON struct {
	ID              string          `json:"id"`
	HarvestJobID    string          `json:"harvest_job_id"`
	HarvestSourceID string          `json:"harvest_source_id"`
	Identifier      string          `json:"identifier"`
	Action          string          `json:"action"`
	Status          string          `json:"status"`
	SourceHash      string          `json:"source_hash"`
	SourceRaw       string          `json:"source_raw"`       // the record as the source wrote it
	SourceTransform json.RawMessage `json:"source_transform"` // DCAT-US made from it, or null
	DateCreated     time.Time       `json:"date_created"`
}

func (s *server) recordGet(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	rec, err := s.store.RecordGet(r.Context(), id)
	if err != nil {
		return describe(err, recordNotFound(id), "")
	}
	transform := rec.SourceTransform
	if len(transform) == 0 || !json.Valid(transform) {
		transform = json.RawMessage("null")
	}
	return writeJSON(w, http.StatusOK, recordJSON{ID: rec.ID, HarvestJobID: rec.JobID, HarvestSourceID: rec.SourceID,
		Identifier: rec.Identifier, Action: string(rec.Action), Status: string(rec.Status), SourceHash: rec.SourceHash,
		SourceRaw: rec.SourceRaw, SourceTransform: transform, DateCreated: rec.CreatedAt.UTC()})
}

// recordErrorJSON is a harvest_record_error row as the API shows it.
type recordErrorJSON struct {
	HarvestRecordID *string `json:"harvest_record_id"` // null when the record got no harvest_record row
	Identifier      string  `json:"identifier"`
	Type            string  `json:"type"`
	Message         string  `json:"message"`
	Severity        string  `json:"severity"`
	// CarriedFromJobID is the earlier job that found the problem, when the record was
	// unchanged since and so not validated again (then harvest_record_id is that job's
	// record); null when this job found it.
	CarriedFromJobID *string `json:"carried_from_job_id"`
}

func recordErrorOf(e *store.RecordError) recordErrorJSON {
	j := recordErrorJSON{Identifier: e.Identifier, Type: e.Type, Message: e.Message, Severity: string(e.Severity)}
	if e.RecordID != "" {
		j.HarvestRecordID = &e.RecordID
	}
	if e.CarriedFromJobID != "" {
		j.CarriedFromJobID = &e.CarriedFromJobID
	}
	return j
}

// recordErrorList answers a job's record errors: a page of JSON, or with ?format=csv all of
// them as a streamed CSV download.
func (s *server) recordErrorList(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	pg, asCSV, err := parseListQuery(r)
	if err != nil {
		return err
	}
	if _, err := s.store.JobGet(r.Context(), id); err != nil {
		return describe(err, jobNotFound(id), "")
	}
	if asCSV {
		WriteRecordErrorsCSV(w, r, s.store, s.log, id)
		return nil
	}
	rows, total, err := s.store.RecordErrorList(r.Context(), &store.RecordErrorListParams{JobID: id, PageParams: pg.params()})
	if err != nil {
		return fmt.Errorf("list record errors of job %s: %w", id, err)
	}
	items := make([]recordErrorJSON, 0, len(rows))
	for _, e := range rows {
		items = append(items, recordErrorOf(e))
	}
	return writeJSON(w, http.StatusOK, newList(items, total, pg))
}

// jobErrorJSON is a harvest_job_error row as the API shows it.
type jobErrorJSON struct {
	HarvestJobID string    `json:"harvest_job_id"`
	Type         string    `json:"type"`
	Message      string    `json:"message"`
	DateCreated  time.Time `json:"date_created"`
}

// jobErrorList answers a job's job-level errors (why it failed), oldest first. The store
// returns them all (a job has few), so the page is cut here.
func (s *server) jobErrorList(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	fields := fieldErrors{}
	pg := parsePaging(readQuery(r, fields, pagingParams...), fields)
	if err := fields.err(); err != nil {
		return err
	}
	if _, err := s.store.JobGet(r.Context(), id); err != nil {
		return describe(err, jobNotFound(id), "")
	}
	rows, err := s.store.JobErrorList(r.Context(), id)
	if err != nil {
		return fmt.Errorf("list job errors of job %s: %w", id, err)
	}
	items := make([]jobErrorJSON, 0, len(rows))
	for _, e := range slicePage(rows, pg) {
		items = append(items, jobErrorJSON{HarvestJobID: e.JobID, Type: e.Type, Message: e.Message,
			DateCreated: e.CreatedAt.UTC()})
	}
	return writeJSON(w, http.StatusOK, newList(items, len(rows), pg))
}
