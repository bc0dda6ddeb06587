package web

import (
	"context"
	"net/http"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

const (
	// messageGroupsShown is how many messages the job page's warnings list (the most frequent);
	// the CSV and each message's own page have all.
	messageGroupsShown = 50
	// messageExamples is how many identifiers the job page shows under each message.
	messageExamples = 5
	// jobRecordsPerPage is the page size of a job's records and of a message's rows.
	jobRecordsPerPage = 50
)

// messageGroups are a job's record error rows of one severity grouped by type and message
// (store.Store.RecordErrorMessages): Total rows in Count groups, of which Groups lists the
// most frequent.
type messageGroups struct {
	Severity harvest.Severity
	JobID    string
	Groups   []*store.RecordErrorMessage
	Total    int // rows
	Count    int // groups
}

// messageGroups reads the job's rows of severity grouped by message, with their total.
func (s *server) messageGroups(ctx context.Context, jobID string, severity harvest.Severity) (messageGroups, error) {
	g := messageGroups{Severity: severity, JobID: jobID}
	var err error
	if g.Groups, g.Count, err = s.store.RecordErrorMessages(ctx, &store.RecordErrorMessagesParams{JobID: jobID,
		Severity: severity, Limit: messageGroupsShown, Examples: messageExamples}); err != nil {
		return g, err
	}
	_, g.Total, err = s.store.RecordErrorList(ctx, &store.RecordErrorListParams{JobID: jobID, Severity: severity,
		PageParams: store.PageParams{Limit: 1}})
	return g, err
}

// jobRecordActions are the actions a job's records list filters on, in the order its links
// show them; "" is every record.
var jobRecordActions = []harvest.Action{"", harvest.ActionCreate, harvest.ActionUpdate, harvest.ActionDelete}

// actionWords is how a job's records list names an action: "added", "updated", "deleted", or
// "all" for none.
func actionWords(a harvest.Action) string {
	switch a {
	case "":
		return "all"
	case harvest.ActionCreate:
		return "added"
	case harvest.ActionUpdate:
		return "updated"
	case harvest.ActionDelete:
		return "deleted"
	}
	return string(a)
}

type jobRecordsData struct {
	Job     *store.HarvestJob
	Source  *store.Source
	Action  harvest.Action
	Actions []harvest.Action
	Records []*store.HarvestRecord
	Paging  paging
}

// jobRecords is GET /harvest_jobs/{id}/records?action=&page=: the job's harvest records (the
// added, updated and deleted ones; an unchanged record writes none) by identifier, of one
// action when action is create, update or delete, jobRecordsPerPage a page. An update links
// to its record's diff. Another action is a 400.
func (s *server) jobRecords(w http.ResponseWriter, r *http.Request) error {
	j, src, err := s.jobAndSource(r)
	if err != nil {
		return err
	}
	action := harvest.Action(r.URL.Query().Get("action"))
	switch action {
	case "", harvest.ActionCreate, harvest.ActionUpdate, harvest.ActionDelete:
	default:
		return errorf(http.StatusBadRequest, "action %q is not one of create, update, delete", action)
	}
	d := jobRecordsData{Job: j, Source: src, Action: action, Actions: jobRecordActions,
		Paging: pageOf(r, jobRecordsPerPage)}
	if d.Records, d.Paging.Total, err = s.store.RecordList(r.Context(), &store.RecordListParams{JobID: j.ID,
		Action: action, PageParams: d.Paging.params()}); err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, "job_records.html", "Records of "+jobPageTitle(src, j), d)
}

type jobMessageData struct {
	Job      *store.HarvestJob
	Source   *store.Source
	Severity harvest.Severity
	Message  string
	Rows     []*store.RecordError
	Paging   paging
}

// jobMessageRows is GET /harvest_jobs/{id}/record_errors?severity=&message=&page=: every
// record error row of the job of that severity (error or warning) and exact message, by
// identifier, jobRecordsPerPage a page: where the job page's grouped warnings link for "all".
// Without a message it lists every row of the severity.
func (s *server) jobMessageRows(w http.ResponseWriter, r *http.Request) error {
	j, src, err := s.jobAndSource(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	severity := harvest.Severity(q.Get("severity"))
	if severity != harvest.SeverityError && severity != harvest.SeverityWarning {
		return errorf(http.StatusBadRequest, "severity %q is not error or warning", severity)
	}
	d := jobMessageData{Job: j, Source: src, Severity: severity, Message: q.Get("message"), Paging: pageOf(r, jobRecordsPerPage)}
	if d.Rows, d.Paging.Total, err = s.store.RecordErrorList(r.Context(), &store.RecordErrorListParams{JobID: j.ID,
		Severity: severity, Message: d.Message, PageParams: d.Paging.params()}); err != nil {
		return err
	}
	what := "Record errors"
	if severity == harvest.SeverityWarning {
		what = "Warnings"
	}
	return s.render(w, r, http.StatusOK, "job_messages.html", what+" of "+jobPageTitle(src, j), d)
}
