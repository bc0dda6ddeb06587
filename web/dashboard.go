package web

import (
	"net/http"
	"time"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/store"
)

// dashboardRows is how many jobs each table of the dashboard lists.
const dashboardRows = 50

// timelineJobs is how many of the newest jobs the timeline reads: more than a day of jobs of
// a few hundred daily sources.
const timelineJobs = 1000

type dashboardData struct {
	Timeline       timeline
	Zooms          []timelineZoom // the timeline's windows, for the zoom links
	OrganizationID string
	OrgOptions     []*store.Organization
	SourceNames    map[string]string // the names of the sources shown (of the organization), by id
	Recent         []jobRow
	Counts         []*store.JobCount
	ByStatus       map[harvest.JobStatus]int
	Total          int
	JobErrors      []*store.JobError
	Running        []jobRow
	Overdue        []jobRow
	Lag            *router.Lag
	LagError       string
	Failed         []stageFailed
	Since          time.Time
}

// stageFailed is how many failed records the failed stream keeps for one stage.
type stageFailed struct {
	Stage string
	Count uint64
}

// overdueAfter is how long a new job waits before the dashboard calls it overdue.
const overdueAfter = 5 * time.Minute

// dashboard is GET /dashboard?organization_id=&window=: the timeline of the last 24 h of jobs
// (window=1h: the last hour; another window is a 400) and the newest jobs of
// the last 7 days, both of the organization given by the query parameter organization_id (all
// when empty); the last 7 days' job counts by status and type and job errors (the newest
// dashboardRows), running jobs with their progress, overdue new jobs, and the stages' consumer
// lag and failed records (Deps.Lag), of every organization.
func (s *server) dashboard(w http.ResponseWriter, r *http.Request) error {
	now := s.now()
	d := dashboardData{ByStatus: map[harvest.JobStatus]int{}, Since: now.Add(-7 * 24 * time.Hour),
		OrganizationID: r.URL.Query().Get("organization_id"), Zooms: timelineZooms}
	zoom, ok := zoomOf(r.URL.Query().Get("window"))
	if !ok {
		return errorf(http.StatusBadRequest, "window %q is not one of 24h, 1h", r.URL.Query().Get("window"))
	}
	if err := s.dashboardJobs(r, &d, now, zoom); err != nil {
		return err
	}
	var err error
	if d.Counts, err = s.store.JobCountsSince(r.Context(), d.Since); err != nil {
		return err
	}
	for _, c := range d.Counts {
		d.ByStatus[c.Status] += c.Count
		d.Total += c.Count
	}
	if d.JobErrors, err = s.store.JobErrorListSince(r.Context(), d.Since, dashboardRows); err != nil {
		return err
	}
	if err := s.dashboardQueues(r, &d, now); err != nil {
		return err
	}
	s.dashboardLag(r, &d)
	return s.render(w, r, http.StatusOK, "dashboard.html", "Dashboard", d)
}

// dashboardJobs reads the organization's sources and the newest timelineJobs jobs into the
// timeline and the recent jobs.
func (s *server) dashboardJobs(r *http.Request, d *dashboardData, now time.Time, zoom timelineZoom) error {
	var err error
	if d.OrgOptions, _, err = s.orgNames(r); err != nil {
		return err
	}
	srcs, _, err := s.store.SourceList(r.Context(), &store.SourceListParams{OrganizationID: d.OrganizationID,
		PageParams: store.PageParams{Limit: timelineJobs}})
	if isNotFound(err) { // an organization_id that is not a UUID
		srcs, err = nil, nil
	}
	if err != nil {
		return err
	}
	d.SourceNames = make(map[string]string, len(srcs))
	for _, src := range srcs {
		d.SourceNames[src.ID] = src.Name
	}
	jobs, _, err := s.store.JobList(r.Context(), &store.JobListParams{PageParams: store.PageParams{Limit: timelineJobs}})
	if err != nil {
		return err
	}
	d.Timeline = jobTimeline(jobs, d.SourceNames, now, zoom)
	for _, j := range jobs {
		if _, ok := d.SourceNames[j.SourceID]; ok && !j.CreatedAt.Before(d.Since) && len(d.Recent) < dashboardRows {
			d.Recent = append(d.Recent, jobRows([]*store.HarvestJob{j})[0])
		}
	}
	return nil
}

// dashboardQueues reads the running jobs and the new jobs waiting longer than overdueAfter.
func (s *server) dashboardQueues(r *http.Request, d *dashboardData, now time.Time) error {
	running, _, err := s.store.JobList(r.Context(), &store.JobListParams{Status: harvest.JobInProgress,
		PageParams: store.PageParams{Limit: dashboardRows}})
	if err != nil {
		return err
	}
	d.Running = jobRows(running)
	queued, _, err := s.store.JobList(r.Context(), &store.JobListParams{Status: harvest.JobNew,
		PageParams: store.PageParams{Limit: dashboardRows}})
	if err != nil {
		return err
	}
	for _, j := range jobRows(queued) {
		if now.Sub(j.CreatedAt) > overdueAfter {
			d.Overdue = append(d.Overdue, j)
		}
	}
	return nil
}

// dashboardLag reads the stages' consumer lag and failed records; an error reading them is
// shown on the page, which still shows what the store gave.
func (s *server) dashboardLag(r *http.Request, d *dashboardData) {
	if s.lag == nil {
		return
	}
	lag, err := s.lag(r.Context())
	if err != nil {
		s.log.WarnContext(r.Context(), "web: consumer lag not read", "err", err)
		d.LagError = "the consumer lag could not be read from NATS: " + err.Error()
		return
	}
	d.Lag = lag
	for _, k := range sortedKeys(lag.Failed) {
		d.Failed = append(d.Failed, stageFailed{Stage: k, Count: lag.Failed[k]})
	}
}
