package sqlstore

import (
	"context"
	"regexp"
	"time"

	"github.com/google/uuid"

	"github.com/harvester-dev/harvester/store"
)

// liveColumns are DatasetColumns of dataset d, then its source s's name, url, type and schema
// type, the organization o's id, name and slug, and f's first_published_at (nullable).
const liveColumns = `d.id, d.slug, d.harvest_source_id, d.identifier, d.dcat, d.harvest_record_id, d.last_harvested_date,
	d.record_type, COALESCE(CAST(d.duplicate_of AS TEXT), ''), COALESCE(d.landing_page, ''), COALESCE(d.download_urls_sha, ''),
	s.name, s.url, s.source_type, COALESCE(s.schema_type, ''), COALESCE(CAST(o.id AS TEXT), ''), COALESCE(o.name, ''),
	COALESCE(o.slug, ''), f.first_published_at`

// liveFrom joins a dataset d to its source s, its organization o and the first publication f
// of its identifier.
const liveFrom = ` FROM dataset d
	JOIN harvest_source s ON s.id = d.harvest_source_id
	LEFT JOIN organization o ON o.id = s.organization_id
	LEFT JOIN source_key_first_published f ON f.harvest_source_id = d.harvest_source_id
		AND f.duplicate_match = 'identifier' AND f.duplicate_key = d.identifier`

// LiveDataset reads a row of liveColumns.
func (s *Scanner) LiveDataset(row Row) (*store.LiveDataset, error) {
	var d store.LiveDataset
	var dcat []byte
	var first *time.Time
	err := row.Scan(&d.ID, &d.Slug, &d.SourceID, &d.Identifier, &dcat, &d.RecordID, s.Time(&d.LastHarvestedDate), &d.RecordType,
		&d.DuplicateOf, &d.LandingPage, &d.DownloadURLsSHA,
		&d.SourceName, &d.SourceURL, &d.SourceType, &d.SchemaType, &d.OrganizationID, &d.OrganizationName,
		&d.OrganizationSlug, s.NullTime(&first))
	if err != nil {
		return nil, err
	}
	d.DCAT = dcat
	if first != nil {
		d.FirstHarvested = *first
	}
	return &d, nil
}

// uuidShape is a dataset, source or organization id as both backends make them.
var uuidShape = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// pageArgs are DatasetPageFilter's $1..$4: nil for a filter not set. ok is false when an id
// is not an id's shape, which no row has.
func (s *Store) pageArgs(p *store.DatasetPageParams) (args []any, ok bool) {
	id := func(v string) any {
		if v == "" {
			return nil
		}
		if !uuidShape.MatchString(v) {
			ok = false
		}
		return v
	}
	ok = true
	var since any
	if !p.ModifiedSince.IsZero() {
		since = s.d.Time(p.ModifiedSince)
	}
	args = []any{id(p.OrganizationID), id(p.SourceID), since, id(p.After)}
	return args, ok
}

// DatasetPage implements store.Store.
func (s *Store) DatasetPage(ctx context.Context, p *store.DatasetPageParams) ([]*store.LiveDataset, error) {
	args, ok := s.pageArgs(p)
	if !ok {
		return nil, nil
	}
	limit := p.Limit
	if limit <= 0 || limit > store.MaxDatasetPage {
		limit = store.MaxDatasetPage
	}
	return Collect(s.q.Query(ctx, `SELECT `+liveColumns+liveFrom+` WHERE d.duplicate_of IS NULL AND `+
		s.d.SQL.DatasetPageFilter+` ORDER BY d.id LIMIT $5`, append(args, limit)...), s.scan.LiveDataset)
}

// DatasetPageStats implements store.Store.
func (s *Store) DatasetPageStats(ctx context.Context, p *store.DatasetPageParams) (*store.DatasetPageStats, error) {
	c := *p
	c.After = ""
	args, ok := s.pageArgs(&c)
	var st store.DatasetPageStats
	if !ok {
		return &st, nil
	}
	var last *time.Time
	err := s.q.QueryRow(ctx, `SELECT count(*), max(d.last_harvested_date) FROM dataset d
		JOIN harvest_source s ON s.id = d.harvest_source_id
		WHERE d.duplicate_of IS NULL AND `+s.d.SQL.DatasetPageFilter, args...).Scan(&st.Count, s.scan.NullTime(&last))
	if err != nil {
		return nil, err
	}
	if last != nil {
		st.LastModified = *last
	}
	return &st, nil
}

// DatasetFind implements store.Store.
func (s *Store) DatasetFind(ctx context.Context, p *store.DatasetFindParams) (*store.LiveDataset, error) {
	switch {
	case p.ID != "" && p.Slug == "":
		if !uuidShape.MatchString(p.ID) {
			return nil, store.ErrNotFound
		}
		return s.scan.LiveDataset(s.q.QueryRow(ctx, `SELECT `+liveColumns+liveFrom+` WHERE d.id = $1`, p.ID))
	case p.Slug != "" && p.ID == "":
		return s.scan.LiveDataset(s.q.QueryRow(ctx, `SELECT `+liveColumns+liveFrom+` WHERE d.slug = $1`, p.Slug))
	}
	return nil, store.ErrNotFound
}

// OrganizationFindBySlug implements store.Store.
func (s *Store) OrganizationFindBySlug(ctx context.Context, slug string) (*store.Organization, error) {
	return s.scan.Organization(s.q.QueryRow(ctx, `SELECT `+OrganizationColumns+` FROM organization WHERE slug = $1`, slug))
}

// NewDatasetID is a new dataset's id: a UUID version 7 (RFC 9562 §5.7), which sorts by the
// time it was made, so that the keyset walk of the live catalog in id order (DatasetPage, the
// feeds) reads the table and its index in about the order they were written instead of seeking a
// random row for each dataset (a third of the feeds' store reads, docs/benchmarks.md).
func NewDatasetID() string {
	return uuid.Must(uuid.NewV7()).String()
}
