package main

import (
	"context"
	"fmt"
	"io"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// recordErrorsShown caps the record error rows, and separately the warning rows, that the
// report lists.
const recordErrorsShown = 10

// reportRows are the first recordErrorsShown record error rows of one severity of a job, as the
// harvest report lists them (JSON record_errors and warnings), and how many the job has.
type reportRows struct {
	Total int         `json:"total"`
	Rows  []reportRow `json:"rows"`
}

// reportRow is one harvest_record_error row of the report. CarriedFromJobID is the earlier job
// that found it, when the record was unchanged since and not checked again.
type reportRow struct {
	Identifier       string `json:"identifier"`
	Type             string `json:"type"`
	Severity         string `json:"severity"`
	Message          string `json:"message"`
	CarriedFromJobID string `json:"carried_from_job_id,omitempty"`
}

// listReportRows reads the first recordErrorsShown rows of severity of the job and their total.
func listReportRows(ctx context.Context, st store.Store, jobID string, severity harvest.Severity) (reportRows, error) {
	errs, total, err := st.RecordErrorList(ctx, &store.RecordErrorListParams{JobID: jobID, Severity: severity,
		PageParams: store.PageParams{Limit: recordErrorsShown}})
	rows := reportRows{Total: total, Rows: []reportRow{}}
	for _, e := range errs {
		rows.Rows = append(rows.Rows, reportRow{Identifier: e.Identifier, Type: e.Type, Severity: string(e.Severity),
			Message: e.Message, CarriedFromJobID: e.CarriedFromJobID})
	}
	return rows, err
}

// print writes the rows as the text report does: "  3 warning rows for 2 records:" (what is
// "error row" or "warning row"; records 0 leaves the record count out), then one line per row,
// naming the job a carried row comes from.
func (r reportRows) print(out io.Writer, what string, records int) {
	if r.Total == 0 && records == 0 {
		return
	}
	// Rows, not records: a record can have several rows (one per invalid JSON path).
	fmt.Fprintf(out, "  %s", plural(r.Total, what))
	if records > 0 {
		fmt.Fprintf(out, " for %s", plural(records, "record"))
	}
	if r.Total > len(r.Rows) {
		fmt.Fprintf(out, " (first %d shown)", len(r.Rows))
	}
	if len(r.Rows) == 0 {
		fmt.Fprintln(out)
		return
	}
	fmt.Fprintln(out, ":")
	for _, e := range r.Rows {
		carried := ""
		if e.CarriedFromJobID != "" { // unchanged since that job checked it, so not checked again
			carried = " (carried from job " + e.CarriedFromJobID + ")"
		}
		fmt.Fprintf(out, "    %s %q%s: %s\n", e.Type, e.Identifier, carried, e.Message)
	}
}

// heldRows are the first recordErrorsShown datasets of a job's source held as cross-source
// duplicates now (JSON held_datasets), and how many there are.
type heldRows struct {
	Total int       `json:"total"`
	Rows  []heldRow `json:"rows"`
}

// heldRow is one held dataset of the report and the live dataset that holds it: its source and
// dataset, and the key they share (Match: identifier, landingPage or downloadURL).
type heldRow struct {
	Identifier       string `json:"identifier"`
	Dataset          string `json:"dataset"`
	KeptSourceID     string `json:"kept_source_id"`
	KeptSource       string `json:"kept_source"`
	KeptDataset      string `json:"kept_dataset"`
	KeptIdentifier   string `json:"kept_identifier"`
	KeptOrganization string `json:"kept_organization,omitempty"`
	Match            string `json:"match"`
	Key              string `json:"key"`
}

// listHeldRows reads the first recordErrorsShown held datasets of the job's source and their
// total; none when the job counted none held.
func listHeldRows(ctx context.Context, st store.Store, job *store.HarvestJob) (heldRows, error) {
	rows := heldRows{Rows: []heldRow{}}
	if job.Held == 0 {
		return rows, nil
	}
	pairs, total, err := st.CrossSourceDuplicateList(ctx, &store.CrossSourceDuplicateListParams{HeldSourceID: job.SourceID,
		PageParams: store.PageParams{Limit: recordErrorsShown}})
	rows.Total = total
	for _, p := range pairs {
		rows.Rows = append(rows.Rows, heldRow{Identifier: p.Held.Identifier, Dataset: p.Held.DatasetSlug,
			KeptSourceID: p.Kept.SourceID, KeptSource: p.Kept.SourceName, KeptDataset: p.Kept.DatasetSlug,
			KeptIdentifier: p.Kept.Identifier, KeptOrganization: p.Kept.OrganizationName, Match: p.Match, Key: p.Key})
	}
	return rows, err
}

// print writes the held datasets as the text report does: "  3 held datasets (first 2
// shown):", then one line per dataset naming the source and dataset that is live instead.
func (r heldRows) print(out io.Writer) {
	if len(r.Rows) == 0 {
		return
	}
	fmt.Fprintf(out, "  %s", plural(r.Total, "held dataset"))
	if r.Total > len(r.Rows) {
		fmt.Fprintf(out, " (first %d shown)", len(r.Rows))
	}
	fmt.Fprintln(out, ":")
	for _, h := range r.Rows {
		fmt.Fprintf(out, "    %q held by harvest source %q (%s): its dataset %q is live, same %s %q\n",
			h.Identifier, h.KeptSource, h.KeptSourceID, h.KeptDataset, h.Match, h.Key)
	}
}
