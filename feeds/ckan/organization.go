package ckan

import "github.com/harvester-dev/harvester/store"

// Organization is an organization as CKAN 2.10's organization_show and organization_list
// (all_fields) answer it: name is the organization's slug, title its name. PackageCount is
// set by organization_show and organization_list with all_fields.
type Organization struct {
	ApprovalStatus  string `json:"approval_status"`
	Created         string `json:"created,omitempty"`
	Description     string `json:"description"`
	DisplayName     string `json:"display_name,omitempty"`
	ID              string `json:"id"`
	ImageDisplayURL string `json:"image_display_url,omitempty"`
	ImageURL        string `json:"image_url"`
	IsOrganization  bool   `json:"is_organization"`
	Name            string `json:"name"`
	NumFollowers    *int   `json:"num_followers,omitempty"`
	PackageCount    *int   `json:"package_count,omitempty"`
	State           string `json:"state"`
	Title           string `json:"title"`
	Type            string `json:"type"`
}

// FromOrganization is o as organization_show answers it, with packageCount live datasets.
func FromOrganization(o *store.Organization, packageCount int) *Organization {
	zero := 0
	return &Organization{ApprovalStatus: "approved", Created: Timestamp(o.CreatedAt), DisplayName: o.Name,
		ID: o.ID, IsOrganization: true, Name: o.Slug, NumFollowers: &zero, PackageCount: &packageCount,
		State: "active", Title: o.Name, Type: "organization"}
}
