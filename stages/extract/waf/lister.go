// Package waf is EXTRACT's WAF family (harvest.FamilyWAF): a web-accessible folder of ISO 19115
// or FGDC XML files (waf), or one whose files are parts of a parent record (waf-collection).
// The listing is crawled whole first (CrawlWAF, waf_listing.go: Apache, nginx, IIS and other
// index pages, their dates in the source's waf_time_zone), then each file is downloaded (or,
// unchanged since the last harvest by its listing date, sent without its body) and sent on
// (source.go).
package waf

import (
	"context"
	"time"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
)

// Lister lists the sources of harvest.FamilyWAF: a web-accessible folder of ISO 19115 or FGDC
// XML files (waf), or one whose files are parts of a parent record (waf-collection).
type Lister struct{}

// List lists job's WAF with h (extract.Lister).
func (Lister) List(ctx context.Context, h *extract.Handler, job *harvest.Job) error {
	return (&handler{h}).listWAFSource(ctx, job)
}

// handler is the extract handler of one WAF job, with this family's methods.
type handler struct{ *extract.Handler }

// lister is the listing of one WAF job: the extract.Run, with the start times of the jobs
// whose records it compares listing dates with.
type lister struct {
	*extract.Run
	h         *handler
	jobStarts map[string]time.Time // by job id: the start of the jobs of stored WAF records (jobStart)
}
