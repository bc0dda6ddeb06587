// Package rdf is EXTRACT's RDF family (harvest.FamilyRDF): a DCAT-AP document (Turtle,
// RDF/XML, JSON-LD, N-Triples), maybe paged by Hydra (rdf_pages.go), read into a graph that
// spills to disk, split into one record per dataset (rdf.go), with the whole source's
// fingerprint (graph_hash.go) and its catalogs' checksums (catalog_sums.go).
package rdf

import (
	"context"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
)

// Lister lists the sources of harvest.FamilyRDF: a DCAT-AP RDF document, maybe paged (listRDF).
type Lister struct{}

// List lists job's rdf source with h (extract.Lister).
func (Lister) List(ctx context.Context, h *extract.Handler, job *harvest.Job) error {
	return (&handler{h}).listRDF(ctx, job)
}

// handler is the extract handler of one rdf job, with this family's methods.
type handler struct{ *extract.Handler }

// lister is the listing of one rdf job: the extract.Run, with the source's language preference.
type lister struct {
	*extract.Run
	h         *handler
	languages []string // the source's language preference (setting languages)
}
