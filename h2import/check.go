package h2import

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// The checks an H2.0 row passes before it is imported: the API's own rules where the API
// writes such rows (store.CheckOrganization, store.CheckSource), and for the rows only a
// harvest writes, what a harvest would have written (a UUID id, an identifier, a dataset slug
// that is one URL path segment, a DCAT document that is a JSON object). Each returns why the
// row is refused, or "".

// canonicalize puts the id of field in the form both backends store ids (lower-case,
// hyphenated; Postgres' uuid type prints it so), or returns the refusal of an id that is not a
// UUID (leaving it).
func canonicalize(field string, id *string) string {
	u, err := uuid.Parse(*id)
	if err != nil {
		return fmt.Sprintf("%s: %q is not a UUID", field, *id)
	}
	*id = u.String()
	return ""
}

// fieldsWhy is the refusal of the fields the API's checks found bad, by field name in order, or "".
func fieldsWhy(fields map[string]string) string {
	var out []string
	for _, f := range slices.Sorted(maps.Keys(fields)) {
		out = append(out, f+": "+fields[f])
	}
	return strings.Join(out, "; ")
}

// checkOrganization checks an organization as the API's POST does, and canonicalizes its id.
func checkOrganization(o *store.OrganizationImportParams) string {
	if why := canonicalize("id", &o.ID); why != "" {
		return why
	}
	o.Name = strings.TrimSpace(o.Name)
	fields := map[string]string{}
	store.CheckOrganization(o.Name, o.Slug, fields)
	return fieldsWhy(fields)
}

// checkSource checks a source as the API's POST does (schemaType as H2.0 has it), then puts
// its urls in normal form as the API stores them, and canonicalizes its ids.
func checkSource(p *store.SourceImportParams, schemaType string) string {
	if why := cmp.Or(canonicalize("id", &p.ID), canonicalize("organization_id", &p.OrganizationID)); why != "" {
		return why
	}
	p.Name, p.URL = strings.TrimSpace(p.Name), strings.TrimSpace(p.URL)
	p.CollectionParentURL = strings.TrimSpace(p.CollectionParentURL)
	fields := map[string]string{}
	store.CheckSource(&p.SourceInsertParams, schemaType, fields)
	if why := fieldsWhy(fields); why != "" {
		return why
	}
	p.URL, _ = harvest.NormalizeSourceURL(p.SourceType, p.URL) // CheckSource accepted it
	if p.CollectionParentURL != "" {
		p.CollectionParentURL, _ = harvest.NormalizeURL(p.CollectionParentURL)
	}
	return ""
}

// checkJob checks a job's id and canonicalizes it.
func checkJob(j *store.JobImportParams) string {
	return canonicalize("id", &j.ID)
}

// checkRecord checks a current record (its id, identifier and action) and canonicalizes its ids.
func checkRecord(rec *store.RecordImportParams) string {
	if why := cmp.Or(canonicalize("id", &rec.ID), canonicalize("harvest_job_id", &rec.JobID)); why != "" {
		return why
	}
	switch {
	case strings.TrimSpace(rec.Identifier) == "":
		return "identifier: required"
	case rec.Action != harvest.ActionCreate && rec.Action != harvest.ActionUpdate:
		return fmt.Sprintf("action: %q is not create or update", rec.Action)
	case len(rec.SourceTransform) > 0 && !json.Valid(rec.SourceTransform):
		return "source_transform: not JSON"
	}
	return ""
}

// checkDataset checks a live dataset: its id, its slug (one URL path segment: the API and web
// UI find a dataset by /datasets/{slug}) and its dcat (a JSON object, as SYNC writes it).
func checkDataset(ds *store.DatasetImportParams) string {
	if why := canonicalize("id", &ds.ID); why != "" {
		return why
	}
	switch {
	case strings.TrimSpace(ds.Slug) == "":
		return "slug: required"
	case strings.ContainsAny(ds.Slug, "/?#%\\") || strings.TrimSpace(ds.Slug) != ds.Slug || ds.Slug == "." || ds.Slug == "..":
		return fmt.Sprintf("slug: %q is not one URL path segment", ds.Slug)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(ds.DCAT, &obj); err != nil || obj == nil {
		return "dcat: not a JSON object"
	}
	return ""
}
