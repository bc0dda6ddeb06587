package report

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// FDKTimeLayout is the layout of FDK's report times ("yyyy-MM-dd HH:mm:ss Z" in Java's
// notation: "2020-03-12 12:52:16 +0100"). Harvester writes them in UTC.
const FDKTimeLayout = "2006-01-02 15:04:05 -0700"

// FDKReport is one harvest report as FDK's dataset harvester publishes it (peer-harvesters
// §1.8): the body of its RabbitMQ message (routing key "datasets.harvested") is an array of
// them, one per source the trigger harvested.
type FDKReport struct {
	ID           string  `json:"id"` // the source's id (FDK's dataSourceId)
	URL          string  `json:"url"`
	DataType     string  `json:"dataType"`
	HarvestError bool    `json:"harvestError"`
	StartTime    string  `json:"startTime"` // FDKTimeLayout
	EndTime      string  `json:"endTime"`
	ErrorMessage *string `json:"errorMessage"` // null when there is none
	// ChangedCatalogs, ChangedResources and RemovedResources are r's, and ChangedResources also
	// names the records the job found invalid (see FDKReports).
	ChangedCatalogs  []harvest.Resource `json:"changedCatalogs"`
	ChangedResources []harvest.Resource `json:"changedResources"`
	RemovedResources []harvest.Resource `json:"removedResources"`
}

// FDKReports is the FDK form of report r (SubjectReportFDK): an array, as FDK publishes, of
// one report, since Harvester reports each job when it finishes. FDK's harvester does not
// validate (it stores every resource whose graph changed), so its changedResources also name
// invalid, the records this job validated and found invalid: they are in r's changedResources
// only when they passed (with shacl_profile none, nothing fails and the two agree). The counts
// and jobType, which FDK's report has not, stay in r.
func FDKReports(r *harvest.Report, invalid []harvest.Resource) []FDKReport {
	f := FDKReport{ID: r.ID, URL: r.URL, DataType: r.DataType, HarvestError: r.HarvestError,
		StartTime: r.StartTime.UTC().Format(FDKTimeLayout), EndTime: r.EndTime.UTC().Format(FDKTimeLayout),
		ChangedCatalogs: r.ChangedCatalogs, RemovedResources: r.RemovedResources, ChangedResources: r.ChangedResources}
	// r's list is shared, not copied, when it is already the answer: sorted with distinct URIs
	// (the store lists a job's records in key order, in bytes on SQLite and on a Postgres
	// database of the C collation) and nothing to add. A copy of a job's every changed record
	// costs MBs at its end.
	if len(invalid) > 0 || !distinctSorted(f.ChangedResources) {
		f.ChangedResources = slices.Concat(r.ChangedResources, invalid)
		slices.SortFunc(f.ChangedResources, func(a, b harvest.Resource) int { return strings.Compare(a.URI, b.URI) })
		f.ChangedResources = slices.CompactFunc(f.ChangedResources, func(a, b harvest.Resource) bool { return a.URI == b.URI })
	}
	if r.ErrorMessage != "" {
		f.ErrorMessage = &r.ErrorMessage
	}
	// FDK sends [] for a list with nothing in it, never null.
	f.ChangedCatalogs = nonNil(f.ChangedCatalogs)
	f.ChangedResources = nonNil(f.ChangedResources)
	f.RemovedResources = nonNil(f.RemovedResources)
	return []FDKReport{f}
}

// distinctSorted reports whether rs's URIs are in strictly increasing byte order.
func distinctSorted(rs []harvest.Resource) bool {
	for i := 1; i < len(rs); i++ {
		if rs[i-1].URI >= rs[i].URI {
			return false
		}
	}
	return true
}

// nonNil returns rs, or an empty slice when rs is nil (JSON [] instead of null).
func nonNil(rs []harvest.Resource) []harvest.Resource {
	if rs == nil {
		return []harvest.Resource{}
	}
	return rs
}

// invalidIdentifiers returns the identifiers of the records job jobID validated and found
// invalid (an error row of type ValidationError that the job found, not carried from an
// earlier job), sorted, each once.
func (h *Handler) invalidIdentifiers(ctx context.Context, jobID string) ([]string, error) {
	var out []string
	err := h.store.RecordErrorStream(ctx, jobID, func(e *store.RecordError) error {
		if e.Type == validationErrorType && e.Severity == harvest.SeverityError && e.CarriedFromJobID == "" &&
			e.Identifier != "" && (len(out) == 0 || out[len(out)-1] != e.Identifier) {
			out = append(out, e.Identifier)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list the job's invalid records: %w", err)
	}
	return out, nil
}

// validationErrorType is the type of VALIDATE's error rows (stages/validate).
const validationErrorType = harvest.TypeValidationError
