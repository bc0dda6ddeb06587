package web

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/sources"
	"github.com/harvester-dev/harvester/store"
)

var frequencies = []harvest.Frequency{harvest.FrequencyManual, harvest.FrequencyDaily, harvest.FrequencyWeekly,
	harvest.FrequencyBiweekly, harvest.FrequencyMonthly}

var notifyFrequencies = []harvest.NotificationFrequency{harvest.NotifyOnError, harvest.NotifyOnErrorOrUpdate,
	harvest.NotifyAlways}

// orgNames reads one page of organizations (the filter's options), by id.
func (s *server) orgNames(r *http.Request) ([]*store.Organization, map[string]string, error) {
	orgs, _, err := s.store.OrganizationList(r.Context(), &store.PageParams{Limit: 500})
	if err != nil {
		return nil, nil, fmt.Errorf("list organizations: %w", err)
	}
	m := make(map[string]string, len(orgs))
	for _, o := range orgs {
		m[o.ID] = o.Name
	}
	return orgs, m, nil
}

type sourceViewData struct {
	Source   *store.Source
	OrgName  string
	Datasets int
	Jobs     []jobRow
	Chart    chart
	Paging   paging
	JobTypes []harvest.JobType
	Running  bool // the newest job is unfinished: the page's script follows the dataset count
	// Duplicates are the cross-source duplicates with the source on either side.
	Duplicates duplicateList
	// Quality is the source's recorded metadata quality, with its trend.
	Quality *qualityPanel
}

// jobRow is a job with its percentage as the API computes it.
type jobRow struct {
	*store.HarvestJob
	Percent *float64
}

func jobRows(list []*store.HarvestJob) []jobRow {
	out := make([]jobRow, len(list))
	for i, j := range list {
		out[i] = jobRow{HarvestJob: j, Percent: jobs.PercentSettled(j)}
	}
	return out
}

func (s *server) getSource(r *http.Request) (*store.Source, error) {
	return pathGet(r, "harvest source", s.store.SourceGet)
}

// sourceDatasets is the source the request's {id} names (getSource) and its live dataset count.
func (s *server) sourceDatasets(r *http.Request) (*store.Source, int, error) {
	src, err := s.getSource(r)
	if err != nil {
		return nil, 0, err
	}
	n, err := s.store.DatasetCount(r.Context(), src.ID)
	return src, n, err
}

func (s *server) orgName(r *http.Request, id string) (string, error) {
	if id == "" {
		return "", nil
	}
	o, err := s.store.OrganizationGet(r.Context(), id)
	if isNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return o.Name, nil
}

func (s *server) sourceView(w http.ResponseWriter, r *http.Request) error {
	src, err := s.getSource(r)
	if err != nil {
		return err
	}
	d := sourceViewData{Source: src, Paging: pageOf(r, listPerPage),
		JobTypes: []harvest.JobType{harvest.JobHarvest, harvest.JobForceHarvest, harvest.JobValidate, harvest.JobClear}}
	if d.OrgName, err = s.orgName(r, src.OrganizationID); err != nil {
		return err
	}
	if d.Datasets, err = s.store.DatasetCount(r.Context(), src.ID); err != nil {
		return err
	}
	jobs, total, err := s.store.JobList(r.Context(), &store.JobListParams{SourceID: src.ID, PageParams: d.Paging.params()})
	if err != nil {
		return err
	}
	d.Jobs, d.Paging.Total = jobRows(jobs), total
	recent := jobs
	if d.Paging.Page != 1 {
		if recent, _, err = s.store.JobList(r.Context(), &store.JobListParams{SourceID: src.ID,
			PageParams: store.PageParams{Limit: listPerPage}}); err != nil {
			return err
		}
	}
	if d.Duplicates, err = s.duplicates(r.Context(), store.CrossSourceDuplicateListParams{SourceID: src.ID},
		"/harvest_sources/"+src.ID+"/duplicates", src.ID); err != nil {
		return err
	}
	if d.Quality, err = s.qualityPanelOf(r.Context(), store.QualityScopeSource, src.ID); err != nil {
		return err
	}
	d.Chart = jobChart(recent)
	d.Running = len(recent) > 0 && !recent[0].Status.Finished()
	return s.render(w, r, http.StatusOK, "source.html", src.Name, d)
}

// sourceJobData is a job or delete confirmation page's data: Datasets live datasets of the
// source, and Held more held as cross-source duplicates (a clear job or a delete removes both).
type sourceJobData struct {
	Source   *store.Source
	JobType  harvest.JobType
	Datasets int
	Held     int
	Error    string
}

// All is how many datasets of the source a clear job removes: live and held.
func (d sourceJobData) All() int { return d.Datasets + d.Held }

// withHeld sets d.Held to the source's held dataset count (0 when it cannot be read).
func (s *server) withHeld(r *http.Request, d sourceJobData) sourceJobData {
	d.Held, _ = s.store.DatasetCountHeld(r.Context(), d.Source.ID)
	return d
}

func (s *server) sourceJobConfirm(w http.ResponseWriter, r *http.Request) error {
	src, err := s.getSource(r)
	if err != nil {
		return err
	}
	jt, err := harvest.ParseJobType(cmpOr(r.URL.Query().Get("job_type"), string(harvest.JobHarvest)))
	if err != nil {
		return errorf(http.StatusBadRequest, "%v", err)
	}
	n, err := s.store.DatasetCount(r.Context(), src.ID)
	if err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, "source_job.html", jobTitle(jt)+": "+src.Name,
		s.withHeld(r, sourceJobData{Source: src, JobType: jt, Datasets: n}))
}

func jobTitle(jt harvest.JobType) string {
	switch jt {
	case harvest.JobForceHarvest:
		return "Force harvest"
	case harvest.JobValidate:
		return "Validate"
	case harvest.JobClear:
		return "Clear"
	}
	return "Harvest"
}

// sourceJobCreate queues a job of the source (jobs.Control.Enqueue, as the API's POST
// /harvest_sources/{id}/jobs does), kicks the scheduler and goes
// to the job's page. A bad job type (422) or an unfinished job (409) is shown on the
// confirmation page.
func (s *server) sourceJobCreate(w http.ResponseWriter, r *http.Request) error {
	src, err := s.getSource(r)
	if err != nil {
		return err
	}
	jt, err := harvest.ParseJobType(r.PostFormValue("job_type"))
	status := http.StatusUnprocessableEntity
	if err == nil {
		var job *store.HarvestJob
		job, err = s.jobs.Enqueue(r.Context(), src.ID, jt)
		switch {
		case err == nil:
			if s.queued != nil {
				s.queued()
			}
			http.Redirect(w, r, "/harvest_jobs/"+job.ID, http.StatusSeeOther)
			return nil
		case errors.Is(err, jobs.ErrUnknownSource):
			return notFound("harvest source %q not found", src.ID)
		case !errors.Is(err, jobs.ErrJobInProgress):
			return err
		}
		status = http.StatusConflict
		err = errors.New("the harvest source already has an unfinished job: wait for it to end or cancel it")
	}
	n, _ := s.store.DatasetCount(r.Context(), src.ID)
	return s.render(w, r, status, "source_job.html", jobTitle(jt)+": "+src.Name,
		s.withHeld(r, sourceJobData{Source: src, JobType: harvest.JobType(r.PostFormValue("job_type")), Datasets: n, Error: err.Error()}))
}

func (s *server) sourceDeleteConfirm(w http.ResponseWriter, r *http.Request) error {
	src, n, err := s.sourceDatasets(r)
	if err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, "source_delete.html", "Delete "+src.Name, s.withHeld(r, sourceJobData{Source: src, Datasets: n}))
}

// sourceDelete deletes the source (sources.Sources.Delete); a conflict (live datasets, or an
// unfinished job) is shown on the confirmation page.
func (s *server) sourceDelete(w http.ResponseWriter, r *http.Request) error {
	src, err := s.getSource(r)
	if err != nil {
		return err
	}
	if err := s.sources.Delete(r.Context(), src.ID); err != nil {
		var se *sources.Error
		if !errors.As(err, &se) {
			return err
		}
		n, _ := s.store.DatasetCount(r.Context(), src.ID)
		return s.render(w, r, se.Status(), "source_delete.html", "Delete "+src.Name,
			s.withHeld(r, sourceJobData{Source: src, Datasets: n, Error: se.Message}))
	}
	http.Redirect(w, r, "/harvest_sources", http.StatusSeeOther)
	return nil
}

// sourceCounts answers the source's live dataset count and its newest job's status as JSON,
// for the source page's script, which polls it while a job runs.
func (s *server) sourceCounts(w http.ResponseWriter, r *http.Request) error {
	src, n, err := s.sourceDatasets(r)
	if err != nil {
		return err
	}
	latest, _, err := s.store.JobList(r.Context(), &store.JobListParams{SourceID: src.ID, PageParams: store.PageParams{Limit: 1}})
	if err != nil {
		return err
	}
	out := struct {
		DatasetCount  int               `json:"dataset_count"`
		LastJobID     string            `json:"last_job_id,omitempty"`
		LastJobStatus harvest.JobStatus `json:"last_job_status,omitempty"`
		Percent       *float64          `json:"percent_settled,omitempty"`
	}{DatasetCount: n}
	if len(latest) > 0 {
		out.LastJobID, out.LastJobStatus, out.Percent = latest[0].ID, latest[0].Status, jobs.PercentSettled(latest[0])
	}
	return writePoll(w, out)
}
