package rdf

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/harvester-dev/harvester/dcatap"
	"github.com/harvester-dev/harvester/store"
)

// catalogSums builds the checksum of each catalog an rdf source's job saw, as FDK compares
// catalogs (peer-harvesters §1.6: a catalog's graph is its own triples unioned with its
// datasets' graphs): the SHA-256 of the hash of the catalog's own canonical graph and of each
// of its datasets' IRI and graph hash, so that a catalog is changed (the report's
// changedCatalogs) when only a dataset inside it changed. It holds one line (IRI and hash) per
// dataset and catalog it lists; each dataset's graph is made canonical once more here.
type catalogSums struct {
	order    []string            // catalog IRIs, as Split gave them
	own      map[string]string   // catalog IRI -> source hash of its own graph
	datasets map[string][]string // catalog IRI -> "<dataset IRI> <hash>" of the datasets it lists
}

func newCatalogSums() *catalogSums {
	return &catalogSums{own: map[string]string{}, datasets: map[string][]string{}}
}

// add takes one resource of dcatap.Split: a catalog's own graph, or a dataset's (or series')
// graph for each catalog that lists it. A blank-node resource is no part of any sum; a dataset
// too large to hold, or that cannot be made canonical, counts by its reason. The error is
// dcatap.Canonical's for a catalog's own graph (it fails the job, as before).
func (c *catalogSums) add(r *dcatap.Resource) error {
	if r.IRI == "" {
		return nil
	}
	hash := "problem " + r.Problem
	if r.Problem == "" {
		nquads, err := r.NQuads()
		switch {
		case err != nil && r.Kind == dcatap.KindCatalog:
			return err
		case err != nil: // the dataset is an error row (rdfRecord); its catalog counts the reason
			hash = "error " + err.Error()
		default:
			hash = dcatap.SourceHash(r.IRI, nquads)
		}
	}
	if r.Kind == dcatap.KindCatalog {
		c.order = append(c.order, r.IRI)
		c.own[r.IRI] = hash
		return nil
	}
	for _, cat := range r.Catalogs {
		c.datasets[cat] = append(c.datasets[cat], r.IRI+" "+hash)
	}
	return nil
}

// list returns the catalogs' checksums, for store.CatalogChecksumsSetParams.
func (c *catalogSums) list() []store.CatalogChecksum {
	out := make([]store.CatalogChecksum, 0, len(c.order))
	for _, iri := range c.order {
		lines := c.datasets[iri]
		slices.Sort(lines)
		sum := sha256.Sum256([]byte(c.own[iri] + "\n" + strings.Join(lines, "\n")))
		out = append(out, store.CatalogChecksum{URI: iri, FdkID: dcatap.FdkID(iri), Checksum: hex.EncodeToString(sum[:])})
	}
	return out
}
