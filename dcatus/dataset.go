package dcatus

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The @type of the DCAT-US 1.1 objects a Dataset writes.
const (
	TypeDataset      = "dcat:Dataset"
	TypeDistribution = "dcat:Distribution"
	TypeOrganization = "org:Organization"
	TypeContact      = "vcard:Contact"
)

// Dataset is the DCAT-US 1.1 dataset object (Project Open Data metadata schema v1.1) that the
// transforms of stages/transform (ISO 19115, DCAT-AP, portal items) write: the fields they
// map, under the schema's names. The field order is the JSON key order. Identifier and
// accessLevel are always written; every other field is left out when empty, so that a record
// missing a required field fails validation with the field named.
type Dataset struct {
	Type               string         `json:"@type"` // TypeDataset
	Title              string         `json:"title,omitempty"`
	Description        string         `json:"description,omitempty"`
	Keyword            []string       `json:"keyword,omitempty"`
	Modified           string         `json:"modified,omitempty"` // ISO 8601 date, date-time or interval
	Publisher          *Organization  `json:"publisher,omitempty"`
	ContactPoint       *ContactPoint  `json:"contactPoint,omitempty"`
	Identifier         string         `json:"identifier"`
	AccessLevel        string         `json:"accessLevel"` // public, restricted public or non-public
	BureauCode         []string       `json:"bureauCode,omitempty"`
	ProgramCode        []string       `json:"programCode,omitempty"`
	Distribution       []Distribution `json:"distribution,omitempty"`
	License            string         `json:"license,omitempty"` // a URL
	Rights             string         `json:"rights,omitempty"`  // at most 255 characters
	Spatial            string         `json:"spatial,omitempty"` // a place name or "west,south,east,north"
	Temporal           string         `json:"temporal,omitempty"`
	Issued             string         `json:"issued,omitempty"`
	AccrualPeriodicity string         `json:"accrualPeriodicity,omitempty"` // an ISO 8601 repeating duration or "irregular"
	Language           []string       `json:"language,omitempty"`           // BCP 47 tags
	Theme              []string       `json:"theme,omitempty"`
	LandingPage        string         `json:"landingPage,omitempty"`
	References         []string       `json:"references,omitempty"`
	IsPartOf           string         `json:"isPartOf,omitempty"` // the identifier of the collection
}

// Organization is a dataset's publisher.
type Organization struct {
	Type string `json:"@type"` // TypeOrganization
	Name string `json:"name"`
}

// ContactPoint is a dataset's vCard contact; HasEmail is a mailto: URI.
type ContactPoint struct {
	Type     string `json:"@type"` // TypeContact
	FN       string `json:"fn,omitempty"`
	HasEmail string `json:"hasEmail,omitempty"`
}

// Distribution is one way to get a dataset. DCAT-US requires MediaType with DownloadURL.
type Distribution struct {
	Type        string `json:"@type"` // TypeDistribution
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	AccessURL   string `json:"accessURL,omitempty"`
	DownloadURL string `json:"downloadURL,omitempty"`
	MediaType   string `json:"mediaType,omitempty"`
	Format      string `json:"format,omitempty"`
}

// Warning is a non-fatal note about a transformed record: a lossy choice (a value dropped,
// one of several kept), or a placeholder or default used. Field is the DCAT-US field
// concerned, e.g. "contactPoint" or "distribution[0].mediaType".
type Warning struct {
	Field, Message string
}

// Warnings collects a mapper's Warnings in the order they are given (a mapper embeds it).
type Warnings []Warning

// Warn adds a Warning about field, its message fmt.Sprintf(format, args...).
func (w *Warnings) Warn(field, format string, args ...any) {
	*w = append(*w, Warning{Field: field, Message: fmt.Sprintf(format, args...)})
}

// NewDataset returns a public dataset with the identifier, as every transform starts one.
func NewDataset(identifier string) *Dataset {
	return &Dataset{Type: TypeDataset, Identifier: identifier, AccessLevel: "public"}
}

// NewOrganization returns the publisher named name.
func NewOrganization(name string) *Organization {
	return &Organization{Type: TypeOrganization, Name: name}
}

// NewContactPoint returns the contact point fn, with the mailto: URI email ("" for none).
func NewContactPoint(fn, email string) *ContactPoint {
	return &ContactPoint{Type: TypeContact, FN: fn, HasEmail: email}
}

// Encode writes d as the transforms write DCAT-US: see Encode.
func (d *Dataset) Encode() ([]byte, error) { return Encode(d) }

// Encode writes v (a Dataset, or a dataset object of another form) as JSON with a two-space
// indent and without HTML escaping (descriptions are full of markup; the JSON is never embedded
// in HTML), with no final newline. The error is encoding/json's.
func Encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// WithIsPartOf returns the dataset object dcat with "isPartOf" set to parent, the identifier
// of the record it belongs to, as Data.gov H2.0 writes a record's parent_identifier: a
// waf-collection's parent record, or the DataService or DatasetSeries a DCAT-US 3.0 dataset was
// embedded in. A dataset that has an isPartOf of its own, or dcat that is not a JSON object,
// is returned as it is; else the result is compact JSON with its keys sorted.
func WithIsPartOf(dcat json.RawMessage, parent string) json.RawMessage {
	return withMember(dcat, "isPartOf", parent)
}

// WithPublisher returns the dataset object dcat with the publisher named name when it names
// none (a DCAT-AP catalog's publisher for its datasets), as WithIsPartOf does.
func WithPublisher(dcat json.RawMessage, name string) json.RawMessage {
	return withMember(dcat, "publisher", NewOrganization(name))
}

// withMember returns the JSON object dcat with member key set to v unless it has one; dcat as
// it is when it is not an object.
func withMember(dcat json.RawMessage, key string, v any) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(dcat, &m) != nil || m == nil {
		return dcat
	}
	if _, ok := m[key]; ok {
		return dcat
	}
	m[key], _ = json.Marshal(v)
	out, err := json.Marshal(m)
	if err != nil {
		return dcat
	}
	return out
}
