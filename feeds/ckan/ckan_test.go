package ckan

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store"
)

const record = `{
  "@type": "dcat:Dataset",
  "identifier": "https://data.example.gov/id/42",
  "title": "Water Quality",
  "description": "Samples from rivers.",
  "keyword": ["water", "Rivers & Lakes"],
  "modified": "2024-05-01",
  "issued": "2020-01-02",
  "publisher": {"@type": "org:Organization", "name": "Office of Water",
    "subOrganizationOf": {"@type": "org:Organization", "name": "EPA"}},
  "contactPoint": {"@type": "vcard:Contact", "fn": "Jane Doe", "hasEmail": "mailto:jane@example.gov"},
  "accessLevel": "public",
  "bureauCode": ["020:00"],
  "license": "https://creativecommons.org/publicdomain/zero/1.0/",
  "landingPage": "https://data.example.gov/water",
  "theme": ["Environment"],
  "spatial": "-120,30,-110,40",
  "describedBy": "https://data.example.gov/dict",
  "distribution": [
    {"@type": "dcat:Distribution", "downloadURL": "https://data.example.gov/w.csv", "mediaType": "text/csv",
     "accessURL": "https://data.example.gov/w", "title": "CSV", "description": "All samples"},
    {"@type": "dcat:Distribution", "accessURL": "https://data.example.gov/api", "format": "API"},
    {"@type": "dcat:Distribution", "title": "No URL"}
  ]
}`

func TestFromDataset(t *testing.T) {
	first := time.Date(2025, 1, 2, 3, 4, 5, 6000, time.UTC)
	ld := &store.LiveDataset{Dataset: store.Dataset{ID: "0f0e0d0c-0000-4000-8000-000000000001", Slug: "water-quality",
		SourceID: "src-1", DCAT: json.RawMessage(record), LastHarvestedDate: first.Add(time.Hour)},
		SourceName: "EPA data.json", OrganizationID: "org-1", OrganizationName: "Environmental Protection Agency",
		OrganizationSlug: "epa", FirstHarvested: first, SchemaType: "dcatus1.1: federal"}
	p := FromDataset(ld)
	require.Equal(t, ld.ID, p.ID)
	require.Equal(t, "water-quality", p.Name)
	require.Equal(t, "Water Quality", p.Title)
	require.Equal(t, "Samples from rivers.", *p.Notes)
	require.Equal(t, "2025-01-02T03:04:05.000006", p.MetadataCreated)
	require.Equal(t, "2025-01-02T04:04:05.000006", p.MetadataModified)
	require.Equal(t, []string{"water", "Rivers & Lakes"}, []string{p.Tags[0].Name, p.Tags[1].Name})
	require.Equal(t, 2, p.NumTags)
	require.Equal(t, "Jane Doe", *p.Maintainer)
	require.Equal(t, "jane@example.gov", *p.MaintainerEmail)
	require.Equal(t, "cc-zero", *p.LicenseID)
	require.True(t, p.IsOpen)
	require.Equal(t, "https://data.example.gov/water", *p.URL)
	require.Equal(t, "epa", p.Organization.Name)
	require.Equal(t, "Environmental Protection Agency", p.Organization.Title)
	require.Equal(t, "Environment", p.Groups[0].Name)

	require.Len(t, p.Resources, 3)
	require.Equal(t, "https://data.example.gov/w.csv", p.Resources[0].URL, "downloadURL first")
	require.Equal(t, "https://data.example.gov/w", p.Resources[0].AccessURL)
	require.Equal(t, "text/csv", p.Resources[0].Format, "format from mediaType")
	require.Equal(t, "text/csv", *p.Resources[0].Mimetype)
	require.Equal(t, "https://data.example.gov/api", p.Resources[1].URL, "accessURL without downloadURL")
	require.Nil(t, p.Resources[1].Mimetype)
	require.Equal(t, "", p.Resources[2].URL, "kept without a URL")
	require.Equal(t, p.Resources[0].ID, FromDataset(ld).Resources[0].ID, "resource ids are stable")

	extras := map[string]string{}
	for _, e := range p.Extras {
		extras[e.Key] = e.Value
	}
	require.Equal(t, "https://data.example.gov/id/42", extras["identifier"])
	require.Equal(t, "2024-05-01", extras["modified"])
	require.Equal(t, "2020-01-02", extras["issued"])
	require.Equal(t, "Office of Water", extras["publisher"])
	require.Equal(t, "EPA > Office of Water", extras["publisher_hierarchy"])
	require.Equal(t, `["020:00"]`, extras["bureauCode"])
	require.Equal(t, `["Environment"]`, extras["theme"])
	require.Equal(t, "https://data.example.gov/dict", extras["describedBy"], "fields without a mapping go as they are")
	require.Equal(t, "src-1", extras["harvest_source_id"])
	require.Equal(t, "1.1", extras["source_schema_version"])
	require.NotContains(t, extras, "title")
	require.NotContains(t, extras, "distribution")
	require.Equal(t, "modified", p.Extras[0].Key, "ckanext-datajson's order")

	bad := FromDataset(&store.LiveDataset{Dataset: store.Dataset{ID: "x", Slug: "x", DCAT: json.RawMessage(`[1]`)}})
	require.Equal(t, "x", bad.Name)
	require.Nil(t, bad.Organization)
	require.NotNil(t, bad.Resources)
}

func TestParseFQ(t *testing.T) {
	for _, c := range []struct {
		fq   string
		want []Clause
	}{
		{"", nil},
		{"*:*", nil},
		{"organization:epa", []Clause{{Field: "organization", Value: "epa"}}},
		{`tags:"rivers & lakes" AND -res_format:CSV  +groups:Environment`, []Clause{{Field: "tags", Value: "rivers & lakes"},
			{Field: "res_format", Value: "CSV", Exclude: true}, {Field: "groups", Value: "Environment"}}},
		{`tags:"say \"hi\""`, []Clause{{Field: "tags", Value: `say "hi"`}}},
		{"+dataset_type:dataset organization:a", []Clause{{Field: "organization", Value: "a"}}},
		{"organization:a metadata_modified:[2024-05-01T10:00:00.123456Z TO *]", []Clause{{Field: "organization", Value: "a"},
			{Field: "metadata_modified", Value: "2024-05-01T10:00:00.123456Z"}}},
	} {
		got, err := ParseFQ(c.fq)
		require.NoError(t, err, c.fq)
		require.Equal(t, c.want, got, c.fq)
	}
	for fq, clause := range map[string]string{
		`tags:"unbalanced`:                 `'tags:"unbalanced'`,
		"title:water":                      "title:water",
		"tags:wat*":                        "tags:wat*",
		"organization:(a OR b)":            "organization:(a",
		"metadata_modified:[* TO NOW]":     "metadata_modified:[*",
		"water":                            "water",
		"tags:a OR tags:b":                 "'OR': OR and NOT are not supported",
		"metadata_modified:[2024 TO 2025]": "metadata_modified takes one range",
		"metadata_modified:[2024 TO *":     "unbalanced [",
		"-dataset_type:dataset":            "-dataset_type:dataset",
		`tags:"a"b`:                        `'tags:"a"b'`,
	} {
		_, err := ParseFQ(fq)
		var e *Error
		require.ErrorAs(t, err, &e, fq)
		require.Equal(t, http.StatusBadRequest, e.Status)
		require.Equal(t, "Search Query Error", e.Type)
		require.Contains(t, e.Message, "Search Query is invalid: ")
		require.Contains(t, e.Message, clause, fq)
	}
	var long string
	for range 40 {
		long += "tags:a "
	}
	_, err := ParseFQ(long)
	require.Error(t, err, "too many clauses")
}

func TestParseSort(t *testing.T) {
	for in, want := range map[string]string{"": SortRelevance, "score desc, metadata_modified desc": SortRelevance,
		"Metadata_Modified  DESC": SortModified, "title_string asc": SortTitle, "id asc": SortID} {
		got, err := ParseSort(in)
		require.NoError(t, err)
		require.Equal(t, want, got, in)
	}
	_, err := ParseSort("views_recent desc")
	require.ErrorContains(t, err, "views_recent desc")
}

func TestErrorJSON(t *testing.T) {
	b, err := json.Marshal(Validation(map[string][]string{"rows": {"Invalid integer"}}))
	require.NoError(t, err)
	require.JSONEq(t, `{"__type": "Validation Error", "rows": ["Invalid integer"]}`, string(b))
	b, err = json.Marshal(NotFound("Dataset"))
	require.NoError(t, err)
	require.JSONEq(t, `{"__type": "Not Found Error", "message": "Not found: Dataset"}`, string(b))
}
