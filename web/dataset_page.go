package web

import (
	"cmp"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/feeds"
	"github.com/harvester-dev/harvester/store"
)

// Lengths the public dataset page shows of a record's texts, in characters; a longer text is
// cut with "…" and the page links the whole record (.json). A description of a megabyte
// renders, in bounded time and size.
const (
	maxPageDescription = 10000
	maxPageText        = 2000
)

// datasetPage is what dataset_public.html shows of a live dataset.
type datasetPage struct {
	Title          string
	Description    string
	DescriptionCut bool
	JSONPath       string // the record as harvested: /dataset/{slug}.json
	URL            string // the page's canonical URL
	Fields         []datasetField
	Distributions  []distributionView
	Harvest        *store.LiveDataset
	LastChanged    time.Time
	JSONLD         template.JS // schema.org Dataset, marshalled by encoding/json (<, >, & escaped)
	Operator       bool        // a signed-in operator: links to the source and the harvest record
	// Quality is the dataset's metadata quality panel; nil when its score cannot be read.
	Quality *datasetQualityView
}

// datasetField is one labelled field of the record, with its values (a list field has many).
type datasetField struct {
	ID     string // element id: dataset-<key> for recordFields, "" for the others
	Label  string
	Values []fieldValue
}

// fieldValue is a text, linked when Href is not "" (a web URL or a mailto: address).
type fieldValue struct {
	Text, Href string
}

// distributionView is one distribution of the record.
type distributionView struct {
	Title, Description, Format, MediaType string
	Download, Access                      fieldValue
}

// recordFields are the DCAT-US fields the page shows, in order, with their labels; the
// record's other fields follow under their own names.
var recordFields = []struct{ key, label string }{
	{"identifier", "Identifier"}, {"keyword", "Keywords"}, {"publisher", "Publisher"},
	{"contactPoint", "Contact"}, {"modified", "Modified"}, {"issued", "Issued"},
	{"license", "License"}, {"rights", "Rights"}, {"accessLevel", "Access level"},
	{"spatial", "Spatial coverage"}, {"temporal", "Temporal coverage"}, {"theme", "Theme"},
	{"landingPage", "Landing page"}, {"accrualPeriodicity", "Update frequency"}, {"language", "Language"},
	{"conformsTo", "Conforms to"}, {"describedBy", "Data dictionary"}, {"references", "References"},
	{"isPartOf", "Part of"}, {"bureauCode", "Bureau code"}, {"programCode", "Program code"},
}

// shownElsewhere are the record's fields the page shows outside its field list, or not at all.
var shownElsewhere = []string{"title", "description", "distribution", "@type", "@context", "@id"}

// datasetHTML answers /dataset/{slug}: the dataset's public page, with schema.org Dataset
// JSON-LD in its head. It varies by session (an operator sees links to the source and the
// record), so it says Vary: Cookie, and a signed-in answer is not stored by shared caches.
func (s *server) datasetHTML(w http.ResponseWriter, r *http.Request, ds *store.LiveDataset) error {
	rec := feeds.ParseRecord(ds.DCAT)
	p := &datasetPage{
		Title:       cmp.Or(feeds.Cut(rec.Text("title"), maxPageText), ds.Identifier),
		JSONPath:    datasetPath(ds.Slug) + ".json",
		URL:         s.cfg.Catalog.DatasetURL(r, ds.Slug),
		Harvest:     ds,
		LastChanged: ds.LastHarvestedDate,
		Operator:    s.signedIn(r),
	}
	desc := rec.Text("description")
	p.Description = feeds.Cut(desc, maxPageDescription)
	p.DescriptionCut = p.Description != desc
	p.Fields = recordFieldsOf(rec, ds.Identifier)
	p.Quality = s.datasetQualityOf(r.Context(), ds.ID)
	for i, d := range rec.Objects("distribution") {
		p.Distributions = append(p.Distributions, distributionOf(d, i))
	}
	ld, err := json.Marshal(feeds.SchemaOrgDataset(s.cfg.Catalog, r, ds))
	if err != nil {
		return fmt.Errorf("schema.org JSON-LD: %w", err)
	}
	p.JSONLD = template.JS(ld) // #nosec G203 -- encoding/json escapes <, > and &: nothing closes the script
	w.Header().Add("Vary", "Cookie")
	if p.Operator {
		w.Header().Set("Cache-Control", "private, no-store")
	}
	return s.renderPublic(w, r, http.StatusOK, "dataset_public.html", p.Title, p)
}

// datasetJSON answers /dataset/{slug}.json: the stored DCAT-US record as harvested, with an
// ETag of the dataset's id, its record's id and its last change (last_harvested_date, also
// Last-Modified) and a 304 for a client that has it.
func (s *server) datasetJSON(w http.ResponseWriter, r *http.Request, ds *store.LiveDataset) error {
	etag := feeds.ETag("dataset.json", ds.ID, ds.RecordID, ds.LastHarvestedDate.UTC().Format(time.RFC3339Nano))
	if feeds.NotModified(w, r, etag, ds.LastHarvestedDate) {
		return nil
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(ds.DCAT)
	return nil
}

// recordFieldsOf lists rec's fields: recordFields first (identifier is the dataset's), then
// every other field by its name, sorted; empty ones are left out.
func recordFieldsOf(rec feeds.Record, identifier string) []datasetField {
	var out []datasetField
	add := func(id, label string, vals []fieldValue) {
		if len(vals) > 0 {
			out = append(out, datasetField{ID: id, Label: label, Values: vals})
		}
	}
	for _, f := range recordFields {
		id := "dataset-" + f.key
		switch f.key {
		case "identifier":
			add(id, f.label, []fieldValue{linkOf(identifier)})
		case "contactPoint":
			add(id, f.label, contactOf(rec))
		case "publisher":
			add(id, f.label, publisherOf(rec))
		default:
			add(id, f.label, valuesOf(rec, f.key))
		}
	}
	var others []string
	for k := range rec {
		known := slices.Contains(shownElsewhere, k) || slices.ContainsFunc(recordFields, func(f struct{ key, label string }) bool { return f.key == k })
		if !known {
			others = append(others, k)
		}
	}
	slices.Sort(others)
	for _, k := range others {
		add("", feeds.Cut(k, maxPageText), valuesOf(rec, k)) // no id: a harvested key can be anything
	}
	return out
}

// valuesOf is the field's texts, each linked when it is a web URL.
func valuesOf(rec feeds.Record, key string) []fieldValue {
	var out []fieldValue
	for _, t := range rec.Texts(key) {
		out = append(out, linkOf(t))
	}
	return out
}

// linkOf is t (cut to maxPageText), linked to t when t is a web URL.
func linkOf(t string) fieldValue {
	v := fieldValue{Text: feeds.Cut(t, maxPageText)}
	if feeds.IsWebURL(t) {
		v.Href = t
	}
	return v
}

func publisherOf(rec feeds.Record) []fieldValue {
	name := feeds.Cut(rec.Text("publisher"), maxPageText)
	if name == "" {
		return nil
	}
	if pub := rec.Object("publisher"); pub != nil {
		if parent := pub.Text("subOrganizationOf"); parent != "" {
			name += " (part of " + feeds.Cut(parent, maxPageText) + ")"
		}
	}
	return []fieldValue{{Text: name}}
}

// contactOf is each contact's name and its e-mail address as a mailto: link.
func contactOf(rec feeds.Record) []fieldValue {
	contacts := rec.Objects("contactPoint")
	if len(contacts) == 0 {
		return valuesOf(rec, "contactPoint")
	}
	var out []fieldValue
	for _, c := range contacts {
		if fn := c.Text("fn"); fn != "" {
			out = append(out, fieldValue{Text: feeds.Cut(fn, maxPageText)})
		}
		for _, e := range c.Texts("hasEmail") {
			addr := feeds.Email(e)
			v := fieldValue{Text: feeds.Cut(addr, maxPageText)}
			if strings.Contains(addr, "@") && !strings.ContainsAny(addr, " <>\"") {
				v.Href = "mailto:" + addr
			}
			out = append(out, v)
		}
	}
	return out
}

func distributionOf(d feeds.Record, i int) distributionView {
	v := distributionView{
		Title:       cmp.Or(feeds.Cut(d.Text("title"), maxPageText), fmt.Sprintf("Distribution %d", i+1)),
		Description: feeds.Cut(d.Text("description"), maxPageText),
		Format:      feeds.Cut(d.Text("format"), maxPageText),
		MediaType:   feeds.Cut(d.Text("mediaType"), maxPageText),
	}
	if u := d.Text("downloadURL"); u != "" {
		v.Download = linkOf(u)
	}
	if u := d.Text("accessURL"); u != "" {
		v.Access = linkOf(u)
	}
	return v
}
