package extract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/harvester-dev/harvester/catalog"
	"github.com/harvester-dev/harvester/dcatap"
	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/rdf"
	"github.com/harvester-dev/harvester/shacl/profiles"
	"github.com/harvester-dev/harvester/store"
)

// RDF sources (source type rdf, schema type dcat-ap), as the FDK dataset harvester reads them
// (reference/peer-harvesters.md §1), with what FDK got wrong done otherwise:
//
//   - Each document's syntax follows the response's Content-Type, then the source's configured
//     Accept, then the URL's file extension (rdf.FormatFor); FDK ignores the response type.
//   - A paged source (Hydra: hydra:next or hydra:nextPage of a hydra:PagedCollection or
//     hydra:PartialCollectionView, an IRI or a string literal) is followed page by page into one
//     graph. A page that links back to one already read, or more than Config.MaxRDFPages pages,
//     fails the job (ckanext-dcat #260: two pages pointing at each other exhausted RAM). Every
//     page arrives before anything is listed, so nothing is deleted after a partial listing.
//     Hydra's own triples are paging metadata, not catalog content: they are left out of the
//     graph, so a catalog served under other page URLs is the same catalog.
//   - The graph stays in memory up to Config.RDFMemTriples triples and spills to a temporary
//     file past that (rdf.NewGraph), so a large source does not sit whole in memory.
//   - A syntax error fails the job with the parser's line and column, and nothing is deleted.
//   - The graph is split into records as FDK does (dcatap.Split); a blank-node dataset, which
//     FDK drops silently, is an error row naming it. Each record's Body is the canonical
//     N-Quads of its skolemized graph (dcatap.Canonical), so its source_hash does not change
//     when the publisher re-serializes, re-orders or re-labels blank nodes.
//   - Whole-source skip, FDK's first layer: when the graph's fingerprint (dcatap.GraphHash)
//     equals that of the source's last complete harvest of the same URL, a harvest job lists
//     nothing and completes as not modified (the 304 path: every live dataset unchanged).
//     force_harvest and validate jobs always list.
//   - Catalogs are change-detected too: their checksums are stored per source, and the
//     report names the catalogs that changed (changedCatalogs).

// DefaultRDFMemTriples is Config.RDFMemTriples's default: the triples an RDF source's graph
// keeps in memory before it spills to disk (a million triples then peak at about 100 MiB, rdf.NewGraph).
const DefaultRDFMemTriples = 50_000

// DefaultMaxRDFPages is Config.MaxRDFPages's default.
const DefaultMaxRDFPages = 10_000

// hydraNS is the Hydra Core vocabulary's namespace.
const hydraNS = "http://www.w3.org/ns/hydra/core#"

// listRDF lists an rdf source: it reads every page into one graph, then sends one record per
// dataset. A source that cannot be fetched or parsed fails the job, and no Listing is sent.
func (h *Handler) listRDF(ctx context.Context, job *harvest.Job) error {
	langs, err := harvest.ParseLanguages(job.Options["languages"])
	if err != nil {
		return h.fail(ctx, job, "ExtractError", fmt.Errorf("the source's languages option: %w", err))
	}
	if p := job.Options["shacl_profile"]; p != "" && p != "none" {
		if _, err := profiles.Load(p); err != nil {
			return h.fail(ctx, job, "ExtractError", fmt.Errorf("the source's shacl_profile option: %w", err))
		}
	}
	fc := h.fetch // the source's Accept and auth header (sourceFetch)
	if job.Accept == "" {
		fc.Accept = defaultRDFAccept
	}
	g, err := rdf.NewGraph(h.cfg.TempDir, h.cfg.RDFMemTriples)
	if err != nil {
		return fmt.Errorf("rdf graph: %w", err)
	}
	defer g.Close()
	warns := &rdfWarnings{}
	if err := h.readRDFPages(ctx, fc, job, g, warns); err != nil {
		var se *stageError
		if errors.As(err, &se) {
			return se.err
		}
		return h.fail(ctx, job, "ExtractError", err)
	}

	if since, skip, err := h.rdfNotModified(ctx, job, g); err != nil {
		var se *stageError
		if errors.As(err, &se) {
			return se.err
		}
		return err
	} else if skip {
		return h.notModified(job, since)
	}

	l := &lister{h: h, ctx: ctx, job: job, seen: map[string]int{}, languages: langs}
	var catalogs []store.CatalogChecksum
	publishers := map[string]string{}                      // catalog IRI -> its publisher's name
	err = dcatap.Split(g, func(r *dcatap.Resource) error { // catalogs come first
		switch {
		case r.Problem != "" && r.Kind == dcatap.KindCatalog:
			return nil // a blank-node catalog is no record; its datasets are split on their own
		case r.Problem != "":
			pos, err := l.next()
			if err != nil {
				return err
			}
			return l.settleError(&catalog.Entry{Position: pos}, "BlankNodeDataset", r.Problem)
		case r.Kind == dcatap.KindCatalog:
			_, sum, err := dcatap.Canonical(r.Triples)
			if err != nil {
				return err
			}
			catalogs = append(catalogs, store.CatalogChecksum{URI: r.IRI, FdkID: dcatap.FdkID(r.IRI), Checksum: sum})
			publishers[r.IRI] = dcatap.PublisherName(r, publisherLangs(langs))
			return nil
		}
		publisher := ""
		for _, c := range r.Catalogs {
			if publisher = publishers[c]; publisher != "" {
				break
			}
		}
		return l.rdfRecord(r, publisher, warns)
	})
	if err != nil {
		return err
	}
	if job.JobType.WritesCatalog() && job.JobType != harvest.JobClear {
		if err := h.store.CatalogChecksumsSet(ctx, &store.CatalogChecksumsSetParams{SourceID: job.SourceID,
			JobID: job.JobID, Catalogs: catalogs, Force: job.JobType == harvest.JobForceHarvest}); err != nil {
			return fmt.Errorf("store catalog checksums: %w", err)
		}
	}
	return l.complete()
}

// defaultRDFAccept is the Accept header of an rdf source that configures none: every syntax
// Harvester parses, Turtle first (FDK requires one to be configured).
const defaultRDFAccept = "text/turtle, application/rdf+xml;q=0.9, application/ld+json;q=0.8, " +
	"application/n-triples;q=0.7, application/n-quads;q=0.6, application/trig;q=0.5"

// publisherLangs is the language preference for a catalog's publisher name: the source's, else
// English (TRANSFORM's default, transform.New).
func publisherLangs(langs []string) []string {
	if len(langs) == 0 {
		return []string{"en"}
	}
	return langs
}

// rdfRecord sends one dataset record on to COMPARE; publisher is the name of the publisher of
// its catalog, for TRANSFORM to use when the dataset names none ("" when unknown). The first
// record sent carries warns' warnings.
func (l *lister) rdfRecord(r *dcatap.Resource, publisher string, warns *rdfWarnings) error {
	pos, err := l.next()
	if err != nil {
		return err
	}
	e := &catalog.Entry{Position: pos, Identifier: r.IRI}
	if bad := harvest.CheckIdentifier(pos, r.IRI, "", nil, l.seen); bad != nil {
		if bad.Type == "IdentifierTooLong" { // a dataset harvested under that IRI before the cap is kept
			if err := l.see(e); err != nil {
				return err
			}
		}
		e.Identifier = bad.Identifier
		return l.settleError(e, bad.Type, bad.Message)
	}
	nquads, _, err := dcatap.Canonical(r.Triples)
	if err != nil {
		return l.settleError(e, "RecordError", fmt.Sprintf("dataset %s: %v", r.IRI, err))
	}
	if len(nquads) > l.h.cfg.MaxRecordBytes {
		if err := l.see(e); err != nil {
			return err
		}
		return l.settleError(e, "RecordTooLarge", fmt.Sprintf(
			"dataset %s is %d bytes as N-Quads, over the record size cap of %d bytes (--max-record-bytes)",
			r.IRI, len(nquads), l.h.cfg.MaxRecordBytes))
	}
	if err := l.see(e); err != nil {
		return err
	}
	rec := &harvest.Record{JobID: l.job.JobID, SourceID: l.job.SourceID, JobType: l.job.JobType,
		SchemaType: l.job.SchemaType, RecordID: harvest.RecordID(l.job.JobID, r.IRI), Identifier: r.IRI,
		Position: pos, Body: harvest.RawText(nquads), Profile: l.job.Options["shacl_profile"],
		Languages: l.languages, PublisherName: publisher, Warnings: warns.take()}
	m, err := harvest.RecordMessage(harvest.SubjectCompare, rec)
	if err != nil {
		return err
	}
	return l.h.pub.Publish(harvest.SubjectCompare, m)
}

// rdfNotModified reports whether a harvest job may skip listing because its graph is the one
// the source's last reusable job read from the same URL (graphNotModifiedSince: their
// fingerprints are equal), and that job's id. It saves the graph's fingerprint on the job in
// any case. Store errors come wrapped in a *stageError.
func (h *Handler) rdfNotModified(ctx context.Context, job *harvest.Job, g rdf.Graph) (string, bool, error) {
	sum, err := dcatap.GraphHash(g)
	if err != nil {
		return "", false, fmt.Errorf("graph fingerprint: %w", err)
	}
	since, err := h.graphNotModifiedSince(ctx, job, sum)
	if err != nil {
		return "", false, err
	}
	if err := h.saveGraphHash(ctx, job, sum, since != ""); err != nil {
		return "", false, err
	}
	return since, since != "", nil
}

// readRDFPages reads the source's first document and every page it links to into g, and what
// was read leniently into warns. Errors of the store come as *stageError; every other error is
// the job's.
func (h *Handler) readRDFPages(ctx context.Context, fc fetch.Config, job *harvest.Job, g rdf.Graph, warns *rdfWarnings) error {
	visited := map[string]bool{}
	page := job.URL
	for n := 1; ; n++ {
		if n > h.cfg.MaxRDFPages {
			return fmt.Errorf("read %s: more than %d pages (the page cap, --max-rdf-pages); nothing is deleted", job.URL, h.cfg.MaxRDFPages)
		}
		visited[page] = true
		next, err := h.readRDFPage(ctx, fc, job, page, g, warns)
		if err != nil {
			return err
		}
		if next == "" {
			return nil
		}
		if visited[next] {
			return fmt.Errorf("read %s: page %d (%s) links back to %s, a page already read (a paging loop); nothing is deleted",
				job.URL, n, page, next)
		}
		page = next
	}
}

// readRDFPage reads one document into g and returns the absolute URL of the next page, "" when
// it is the last. No term of it may pass the record size cap (rdf.Options.MaxTermBytes).
func (h *Handler) readRDFPage(ctx context.Context, fc fetch.Config, job *harvest.Job, page string, g rdf.Graph,
	warns *rdfWarnings) (string, error) {
	f, contentType, cleanup, err := h.openRDF(ctx, fc, page)
	if err != nil {
		return "", err
	}
	defer cleanup()
	format, err := rdf.FormatFor(contentType, job.Accept, page)
	if err != nil {
		if title, ok := fetch.HTMLPage(f); ok {
			return "", fmt.Errorf("read %s: the server sent an HTML page (title %q) where RDF was expected", page, title)
		}
		return "", fmt.Errorf("read %s: %w", page, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	var paging []rdf.Triple
	var storeErr error
	opts := rdf.Options{MaxTermBytes: h.cfg.MaxRecordBytes, Warn: warns.on(page)}
	err = rdf.ParseWith(f, format, page, opts, func(t rdf.Triple) error {
		if strings.HasPrefix(t.P.Value, hydraNS) || (t.P.Value == rdf.RDFType && strings.HasPrefix(t.O.Value, hydraNS)) {
			paging = append(paging, t)
			return nil
		}
		if err := g.Add(t); err != nil {
			storeErr = err
			return err
		}
		return nil
	})
	if storeErr != nil {
		return "", &stageError{fmt.Errorf("store the graph: %w", storeErr)}
	}
	if err != nil {
		var se *rdf.SyntaxError
		if errors.As(err, &se) {
			if title, ok := fetch.HTMLPage(f); ok {
				return "", fmt.Errorf("read %s: the server sent an HTML page (title %q) where RDF (%s) was expected", page, title, format)
			}
		}
		return "", fmt.Errorf("parse %s as %s: %w", page, format, err)
	}
	return nextPage(paging, page)
}

// nextPage returns the next page named by a page's Hydra triples, resolved against the page's
// URL: the hydra:next or hydra:nextPage of the page's view (a node typed
// hydra:PartialCollectionView or hydra:PagedCollection, found by its type, as udata's
// hydra:view link may not name it), or of any node when none is typed. Several different next
// pages are an error.
func nextPage(paging []rdf.Triple, page string) (string, error) {
	typed := map[rdf.Term]bool{}
	for _, t := range paging {
		if t.P.Value == rdf.RDFType && (t.O.Value == hydraNS+"PartialCollectionView" || t.O.Value == hydraNS+"PagedCollection") {
			typed[t.S] = true
		}
	}
	var fromTyped, fromAny []string
	for _, t := range paging {
		if t.P.Value != hydraNS+"next" && t.P.Value != hydraNS+"nextPage" {
			continue
		}
		if t.O.IsBlank() || strings.TrimSpace(t.O.Value) == "" {
			continue
		}
		next, err := resolve(page, strings.TrimSpace(t.O.Value))
		if err != nil {
			return "", fmt.Errorf("read %s: its next page %q: %w", page, t.O.Value, err)
		}
		if typed[t.S] {
			fromTyped = append(fromTyped, next)
		}
		fromAny = append(fromAny, next)
	}
	candidates := fromTyped
	if len(candidates) == 0 {
		candidates = fromAny
	}
	slices.Sort(candidates)
	candidates = slices.Compact(candidates)
	switch len(candidates) {
	case 0:
		return "", nil
	case 1:
		return candidates[0], nil
	}
	return "", fmt.Errorf("read %s: it names %d different next pages (%s); which one to follow is unclear",
		page, len(candidates), strings.Join(candidates, ", "))
}

// resolve resolves ref against base (RFC 3986 §5), for a file path base too.
func resolve(base, ref string) (string, error) {
	r, err := url.Parse(ref)
	if err != nil {
		return "", err
	}
	if r.IsAbs() {
		return r.String(), nil
	}
	b, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	return b.ResolveReference(r).String(), nil
}

// openRDF returns one RDF document, its response Content-Type ("" for a file) and its
// cleanup.
func (h *Handler) openRDF(ctx context.Context, fc fetch.Config, page string) (*os.File, string, func(), error) {
	if !isHTTP(page) {
		f, cleanup, err := h.openWith(ctx, fc, page)
		return f, "", cleanup, err
	}
	doc, err := fetch.GetDocument(ctx, fc, page, fetch.Validators{})
	if err != nil {
		return nil, "", nil, err
	}
	return doc.File, doc.ContentType, doc.Close, nil
}
