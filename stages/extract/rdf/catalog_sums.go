package rdf

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"slices"
	"strings"

	"github.com/harvester-dev/harvester/dcatap"
	"github.com/harvester-dev/harvester/store"
)

// catalogSums builds the checksum of each catalog an rdf source's job saw, as FDK compares
// catalogs (peer-harvesters §1.6: a catalog's graph is its own triples unioned with its
// datasets' graphs): the SHA-256 of the hash of the catalog's own canonical graph and of each
// of its datasets' IRI and graph hash, so that a catalog is changed (the report's
// changedCatalogs) when only a dataset inside it changed. It takes the resources in Split's
// order (catalogs first, then records sorted by IRI) and hashes each catalog's lines as they
// come, holding only those whose order is not yet known (catalogSum.line): it held one line
// (IRI and hash) per dataset, 87 bytes a dataset (7 MiB of a 83,886-dataset catalog's listing).
type catalogSums struct {
	order []string               // catalog IRIs, as Split gave them
	sums  map[string]*catalogSum // by catalog IRI
}

// catalogSum is one catalog's checksum being made: SHA-256 of the hash of its own graph, "\n",
// and the lines "<dataset IRI> <hash>" of the datasets it lists, sorted, joined by "\n".
type catalogSum struct {
	h     hash.Hash
	lines int      // lines hashed
	last  string   // the IRI of the last line added
	group []string // lines not hashed yet, sorted when hashed
	first string   // the IRI of group[0]
}

func newCatalogSums() *catalogSums {
	return &catalogSums{sums: map[string]*catalogSum{}}
}

// add takes one resource of dcatap.Split, in Split's order: a catalog's own graph, or a
// dataset's (or series') graph for each catalog that lists it. A blank-node resource is no part
// of any sum; a dataset too large to hold, or that cannot be made canonical, counts by its
// reason. The error is dcatap.Canonical's for a catalog's own graph (it fails the job, as
// before), or says that a resource came out of Split's order (a catalog after a dataset it
// lists, a dataset whose IRI sorts before the last one's of a catalog).
func (c *catalogSums) add(r *dcatap.Resource) error {
	if r.IRI == "" {
		return nil
	}
	graphHash := "problem " + r.Problem
	if r.Problem == "" {
		nquads, err := r.NQuads()
		switch {
		case err != nil && r.Kind == dcatap.KindCatalog:
			return err
		case err != nil: // the dataset is an error row (rdfRecord); its catalog counts the reason
			graphHash = "error " + err.Error()
		default:
			graphHash = dcatap.SourceHash(r.IRI, nquads)
		}
	}
	if r.Kind == dcatap.KindCatalog {
		if _, seen := c.sums[r.IRI]; seen {
			return fmt.Errorf("catalog checksums: catalog %s twice, or after a dataset it lists", r.IRI)
		}
		c.order = append(c.order, r.IRI)
		sum := &catalogSum{h: sha256.New()}
		sum.h.Write([]byte(graphHash + "\n"))
		c.sums[r.IRI] = sum
		return nil
	}
	for _, cat := range r.Catalogs {
		sum := c.sums[cat]
		if sum == nil { // a catalog not seen (not in the job's catalogs, or out of order)
			sum = &catalogSum{}
			c.sums[cat] = sum
		}
		if err := sum.line(r.IRI, graphHash); err != nil {
			return fmt.Errorf("catalog checksums: catalog %s: %w", cat, err)
		}
	}
	return nil
}

// line adds the line of the dataset iri, which must sort after the last one's IRI. Lines sorted
// by IRI are sorted as lines except where an IRI is the start of the next ones and is followed
// there by a byte up to ' ' (the line's separator): such a run is held and sorted as lines
// (with IRIs that hold no space nor control character, each line is hashed as it comes).
func (s *catalogSum) line(iri, hash string) error {
	if s.lines+len(s.group) > 0 && iri <= s.last {
		return fmt.Errorf("dataset %s after %s: not in Split's order", iri, s.last)
	}
	s.last = iri
	if len(s.group) > 0 && !(len(iri) > len(s.first) && strings.HasPrefix(iri, s.first) && iri[len(s.first)] <= ' ') {
		s.flush()
	}
	if len(s.group) == 0 {
		s.first = iri
	}
	s.group = append(s.group, iri+" "+hash)
	return nil
}

// flush hashes the held lines, sorted.
func (s *catalogSum) flush() {
	slices.Sort(s.group)
	for _, l := range s.group {
		if s.h != nil {
			if s.lines > 0 {
				s.h.Write([]byte{'\n'})
			}
			s.h.Write([]byte(l))
		}
		s.lines++
	}
	s.group = s.group[:0]
}

// list returns the catalogs' checksums, for store.CatalogChecksumsSetParams.
func (c *catalogSums) list() []store.CatalogChecksum {
	out := make([]store.CatalogChecksum, 0, len(c.order))
	for _, iri := range c.order {
		sum := c.sums[iri]
		sum.flush()
		out = append(out, store.CatalogChecksum{URI: iri, FdkID: dcatap.FdkID(iri), Checksum: hex.EncodeToString(sum.h.Sum(nil))})
	}
	return out
}
