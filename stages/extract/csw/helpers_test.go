package csw

// The tests' EXTRACT runs: extracttest's, with this family's lister (withLister).

import (
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
	"github.com/harvester-dev/harvester/stages/extract/extracttest"
)

func identifiers(recs []harvest.Record) []string { return extracttest.Identifiers(recs) }

// withLister is opts with this family's lister registered last (after any WithConfig).
func withLister(opts []extract.Option) []extract.Option {
	return append(opts, extract.WithListers(map[harvest.Family]extract.Lister{harvest.FamilyCSW: Lister{}}))
}
