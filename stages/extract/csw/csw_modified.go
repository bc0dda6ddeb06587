package csw

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/catalog"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
	"github.com/harvester-dev/harvester/store"
)

// cswModifiedSlack is how long before the start of the last complete harvest an incremental
// listing asks for records from: a day (a record's modified date may be a date alone, or a
// date of a time zone west of UTC) and extract.ClockSkew (the server's clock). The day is then
// taken whole: the constraint names a date.
const cswModifiedSlack = 24*time.Hour + extract.ClockSkew

// CSWMaxByID caps the records an incremental listing fetches one at a time (GetRecordById):
// records listed but neither modified since the last harvest nor stored (new records carrying
// an old date, records that failed before). More, and the job lists the catalog in full.
const CSWMaxByID = 100

// cswSince is the date from which an incremental listing asks for records (modified_filter),
// or zero for a full listing: only a harvest job (not force_harvest or validate) of a source
// whose modified_filter is not "off", whose records are ISO or Dublin Core (an FGDC record's
// identifier is its datasetid or onlink, which a brief listing need not give), whose constraint setting
// has no OR (the date is added to it with AND, and some servers' CQL, pycsw's, refuses the
// parentheses that would keep an OR apart), and which has a complete
// harvest or force_harvest job: the start of the newest one, less cswModifiedSlack, as a date.
func (h *handler) cswSince(ctx context.Context, job *harvest.Job) (time.Time, error) {
	if job.JobType != harvest.JobHarvest || extract.Setting(job, "modified_filter") == "off" || job.SchemaType == harvest.SchemaFGDC ||
		strings.Contains(strings.ToUpper(extract.Setting(job, "constraint")), " OR ") {
		return time.Time{}, nil
	}
	var last time.Time
	for _, jt := range []harvest.JobType{harvest.JobHarvest, harvest.JobForceHarvest} {
		list, _, err := h.Store().JobList(ctx, &store.JobListParams{SourceID: job.SourceID, Status: harvest.JobComplete,
			JobType: jt, PageParams: store.PageParams{Limit: 1}})
		if err != nil {
			return time.Time{}, fmt.Errorf("find the source's last complete harvest: %w", err)
		}
		if len(list) > 0 && list[0].CreatedAt.After(last) {
			last = list[0].CreatedAt
		}
	}
	if last.IsZero() {
		return time.Time{}, nil
	}
	return last.Add(-cswModifiedSlack).UTC().Truncate(24 * time.Hour), nil
}

// listCSWSince is an incremental listing (modified_filter): a brief listing of every
// identifier (ElementSetName brief); then GetRecords of the full records modified on or after
// since (dct:modified, an OGC Filter or CQL), each a record as in a full listing; then every
// other identifier of the brief listing that has a stored record (not a delete, of the same
// schema type) as a record COMPARE settles unchanged without a download
// (harvest.Record.NotDownloaded, as a WAF file whose date is older than the last harvest), and
// the few without one fetched by GetRecordById (at most CSWMaxByID: more, and the whole
// catalog is listed in full instead). Every identifier of the brief listing is seen, so only
// records the catalog no longer lists are deleted. The catalog is trusted to date its changes
// (a force_harvest job downloads everything).
func (h *handler) listCSWSince(ctx context.Context, job *harvest.Job, s *cswService, q *cswQuery, size int, since time.Time) error {
	ids, err := h.cswBrief(ctx, job, s, q, size)
	var le *extract.PortalListingError
	if errors.As(err, &le) {
		return h.Fail(ctx, job, harvest.TypeExtractError, fmt.Errorf("brief listing: %w", err))
	}
	if err != nil {
		return err
	}
	stored := make(map[string]bool, len(ids))
	missing := 0
	for i, id := range ids {
		if i > 0 && i%extract.HeartbeatEvery == 0 {
			if err := h.Store().JobHeartbeat(ctx, job.JobID); err != nil {
				return fmt.Errorf("job heartbeat: %w", err)
			}
		}
		latest, err := h.Store().RecordLatest(ctx, &store.RecordLatestParams{SourceID: job.SourceID, Identifier: id})
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			return fmt.Errorf("look up stored record: %w", err)
		case latest.Action != harvest.ActionDelete && (latest.SchemaType == "" || latest.SchemaType == job.SchemaType):
			stored[id] = true
		}
		if !stored[id] {
			missing++
		}
	}
	if missing > CSWMaxByID {
		return h.ListPager(ctx, job, h.cswPager(s, q, size))
	}
	l := &lister{Run: h.NewRun(ctx, job), h: h}
	modified := *q
	modified.since = since
	err = l.ListPages(h.cswPager(s, &modified, size))
	if errors.As(err, &le) {
		return l.Fail(harvest.TypeExtractError, err)
	}
	if err != nil {
		return err
	}
	for _, id := range ids {
		if _, listed := l.FirstAt(id); listed {
			continue
		}
		if stored[id] {
			err = l.cswNotDownloaded(id)
		} else {
			err = l.cswByID(s, id)
		}
		if err != nil {
			return err
		}
	}
	return l.Complete()
}

// cswBrief lists the catalog's identifiers (brief records), in order and each once, through
// the pager and its guard; a *extract.PortalListingError when the listing fails.
func (h *handler) cswBrief(ctx context.Context, job *harvest.Job, s *cswService, q *cswQuery, size int) ([]string, error) {
	brief := *q
	brief.elementSet = "brief"
	bl := &lister{Run: h.NewRun(ctx, job), h: h}
	var ids []string
	p := h.cswPager(s, &brief, size)
	p.Collect = func(it *extract.PortalItem) error {
		if _, dup := bl.FirstAt(it.Identifier); dup || it.Identifier == "" || it.Err != nil {
			bl.CountUnkeyed() // counted against the total; its full record, if modified, says what is wrong
			return nil
		}
		bl.MarkSeen(it.Identifier, len(ids))
		ids = append(ids, it.Identifier)
		if len(ids)%extract.HeartbeatEvery == 0 {
			if err := h.Store().JobHeartbeat(ctx, job.JobID); err != nil {
				return fmt.Errorf("job heartbeat: %w", err)
			}
		}
		return nil
	}
	return ids, bl.ListPages(p)
}

// cswNotDownloaded lists identifier id as a record COMPARE settles from its stored record.
func (l *lister) cswNotDownloaded(id string) error {
	pos, err := l.Next()
	if err != nil {
		return err
	}
	if err := l.See(&catalog.Entry{Position: pos, Identifier: id}); err != nil {
		return err
	}
	rec := &harvest.Record{JobID: l.Job().JobID, SourceID: l.Job().SourceID, JobType: l.Job().JobType,
		SchemaType: l.Job().SchemaType, RecordID: harvest.RecordID(l.Job().JobID, id), Identifier: id,
		Position: pos, NotDownloaded: true}
	m, err := harvest.RecordMessage(harvest.SubjectCompare, rec)
	if err != nil {
		return err
	}
	return l.h.Publisher().Publish(harvest.SubjectCompare, m)
}

// cswByID lists the full record id by GetRecordById: an error row (its identifier seen, so a
// dataset it has is kept) when the request fails or the answer holds no record.
func (l *lister) cswByID(s *cswService, id string) error {
	u, body, where, err := s.byIDRequest(id)
	var page *cswPage
	if err == nil {
		page, err = l.h.cswSend(l.Context(), s, u, body, where, cswAsked{byID: true})
	}
	if err == nil && len(page.records) == 0 {
		err = fmt.Errorf("%s: the answer holds no record", where)
	}
	if err != nil {
		if l.Context().Err() != nil {
			return l.Context().Err()
		}
		pos, nerr := l.Next()
		if nerr != nil {
			return nerr
		}
		e := catalog.Entry{Position: pos, Identifier: id}
		if err := l.See(&e); err != nil {
			return err
		}
		return l.SettleError(&e, harvest.TypeFetchError, fmt.Sprintf("record %s could not be fetched: %v", id, err))
	}
	items := cswItems(page.records[:1])
	return l.ListItem(&items[0])
}
