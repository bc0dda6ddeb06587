package search

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/harvester-dev/harvester/store"
)

// Organizations resolves a harvest source's organization name, caching each answer for a
// minute (a renamed organization reaches new documents within that time; Reindex refreshes
// the old ones). Safe for concurrent use.
type Organizations struct {
	st    OrganizationStore
	mu    sync.Mutex
	names map[string]orgEntry
}

type orgEntry struct {
	name string
	at   time.Time
}

// OrganizationStore is the part of store.Store that Organizations reads.
type OrganizationStore interface {
	SourceGet(ctx context.Context, sourceID string) (*store.Source, error)
	OrganizationGet(ctx context.Context, id string) (*store.Organization, error)
}

// NewOrganizations returns an Organizations over st.
func NewOrganizations(st OrganizationStore) *Organizations {
	return &Organizations{st: st, names: map[string]orgEntry{}}
}

// Name returns the name of the organization owning the source, or "" when it has none. A
// missing source or organization is "" too (the dataset is indexed without one); other store
// errors are returned.
func (o *Organizations) Name(ctx context.Context, sourceID string) (string, error) {
	o.mu.Lock()
	e, ok := o.names[sourceID]
	o.mu.Unlock()
	if ok && time.Since(e.at) < time.Minute {
		return e.name, nil
	}
	name := ""
	src, err := o.st.SourceGet(ctx, sourceID)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return "", err
	case src.OrganizationID != "":
		org, err := o.st.OrganizationGet(ctx, src.OrganizationID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return "", err
		}
		if err == nil {
			name = org.Name
		}
	}
	o.mu.Lock()
	o.names[sourceID] = orgEntry{name: name, at: time.Now()}
	o.mu.Unlock()
	return name, nil
}

// Reindex rebuilds the index from the dataset table. With sourceID "" it builds a whole new
// index and swaps it in (Index.Rebuild); with a source id it deletes that source's documents
// and writes them again from its datasets, in bulk requests of BulkSize. It returns how many
// documents it wrote.
func Reindex(ctx context.Context, st store.Store, idx Index, sourceID string) (int, error) {
	orgs := NewOrganizations(st)
	n := 0
	stream := func(put func(Document) error) error {
		return st.DatasetStream(ctx, &store.DatasetListParams{SourceID: sourceID}, func(d *store.Dataset) error {
			org, err := orgs.Name(ctx, d.SourceID)
			if err != nil {
				return err
			}
			n++
			return put(FromDataset(d, org))
		})
	}
	if sourceID == "" {
		return n, idx.Rebuild(ctx, stream)
	}
	if err := idx.DeleteSource(ctx, sourceID); err != nil {
		return 0, err
	}
	bulk := NewBulk(idx.Apply)
	err := stream(func(d Document) error { return bulk.Put(ctx, d) })
	if err == nil {
		err = bulk.Flush(ctx)
	}
	return n, err
}

// MigrateReport is what Migrate did.
type MigrateReport struct {
	Reason     MigrateReason    // why the index was rebuilt
	Documents  int              // documents the rebuild wrote
	Reconciled *ReconcileReport // what Reconcile repaired after the swap
}

// MigrateReason is why Migrate rebuilds an index.
type MigrateReason string

const (
	// MigrateOutdated: the index was made by another mapping (Index.Outdated).
	MigrateOutdated MigrateReason = "outdated"
	// MigrateEmpty: the index holds no document while the store has live datasets (an
	// OpenSearch node whose data was lost, a new index name, a move from bleve to OpenSearch,
	// a deleted bleve directory). SYNC writes only the datasets whose records change, so the
	// others would stay unfindable until `harvester reindex`.
	MigrateEmpty MigrateReason = "empty"
)

// MigrateNeeded returns why Migrate would rebuild idx, or "" when it would not. For a current
// index it costs one search (one hit) and, when the index is empty, one store query
// (store.Store.DatasetAny); an index with documents is never called empty, however few it has
// (Reconcile finds the ones missing).
func MigrateNeeded(ctx context.Context, st store.Store, idx Index) (MigrateReason, error) {
	if idx.Outdated() {
		return MigrateOutdated, nil
	}
	res, err := idx.Search(ctx, Query{PerPage: 1, FacetSize: 1})
	if err != nil {
		return "", fmt.Errorf("search index: count its documents: %w", err)
	}
	if res.Total > 0 {
		return "", nil
	}
	live, err := st.DatasetAny(ctx)
	if err != nil {
		return "", fmt.Errorf("search index: look for a live dataset: %w", err)
	}
	if live {
		return MigrateEmpty, nil
	}
	return "", nil
}

// Migrate rebuilds the index from the dataset table when MigrateNeeded says so (it was made by
// another mapping, or it is empty over a store with datasets): a full Reindex into a new index
// of this version's mapping, swapped in, then Reconcile with fix, which writes the datasets
// that changed during the rebuild (SYNC wrote them to the old index). It returns nil (and no
// error) when no rebuild is needed. Migrations running at once, in several processes, are
// safe: the last rebuild to swap is the index, and its Reconcile repairs what the others'
// swaps took away. It reads every dataset once or twice: about as long as `harvester reindex`.
func Migrate(ctx context.Context, st store.Store, idx Index) (*MigrateReport, error) {
	reason, err := MigrateNeeded(ctx, st, idx)
	if err != nil || reason == "" {
		return nil, err
	}
	n, err := Reindex(ctx, st, idx, "")
	if err != nil {
		return nil, fmt.Errorf("migrate the search index: %w", err)
	}
	r, err := Reconcile(ctx, st, idx, "", true)
	if err != nil {
		return nil, fmt.Errorf("migrate the search index: %w", err)
	}
	return &MigrateReport{Reason: reason, Documents: n, Reconciled: r}, nil
}

// DeleteByScan deletes the documents Scan gives of a source, in bulk requests: how an
// index without a delete-by-query (bleve; OpenSearch without its reindex module) implements
// DeleteSource.
func DeleteByScan(ctx context.Context, idx Index, sourceID string) error {
	var ids []string // collected first: deleting while paging would move the pages
	if err := idx.Scan(ctx, sourceID, func(e Entry) error {
		ids = append(ids, e.ID)
		return nil
	}); err != nil {
		return err
	}
	bulk := NewBulk(idx.Apply)
	for _, id := range ids {
		if err := bulk.Add(ctx, Op{ID: id}); err != nil {
			return fmt.Errorf("delete the documents of source %s: %w", sourceID, err)
		}
	}
	if err := bulk.Flush(ctx); err != nil {
		return fmt.Errorf("delete the documents of source %s: %w", sourceID, err)
	}
	return nil
}

// ReconcileReport is what Reconcile found (and, with fix, repaired).
type ReconcileReport struct {
	Datasets  int      `json:"datasets"`  // live datasets looked at
	Documents int      `json:"documents"` // index documents looked at
	Missing   []string `json:"missing"`   // dataset ids with no document
	Stale     []string `json:"stale"`     // dataset ids whose document is of another harvest record
	Orphaned  []string `json:"orphaned"`  // document ids with no dataset
	Fixed     bool     `json:"fixed"`
}

// Clean reports whether index and table agree.
func (r *ReconcileReport) Clean() bool {
	return len(r.Missing) == 0 && len(r.Stale) == 0 && len(r.Orphaned) == 0
}

// Reconcile compares the index with the dataset table (of one source when sourceID is not
// empty): datasets with no document, documents of an older harvest record, and documents with
// no dataset. With fix it writes the missing and stale documents and deletes the orphans. It
// holds the index's ids and record ids in memory (about 100 bytes a document).
func Reconcile(ctx context.Context, st store.Store, idx Index, sourceID string, fix bool) (*ReconcileReport, error) {
	docs := map[string]string{} // document id -> record id
	if err := idx.Scan(ctx, sourceID, func(e Entry) error {
		docs[e.ID] = e.RecordID
		return nil
	}); err != nil {
		return nil, err
	}
	r := &ReconcileReport{Documents: len(docs), Missing: []string{}, Stale: []string{}, Orphaned: []string{}}
	orgs := NewOrganizations(st)
	bulk := NewBulk(idx.Apply) // only written to with fix
	err := st.DatasetStream(ctx, &store.DatasetListParams{SourceID: sourceID}, func(d *store.Dataset) error {
		r.Datasets++
		rec, ok := docs[d.ID]
		delete(docs, d.ID)
		switch {
		case !ok:
			r.Missing = append(r.Missing, d.ID)
		case rec != d.RecordID:
			r.Stale = append(r.Stale, d.ID)
		default:
			return nil
		}
		if fix {
			org, err := orgs.Name(ctx, d.SourceID)
			if err != nil {
				return err
			}
			return bulk.Put(ctx, FromDataset(d, org))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reconcile: %w", err)
	}
	for id := range docs {
		r.Orphaned = append(r.Orphaned, id)
		if fix {
			if err := bulk.Add(ctx, Op{ID: id}); err != nil {
				return nil, fmt.Errorf("reconcile: %w", err)
			}
		}
	}
	if err := bulk.Flush(ctx); err != nil {
		return nil, fmt.Errorf("reconcile: %w", err)
	}
	slices.Sort(r.Orphaned)
	if fix {
		r.Fixed = true
		if err := idx.Refresh(ctx); err != nil {
			return nil, err
		}
	}
	return r, nil
}
