// Package transform is the TRANSFORM stage: it turns a record that is not DCAT-US into DCAT-US
// JSON in Record.Transformed. ISO 19115 XML is transformed natively (package iso), and the
// result is kept as the record's source_transform; DCAT-US input passes through untouched, so
// source_raw stays exactly what the publisher wrote. DCAT-AP and portal payloads come later.
package transform

import (
	"encoding/json"
	"fmt"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/transform/iso"
	"github.com/harvester-dev/harvester/store"
)

// Handler is the TRANSFORM stage.
type Handler struct {
	store store.Store
}

// New returns the TRANSFORM stage; it writes source_transform through st.
func New(st store.Store) *Handler { return &Handler{store: st} }

// Handle transforms one record (SubjectTransform) and sends it to VALIDATE. A record that
// cannot be transformed settles as errored with status error_transform and the reason.
func (h *Handler) Handle(msg *message.Message) ([]*message.Message, error) {
	var rec harvest.Record
	if err := harvest.Decode(msg, &rec); err != nil {
		return nil, harvest.Permanent(err)
	}
	switch {
	case rec.SchemaType == harvest.SchemaDCATUS11Federal || rec.SchemaType == harvest.SchemaDCATUS11NonFederal:
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
		if id := rec.StoredRecordID(); id != "" {
			if err := h.store.RecordTransformSet(msg.Context(), &store.RecordTransformSetParams{RecordID: id,
				SourceTransform: dcat}); err != nil {
				return nil, fmt.Errorf("store source_transform: %w", err)
			}
		}
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
