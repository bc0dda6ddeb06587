package h2import

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// Store is what an import writes (store.Store has it all): each source in one transaction.
type Store interface {
	ImportTx(ctx context.Context, fn func(store.Importer) error) error
}

var _ Store = store.Store(nil)

// Config is one import.
type Config struct {
	// From is the H2.0 Postgres database URL (postgres://user@host:5432/db). Required. Only
	// read: the import runs in a read-only transaction.
	From string
	// RewriteURLs maps an H2.0 harvest_source.url to the url the source gets in Harvester
	// (exact match); a url not in the map is kept.
	RewriteURLs map[string]string
}

// ErrConfig is a bad Config.
var ErrConfig = errors.New("h2import: bad config")

// Run imports the H2.0 database cfg.From into st and reports what it did. It first checks that
// cfg.From has H2.0's tables and columns (else an ErrNotH2 error naming what it lacks, and
// nothing is written). Each source is written in one transaction (store.Store.ImportTx) with
// its organization, jobs, records and datasets, so that a run that stops (an error, a kill)
// leaves each source either imported whole or absent, and running it again completes the
// import with the same rows as one uninterrupted run. A row that breaks a rule of the API
// (store.CheckSource, store.CheckOrganization) or of a harvest (checkRecord, checkDataset), or
// that conflicts with a row of st (a slug or url taken), is not imported, nor is what depends
// on it (a refused source's jobs, records and datasets; a refused dataset's record), and is a
// Report error; the import goes on. Run's error is for a database that cannot be read or
// written at all.
func Run(ctx context.Context, cfg Config, st Store) (*Report, error) {
	if cfg.From == "" {
		return nil, fmt.Errorf("%w: From (the H2.0 database URL) is required", ErrConfig)
	}
	conn, err := pgx.Connect(ctx, cfg.From)
	if err != nil {
		return nil, fmt.Errorf("connect to the H2.0 database: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly, IsoLevel: pgx.RepeatableRead})
	if err != nil {
		return nil, fmt.Errorf("begin a read-only transaction on the H2.0 database: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if err := checkSchema(ctx, tx); err != nil {
		return nil, err
	}
	im := &importer{tx: tx, st: st, cfg: cfg, report: &Report{}}
	orgs, err := im.organizations(ctx)
	if err != nil {
		return im.report, err
	}
	sources, err := im.sources(ctx, orgs)
	if err != nil {
		return im.report, err
	}
	for _, s := range sources {
		if err := im.source(ctx, s, orgs[s.p.OrganizationID]); err != nil {
			return im.report, err
		}
	}
	return im.report, im.organizationsLeft(ctx, orgs)
}

type importer struct {
	tx     pgx.Tx
	st     Store
	cfg    Config
	report *Report
}

// organization is an H2.0 organization that passed the checks, and whether it is written.
type organization struct {
	p      store.OrganizationImportParams
	done   bool // written
	failed bool // its write was refused (a conflict): its sources are not imported
}

// organizations reads H2.0's organizations, by canonical id; a refused one is reported.
func (im *importer) organizations(ctx context.Context) (map[string]*organization, error) {
	rows, err := im.tx.Query(ctx, `SELECT COALESCE(id, ''), COALESCE(name, ''), COALESCE(slug, '')
		FROM organization ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("read H2.0 organizations: %w", err)
	}
	orgs := map[string]*organization{} // organizations are few
	var o store.OrganizationImportParams
	_, err = pgx.ForEachRow(rows, []any{&o.ID, &o.Name, &o.Slug}, func() error {
		id := o.ID
		if why := checkOrganization(&o); why != "" {
			im.report.refuse("organization", id, "%s; its harvest sources are not imported", why)
			return nil
		}
		orgs[o.ID] = &organization{p: o}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read H2.0 organizations: %w", err)
	}
	return orgs, nil
}

// organizationsLeft writes, in one transaction, the organizations that no source wrote.
func (im *importer) organizationsLeft(ctx context.Context, orgs map[string]*organization) error {
	part := &Report{}
	err := im.st.ImportTx(ctx, func(w store.Importer) error {
		*part = Report{}
		for _, id := range slices.Sorted(maps.Keys(orgs)) {
			o := orgs[id]
			if o.done || o.failed {
				continue
			}
			r, err := w.OrganizationImport(ctx, &o.p)
			if err := rowError(part, err, "organization", o.p.ID, ""); err != nil {
				return err
			}
			if err == nil {
				part.Organizations.add(r)
			}
		}
		return nil
	})
	if err == nil {
		im.report.merge(part)
	}
	return err
}

// rowError sorts a store error: nil for none; a row's own problem (a conflict, a missing
// reference) is reported in rep (with then, what is not imported because of it) and nil is
// returned, so the import goes on; any other error is returned, wrapped with the row's name.
func rowError(rep *Report, err error, table, id, then string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound) {
		rep.refuse(table, id, "%v%s", err, then)
		return nil
	}
	return fmt.Errorf("import %s %s: %w", table, id, err)
}

// source is one H2.0 harvest source that passed the checks, as imported.
type source struct {
	p *store.SourceImportParams
}

// sources reads H2.0's harvest sources and checks them; a refused one, or one whose
// organization was refused, is reported.
func (im *importer) sources(ctx context.Context, orgs map[string]*organization) ([]source, error) {
	rows, err := im.tx.Query(ctx, `SELECT COALESCE(id, ''), COALESCE(organization_id, ''), COALESCE(name, ''),
		COALESCE(url, ''), COALESCE(notification_emails, '{}'), COALESCE(frequency::text, ''),
		COALESCE(schema_type::text, ''), COALESCE(source_type::text, ''), COALESCE(notification_frequency::text, ''),
		COALESCE(collection_parent_url, '') FROM harvest_source ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("read H2.0 harvest sources: %w", err)
	}
	var out []source // sources are few (hundreds)
	var p store.SourceImportParams
	var freq, schema, typ, notify string
	_, err = pgx.ForEachRow(rows, []any{&p.ID, &p.OrganizationID, &p.Name, &p.URL, &p.NotificationEmails, &freq,
		&schema, &typ, &notify, &p.CollectionParentURL}, func() error {
		s := p // a copy: ForEachRow scans into p again
		s.Frequency, s.SourceType = harvest.Frequency(freq), harvest.SourceType(typ)
		s.NotificationFrequency = harvest.NotificationFrequency(notify)
		if len(s.NotificationEmails) == 0 {
			s.NotificationEmails = nil
		}
		if to, ok := im.cfg.RewriteURLs[s.URL]; ok {
			s.URL = to
		}
		const then = "; its jobs, records and datasets are not imported"
		if why := checkSource(&s, schema); why != "" {
			im.report.refuse("harvest_source", p.ID, "%s%s", why, then)
		} else if orgs[s.OrganizationID] == nil {
			im.report.refuse("harvest_source", p.ID, "organization_id: organization %s is not imported%s",
				s.OrganizationID, then)
		} else {
			out = append(out, source{p: &s})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read H2.0 harvest sources: %w", err)
	}
	return out, nil
}

// source writes one source, with its organization (the first time), jobs, current records and
// datasets, in one transaction; what it counted is added to the report once it is committed.
func (im *importer) source(ctx context.Context, s source, org *organization) error {
	part := &Report{}
	err := im.st.ImportTx(ctx, func(w store.Importer) error {
		*part = Report{}
		si := &sourceImport{importer: im, w: w, rep: part, src: s}
		return si.run(ctx, org)
	})
	if err != nil {
		return err
	}
	im.report.merge(part)
	org.done = !org.failed
	return nil
}

// sourceImport is one source's transaction: w writes in it, rep counts it.
type sourceImport struct {
	*importer
	w   store.Importer
	rep *Report
	src source
}

func (si *sourceImport) run(ctx context.Context, org *organization) error {
	const then = "; its jobs, records and datasets are not imported"
	if org.failed {
		si.rep.refuse("harvest_source", si.src.p.ID, "its organization %s is not imported%s", org.p.ID, then)
		return nil
	}
	if !org.done {
		r, err := si.w.OrganizationImport(ctx, &org.p)
		if err != nil {
			org.failed = true
			si.rep.refuse("harvest_source", si.src.p.ID, "its organization %s is not imported%s", org.p.ID, then)
			return rowError(si.rep, err, "organization", org.p.ID, "")
		}
		si.rep.Organizations.add(r)
	}
	r, err := si.w.SourceImport(ctx, si.src.p)
	if errors.Is(err, store.ErrConflict) { // the url is the only unique column but the id
		si.rep.refuse("harvest_source", si.src.p.ID, "url %q is another harvest source's, made since by a harvest "+
			"or the API: delete that source, or rewrite this one's url, and import again%s", si.src.p.URL, then)
		return nil
	}
	if err != nil {
		return rowError(si.rep, err, "harvest_source", si.src.p.ID, then)
	}
	si.rep.Sources.add(r)
	jobs, err := si.jobs(ctx)
	if err != nil {
		return err
	}
	return si.records(ctx, jobs)
}
