// Package transform is the TRANSFORM stage: it turns a record that is not DCAT-US (ISO 19115,
// DCAT-AP, portal API items: later) into DCAT-US JSON in Record.Transformed. DCAT-US input
// passes through untouched, so SourceRaw stays exactly what the publisher wrote.
package transform

import (
	"fmt"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/harvester-dev/harvester/harvest"
)

// Handler is the TRANSFORM stage.
type Handler struct{}

// New returns the TRANSFORM stage.
func New() *Handler { return &Handler{} }

// Handle transforms one record (SubjectTransform) and sends it to VALIDATE. A schema type it
// cannot transform settles the record as errored with status error_transform.
func (h *Handler) Handle(msg *message.Message) ([]*message.Message, error) {
	var rec harvest.Record
	if err := harvest.Decode(msg, &rec); err != nil {
		return nil, harvest.Permanent(err)
	}
	switch rec.SchemaType {
	case harvest.SchemaDCATUS11Federal, harvest.SchemaDCATUS11NonFederal:
		return harvest.Next(harvest.SubjectValidate, &rec)
	}
	return harvest.Settle(&harvest.Settled{Kind: harvest.SettledOutcome, JobID: rec.JobID, Key: harvest.IdentifierKey(rec.Identifier),
		Identifier: rec.Identifier, RecordID: rec.StoredRecordID(), Outcome: harvest.OutcomeErrored,
		Status: harvest.RecordErrorTransform, Errors: []harvest.RecordError{{Type: "TransformError",
			Message: fmt.Sprintf("no transform for schema type %q", rec.SchemaType), Severity: harvest.SeverityError}}})
}
