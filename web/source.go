package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// sourceTypes are the source types the forms offer, in the order shown.
var sourceTypes = []harvest.SourceType{harvest.SourceDocument, harvest.SourceWAF, harvest.SourceWAFCollection,
	harvest.SourceRDF, harvest.SourceCKAN, harvest.SourceDKAN, harvest.SourceSocrata, harvest.SourceArcGIS,
	harvest.SourceOpenDataSoft}

var schemaTypes = []harvest.SchemaType{harvest.SchemaDCATUS11Federal, harvest.SchemaDCATUS11NonFederal,
	harvest.SchemaDCATUS30, harvest.SchemaISO19115_1, harvest.SchemaISO19115_2, harvest.SchemaDCATAP}

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
}

// jobRow is a job with its percentage as the API computes it.
type jobRow struct {
	*store.HarvestJob
	Percent *float64
}

func jobRows(jobs []*store.HarvestJob) []jobRow {
	out := make([]jobRow, len(jobs))
	for i, j := range jobs {
		out[i] = jobRow{HarvestJob: j, Percent: api.PercentSettled(j)}
	}
	return out
}

func (s *server) getSource(r *http.Request) (*store.Source, error) {
	id := r.PathValue("id")
	src, err := s.store.SourceGet(r.Context(), id)
	if isNotFound(err) {
		return nil, notFound("harvest source %q not found", id)
	}
	return src, err
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
	d.Chart = jobChart(recent)
	d.Running = len(recent) > 0 && !recent[0].Status.Finished()
	return s.render(w, r, http.StatusOK, "source.html", src.Name, d)
}

// sourceForm is the add/edit form's fields as sent.
type sourceForm struct {
	Name, URL, OrganizationID, SourceType, SchemaType, Frequency, NotificationEmails, NotificationFrequency string
	CollectionParentURL, WAFTimeZone, Accept, AuthHeaderName, AuthHeaderValue, Options                      string
	HasStoredSecret                                                                                         bool
}

type sourceFormData struct {
	Source            *store.Source // nil: a new one
	Form              sourceForm
	Errors            formErrors
	Orgs              []*store.Organization
	SourceTypes       []harvest.SourceType
	SchemaTypes       []harvest.SchemaType
	Frequencies       []harvest.Frequency
	NotifyFrequencies []harvest.NotificationFrequency
}

func (s *server) sourceFormData(r *http.Request, src *store.Source, f sourceForm) (sourceFormData, error) {
	orgs, _, err := s.orgNames(r)
	return sourceFormData{Source: src, Form: f, Errors: formErrors{}, Orgs: orgs, SourceTypes: sourceTypes,
		SchemaTypes: schemaTypes, Frequencies: frequencies, NotifyFrequencies: notifyFrequencies}, err
}

func (s *server) sourceNew(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f := sourceForm{SourceType: cmpOr(q.Get("source_type"), string(harvest.SourceDocument)),
		OrganizationID: q.Get("organization_id"), Frequency: string(harvest.FrequencyManual),
		NotificationFrequency: string(harvest.NotifyOnError)}
	d, err := s.sourceFormData(r, nil, f)
	if err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, "source_form.html", "Add a harvest source", d)
}

func (s *server) sourceEdit(w http.ResponseWriter, r *http.Request) error {
	src, err := s.getSource(r)
	if err != nil {
		return err
	}
	f := sourceForm{Name: src.Name, URL: src.URL, OrganizationID: src.OrganizationID, SourceType: string(src.SourceType),
		SchemaType: string(src.SchemaType), Frequency: string(src.Frequency),
		NotificationEmails: strings.Join(src.NotificationEmails, "\n"), NotificationFrequency: string(src.NotificationFrequency),
		CollectionParentURL: src.CollectionParentURL, WAFTimeZone: src.WAFTimeZone, Accept: src.Accept}
	if src.AuthHeader != nil {
		f.AuthHeaderName, f.HasStoredSecret = src.AuthHeader.Name, true
	}
	var opts []string
	for _, k := range sortedKeys(src.Options) {
		opts = append(opts, k+"="+src.Options[k])
	}
	f.Options = strings.Join(opts, "\n")
	d, err := s.sourceFormData(r, src, f)
	if err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, "source_form.html", "Edit "+src.Name, d)
}

func (s *server) sourceCreate(w http.ResponseWriter, r *http.Request) error {
	return s.sourceSave(w, r, nil)
}

func (s *server) sourceUpdate(w http.ResponseWriter, r *http.Request) error {
	src, err := s.getSource(r)
	if err != nil {
		return err
	}
	return s.sourceSave(w, r, src)
}

// sourceBody turns the form into the API's JSON body; lines of options that are not key=value
// are a field error of the form's own (the API takes options as an object).
func sourceBody(f sourceForm, editing bool, errs formErrors) map[string]any {
	body := map[string]any{"name": f.Name, "url": f.URL, "source_type": f.SourceType, "frequency": f.Frequency,
		"notification_frequency": f.NotificationFrequency}
	emails := []string{}
	for _, e := range strings.FieldsFunc(f.NotificationEmails, func(r rune) bool { return r == ',' || r == '\n' || r == '\r' }) {
		if e = strings.TrimSpace(e); e != "" {
			emails = append(emails, e)
		}
	}
	body["notification_emails"] = emails
	for k, v := range map[string]string{"organization_id": f.OrganizationID, "schema_type": f.SchemaType,
		"collection_parent_url": f.CollectionParentURL, "waf_time_zone": f.WAFTimeZone, "accept": f.Accept} {
		if strings.TrimSpace(v) != "" {
			body[k] = strings.TrimSpace(v)
		}
	}
	if name := strings.TrimSpace(f.AuthHeaderName); name != "" || f.AuthHeaderValue != "" {
		value := f.AuthHeaderValue
		if value == "" && editing && f.HasStoredSecret {
			value = api.SecretMask // keep the stored value
		}
		body["auth_header"] = map[string]string{"name": name, "value": value}
	}
	opts := map[string]string{}
	for i, line := range strings.Split(f.Options, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) == "" {
			errs["options"] = fmt.Sprintf("line %d, %q, is not key=value", i+1, line)
			continue
		}
		opts[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	if len(opts) > 0 {
		body["options"] = opts
	}
	return body
}

// sourceSave sends the form to the API (POST or PUT); a 422 or 409 shows it again with the
// API's messages by field.
func (s *server) sourceSave(w http.ResponseWriter, r *http.Request, old *store.Source) error {
	f := sourceForm{Name: r.PostFormValue("name"), URL: r.PostFormValue("url"),
		OrganizationID: r.PostFormValue("organization_id"), SourceType: r.PostFormValue("source_type"),
		SchemaType: r.PostFormValue("schema_type"), Frequency: r.PostFormValue("frequency"),
		NotificationEmails: r.PostFormValue("notification_emails"), NotificationFrequency: r.PostFormValue("notification_frequency"),
		CollectionParentURL: r.PostFormValue("collection_parent_url"), WAFTimeZone: r.PostFormValue("waf_time_zone"),
		Accept: r.PostFormValue("accept"), AuthHeaderName: r.PostFormValue("auth_header_name"),
		AuthHeaderValue: r.PostFormValue("auth_header_value"), Options: r.PostFormValue("options"),
		HasStoredSecret: old != nil && old.AuthHeader != nil}
	d, err := s.sourceFormData(r, old, f)
	if err != nil {
		return err
	}
	body := sourceBody(f, old != nil, d.Errors)
	method, path, title := http.MethodPost, "/api/v1/harvest_sources", "Add a harvest source"
	if old != nil {
		method, path, title = http.MethodPut, "/api/v1/harvest_sources/"+old.ID, "Edit "+old.Name
	}
	var a *apiAnswer
	if len(d.Errors) == 0 {
		if a, err = s.callAPI(r, method, path, body); err != nil {
			return err
		}
		switch {
		case a.Status == http.StatusNotFound:
			return notFound("%s", a.Error)
		case a.Status == http.StatusConflict:
			d.Errors["url"] = a.Error
		case a.Status >= 400:
			for k, v := range a.Fields {
				if strings.HasPrefix(k, "options.") {
					k, v = "options", strings.TrimPrefix(k, "options.")+": "+v
				}
				d.Errors[k] = v
			}
			if len(a.Fields) == 0 {
				d.Errors[""] = a.Error
			}
		}
	}
	if len(d.Errors) > 0 {
		d.Form.AuthHeaderValue = "" // never sent back to the browser
		return s.render(w, r, http.StatusUnprocessableEntity, "source_form.html", title, d)
	}
	var saved struct {
		ID string `json:"id"`
	}
	if err := jsonDecode(a.Body, &saved); err != nil {
		return err
	}
	http.Redirect(w, r, "/harvest_sources/"+saved.ID, http.StatusSeeOther)
	return nil
}

type sourceJobData struct {
	Source   *store.Source
	JobType  harvest.JobType
	Datasets int
	Error    string
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
		sourceJobData{Source: src, JobType: jt, Datasets: n})
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

// sourceJobCreate starts a job through POST /api/v1/harvest_sources/{id}/jobs and goes to its
// page; a 409 (a job is unfinished) is shown on the confirmation page.
func (s *server) sourceJobCreate(w http.ResponseWriter, r *http.Request) error {
	src, err := s.getSource(r)
	if err != nil {
		return err
	}
	jt := r.PostFormValue("job_type")
	a, err := s.callAPI(r, http.MethodPost, "/api/v1/harvest_sources/"+src.ID+"/jobs", map[string]string{"job_type": jt})
	if err != nil {
		return err
	}
	if a.Status >= 400 {
		msg := a.Error
		for k, v := range a.Fields {
			msg = k + ": " + v
		}
		n, _ := s.store.DatasetCount(r.Context(), src.ID)
		return s.render(w, r, a.Status, "source_job.html", jobTitle(harvest.JobType(jt))+": "+src.Name,
			sourceJobData{Source: src, JobType: harvest.JobType(jt), Datasets: n, Error: msg})
	}
	var job struct {
		ID string `json:"id"`
	}
	if err := jsonDecode(a.Body, &job); err != nil {
		return err
	}
	http.Redirect(w, r, "/harvest_jobs/"+job.ID, http.StatusSeeOther)
	return nil
}

func (s *server) sourceDeleteConfirm(w http.ResponseWriter, r *http.Request) error {
	src, err := s.getSource(r)
	if err != nil {
		return err
	}
	n, err := s.store.DatasetCount(r.Context(), src.ID)
	if err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, "source_delete.html", "Delete "+src.Name, sourceJobData{Source: src, Datasets: n})
}

// sourceDelete deletes through the API; its 409 (live datasets, or an unfinished job) is shown
// on the confirmation page.
func (s *server) sourceDelete(w http.ResponseWriter, r *http.Request) error {
	src, err := s.getSource(r)
	if err != nil {
		return err
	}
	a, err := s.callAPI(r, http.MethodDelete, "/api/v1/harvest_sources/"+src.ID, nil)
	if err != nil {
		return err
	}
	if a.Status >= 400 {
		n, _ := s.store.DatasetCount(r.Context(), src.ID)
		return s.render(w, r, a.Status, "source_delete.html", "Delete "+src.Name,
			sourceJobData{Source: src, Datasets: n, Error: a.Error})
	}
	http.Redirect(w, r, "/harvest_sources", http.StatusSeeOther)
	return nil
}

// sourceCounts answers the source's live dataset count and its newest job's status as JSON,
// for the source page's script, which polls it while a job runs.
func (s *server) sourceCounts(w http.ResponseWriter, r *http.Request) error {
	src, err := s.getSource(r)
	if err != nil {
		return err
	}
	n, err := s.store.DatasetCount(r.Context(), src.ID)
	if err != nil {
		return err
	}
	jobs, _, err := s.store.JobList(r.Context(), &store.JobListParams{SourceID: src.ID, PageParams: store.PageParams{Limit: 1}})
	if err != nil {
		return err
	}
	out := struct {
		DatasetCount  int               `json:"dataset_count"`
		LastJobID     string            `json:"last_job_id,omitempty"`
		LastJobStatus harvest.JobStatus `json:"last_job_status,omitempty"`
		Percent       *float64          `json:"percent_settled,omitempty"`
	}{DatasetCount: n}
	if len(jobs) > 0 {
		out.LastJobID, out.LastJobStatus, out.Percent = jobs[0].ID, jobs[0].Status, api.PercentSettled(jobs[0])
	}
	data, err := json.Marshal(out)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(data)
	return nil
}
