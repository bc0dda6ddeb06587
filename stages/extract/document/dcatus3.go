package document

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/harvester-dev/harvester/catalog"
	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
)

// list3 lists a DCAT-US 3.0 catalog document (schema type dcatus3.0), already downloaded to f:
// catalog.Check3 reads it once to find what is wrong with it (a syntax error, or a DCAT-US 1.1
// catalog, fails the job before any record moves) and which datasets DataServices and
// DatasetSeries embed; catalog.WalkEntries3 then streams its datasets, data services, catalog
// records and dataset series (nested catalogs included, embedded datasets lifted out with their
// parent as IsPartOf), each a record with its RecordType, through the same rules as a DCAT-US
// 1.1 dataset (lister.entry).
func (h *handler) list3(ctx context.Context, job *harvest.Job, f *os.File) error {
	links, err := catalog.Check3(f)
	if err != nil {
		if title, ok := fetch.HTMLPage(f); ok {
			return h.Fail(ctx, job, harvest.TypeParseError, fmt.Errorf("read catalog %s: the server sent an HTML page "+
				"(title %q) where a DCAT-US 3.0 catalog (JSON) was expected", job.URL, title))
		}
		if why := wrongKind(sniffDocument(readHead(f)), job.SchemaType); why != nil {
			return h.Fail(ctx, job, harvest.TypeParseError, fmt.Errorf("read catalog %s: %w", job.URL, why))
		}
		return h.Fail(ctx, job, harvest.TypeParseError, fmt.Errorf("read catalog %s: %w", job.URL, err))
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	l := &lister{Run: h.NewClaimedRun(ctx, job), h: h}
	if err := catalog.WalkEntries3(f, h.Config().MaxRecordBytes, links, l.entry); err != nil {
		var perr *catalog.ParseError
		if errors.As(err, &perr) { // the file changed under us; nothing can be trusted
			return h.Fail(ctx, job, harvest.TypeParseError, fmt.Errorf("read catalog %s: %w", job.URL, err))
		}
		return err
	}
	return l.Complete()
}
