// Package transform is the TRANSFORM stage: it turns a record that is not DCAT-US into DCAT-US
// JSON in Record.Transformed. ISO 19115 XML is transformed natively (package iso); the result
// travels on with the record, and the aggregator stores it as the record's source_transform
// with the record's outcome (harvest.Settled.Transformed). DCAT-US input passes through untouched, so
// source_raw stays exactly what the publisher wrote. DCAT-AP and portal payloads come later.
package transform

import (
	"encoding/json"
	"fmt"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/transform/iso"
)

// Handler is the TRANSFORM stage. It is pure: record in, record or verdict out; it writes
// nothing.
type Handler struct{}

// New returns the TRANSFORM stage.
func New() *Handler { return &Handler{} }

// Handle transforms one record (SubjectTransform) and sends it to VALIDATE. A record that
// cannot be transformed settles as errored with status error_transform and the reason.
func (h *Handler) Handle(msg *message.Message) ([]*message.Message, error) {
	var rec harvest.Record
	if err := harvest.Decode(msg, &rec); err != nil {
		return nil, harvest.Permanent(err)
	}
	switch {
	case rec.SchemaType == harvest.SchemaDCATUS11Federal || rec.SchemaType == harvest.SchemaDCATUS11NonFederal ||
		rec.SchemaType == harvest.SchemaDCATUS30: // DCAT-US already
		return harvest.Next(harvest.SubjectValidate, &rec)
	case rec.SchemaType.IsISO():
		dcat, warnings, err := iso.Transform(rec.XML, rec.Identifier, rec.PublisherName)
		if err != nil {
			return reject(&rec, err.Error())
		}
		if rec.IsPartOf != "" {
			if dcat, err = setIsPartOf(dcat, rec.IsPartOf); err != nil {
				return reject(&rec, err.Error())
			}
		}
		for _, w := range warnings {
			rec.Warnings = append(rec.Warnings, harvest.RecordError{Type: "TransformWarning",
				Message: w.Field + ": " + w.Message, Severity: harvest.SeverityWarning})
		}
		rec.Transformed = dcat
		return harvest.Next(harvest.SubjectValidate, &rec)
	}
	return reject(&rec, fmt.Sprintf("no transform for schema type %q", rec.SchemaType))
}

func reject(rec *harvest.Record, reason string) ([]*message.Message, error) {
	return harvest.Settle(&harvest.Settled{Kind: harvest.SettledOutcome, JobID: rec.JobID,
		Key: harvest.IdentifierKey(rec.Identifier), Identifier: rec.Identifier, RecordID: rec.StoredRecordID(),
		Outcome: harvest.OutcomeErrored, Status: harvest.RecordErrorTransform,
		Errors: []harvest.RecordError{{Type: "TransformError", Message: reason, Severity: harvest.SeverityError}}})
}

// setIsPartOf sets the dataset's isPartOf (a waf-collection child points at its parent).
func setIsPartOf(dcat []byte, parent string) ([]byte, error) {
	var d map[string]json.RawMessage
	if err := json.Unmarshal(dcat, &d); err != nil {
		return nil, fmt.Errorf("set isPartOf: %w", err)
	}
	p, _ := json.Marshal(parent)
	d["isPartOf"] = p
	return json.Marshal(d)
}
