// Package csw is EXTRACT's CSW family (harvest.FamilyCSW): an OGC Catalogue Service for the
// Web (CSW 2.0.2 or 3.0). GetCapabilities says how to ask (csw_capabilities.go), GetRecords
// pages go through the extract core's pager (csw_list.go), each record is cut out of the
// answer token by token within the record size cap (csw_read.go, csw_key.go), and a harvest
// after a complete one asks only for the records modified since (csw_modified.go).
package csw

import (
	"context"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
)

// Lister lists the sources of harvest.FamilyCSW: an OGC Catalogue Service for the Web (CSW
// 2.0.2 or 3.0), whose GetRecords pages go through the extract core's pager as a portal's do
// (listCSW).
type Lister struct{}

// List lists job's CSW with h (extract.Lister).
func (Lister) List(ctx context.Context, h *extract.Handler, job *harvest.Job) error {
	return (&handler{h}).listCSW(ctx, job)
}

// handler is the extract handler of one CSW job, with this family's methods.
type handler struct{ *extract.Handler }

// lister is the listing of one CSW job (the extract.Run), with this family's methods.
type lister struct {
	*extract.Run
	h *handler
}
