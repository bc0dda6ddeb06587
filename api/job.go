package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/store"
)

// jobJSON is a harvest job as the API shows it, with its live counts.
type jobJSON struct {
	ID       string `json:"id"`
	SourceID string `json:"source_id"`
	JobType  string `json:"job_type"`
	Status   string `json:"status"`
	harvest.Counts
	Settled        int        `json:"settled"`
	Expected       *int       `json:"expected"`        // null until the listing completed
	PercentSettled *float64   `json:"percent_settled"` // null until expected is known
	NotModified    bool       `json:"not_modified"`    // the source answered 304 to the job's conditional GET
	Error          *string    `json:"error"`           // "Type: message" of a job that ended in error; else null
	DateCreated    time.Time  `json:"date_created"`
	DateFinished   *time.Time `json:"date_finished"`
}

// jobOf is j as the API shows it, from its jobs.Report: counts and percent from its row
// (jobs.Progress). A job in error gets its newest job error as error (jobs.View); a complete
// job says whether its source answered 304 Not Modified (Report.ReadNotModified): one read
// each, and only for those.
func (s *server) jobOf(ctx context.Context, j *store.HarvestJob) (jobJSON, error) {
	rep := jobs.Progress(j)
	var err error
	switch j.Status {
	case harvest.JobError:
		rep, err = jobs.View(ctx, s.store, j)
	case harvest.JobComplete:
		err = rep.ReadNotModified(ctx, s.store)
	}
	if err != nil {
		return jobJSON{}, err
	}
	out := jobJSON{ID: j.ID, SourceID: j.SourceID, JobType: string(j.JobType), Status: string(j.Status),
		Counts: rep.Counts, Settled: j.Settled, Expected: j.Expected, PercentSettled: rep.PercentSettled,
		NotModified: rep.NotModified, DateCreated: j.CreatedAt.UTC(), DateFinished: utcPtr(j.FinishedAt)}
	if n := len(rep.JobErrors); j.Status == harvest.JobError && n > 0 {
		text := rep.JobErrors[n-1].Type + ": " + rep.JobErrors[n-1].Message
		out.Error = &text
	}
	return out, nil
}

func jobNotFound(id string) string { return fmt.Sprintf("harvest job %q not found", id) }

// jobInput is the optional body of POST /harvest_sources/{id}/jobs.
type jobInput struct {
	JobType string `json:"job_type"`
}

func (s *server) sourceJobCreate(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	data, err := readBody(r)
	if err != nil {
		return err
	}
	in := jobInput{JobType: string(harvest.JobHarvest)}
	fields := fieldErrors{}
	if len(data) > 0 {
		if err := decodeObject(data, &in, fields); err != nil {
			return err
		}
	}
	jobType, err := harvest.ParseJobType(in.JobType)
	if err != nil {
		fields.add("job_type", "%v", err)
	}
	if err := fields.err(); err != nil {
		return err
	}
	job, err := s.jobs.Enqueue(r.Context(), id, jobType)
	if err != nil {
		return describe(err, sourceNotFound(id), s.busySource(r.Context(), id))
	}
	if s.queued != nil {
		s.queued()
	}
	w.Header().Set("Location", "/api/v1/harvest_jobs/"+job.ID)
	return s.writeJob(w, r, http.StatusAccepted, job)
}

// jobStatuses are the values of ?status=.
var jobStatuses = []harvest.JobStatus{harvest.JobNew, harvest.JobInProgress, harvest.JobComplete, harvest.JobError}

func (s *server) jobList(w http.ResponseWriter, r *http.Request) error {
	fields := fieldErrors{}
	q := readQuery(r, fields, append([]string{"source_id", "status", "job_type"}, pagingParams...)...)
	pg := parsePaging(q, fields)
	p := store.JobListParams{SourceID: filterID(q, "source_id"), PageParams: pg.params()}
	if v := q["status"]; v != "" {
		p.Status = harvest.JobStatus(v)
		if !slices.Contains(jobStatuses, p.Status) {
			fields.add("status", "unknown job status %q: want new, in_progress, complete or error", v)
		}
	}
	if v := q["job_type"]; v != "" {
		var err error
		if p.JobType, err = harvest.ParseJobType(v); err != nil {
			fields.add("job_type", "%v", err)
		}
	}
	if err := fields.err(); err != nil {
		return err
	}
	jobs, total, err := s.store.JobList(r.Context(), &p)
	if jobs, total, err = filtered("harvest jobs", jobs, total, err); err != nil {
		return err
	}
	items := make([]jobJSON, 0, len(jobs))
	for _, j := range jobs {
		item, err := s.jobOf(r.Context(), j)
		if err != nil {
			return err
		}
		items = append(items, item)
	}
	return writeJSON(w, http.StatusOK, newList(items, total, pg))
}

func (s *server) jobGet(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	job, err := s.store.JobGet(r.Context(), id)
	if err != nil {
		return describe(err, jobNotFound(id), "")
	}
	return s.writeJob(w, r, http.StatusOK, job)
}

// writeJob answers the job as jobOf shows it.
func (s *server) writeJob(w http.ResponseWriter, r *http.Request, status int, job *store.HarvestJob) error {
	out, err := s.jobOf(r.Context(), job)
	if err != nil {
		return err
	}
	return writeJSON(w, status, out)
}

// busySource is the 409 message for a source that has an unfinished job (jobs.Control.Busy):
// it names the job, its status and how to cancel it. The job may have ended since (a race):
// the message then says only that there was one.
func (s *server) busySource(ctx context.Context, sourceID string) string {
	j, err := s.jobs.Busy(ctx, sourceID)
	if err != nil || j == nil {
		return "the harvest source already has an unfinished job"
	}
	return fmt.Sprintf("the harvest source already has an unfinished job: %s (%s %s, created %s); wait for it "+
		"to end or cancel it with POST /api/v1/harvest_jobs/%s/cancel", j.ID, j.JobType, j.Status,
		j.CreatedAt.UTC().Format(time.RFC3339), j.ID)
}

// jobCancel ends an unfinished job in error (jobs.Control.Cancel): the aggregator reports it
// (harvest report event, email, harvester_jobs_finished_total). The stages drop the rest of
// its records. 409 when the job had already finished.
func (s *server) jobCancel(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	job, err := s.jobs.Cancel(r.Context(), id, "cancelled through the API")
	switch {
	case errors.Is(err, jobs.ErrFinished):
		return errorf(http.StatusConflict, "the harvest job already finished (status %s)", job.Status)
	case err != nil && job != nil: // ended, but the aggregator was not told
		s.log.ErrorContext(r.Context(), "api: report of a cancelled job not published", harvest.MetaJobID, id, "err", err)
	case err != nil:
		return describe(err, jobNotFound(id), "")
	}
	return s.writeJob(w, r, http.StatusOK, job)
}

// replayInput is the optional body of POST /harvest_jobs/{id}/replay.
type replayInput struct {
	Stage string `json:"stage"` // "" all record stages
	Since string `json:"since"` // RFC 3339; "" every message kept
}

// jobReplay sends a complete job's failed records through the pipeline again
// (jobs.Control.Replay) and answers 202 with how many were sent; the stages settle them
// afterwards. When none was sent it answers 200 with replayed 0 and a message saying why and
// what to do instead. 409 when the job is not complete or its source has a newer job.
func (s *server) jobReplay(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	data, err := readBody(r)
	if err != nil {
		return err
	}
	var in replayInput
	fields := fieldErrors{}
	if len(data) > 0 {
		if err := decodeObject(data, &in, fields); err != nil {
			return err
		}
	}
	p := &jobs.ReplayParams{JobID: id, Stage: in.Stage}
	if in.Stage != "" && !slices.Contains(jobs.ReplayStages(), in.Stage) {
		fields.add("stage", "unknown stage %q: want %s", in.Stage, strings.Join(jobs.ReplayStages(), ", "))
	}
	if in.Since != "" {
		if p.Since, err = time.Parse(time.RFC3339, in.Since); err != nil {
			fields.add("since", "%q is not an RFC 3339 time such as 2026-11-30T08:00:00Z", in.Since)
		}
	}
	if err := fields.err(); err != nil {
		return err
	}
	res, err := s.jobs.Replay(r.Context(), p)
	switch {
	case errors.Is(err, jobs.ErrNoBus):
		return errorf(http.StatusServiceUnavailable, "replay needs the NATS bus, which this server was started without")
	case errors.Is(err, store.ErrNotFound):
		return errorf(http.StatusNotFound, "%s", jobNotFound(id))
	case errors.Is(err, jobs.ErrReplayRefused):
		return errorf(http.StatusConflict, "%v", err)
	case err != nil:
		return fmt.Errorf("replay job %s: %w", id, err)
	case res.Replayed == 0:
		return writeJSON(w, http.StatusOK, res)
	}
	return writeJSON(w, http.StatusAccepted, res)
}
