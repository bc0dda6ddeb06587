package rdf

import (
	"context"
	"errors"
	"fmt"

	"github.com/harvester-dev/harvester/catalog"
	"github.com/harvester-dev/harvester/dcatap"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/rdf"
	"github.com/harvester-dev/harvester/shacl/profiles"
	"github.com/harvester-dev/harvester/stages/extract"
	"github.com/harvester-dev/harvester/store"
)

// RDF sources (source type rdf, schema type dcat-ap), as the FDK dataset harvester reads them
// (reference/peer-harvesters.md §1), with what FDK got wrong done otherwise:
//
//   - Each document's syntax follows the response's Content-Type, then the source's configured
//     Accept, then the URL's file extension (rdf.FormatFor); FDK ignores the response type.
//   - A paged source (Hydra: hydra:next or hydra:nextPage of a hydra:PagedCollection or
//     hydra:PartialCollectionView, an IRI or a string literal) is followed page by page into one
//     graph (rdfPager). A page that links back to one already read or repeats one's content,
//     more than extract.Config.MaxRDFPages pages, pages over extract.Config.MaxRDFBytes together, or a count of
//     items other than the hydra:totalItems declared fails the job, naming the page
//     (ckanext-dcat #260: two pages pointing at each other exhausted RAM). Every page arrives
//     before anything is listed, so nothing is deleted after a partial listing. A file source
//     reads its relative IRIs against its file: URL, and its pages are files of its folder.
//     Hydra's own triples are paging metadata, not catalog content: they are left out of the
//     graph, so a catalog served under other page URLs is the same catalog.
//   - The graph stays in memory up to extract.Config.RDFMemTriples triples and spills to a temporary
//     file past that (rdf.NewGraph), so a large source does not sit whole in memory.
//   - A syntax error fails the job with the parser's line and column, and nothing is deleted.
//   - The graph is split into records as FDK does (dcatap.Split); a blank-node dataset, which
//     FDK drops silently, is an error row naming it (BlankNodeDataset). A dataset whose graph
//     passes the record triple cap (100,000 triples) is an error row for its IRI
//     (RecordTooLarge), and its IRI counts as listed, so its live dataset is kept. Each
//     record's Body is the canonical N-Quads of its skolemized graph (dcatap.Canonical), so its
//     source_hash does not change when the publisher re-serializes, re-orders or re-labels
//     blank nodes.
//   - Whole-source skip, FDK's first layer: when the graph's fingerprint (dcatap.GraphHash)
//     equals that of the source's last complete harvest of the same URL, a harvest job lists
//     nothing and completes as not modified (the 304 path: every live dataset unchanged).
//     force_harvest and validate jobs always list.
//   - Catalogs are change-detected too: their checksums (of their own graph and of their
//     datasets', catalogSums) are stored per source, and the report names the catalogs that
//     changed (changedCatalogs), a catalog whose datasets alone changed included, as FDK does.

// hydraNS is the Hydra Core vocabulary's namespace.
const hydraNS = "http://www.w3.org/ns/hydra/core#"

// listRDF lists an rdf source: it reads every page into one graph, then sends one record per
// dataset. A source that cannot be fetched or parsed fails the job, and no Listing is sent.
func (h *handler) listRDF(ctx context.Context, job *harvest.Job) error {
	langs, err := harvest.ParseLanguages(extract.Setting(job, "languages"))
	if err != nil {
		return h.Fail(ctx, job, harvest.TypeExtractError, fmt.Errorf("the source's languages option: %w", err))
	}
	if p := extract.Setting(job, "shacl_profile"); p != "" && p != "none" {
		if _, err := profiles.Load(p); err != nil {
			return h.Fail(ctx, job, harvest.TypeExtractError, fmt.Errorf("the source's shacl_profile option: %w", err))
		}
	}
	fc := h.Fetch() // the source's Accept and auth header (sourceFetch)
	if job.Accept == "" {
		fc.Accept = defaultRDFAccept
	}
	g, err := rdf.NewGraph(h.Config().TempDir, h.Config().RDFMemTriples)
	if err != nil {
		return fmt.Errorf("rdf graph: %w", err)
	}
	defer g.Close()
	warns := &rdfWarnings{}
	if err := h.readRDFPages(ctx, fc, job, g, warns); err != nil {
		var se *extract.StageError
		if errors.As(err, &se) {
			return se.Err
		}
		return h.Fail(ctx, job, harvest.TypeExtractError, err)
	}

	if since, skip, err := h.rdfNotModified(ctx, job, g); err != nil {
		var se *extract.StageError
		if errors.As(err, &se) {
			return se.Err
		}
		return err
	} else if skip {
		return h.NotModified(job, since)
	}

	// Split gives each dataset IRI once: the run keeps no set of them (NewDistinctRun).
	l := &lister{Run: h.NewDistinctRun(ctx, job), h: h, languages: langs}
	sums := newCatalogSums()
	publishers := map[string]string{}                      // catalog IRI -> its publisher's name
	err = dcatap.Split(g, func(r *dcatap.Resource) error { // catalogs come first
		if err := sums.add(r); err != nil {
			return err
		}
		switch {
		case r.Problem != "" && r.Kind == dcatap.KindCatalog:
			return nil // a blank-node catalog is no record; its datasets are split on their own
		case r.Problem != "":
			return l.rdfProblem(r)
		case r.Kind == dcatap.KindCatalog:
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
		if err := h.Store().CatalogChecksumsSet(ctx, &store.CatalogChecksumsSetParams{SourceID: job.SourceID,
			JobID: job.JobID, Catalogs: sums.list(), Force: job.JobType == harvest.JobForceHarvest}); err != nil {
			return fmt.Errorf("store catalog checksums: %w", err)
		}
	}
	return l.Complete()
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

// rdfProblem settles a dataset or series that cannot be a record as errored: a blank node
// (BlankNodeDataset, no identifier), or one whose graph passes the record triple cap
// (RecordTooLarge, identifier its IRI). The latter's IRI is recorded as seen, so the dataset it
// already has is kept, not deleted, as for a data.json record over the record size cap.
func (l *lister) rdfProblem(r *dcatap.Resource) error {
	pos, err := l.Next()
	if err != nil {
		return err
	}
	e := &catalog.Entry{Position: pos, Identifier: r.IRI}
	if r.IRI == "" {
		return l.SettleError(e, "BlankNodeDataset", r.Problem)
	}
	if bad := harvest.CheckIdentifierWith(pos, r.IRI, r.Label, nil, l.FirstAt); bad != nil {
		e.Identifier = bad.Identifier
		return l.SettleError(e, bad.Type, bad.Message)
	}
	if err := l.See(e); err != nil {
		return err
	}
	return l.SettleError(e, harvest.TypeRecordTooLarge, fmt.Sprintf("dataset %s: %s", r.IRI, r.Problem))
}

// rdfRecord sends one dataset record on to COMPARE; publisher is the name of the publisher of
// its catalog, for TRANSFORM to use when the dataset names none ("" when unknown). The first
// record sent carries warns' warnings.
func (l *lister) rdfRecord(r *dcatap.Resource, publisher string, warns *rdfWarnings) error {
	pos, err := l.Next()
	if err != nil {
		return err
	}
	e := &catalog.Entry{Position: pos, Identifier: r.IRI}
	if bad := harvest.CheckIdentifierWith(pos, r.IRI, "", nil, l.FirstAt); bad != nil {
		if err := l.KeepTooLong(e, bad); err != nil {
			return err
		}
		e.Identifier = bad.Identifier
		return l.SettleError(e, bad.Type, bad.Message)
	}
	nquads, err := r.NQuads()
	if err != nil {
		return l.SettleError(e, harvest.TypeRecordError, fmt.Sprintf("dataset %s: %v", r.IRI, err))
	}
	if len(nquads) > l.h.Config().MaxRecordBytes {
		if err := l.See(e); err != nil {
			return err
		}
		return l.SettleError(e, harvest.TypeRecordTooLarge, fmt.Sprintf(
			"dataset %s is %d bytes as N-Quads, over the record size cap of %d bytes (--max-record-bytes)",
			r.IRI, len(nquads), l.h.Config().MaxRecordBytes))
	}
	if err := l.See(e); err != nil {
		return err
	}
	rec := &harvest.Record{JobID: l.Job().JobID, SourceID: l.Job().SourceID, JobType: l.Job().JobType,
		SchemaType: l.Job().SchemaType, RecordID: harvest.RecordID(l.Job().JobID, r.IRI), Identifier: r.IRI,
		Position: pos, Body: harvest.RawText(nquads), Profile: extract.Setting(l.Job(), "shacl_profile"),
		Languages: l.languages, PublisherName: publisher, Warnings: warns.take()}
	m, err := harvest.RecordMessage(harvest.SubjectCompare, rec)
	if err != nil {
		return err
	}
	return l.h.Publisher().Publish(harvest.SubjectCompare, m)
}

// rdfNotModified reports whether a harvest job may skip listing because its graph is the one
// the source's last reusable job read from the same URL (graphNotModifiedSince: their
// fingerprints are equal), and that job's id. It saves the graph's fingerprint on the job in
// any case. Store errors come wrapped in a *extract.StageError.
func (h *handler) rdfNotModified(ctx context.Context, job *harvest.Job, g rdf.Graph) (string, bool, error) {
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
