package api

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/trigger"
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
	DateCreated    time.Time  `json:"date_created"`
	DateFinished   *time.Time `json:"date_finished"`
}

func jobOf(j *store.Job) jobJSON {
	return jobJSON{ID: j.ID, SourceID: j.SourceID, JobType: string(j.JobType), Status: string(j.Status),
		Counts: j.Counts, Settled: j.Settled, Expected: j.Expected, PercentSettled: percentSettled(j),
		DateCreated: j.CreatedAt.UTC(), DateFinished: utcPtr(j.FinishedAt)}
}

// percentSettled is settled*100/expected to one decimal: 100 once the job finished (a failed
// job settles no more) or when nothing is expected, nil while expected is unknown.
func percentSettled(j *store.Job) *float64 {
	var p float64
	switch {
	case j.Status.Finished():
		p = 100
	case j.Expected == nil:
		return nil
	case *j.Expected <= 0:
		p = 100
	default:
		p = min(100, math.Round(float64(j.Settled)*1000/float64(*j.Expected))/10)
	}
	return &p
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
	job, err := trigger.Enqueue(r.Context(), s.store, id, jobType)
	if err != nil {
		return describe(err, sourceNotFound(id), "the harvest source already has an unfinished job")
	}
	w.Header().Set("Location", "/api/v1/harvest_jobs/"+job.ID)
	return writeJSON(w, http.StatusAccepted, jobOf(job))
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
	if errors.Is(err, store.ErrNotFound) { // a source_id Postgres cannot read as a uuid: no such source
		jobs, total, err = nil, 0, nil
	}
	if err != nil {
		return fmt.Errorf("list harvest jobs: %w", err)
	}
	items := make([]jobJSON, 0, len(jobs))
	for _, j := range jobs {
		items = append(items, jobOf(j))
	}
	return writeJSON(w, http.StatusOK, newList(items, total, pg))
}

func (s *server) jobGet(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	job, err := s.store.JobGet(r.Context(), id)
	if err != nil {
		return describe(err, jobNotFound(id), "")
	}
	return writeJSON(w, http.StatusOK, jobOf(job))
}

// cancelledJob is the job error type of a job cancelled through the API, as Data.gov's.
const cancelledJob = "CancelledJob"

// jobCancel ends an unfinished job in error. The stages drop the rest of its records.
func (s *server) jobCancel(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	job, err := s.store.JobGet(r.Context(), id)
	if err != nil {
		return describe(err, jobNotFound(id), "")
	}
	if !job.Status.Finished() {
		job, err = s.store.JobFail(r.Context(), &store.JobFailParams{JobID: id, Type: cancelledJob,
			Message: "cancelled through the API"})
		if err != nil {
			return describe(err, jobNotFound(id), "")
		}
		if job.Status == harvest.JobError { // JobFail leaves a job that finished meanwhile as it was
			return writeJSON(w, http.StatusOK, jobOf(job))
		}
	}
	return errorf(http.StatusConflict, "the harvest job already finished (status %s)", job.Status)
}

// replayInput is the optional body of POST /harvest_jobs/{id}/replay.
type replayInput struct {
	Stage string `json:"stage"` // "" all record stages
	Since string `json:"since"` // RFC 3339; "" every message kept
}

// jobReplay sends a complete job's failed records through the pipeline again (router.Bus.Replay)
// and answers 202 with how many were sent; the stages settle them afterwards. 409 when the job
// is not complete or its source has a newer job.
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
	p := &router.ReplayParams{JobID: id, Stage: in.Stage}
	if in.Stage != "" && !slices.Contains(router.ReplayStages(), in.Stage) {
		fields.add("stage", "unknown stage %q: want %s", in.Stage, strings.Join(router.ReplayStages(), ", "))
	}
	if in.Since != "" {
		if p.Since, err = time.Parse(time.RFC3339, in.Since); err != nil {
			fields.add("since", "%q is not an RFC 3339 time such as 2026-11-30T08:00:00Z", in.Since)
		}
	}
	if err := fields.err(); err != nil {
		return err
	}
	if s.replay == nil {
		return errorf(http.StatusServiceUnavailable, "replay needs the NATS bus, which this server was started without")
	}
	res, err := s.replay(r.Context(), p)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return errorf(http.StatusNotFound, "%s", jobNotFound(id))
	case errors.Is(err, router.ErrReplayRefused):
		return errorf(http.StatusConflict, "%v", err)
	case err != nil:
		return fmt.Errorf("replay job %s: %w", id, err)
	}
	return writeJSON(w, http.StatusAccepted, res)
}
