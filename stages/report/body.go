package report

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// A job's report names every record the job added, updated or deleted, twice (the report event
// and its FDK form): ~11 MB each for 100,000 changed records. The aggregator does not hold
// them: each body is written through a harvest.BodyWriter (router.Bus streams a body over the
// message size into the claim-check bucket as it is written) while the lists are read from the
// store a page of pageSize identifiers at a time, each page named with its fdkIds
// (store.ResourceIDs), so that a job's end holds a page, not the job's every changed record.

// pageSize is how many identifiers of a job's records a report reads and names at a time.
const pageSize = lookupChunk

// changedOutcomes and removedOutcomes are the outcomes a report names in changedResources and
// removedResources.
var (
	changedOutcomes = []harvest.Outcome{harvest.OutcomeAdded, harvest.OutcomeUpdated}
	removedOutcomes = []harvest.Outcome{harvest.OutcomeDeleted}
)

// listsMarker is where a report's JSON (the event's and FDK's alike) has its resource lists
// when they are empty: JSON escapes every quote inside a string, so the sequence is found only
// where the keys are.
var listsMarker = []byte(`"changedResources":[],"removedResources":[]`)

// errNotByteOrder says that the store listed a job's identifiers in an order other than their
// bytes' (a Postgres database of a collation other than C), which the FDK form's merged list
// cannot be streamed in.
var errNotByteOrder = errors.New("the store's identifiers are not in byte order")

// reportMessages returns the report event (SubjectReport) and its FDK form (SubjectReportFDK)
// of report r, whose changedCatalogs are filled and whose changedResources and
// removedResources the bodies read from the store, with invalid (sorted by URI, each once),
// the records the job found invalid, added to the FDK form's changedResources. The FDK form is
// built in memory (FDKReports) when the store does not list in byte order.
func (h *Handler) reportMessages(ctx context.Context, r *harvest.Report, invalid []harvest.Resource) ([]*harvest.Message, error) {
	r.V = harvest.Version
	r.ChangedResources, r.RemovedResources = []harvest.Resource{}, []harvest.Resource{}
	ids := []string{harvest.MetaJobID, r.JobID, harvest.MetaSourceID, r.SourceID}
	m, err := h.bodies.WriteMessage(ctx, harvest.SubjectReport, func(w io.Writer) error {
		return writeLists(w, r, h.pages(ctx, r.JobID, changedOutcomes, nil), h.pages(ctx, r.JobID, removedOutcomes, nil))
	}, ids...)
	if err != nil {
		return nil, err
	}
	fdk, err := h.bodies.WriteMessage(ctx, harvest.SubjectReportFDK, func(w io.Writer) error {
		return writeLists(w, FDKReports(r, nil), h.pages(ctx, r.JobID, changedOutcomes, invalid),
			h.pages(ctx, r.JobID, removedOutcomes, nil))
	}, ids...)
	if errors.Is(err, errNotByteOrder) {
		fdk, err = h.fdkInMemory(ctx, r, invalid)
	}
	if err != nil {
		return nil, err
	}
	return []*harvest.Message{m, fdk}, nil
}

// fdkInMemory is the FDK form of r built from its lists read whole.
func (h *Handler) fdkInMemory(ctx context.Context, r *harvest.Report, invalid []harvest.Resource) (*harvest.Message, error) {
	full := *r
	for _, l := range []struct {
		outcomes []harvest.Outcome
		to       *[]harvest.Resource
	}{{changedOutcomes, &full.ChangedResources}, {removedOutcomes, &full.RemovedResources}} {
		uris, err := h.store.OutcomeIdentifiers(ctx, &store.OutcomeIdentifiersParams{JobID: r.JobID, Outcomes: l.outcomes})
		if err != nil {
			return nil, fmt.Errorf("list the job's records: %w", err)
		}
		if *l.to, err = h.named(ctx, uris); err != nil {
			return nil, err
		}
	}
	return harvest.NewMessage(harvest.SubjectReportFDK, FDKReports(&full, invalid), harvest.MetaJobID, r.JobID,
		harvest.MetaSourceID, r.SourceID)
}

// pages returns a function that calls emit with each identifier of job jobID's records settled
// with one of outcomes, as a resource with its fdkId, read pageSize at a time. With merge (sorted
// by URI, each once) it also emits merge's resources in URI order among them, each URI once;
// then the store's identifiers must come in byte order (errNotByteOrder).
func (h *Handler) pages(ctx context.Context, jobID string, outcomes []harvest.Outcome, merge []harvest.Resource) func(emit func(harvest.Resource) error) error {
	return func(emit func(harvest.Resource) error) error {
		after := ""
		for {
			uris, err := h.store.OutcomeIdentifiers(ctx, &store.OutcomeIdentifiersParams{JobID: jobID, Outcomes: outcomes,
				After: after, Limit: pageSize})
			if err != nil {
				return fmt.Errorf("list the job's records: %w", err)
			}
			named, err := h.named(ctx, uris)
			if err != nil {
				return err
			}
			for _, res := range named {
				if merge != nil && after != "" && res.URI <= after {
					return errNotByteOrder
				}
				for len(merge) > 0 && merge[0].URI <= res.URI {
					if merge[0].URI < res.URI {
						if err := emit(merge[0]); err != nil {
							return err
						}
					}
					merge = merge[1:]
				}
				if err := emit(res); err != nil {
					return err
				}
				after = res.URI
			}
			if len(uris) < pageSize {
				break
			}
		}
		for _, res := range merge {
			if err := emit(res); err != nil {
				return err
			}
		}
		return nil
	}
}

// writeLists writes v's JSON as harvest.NewMessage encodes it (encoding/json, no HTML
// escaping), v's empty changedResources and removedResources (listsMarker) filled by changed
// and removed.
func writeLists(w io.Writer, v any, changed, removed func(emit func(harvest.Resource) error) error) error {
	skeleton, err := harvest.Marshal(v)
	if err != nil {
		return err
	}
	i := bytes.Index(skeleton, listsMarker)
	if i < 0 || bytes.LastIndex(skeleton, listsMarker) != i {
		return fmt.Errorf("report: %d places for the resource lists in %.200s", bytes.Count(skeleton, listsMarker), skeleton)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var item bytes.Buffer
	enc := json.NewEncoder(&item)
	enc.SetEscapeHTML(false)
	list := func(key string, each func(emit func(harvest.Resource) error) error) error {
		_, _ = bw.WriteString(key)
		first := true
		err := each(func(r harvest.Resource) error {
			if !first {
				_ = bw.WriteByte(',')
			}
			first = false
			item.Reset()
			if err := enc.Encode(r); err != nil {
				return err
			}
			_, err := bw.Write(bytes.TrimSuffix(item.Bytes(), []byte{'\n'}))
			return err
		})
		_ = bw.WriteByte(']')
		return err
	}
	_, _ = bw.Write(skeleton[:i])
	if err := list(`"changedResources":[`, changed); err != nil {
		return err
	}
	if err := list(`,"removedResources":[`, removed); err != nil {
		return err
	}
	_, _ = bw.Write(skeleton[i+len(listsMarker):])
	return bw.Flush()
}

// sortedByURI returns rs sorted by URI, each URI once.
func sortedByURI(rs []harvest.Resource) []harvest.Resource {
	rs = slices.Clone(rs)
	slices.SortFunc(rs, func(a, b harvest.Resource) int { return strings.Compare(a.URI, b.URI) })
	return slices.CompactFunc(rs, func(a, b harvest.Resource) bool { return a.URI == b.URI })
}
