package portal

import (
	"context"
	"fmt"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
)

// Lister lists the sources of harvest.FamilyPortal: a portal API's search pages (CKAN and
// DKAN 7, DKAN 2's metastore, Socrata's Discovery API, ArcGIS, OpenDataSoft), through the
// extract core's pager (extract.Handler.ListPager).
type Lister struct{}

// List lists job's portal with h (extract.Lister).
func (Lister) List(ctx context.Context, h *extract.Handler, job *harvest.Job) error {
	return (&handler{h}).listPortalSource(ctx, job)
}

// handler is the extract handler of one portal job, with this family's methods.
type handler struct{ *extract.Handler }

// listPortalSource lists a portal source (harvest.SourceType.IsPortal) by its platform's pager.
// Its requests use the handler's fetch configuration, which Handle has already given the
// source's accept and secret auth header, so an API token or Socrata app token configured as
// the auth header goes with every page.
func (h *handler) listPortalSource(ctx context.Context, job *harvest.Job) error {
	fc := h.Fetch()
	var p *extract.Pager
	var err error
	switch job.SourceType {
	case harvest.SourceCKAN:
		p, err = h.ckanPager(fc, job)
	case harvest.SourceDKAN:
		p = h.dkanPager(fc, job)
	case harvest.SourceSocrata:
		p, err = h.socrataPager(fc, job)
	case harvest.SourceArcGIS:
		p, err = h.arcgisPager(fc, job)
	case harvest.SourceOpenDataSoft:
		p, err = h.odsPager(fc, job)
	default:
		err = fmt.Errorf("source type %q is not supported yet", job.SourceType)
	}
	if err != nil {
		return h.Fail(ctx, job, harvest.TypeExtractError, err)
	}
	return h.ListPager(ctx, job, p)
}
