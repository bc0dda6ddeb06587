package validate

import (
	"sync"

	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/harvest"
)

// Handler is the VALIDATE stage: one compiled Validator per schema type, built on first use.
type Handler struct {
	mu         sync.Mutex
	validators map[harvest.SchemaType]*dcatus.Validator
}

// validator3 is the DCAT-US 3.0 validator of a record type (compiled once by dcatus).
func validator3(recordType string) (*dcatus.Validator, error) {
	return dcatus.NewValidator3(recordType)
}

// New returns the VALIDATE stage.
func New() *Handler {
	return &Handler{validators: map[harvest.SchemaType]*dcatus.Validator{}}
}

func (h *Handler) validator(t harvest.SchemaType) (*dcatus.Validator, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if v, ok := h.validators[t]; ok {
		return v, nil
	}
	v, err := dcatus.NewValidator(string(t))
	if err != nil {
		return nil, err
	}
	h.validators[t] = v
	return v, nil
}

// Handle validates one record (SubjectValidate): its DCAT-US against the JSON Schema of its
// schema type, or, for a dcat-ap record, its record graph against the SHACL profile rec.Profile
// (ValidateDCATAP says which results fail the record and which only warn). A DCAT-US 3.0 record
// is checked against the DCAT-US 3.0 schema of its record type, and its content-quality
// warnings (dcatus.Warnings3) travel with it as severity=warning rows, which never fail it. An
// invalid record settles as errored with status error_validation and one error row per
// problem. A valid record goes to SYNC, or, in a validate job, settles with the action it would
// have had; its warnings travel with it as rec.Warnings.
func (h *Handler) Handle(msg *harvest.Message) ([]*harvest.Message, error) {
	var rec harvest.Record
	if err := harvest.Decode(msg, &rec); err != nil {
		return nil, harvest.Permanent(err)
	}
	if rec.SchemaType == harvest.SchemaDCATAP {
		return h.handleDCATAP(&rec)
	}
	schema := rec.SchemaType
	if schema.IsXML() || (rec.SourceType.IsPortal() && schema != harvest.SchemaDCATUS11Federal) {
		schema = harvest.SchemaDCATUS11NonFederal // what Data.gov checks transformed ISO records against; portal items too
	}
	var v *dcatus.Validator
	var err error
	if schema.IsDCATUS3() {
		// One root per record type, as Data.gov H2.0 does; content-quality warnings never fail it.
		v, err = validator3(rec.RecordType)
		for _, w := range dcatus.Warnings3(rec.DCAT()) {
			rec.Warnings = append(rec.Warnings, harvest.RecordError{Type: harvest.TypeValidationWarning,
				Message: w.Path + ": " + w.Message, Severity: harvest.SeverityWarning})
		}
	} else {
		v, err = h.validator(schema)
	}
	if err != nil {
		return h.reject(&rec, []harvest.RecordError{{Type: harvest.TypeValidationError, Message: err.Error(),
			Severity: harvest.SeverityError}})
	}
	problems, err := v.Validate(rec.DCAT())
	if err != nil {
		problems = []dcatus.Problem{{Path: "$", Message: err.Error()}}
	}
	if len(problems) > 0 {
		errs := make([]harvest.RecordError, len(problems))
		for i, p := range problems {
			errs[i] = harvest.RecordError{Type: harvest.TypeValidationError, Message: p.Path + ": " + p.Message,
				Severity: harvest.SeverityError}
		}
		return h.reject(&rec, errs)
	}
	return h.accept(&rec)
}

// handleDCATAP validates a DCAT-AP record's graph (Body) with SHACL (ValidateDCATAP): errors
// settle the record as error_validation, with the warnings beside them; warnings alone go on
// with the record as its Warnings.
func (h *Handler) handleDCATAP(rec *harvest.Record) ([]*harvest.Message, error) {
	errs, warnings := ValidateDCATAP(rec.Identifier, rec.Body, rec.Profile)
	rec.Warnings = append(rec.Warnings, warnings...)
	if len(errs) > 0 {
		return h.reject(rec, errs)
	}
	return h.accept(rec)
}

// accept passes a valid record to SYNC, or settles it in a validate job. A record COMPARE sent
// only to be validated again under its source's new settings (rec.Revalidate: its content is
// that of its live dataset) settles unchanged, in a validate job too: its harvest_record, with
// the new settings, is a success, and the dataset is not rewritten.
func (h *Handler) accept(rec *harvest.Record) ([]*harvest.Message, error) {
	rec.Validated = true
	if rec.Revalidate {
		s := harvest.SettleRecord(rec, harvest.OutcomeUnchanged, rec.Warnings...)
		s.Validated = true
		if s.RecordID != "" { // a validate job writes no harvest_record
			s.Status, s.Transformed = harvest.RecordSuccess, rec.Transformed
		}
		return harvest.Settle(s)
	}
	if len(rec.Transformed) > 0 {
		// SYNC reads the DCAT-US (rec.DCAT()); COMPARE stored the source's own form (source_raw).
		rec.Body, rec.XML = nil, nil
	}
	if rec.JobType == harvest.JobValidate {
		s := harvest.SettleRecord(rec, harvest.OutcomeOf(rec.Action), rec.Warnings...) // no harvest_record
		s.Validated = true
		return harvest.Settle(s)
	}
	return harvest.Next(harvest.SubjectSync, rec)
}

func (h *Handler) reject(rec *harvest.Record, errs []harvest.RecordError) ([]*harvest.Message, error) {
	s := harvest.SettleRecord(rec, harvest.OutcomeErrored, append(rec.Warnings, errs...)...)
	s.Status, s.Transformed = harvest.RecordErrorValidation, rec.Transformed
	return harvest.Settle(s)
}
