package api

import (
	"encoding/csv"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/store"
)

// recordErrorColumns is the header row of the record errors CSV.
var recordErrorColumns = []string{"harvest_job_id", "harvest_record_id", "identifier", "type", "severity", "message",
	"carried_from_job_id"}

// csvFlushRows is how many rows are written between flushes of a streamed CSV.
const csvFlushRows = 500

// csvChunkTimeout is how long the client of a streamed CSV may take to receive each chunk of
// csvFlushRows rows: the write deadline (the server's WriteTimeout) moves on by this much at
// every flush, so a long download is not cut, and a client that stops reading still is.
const csvChunkTimeout = time.Minute

// WriteRecordErrorsCSV answers r with every record error of the job with jobID as a CSV
// download (the columns of recordErrorColumns; cells defused by safeCells), written while st
// reads them, so a job with a million errors is never held in memory. GET
// /api/v1/harvest_jobs/{id}/record_errors?format=csv and the web UI's job page call it; the
// caller checks that the job exists. Once the header is out a store error can no longer become
// an error status: it is logged to log and the response is aborted (panic(http.ErrAbortHandler)),
// so the client sees a broken download rather than a short one.
func WriteRecordErrorsCSV(w http.ResponseWriter, r *http.Request, st store.Store, log *slog.Logger, jobID string) {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment",
		map[string]string{"filename": "harvest-job-" + jobID + "-record-errors.csv"}))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	cw := csv.NewWriter(w)
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Now().Add(csvChunkTimeout)) // not every writer has one
	_ = cw.Write(recordErrorColumns)
	n := 0
	err := st.RecordErrorStream(r.Context(), jobID, func(e *store.RecordError) error {
		if err := cw.Write(safeCells(e.JobID, e.RecordID, e.Identifier, e.Type, string(e.Severity), e.Message,
			e.CarriedFromJobID)); err != nil {
			return err
		}
		if n++; n%csvFlushRows == 0 {
			cw.Flush()
			_ = rc.Flush() // not every writer can flush; the rows go out at the end then
			_ = rc.SetWriteDeadline(time.Now().Add(csvChunkTimeout))
			return cw.Error()
		}
		return nil
	})
	cw.Flush()
	if err == nil {
		err = cw.Error()
	}
	if err != nil {
		log.ErrorContext(r.Context(), "api: record errors CSV cut short", "job_id", jobID, "rows", n, "err",
			fmt.Errorf("stream record errors: %w", err))
		panic(http.ErrAbortHandler)
	}
}

// safeCells defuses spreadsheet formulas (CSV injection): a cell that starts with = + - @, a
// tab or a carriage return gets a leading apostrophe, so that a spreadsheet shows it as text.
// Identifiers and messages come from publishers' catalogs, so they are not trusted.
func safeCells(cells ...string) []string {
	for i, c := range cells {
		if c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) {
			cells[i] = "'" + c
		}
	}
	return cells
}
