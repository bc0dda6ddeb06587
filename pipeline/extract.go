package pipeline

import (
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
	"github.com/harvester-dev/harvester/stages/extract/csw"
	"github.com/harvester-dev/harvester/stages/extract/document"
	"github.com/harvester-dev/harvester/stages/extract/portal"
	"github.com/harvester-dev/harvester/stages/extract/rdf"
	"github.com/harvester-dev/harvester/stages/extract/waf"
)

// ExtractListers are EXTRACT's listers, one per family of source types (harvest.Families; the
// rule table, harvest.SourceSpecs, names each type's family): the packages under
// stages/extract, which the extract core does not import.
func ExtractListers() map[harvest.Family]extract.Lister {
	return map[harvest.Family]extract.Lister{
		harvest.FamilyDocument: document.Lister{},
		harvest.FamilyWAF:      waf.Lister{},
		harvest.FamilyCSW:      csw.Lister{},
		harvest.FamilyRDF:      rdf.Lister{},
		harvest.FamilyPortal:   portal.Lister{},
	}
}
