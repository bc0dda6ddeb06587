package harvest

import (
	"fmt"
	"strings"
	"time"
)

// JobType is what a harvest job does (DESIGN.md "Types"; Data.gov H2.0 job_type).
type JobType string

// Job types.
const (
	JobHarvest      JobType = "harvest"       // only changed records are synced
	JobForceHarvest JobType = "force_harvest" // every stored record counts as changed
	JobValidate     JobType = "validate"      // extract, compare, transform, validate; writes no dataset
	JobClear        JobType = "clear"         // deletes every dataset of the source, keeps history
)

// ParseJobType returns the JobType spelled s, or an error naming the allowed values.
func ParseJobType(s string) (JobType, error) {
	switch t := JobType(s); t {
	case JobHarvest, JobForceHarvest, JobValidate, JobClear:
		return t, nil
	}
	return "", fmt.Errorf("unknown job type %q: want harvest, force_harvest, validate or clear", s)
}

// WritesCatalog reports whether jobs of this type change the dataset table.
func (t JobType) WritesCatalog() bool { return t != JobValidate }

// JobStatus is a harvest job's state: new -> in_progress -> complete | error.
type JobStatus string

// Job statuses.
const (
	JobNew        JobStatus = "new"
	JobInProgress JobStatus = "in_progress"
	JobComplete   JobStatus = "complete"
	JobError      JobStatus = "error"
)

// Finished reports whether the status is terminal.
func (s JobStatus) Finished() bool { return s == JobComplete || s == JobError }

// SourceType is how a harvest source publishes its records.
type SourceType string

// Source types that can be harvested today.
const (
	SourceDocument      SourceType = "document"       // one data.json, or one ISO XML file
	SourceWAF           SourceType = "waf"            // a web-accessible folder of ISO XML files
	SourceWAFCollection SourceType = "waf-collection" // a WAF whose records are parts of a parent record
	SourceRDF           SourceType = "rdf"            // a DCAT-AP RDF document (Turtle, RDF/XML, JSON-LD, N-Triples), maybe paged
	SourceCKAN          SourceType = "ckan"           // a CKAN (2.8+) or CKAN-compatible Action API (DKAN 7 too)
	SourceDKAN          SourceType = "dkan"           // a DKAN 2 metastore API
	SourceSocrata       SourceType = "socrata"        // a Socrata domain (Discovery API)
	SourceArcGIS        SourceType = "arcgis"         // an ArcGIS Hub / ArcGIS Online portal search API
	SourceOpenDataSoft  SourceType = "opendatasoft"   // an OpenDataSoft portal (Explore API v2.1 or v1)
	SourceCSW           SourceType = "csw"            // an OGC Catalogue Service for the Web (CSW 2.0.2 or 3.0)
)

// IsPortal reports whether the source is a portal API (its items are converted to DCAT-US): a
// type of FamilyPortal in the rule table.
func (t SourceType) IsPortal() bool {
	s := SpecOf(t)
	return s != nil && s.Family == FamilyPortal
}

// ParseSourceType returns the SourceType spelled s, or an error naming the allowed values (the
// rule table's types, SourceSpecs, in its order).
func ParseSourceType(s string) (SourceType, error) {
	if spec := SpecOf(SourceType(s)); spec != nil {
		return spec.Type, nil
	}
	return "", fmt.Errorf("unknown source type %q: want one of %s", s, quoted(SourceTypes()))
}

// SourceTypes returns every SourceType, in the rule table's order (SourceSpecs).
func SourceTypes() []SourceType {
	types := make([]SourceType, len(SourceSpecs))
	for i := range SourceSpecs {
		types[i] = SourceSpecs[i].Type
	}
	return types
}

// SchemaType is the metadata standard a harvest source's records follow.
type SchemaType string

// Schema types that can be harvested today.
const (
	SchemaDCATUS11Federal    SchemaType = "dcatus1.1: federal"
	SchemaDCATUS11NonFederal SchemaType = "dcatus1.1: non-federal"
	SchemaISO19115_1         SchemaType = "iso19115_1" // ISO 19115-1 / 19139 XML, transformed to DCAT-US
	SchemaISO19115_2         SchemaType = "iso19115_2" // ISO 19115-2 XML, transformed to DCAT-US
	// SchemaDCATUS30 is a DCAT-US 3.0 catalog (a document source): datasets, data services,
	// catalog records and dataset series, each a record, validated against the DCAT-US 3.0
	// JSON Schema of its type.
	SchemaDCATUS30 SchemaType = "dcatus3.0"
	SchemaDCATAP   SchemaType = "dcat-ap" // DCAT-AP RDF, transformed to DCAT-US, validated by SHACL
	// SchemaFGDC is FGDC CSDGM XML (FGDC-STD-001-1998 and its Biological Data and Remote Sensing
	// profiles), transformed to DCAT-US 1.1 and validated against the non-federal schema.
	SchemaFGDC SchemaType = "fgdc"
)

// schemaTypes lists every SchemaType, in the order error messages name them.
var schemaTypes = []SchemaType{SchemaDCATUS11Federal, SchemaDCATUS11NonFederal, SchemaDCATUS30, SchemaISO19115_1,
	SchemaISO19115_2, SchemaFGDC, SchemaDCATAP}

// IsISO reports whether records of this schema are ISO 19115 XML (TRANSFORM makes DCAT-US of
// them, validated against the non-federal schema, as Data.gov does).
func (t SchemaType) IsISO() bool { return t == SchemaISO19115_1 || t == SchemaISO19115_2 }

// IsXML reports whether records of this schema are XML metadata records (ISO 19115 or FGDC
// CSDGM; a CSW source's Dublin Core csw:Record too): each is one record, carried in
// Record.XML, made DCAT-US by TRANSFORM and validated against the non-federal schema.
func (t SchemaType) IsXML() bool { return t.IsISO() || t == SchemaFGDC }

// ParseSchemaType returns the SchemaType spelled s, or an error naming the allowed values.
func ParseSchemaType(s string) (SchemaType, error) {
	for _, t := range schemaTypes {
		if SchemaType(s) == t {
			return t, nil
		}
	}
	return "", fmt.Errorf("unknown schema type %q: want one of %s", s, quoted(schemaTypes))
}

// IsDCATUS3 reports whether records of this schema are DCAT-US 3.0.
func (t SchemaType) IsDCATUS3() bool { return t == SchemaDCATUS30 }

// Record types of a DCAT-US 3.0 catalog (Data.gov H2.0 harvest_record.record_type); every
// record of another schema is a RecordTypeDataset.
const (
	RecordTypeDataset       = "dataset"       // a Dataset (DCAT-US 1.1 datasets too)
	RecordTypeDataService   = "dataservice"   // a DataService (a catalog's "service")
	RecordTypeCatalogRecord = "catalogrecord" // a CatalogRecord (a catalog's "record")
	RecordTypeDatasetSeries = "datasetseries" // a DatasetSeries
)

// Action is what a record does to the catalog. Unchanged records are counted, never stored.
type Action string

// Record actions.
const (
	ActionCreate    Action = "create"
	ActionUpdate    Action = "update"
	ActionDelete    Action = "delete"
	ActionUnchanged Action = "unchanged"
)

// RecordStatus is the status of a harvest_record row.
type RecordStatus string

// Record statuses.
const (
	RecordPending         RecordStatus = "pending" // written by compare, not yet settled
	RecordSuccess         RecordStatus = "success"
	RecordErrorValidation RecordStatus = "error_validation"
	RecordErrorTransform  RecordStatus = "error_transform"
	RecordFailed          RecordStatus = "error" // sync or other failure
)

// Outcome is how one record of a job settled; the job aggregator counts each once.
type Outcome string

// Outcomes; total = added + updated + deleted + unchanged + errored.
const (
	OutcomeAdded     Outcome = "added"
	OutcomeUpdated   Outcome = "updated"
	OutcomeDeleted   Outcome = "deleted"
	OutcomeUnchanged Outcome = "unchanged"
	OutcomeErrored   Outcome = "errored"
)

// OutcomeOf maps a successful record's action to its outcome.
func OutcomeOf(a Action) Outcome {
	switch a {
	case ActionCreate:
		return OutcomeAdded
	case ActionUpdate:
		return OutcomeUpdated
	case ActionDelete:
		return OutcomeDeleted
	}
	return OutcomeUnchanged
}

// Severity of a record error row.
type Severity string

// Severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Counts are a job's record counts; Total = Added + Updated + Deleted + Unchanged + Errored.
// Validated counts the records that passed schema validation and Warned those with at least one
// warning row (subsets of the others; Warned is counted when the job finishes). Held is not a
// count of the job's records but of its source's datasets: how many were held as cross-source
// duplicates (not live: another source's copy is) when the job ended, whichever job held them.
type Counts struct {
	Total     int `json:"total"`
	Added     int `json:"added"`
	Updated   int `json:"updated"`
	Deleted   int `json:"deleted"`
	Unchanged int `json:"unchanged"`
	Errored   int `json:"errored"`
	Validated int `json:"validated"`
	Warned    int `json:"warned"`
	Held      int `json:"held"`
}

// Frequency is how often the scheduler harvests a source.
type Frequency string

// Frequencies (Data.gov H2.0 harvest_source.frequency).
const (
	FrequencyManual   Frequency = "manual"
	FrequencyDaily    Frequency = "daily"
	FrequencyWeekly   Frequency = "weekly"
	FrequencyBiweekly Frequency = "biweekly"
	FrequencyMonthly  Frequency = "monthly"
)

// ParseFrequency returns the Frequency spelled s, or an error naming the allowed values.
func ParseFrequency(s string) (Frequency, error) {
	switch f := Frequency(s); f {
	case FrequencyManual, FrequencyDaily, FrequencyWeekly, FrequencyBiweekly, FrequencyMonthly:
		return f, nil
	}
	return "", fmt.Errorf("unknown frequency %q: want manual, daily, weekly, biweekly or monthly", s)
}

// After returns the run that follows a run at t: t plus one day, 7 days, 14 days or one
// calendar month (the same day of the next month, or its last day when it is shorter: Jan 31
// is followed by Feb 28). A manual source has no next run: the zero time.
func (f Frequency) After(t time.Time) time.Time {
	switch f {
	case FrequencyDaily:
		return t.AddDate(0, 0, 1)
	case FrequencyWeekly:
		return t.AddDate(0, 0, 7)
	case FrequencyBiweekly:
		return t.AddDate(0, 0, 14)
	case FrequencyMonthly:
		next := t.AddDate(0, 1, 0)
		if next.Day() != t.Day() { // the next month is shorter: take its last day
			next = next.AddDate(0, 0, -next.Day())
		}
		return next
	}
	return time.Time{}
}

// NotificationFrequency is when a source's notification_emails get the job report.
type NotificationFrequency string

// Notification frequencies (Data.gov H2.0 harvest_source.notification_frequency).
const (
	NotifyOnError         NotificationFrequency = "on_error"           // record errors, or the job failed
	NotifyAlways          NotificationFrequency = "always"             // every finished job
	NotifyOnErrorOrUpdate NotificationFrequency = "on_error_or_update" // errors, or anything added/updated/deleted
)

// ParseNotificationFrequency returns the NotificationFrequency spelled s, or an error.
func ParseNotificationFrequency(s string) (NotificationFrequency, error) {
	switch n := NotificationFrequency(s); n {
	case NotifyOnError, NotifyAlways, NotifyOnErrorOrUpdate:
		return n, nil
	}
	return "", fmt.Errorf("unknown notification frequency %q: want on_error, always or on_error_or_update", s)
}

// quoted lists values as "a", "b" or "c".
func quoted[T ~string](values []T) string {
	var b strings.Builder
	for i, v := range values {
		switch {
		case i > 0 && i == len(values)-1:
			b.WriteString(" or ")
		case i > 0:
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", string(v))
	}
	return b.String()
}
