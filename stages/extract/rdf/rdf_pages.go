package rdf

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/rdf"
	"github.com/harvester-dev/harvester/stages/extract"
)

// rdfPager reads the documents of one rdf source, its first page and the Hydra pages it links
// to, into one graph, and checks the listing as it goes (listRDF). Each check fails the job
// with an error naming the page, before anything is listed, so nothing is deleted:
//
//   - a next page already read (by URL), or a page whose catalog triples repeat those of a page
//     already read (a loop through ever new URLs: the content digest ignores Hydra's triples,
//     the order of the triples and blank-node labels);
//   - more than extract.Config.MaxRDFPages pages;
//   - documents that together pass extract.Config.MaxRDFBytes bytes (a download stops at the cap);
//   - a hydra:totalItems, as the last page that declares it says, other than the count of the
//     pages' hydra:member links (or, with none, of the graph's datasets and series);
//   - a next page of an http(s) source that is not http(s), or of a file source that is not a
//     file in the source file's folder (or below it): a file source stays on the file system.
type rdfPager struct {
	h   *handler
	fc  fetch.Config
	job *harvest.Job
	g   rdf.Graph
	// dir is a file source's folder, "" for an http(s) source.
	dir       string
	visited   map[string]int        // page URL -> page number
	digests   map[pageDigest]string // content digest -> the first page that had it
	bytes     int64                 // bytes of the documents read so far
	total     int64                 // the last hydra:totalItems declared; -1 when none was
	totalPage string                // the page that declared total
	members   int                   // hydra:member links of the pages read
	key       []byte                // pageDigest.add's buffer
	warns     *rdfWarnings          // what was read leniently (rdf.Options.Warn)
}

// readRDFPages reads the source's first document and every page it links to into g, and what
// was read leniently into warns. Errors of the store come as *extract.StageError; every other error is
// the job's.
func (h *handler) readRDFPages(ctx context.Context, fc fetch.Config, job *harvest.Job, g rdf.Graph, warns *rdfWarnings) error {
	p := &rdfPager{h: h, fc: fc, job: job, g: g, visited: map[string]int{}, digests: map[pageDigest]string{}, total: -1,
		warns: warns}
	page := job.URL
	if !extract.IsHTTP(page) {
		if !filepath.IsAbs(page) {
			return fmt.Errorf("unsupported source location %q: want an http(s) URL or an absolute file path", page)
		}
		p.dir, page = filepath.Dir(page), fileURL(page)
	}
	for n := 1; ; n++ {
		if n > h.Config().MaxRDFPages {
			return fmt.Errorf("read %s: page %d (%s) is one more than the page cap of %d (--max-rdf-pages); nothing is deleted",
				job.URL, n, page, h.Config().MaxRDFPages)
		}
		p.visited[page] = n
		next, err := p.read(ctx, n, page)
		if err != nil {
			return err
		}
		if next == "" {
			return p.checkTotal(page)
		}
		if m, ok := p.visited[next]; ok {
			return fmt.Errorf("read %s: page %d (%s) links back to %s, page %d, a page already read (a paging loop); nothing is deleted",
				job.URL, n, page, next, m)
		}
		if err := p.checkNext(page, next); err != nil {
			return err
		}
		page = next
	}
}

// fileURL is the file: URL of an absolute path, the base of the relative IRIs of a file
// source's documents (RFC 8089).
func fileURL(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// read reads page n into the graph and returns the absolute URL of the next page, "" when it is
// the last. No term of it may pass the record size cap (rdf.Options.MaxTermBytes).
func (p *rdfPager) read(ctx context.Context, n int, page string) (string, error) {
	f, contentType, cleanup, err := p.open(ctx, page)
	if err != nil {
		return "", err
	}
	defer cleanup()
	format, err := rdf.FormatFor(contentType, p.job.Accept, page)
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
	var digest pageDigest
	var storeErr error
	opts := rdf.Options{MaxTermBytes: p.h.Config().MaxRecordBytes, Warn: p.warns.on(page, format)}
	err = rdf.ParseWith(f, format, page, opts, func(t rdf.Triple) error {
		switch {
		case t.P.Value == hydraNS+"member":
			p.members++
			return nil
		case strings.HasPrefix(t.P.Value, hydraNS) || (t.P.Value == rdf.RDFType && strings.HasPrefix(t.O.Value, hydraNS)):
			if !pagingPredicates[t.P.Value] {
				return nil // first, last, itemsPerPage, view…: not used
			}
			if len(paging) == maxPagingTriples {
				return fmt.Errorf("more than %d Hydra paging triples (next, nextPage, totalItems, rdf:type) on one page", maxPagingTriples)
			}
			paging = append(paging, t)
			return nil
		}
		digest.add(t, &p.key)
		if storeErr = p.g.Add(t); storeErr != nil {
			return storeErr
		}
		return nil
	})
	if storeErr != nil {
		return "", &extract.StageError{Err: fmt.Errorf("store the graph: %w", storeErr)}
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
	if first, dup := p.digests[digest]; dup {
		return "", fmt.Errorf("read %s: page %d (%s) repeats the content of %s, a page already read (a paging loop); nothing is deleted",
			p.job.URL, n, page, first)
	}
	p.digests[digest] = page
	if err := p.declared(page, paging); err != nil {
		return "", err
	}
	return nextPage(paging, page)
}

// pagingPredicates are the Hydra triples a page's paging is read from (nextPage, declared);
// maxPagingTriples caps them per page, so a page of millions of them is not held (a real page
// has a handful).
var pagingPredicates = map[string]bool{rdf.RDFType: true, hydraNS + "next": true, hydraNS + "nextPage": true,
	hydraNS + "totalItems": true}

const maxPagingTriples = 1000

// open returns one document, its response Content-Type ("" for a file) and its cleanup. It
// counts the document's bytes against extract.Config.MaxRDFBytes; a download stops at the cap.
func (p *rdfPager) open(ctx context.Context, page string) (*os.File, string, func(), error) {
	budget := p.h.Config().MaxRDFBytes - p.bytes
	if !extract.IsHTTP(page) {
		u, err := url.Parse(page)
		if err != nil {
			return nil, "", nil, fmt.Errorf("read %s: %w", page, err)
		}
		f, err := os.Open(filepath.FromSlash(u.Path))
		if err != nil {
			return nil, "", nil, fmt.Errorf("open source file: %w", err)
		}
		fi, err := f.Stat()
		if err == nil && fi.Size() > budget {
			err = p.overBytes(page)
		}
		if err != nil {
			f.Close()
			return nil, "", nil, err
		}
		p.bytes += fi.Size()
		return f, "", func() { f.Close() }, nil
	}
	fc := p.fc
	fc.MaxBytes = min(fc.MaxBytes, max(budget, 1))
	doc, err := fetch.GetDocument(ctx, fc, page, fetch.Validators{})
	if err != nil {
		if errors.Is(err, fetch.ErrTooLarge) && fc.MaxBytes < p.fc.MaxBytes {
			return nil, "", nil, p.overBytes(page)
		}
		return nil, "", nil, err
	}
	fi, err := doc.File.Stat()
	if err == nil && fi.Size() > budget {
		err = p.overBytes(page)
	}
	if err != nil {
		doc.Close()
		return nil, "", nil, err
	}
	p.bytes += fi.Size()
	return doc.File, doc.ContentType, doc.Close, nil
}

// overBytes is the error of a page that takes the source past extract.Config.MaxRDFBytes.
func (p *rdfPager) overBytes(page string) error {
	return fmt.Errorf("read %s: page %d (%s) takes the source's documents past %d bytes together, the cap "+
		"(--fetch-max-bytes, for a paged source's pages together too); nothing is deleted",
		p.job.URL, len(p.visited), page, p.h.Config().MaxRDFBytes)
}

// declared notes the hydra:totalItems a page declares. Several different ones, or one that is
// not a count, fail the job.
func (p *rdfPager) declared(page string, paging []rdf.Triple) error {
	var totals []string
	for _, t := range paging {
		if t.P.Value == hydraNS+"totalItems" {
			totals = append(totals, strings.TrimSpace(t.O.Value))
		}
	}
	slices.Sort(totals)
	switch totals = slices.Compact(totals); len(totals) {
	case 0:
		return nil
	case 1:
		n, err := strconv.ParseInt(totals[0], 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("read %s: its hydra:totalItems %.64q is not a count of items; nothing is deleted", page, totals[0])
		}
		p.total, p.totalPage = n, page
		return nil
	}
	return fmt.Errorf("read %s: it declares %d different hydra:totalItems (%.64q, %.64q, …); nothing is deleted",
		page, len(totals), totals[0], totals[1])
}

// checkTotal checks, after the last page, the last hydra:totalItems declared against the
// items read: the pages' hydra:member links, or, when there are none, the graph's datasets and
// series.
func (p *rdfPager) checkTotal(last string) error {
	if p.total < 0 {
		return nil
	}
	n, what := p.members, "members (hydra:member)"
	if n == 0 {
		var err error
		if n, err = countRecords(p.g); err != nil {
			return &extract.StageError{Err: fmt.Errorf("read the graph: %w", err)}
		}
		what = "datasets"
	}
	if int64(n) == p.total {
		return nil
	}
	how := "short"
	if int64(n) > p.total {
		how = "longer than declared"
	}
	return fmt.Errorf("read %s: page %s declares hydra:totalItems %d, but the pages read (%d, the last %s) hold %d %s: "+
		"the listing is %s; nothing is deleted", p.job.URL, p.totalPage, p.total, len(p.visited), last, n, what, how)
}

// countRecords counts the distinct subjects typed dcat:Dataset or dcat:DatasetSeries.
func countRecords(g rdf.Graph) (int, error) {
	seen := map[rdf.Term]bool{}
	for _, class := range []string{dcatNS + "Dataset", dcatNS + "DatasetSeries"} {
		err := g.Match(rdf.Term{}, rdf.IRI(rdf.RDFType), rdf.IRI(class), func(t rdf.Triple) error {
			seen[t.S] = true
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	return len(seen), nil
}

// dcatNS is the DCAT vocabulary's namespace.
const dcatNS = "http://www.w3.org/ns/dcat#"

// checkNext refuses a next page in another place than the source: an http(s) source's pages
// are http(s) URLs, a file source's are files in its folder or below.
func (p *rdfPager) checkNext(page, next string) error {
	u, err := url.Parse(next)
	if err != nil {
		return fmt.Errorf("read %s: its next page %q: %w", page, next, err)
	}
	if p.dir == "" {
		if u.Scheme != "http" && u.Scheme != "https" {
			return fmt.Errorf("read %s: its next page %s is not an http(s) URL; nothing is deleted", page, next)
		}
		return nil
	}
	rel, err := filepath.Rel(p.dir, filepath.FromSlash(u.Path))
	if u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") || err != nil ||
		rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("read %s: its next page %s is not a file in the source file's folder %s "+
			"(a file source's pages stay there); nothing is deleted", page, next, p.dir)
	}
	return nil
}

// pageDigest digests a page's catalog triples: the lane-wise sum of each triple's SHA-256, with
// every blank node alike, so that it depends neither on the triples' order nor on blank-node
// labels (which the parser makes unique per document).
type pageDigest [4]uint64

func (d *pageDigest) add(t rdf.Triple, buf *[]byte) {
	b := (*buf)[:0]
	for _, x := range [3]rdf.Term{t.S, t.P, t.O} {
		b = append(b, byte(x.Kind))
		if !x.IsBlank() {
			b = append(b, x.Value...)
			b = append(b, 0)
			b = append(b, x.Datatype...)
			b = append(b, 0)
			b = append(b, x.Lang...)
		}
		b = append(b, 0)
	}
	*buf = b
	sum := sha256.Sum256(b)
	for i := range d {
		d[i] += binary.LittleEndian.Uint64(sum[8*i:])
	}
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
		if len(t.O.Value) > maxPageURLBytes {
			return "", fmt.Errorf("read %s: its next page is %d bytes long, over the %d-byte cap of a page URL (it starts %.64q)",
				page, len(t.O.Value), maxPageURLBytes, t.O.Value)
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
	return "", fmt.Errorf("read %s: it names %d different next pages (%s, …); which one to follow is unclear",
		page, len(candidates), strings.Join(candidates[:2], ", "))
}

// maxPageURLBytes caps the next page URL a page may name, so that every page URL in a job
// error is bounded (a URL that long would be refused by most servers anyway: 8 KiB is the
// request-line cap of Apache and nginx's default buffers).
const maxPageURLBytes = 8 << 10

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
