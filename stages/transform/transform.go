// Package transform is the TRANSFORM stage: it turns a record that is not DCAT-US into DCAT-US
// JSON in Record.Transformed. ISO 19115 XML (package iso) and FGDC CSDGM XML (package fgdc)
// are transformed natively, the mapper chosen by the record's root element; the result
// travels on with the record, and the aggregator stores it as the record's source_transform
// with the record's outcome (harvest.Settled.Transformed). A DCAT-AP record graph (canonical
// N-Quads in Body) is mapped natively too (package dcatap), with a language preference for
// its language-tagged literals. DCAT-US input passes through untouched, so source_raw stays
// exactly what the publisher wrote. Portal API items (a record whose
// SourceType is a portal) are mapped by their platform (package portal).
package transform

import (
	"fmt"

	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/transform/dcatap"
	"github.com/harvester-dev/harvester/stages/transform/portal"
)

// Handler is the TRANSFORM stage. It is pure: record in, record or verdict out; it writes
// nothing.
type Handler struct {
	languages []string
}

// Option configures the TRANSFORM stage.
type Option func(*Handler)

// WithLanguages sets the language preference for DCAT-AP records whose source names none
// (harvest.Record.Languages), most wanted first, e.g. ["nb", "nn", "en"]; nil or empty keeps
// dcatap.DefaultLanguages (["en"]).
func WithLanguages(langs []string) Option {
	return func(h *Handler) { h.languages = langs }
}

// New returns the TRANSFORM stage.
func New(opts ...Option) *Handler {
	h := &Handler{}
	for _, o := range opts {
		o(h)
	}
	return h
}

// Handle transforms one record (SubjectTransform) and sends it to VALIDATE. A record that
// cannot be transformed settles as errored with status error_transform and the reason.
func (h *Handler) Handle(msg *harvest.Message) ([]*harvest.Message, error) {
	var rec harvest.Record
	if err := harvest.Decode(msg, &rec); err != nil {
		return nil, harvest.Permanent(err)
	}
	if !rec.SourceType.IsPortal() && (rec.SchemaType == harvest.SchemaDCATUS11Federal ||
		rec.SchemaType == harvest.SchemaDCATUS11NonFederal || rec.SchemaType == harvest.SchemaDCATUS30) {
		// DCAT-US already: on as it came. COMPARE sends these to VALIDATE; a replayed one, or
		// one queued before that, may still come here.
		return harvest.Forward(harvest.SubjectValidate, msg)
	}
	dcat, warnings, err := h.transform(&rec)
	if err != nil {
		return reject(&rec, err.Error())
	}
	for _, w := range warnings {
		rec.Warnings = append(rec.Warnings, transformWarning(w))
	}
	rec.Transformed = dcat
	return harvest.Next(harvest.SubjectValidate, &rec)
}

// transform maps rec to DCAT-US: a portal item by its platform (Record.SourceType), else by
// its schema type. A DCAT-AP dataset that names no publisher gets its catalog's
// (Record.PublisherName); a waf-collection's ISO record the collection as isPartOf.
func (h *Handler) transform(rec *harvest.Record) ([]byte, []dcatus.Warning, error) {
	switch {
	case rec.SourceType.IsPortal():
		return transformPortal(rec)
	case rec.SchemaType == harvest.SchemaDCATAP:
		langs := rec.Languages
		if len(langs) == 0 {
			langs = h.languages
		}
		dcat, warnings, err := dcatap.Transform(rec.Body, rec.Identifier, langs)
		if err == nil && rec.PublisherName != "" {
			dcat = dcatus.WithPublisher(dcat, rec.PublisherName)
		}
		return dcat, warnings, err
	case rec.SchemaType.IsXML():
		dcat, warnings, err := transformXML(rec)
		if err == nil && rec.IsPartOf != "" {
			dcat = dcatus.WithIsPartOf(dcat, rec.IsPartOf)
		}
		return dcat, warnings, err
	}
	return nil, nil, fmt.Errorf("no transform for schema type %q", rec.SchemaType)
}

// transformPortal maps a portal item (Record.SourceType) to DCAT-US by its platform.
func transformPortal(rec *harvest.Record) ([]byte, []dcatus.Warning, error) {
	switch rec.SourceType {
	case harvest.SourceCKAN:
		return portal.CKAN(rec.Body, rec.Identifier, rec.PublisherName)
	case harvest.SourceDKAN:
		return portal.DKAN(rec.Body, rec.Identifier)
	case harvest.SourceSocrata:
		return portal.Socrata(rec.Body, rec.Identifier, rec.PublisherName)
	case harvest.SourceArcGIS:
		return portal.ArcGIS(rec.Body, rec.Identifier, rec.PublisherName)
	case harvest.SourceOpenDataSoft:
		return portal.OpenDataSoft(rec.Body, rec.Identifier, rec.PublisherName)
	}
	return nil, nil, fmt.Errorf("no transform for source type %q", rec.SourceType)
}

func reject(rec *harvest.Record, reason string) ([]*harvest.Message, error) {
	s := harvest.SettleRecord(rec, harvest.OutcomeErrored,
		harvest.RecordError{Type: harvest.TypeTransformError, Message: reason, Severity: harvest.SeverityError})
	s.Status = harvest.RecordErrorTransform
	return harvest.Settle(s)
}

// transformWarning is the warning row of a lossy choice TRANSFORM made (the ISO, DCAT-AP and
// portal mappings each report them as a dcatus.Warning).
func transformWarning(w dcatus.Warning) harvest.RecordError {
	return harvest.RecordError{Type: harvest.TypeTransformWarning, Message: w.Field + ": " + w.Message, Severity: harvest.SeverityWarning}
}
