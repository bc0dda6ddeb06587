package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/store"
)

// recordErrorRows is how many record errors the job page lists in its groups; the CSV has all.
const recordErrorRows = 200

type jobViewData struct {
	Job       *store.HarvestJob
	Source    *store.Source
	Progress  progress
	Duration  string
	JobErrors []*store.JobError
	Errors    errorGroups   // the rows of severity error
	Warnings  messageGroups // the rows of severity warning (findings that did not fail their record), by message
	CanCancel bool
	// Replayable is how many records a replay would send (jobs.Control.Replayable): the
	// replay button is offered only when it is over 0; otherwise ReplayNote says why.
	Replayable int
	ReplayNote string
	// Duplicates are the cross-source duplicates the job found first.
	Duplicates duplicateList
}

// errorGroups are a job's record error rows of one severity, grouped by type: Total rows, of
// which the groups list the first Shown (recordErrorRows at most).
type errorGroups struct {
	Severity     harvest.Severity
	Groups       []errorGroup
	Total, Shown int
}

// errorGroup is the record errors of one type and severity: the count, and the rows listed.
type errorGroup struct {
	Type     string
	Severity harvest.Severity
	Count    int
	Rows     []*store.RecordError
	Anchor   string
}

// progress is what the progress bar shows: the same figures as the API's job (jobs.Report).
type progress struct {
	ID             string            `json:"id"`
	Status         harvest.JobStatus `json:"status"`
	Settled        int               `json:"settled"`
	Expected       *int              `json:"expected"`
	PercentSettled *float64          `json:"percent_settled"`
	Finished       bool              `json:"finished"`
	harvest.Counts
}

func progressOf(j *store.HarvestJob) progress {
	return progressOfReport(jobs.Progress(j))
}

// progressOfReport is the progress bar of a job's report: the API's figures.
func progressOfReport(rep *jobs.Report) progress {
	j := rep.Job
	return progress{ID: j.ID, Status: j.Status, Settled: j.Settled, Expected: j.Expected,
		PercentSettled: rep.PercentSettled, Finished: j.Status.Finished(), Counts: rep.Counts}
}

func (s *server) getJob(r *http.Request) (*store.HarvestJob, error) {
	return pathGet(r, "harvest job", s.store.JobGet)
}

func (s *server) jobView(w http.ResponseWriter, r *http.Request) error {
	j, err := s.getJob(r)
	if err != nil {
		return err
	}
	rep, err := jobs.View(r.Context(), s.store, j)
	if err != nil {
		return err
	}
	d := jobViewData{Job: j, Progress: progressOfReport(rep), CanCancel: !j.Status.Finished(),
		Duration: rep.Duration(s.now()).String(), JobErrors: rep.JobErrors}
	if d.Replayable, d.ReplayNote, err = s.replayable(r.Context(), j); err != nil {
		return err
	}
	if d.Source, err = s.store.SourceGet(r.Context(), j.SourceID); err != nil {
		return fmt.Errorf("source of job %s: %w", j.ID, err)
	}
	counts, err := s.store.RecordErrorSummary(r.Context(), j.ID)
	if err != nil {
		return err
	}
	if d.Errors, err = s.errorGroups(r.Context(), j.ID, harvest.SeverityError, counts); err != nil {
		return err
	}
	if d.Warnings, err = s.messageGroups(r.Context(), j.ID, harvest.SeverityWarning); err != nil {
		return err
	}
	if d.Duplicates, err = s.duplicates(r.Context(), store.CrossSourceDuplicateListParams{JobID: j.ID},
		"/harvest_jobs/"+j.ID+"/duplicates", j.SourceID); err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, "job.html", jobPageTitle(d.Source, j), d)
}

// jobPageTitle names a job as people do: by its source and when it started, "<source name> —
// harvest job, 2006-01-02 15:04 UTC" (its type for another type), not by its id.
func jobPageTitle(src *store.Source, j *store.HarvestJob) string {
	return fmt.Sprintf("%s — %s job, %s", src.Name, strings.ReplaceAll(string(j.JobType), "_", " "),
		j.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"))
}

// jobAndSource reads the job of the request's path and its source.
func (s *server) jobAndSource(r *http.Request) (*store.HarvestJob, *store.Source, error) {
	j, err := s.getJob(r)
	if err != nil {
		return nil, nil, err
	}
	src, err := s.store.SourceGet(r.Context(), j.SourceID)
	if err != nil {
		return nil, nil, fmt.Errorf("source of job %s: %w", j.ID, err)
	}
	return j, src, nil
}

// errorGroups lists the job's first recordErrorRows rows of severity in the groups of counts
// (RecordErrorSummary) of that severity; a group's anchor is "error-group-N" or "warning-group-N".
func (s *server) errorGroups(ctx context.Context, jobID string, severity harvest.Severity,
	counts []*store.RecordErrorCount) (errorGroups, error) {
	rows, total, err := s.store.RecordErrorList(ctx, &store.RecordErrorListParams{JobID: jobID, Severity: severity,
		PageParams: store.PageParams{Limit: recordErrorRows}})
	g := errorGroups{Severity: severity, Total: total, Shown: len(rows)}
	byType := map[string]int{}
	for _, c := range counts {
		if c.Severity == severity {
			byType[c.Type] = len(g.Groups)
			g.Groups = append(g.Groups, errorGroup{Type: c.Type, Severity: c.Severity, Count: c.Count,
				Anchor: fmt.Sprintf("%s-group-%d", severity, len(g.Groups)+1)})
		}
	}
	for _, e := range rows {
		if i, ok := byType[e.Type]; ok {
			g.Groups[i].Rows = append(g.Groups[i].Rows, e)
		}
	}
	return g, err
}

// replayable is how many records of job j a replay would send and, when none but the job has
// errored records, the note that says why and what to do instead (no stage gave up on them, or
// a replay would be refused: the source has a newer job). A job that is not complete, or a site
// without the bus, has neither.
func (s *server) replayable(ctx context.Context, j *store.HarvestJob) (int, string, error) {
	if j.Status != harvest.JobComplete || j.Errored == 0 || s.jobs.Bus == nil {
		return 0, "", nil
	}
	n, err := s.jobs.Replayable(ctx, j.ID)
	switch {
	case errors.Is(err, jobs.ErrReplayRefused): // e.g. the source has a newer job
		return 0, strings.ToUpper(err.Error()[:1]) + err.Error()[1:], nil
	case err != nil || n > 0:
		return n, "", err
	}
	return 0, jobs.NothingToReplay(j), nil
}

// jobProgress answers the job's progress as JSON for the page's script (polled while it runs).
func (s *server) jobProgress(w http.ResponseWriter, r *http.Request) error {
	j, err := s.getJob(r)
	if err != nil {
		return err
	}
	return writePoll(w, progressOf(j))
}

type jobActionData struct {
	Job        *store.HarvestJob
	Action     string // "cancel" or "replay"
	Error      string
	Replayable int // records a replay would send (replay only)
}

func (s *server) jobCancelConfirm(w http.ResponseWriter, r *http.Request) error {
	return s.jobActionConfirm(w, r, "cancel")
}

func (s *server) jobReplayConfirm(w http.ResponseWriter, r *http.Request) error {
	return s.jobActionConfirm(w, r, "replay")
}

func (s *server) jobActionConfirm(w http.ResponseWriter, r *http.Request, action string) error {
	j, src, err := s.jobAndSource(r)
	if err != nil {
		return err
	}
	d := jobActionData{Job: j, Action: action}
	if action == "replay" {
		if d.Replayable, d.Error, err = s.replayable(r.Context(), j); err != nil {
			return err
		}
	}
	return s.render(w, r, http.StatusOK, "job_action.html", actionTitle(action)+": "+jobPageTitle(src, j), d)
}

func actionTitle(action string) string {
	if action == "cancel" {
		return "Cancel"
	}
	return "Replay"
}

func (s *server) jobCancel(w http.ResponseWriter, r *http.Request) error {
	return s.jobAction(w, r, "cancel")
}
func (s *server) jobReplay(w http.ResponseWriter, r *http.Request) error {
	return s.jobAction(w, r, "replay")
}

// jobAction cancels or replays the job (jobs.Control); a refusal (the job finished, nothing to
// replay, no bus) is shown on the confirmation page.
func (s *server) jobAction(w http.ResponseWriter, r *http.Request, action string) error {
	j, src, err := s.jobAndSource(r)
	if err != nil {
		return err
	}
	status, refusal, err := s.doJobAction(r.Context(), j, action)
	if err != nil {
		return err
	}
	if refusal != "" {
		return s.render(w, r, status, "job_action.html", actionTitle(action)+": "+jobPageTitle(src, j),
			jobActionData{Job: j, Action: action, Error: refusal})
	}
	http.Redirect(w, r, "/harvest_jobs/"+j.ID, http.StatusSeeOther)
	return nil
}

// doJobAction runs the action; a refusal is returned as its status and message, as the API
// answers it (409, 503).
func (s *server) doJobAction(ctx context.Context, j *store.HarvestJob, action string) (int, string, error) {
	if action == "cancel" {
		job, err := s.jobs.Cancel(ctx, j.ID, "cancelled in the web UI")
		switch {
		case errors.Is(err, jobs.ErrFinished):
			return http.StatusConflict, fmt.Sprintf("the harvest job already finished (status %s)", job.Status), nil
		case err != nil && job != nil: // ended, but the aggregator was not told
			s.log.ErrorContext(ctx, "web: report of a cancelled job not published", harvest.MetaJobID, j.ID, "err", err)
			return 0, "", nil
		}
		return 0, "", err
	}
	res, err := s.jobs.Replay(ctx, &jobs.ReplayParams{JobID: j.ID})
	switch {
	case errors.Is(err, jobs.ErrNoBus):
		return http.StatusServiceUnavailable, "replay needs the NATS bus, which this server was started without", nil
	case errors.Is(err, jobs.ErrReplayRefused):
		return http.StatusConflict, err.Error(), nil
	case err != nil:
		return 0, "", err
	case res.Replayed == 0:
		return http.StatusOK, res.Message, nil
	}
	return 0, "", nil
}

// jobErrorsCSV streams the job's record errors as the API's CSV
// (GET /api/v1/harvest_jobs/{id}/record_errors?format=csv; api.WriteRecordErrorsCSV), so that
// the download works for a signed-in operator when the API protects its reads too. The rows
// go straight to the client: nothing is held in memory.
func (s *server) jobErrorsCSV(w http.ResponseWriter, r *http.Request) error {
	j, err := s.getJob(r)
	if err != nil {
		return err
	}
	api.WriteRecordErrorsCSV(w, r, s.store, s.log, j.ID)
	return nil
}
