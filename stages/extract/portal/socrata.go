package portal

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
)

// SocrataIdentifier is the harvest identifier of the Socrata view id (its "4x4", e.g.
// "abcd-1234") on domain: "https://<domain>/d/<id>", the view's permalink. Two domains' views
// never collide.
func SocrataIdentifier(domain, id string) string { return "https://" + domain + "/d/" + id }

// socrataPager lists a Socrata domain through the Discovery API: GET
// <scheme://host of the source URL>/api/catalog/v1?domains=<domain>&search_context=<domain>
// &only=<only>&order=dataset_id&limit=<n>&offset=<k>, paged by offset/limit with the total from
// resultSetSize. The domain is the source's "domain" option, else the URL's host (so a source
// may point at the regional api.us.socrata.com with a domain option); "only" is the option of
// that name, default "dataset" (tabular datasets: derived views such as filters and charts are
// not datasets of their own and are not listed; "dataset,map,file" adds geo views and files);
// the page size is the "limit" option (default in the rule table, at most 10,000, the
// Discovery API's offset window). Results are sorted by dataset id, a stable order. An item is
// keyed SocrataIdentifier(<domain>, resource.id), read by socrataItem: the Discovery API asked
// for domains=<domain> serves that domain's views only, so an item whose metadata.domain names
// another is an error row, and a derived view is skipped.
func (h *handler) socrataPager(fc fetch.Config, job *harvest.Job) (*extract.Pager, error) {
	u, ok := httpURL(strings.TrimSpace(job.URL))
	if !ok {
		return nil, fmt.Errorf("socrata source URL %q: want the domain's http(s) URL, e.g. https://data.example.gov", job.URL)
	}
	base := u.Scheme + "://" + u.Host
	domain := strings.ToLower(extract.Setting(job, "domain"))
	if domain == "" {
		domain = strings.ToLower(u.Hostname())
	}
	limit, err := extract.PageSize(job, "limit", 10000)
	if err != nil {
		return nil, err
	}
	only := extract.Setting(job, "only")
	return &extract.Pager{Name: "Socrata Discovery API " + base + "/api/catalog/v1 (domain " + domain + ")", PageSize: limit, PageSizeOption: "limit",
		Page: func(ctx context.Context, offset int) (*extract.PortalPage, error) {
			q := url.Values{}
			q.Set("domains", domain)
			q.Set("search_context", domain)
			q.Set("only", only)
			q.Set("order", "dataset_id")
			q.Set("limit", strconv.Itoa(limit))
			q.Set("offset", strconv.Itoa(offset))
			pageURL := base + "/api/catalog/v1?" + q.Encode()
			var env struct {
				ResultSetSize *int            `json:"resultSetSize"`
				Error         json.RawMessage `json:"error"`
			}
			items, err := readPage(ctx, fc, pageURL, socrataShape, h.Config().MaxRecordBytes, &env)
			if err != nil {
				return nil, err
			}
			if env.ResultSetSize == nil {
				return nil, fmt.Errorf("GET %s: not a Socrata Discovery API answer: no resultSetSize", pageURL)
			}
			return &extract.PortalPage{URL: pageURL, Total: *env.ResultSetSize, Items: portalItems(items, func(raw json.RawMessage) extract.PortalItem {
				return socrataItem(domain, raw)
			})}, nil
		}}, nil
}

// socrataShape: a Discovery API answer's results, keyed by resource.id on metadata.domain.
var socrataShape = &pageShape{items: []string{"/results"},
	keys: []string{"/resource/id", "/resource/name", "/resource/type", "/metadata/domain"}}

// socrataItem is the extract.PortalItem of one Discovery API result of the source's domain, keyed
// SocrataIdentifier(domain, resource.id):
//
//   - a result whose metadata.domain is another domain (compared ignoring case) has Err
//     (ForeignDomain): the Discovery API asked for domains=<domain> serves that domain's views
//     only, and keying another domain's view under its domain would let any portal mint that
//     domain's identifiers (and its landing pages and downloads, made from the identifier);
//   - a derived view, a view over another dataset (resource.parent_fxf set, or a resource.type
//     harvest.SocrataDerivedType names: filter, chart, datalens, …), is Skip: not a dataset of
//     its own.
func socrataItem(domain string, raw json.RawMessage) extract.PortalItem {
	it := extract.PortalItem{Raw: raw}
	var r struct {
		Resource struct {
			ID        json.RawMessage `json:"id"`
			Name      any             `json:"name"`
			Type      any             `json:"type"`
			ParentFXF json.RawMessage `json:"parent_fxf"`
		} `json:"resource"`
		Metadata struct {
			Domain any `json:"domain"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		it.Err = fmt.Errorf("result is not a Socrata Discovery API result: %v", err)
		return it
	}
	if t, ok := r.Resource.Name.(string); ok {
		it.Title = t
	}
	id, err := jsonScalar(r.Resource.ID)
	if err != nil || strings.TrimSpace(id) == "" {
		it.Err = fmt.Errorf("result%s has no resource.id", titled(it.Title))
		return it
	}
	id = strings.TrimSpace(id)
	if d, ok := r.Metadata.Domain.(string); ok && !strings.EqualFold(strings.TrimSpace(d), domain) {
		it.Err = &foreignDomainError{id: id, title: it.Title, domain: strings.TrimSpace(d), source: domain}
		return it
	}
	if typ, _ := r.Resource.Type.(string); harvest.SocrataDerivedType(typ) || hasParent(r.Resource.ParentFXF) {
		it.Skip = fmt.Sprintf("Socrata view %s is a derived view (resource.type %q, parent_fxf %s), not a dataset of its own",
			id, typ, compactJSON(r.Resource.ParentFXF))
		return it
	}
	it.Identifier = SocrataIdentifier(domain, id)
	return it
}

// hasParent reports whether a Discovery result's parent_fxf (a list of view ids, or one) names
// a parent dataset.
func hasParent(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s != "" && s != "null" && s != "[]" && s != `""`
}

// foreignDomainError is the Err of a Socrata result of another domain than the source's.
type foreignDomainError struct{ id, title, domain, source string }

// RowType is the error row's type (extract.ItemError).
func (e *foreignDomainError) RowType() string { return "ForeignDomain" }

// RowIdentifier names the view the error row is about: its identifier on its own domain
// (SocrataIdentifier(domain, id), what a source of that domain keys it by), or "" when that
// is no identifier a row can hold (over harvest.MaxIdentifierBytes, not UTF-8, a NUL). The
// row is an error row only: the view is neither keyed nor seen under this source.
func (e *foreignDomainError) RowIdentifier() string {
	id := SocrataIdentifier(e.domain, e.id)
	if len(id) > harvest.MaxIdentifierBytes || !utf8.ValidString(id) || strings.ContainsRune(id, 0) {
		return ""
	}
	return id
}

func (e *foreignDomainError) Error() string {
	return fmt.Sprintf("result %s%s is a view of domain %q, not of this source's domain %q: it is not harvested "+
		"(a Socrata source harvests its own domain's views: harvest %s as a source of its own, or set this "+
		"source's domain option to it if this host serves that domain)", e.id, titled(e.title), e.domain, e.source, e.domain)
}

// portalStart returns a paged portal's base URL, baseURL of the source's URL, which must be an
// absolute http(s) URL (else the error is badURL, a format given the source's URL), and its
// page size setting (extract.PageSize).
func portalStart(job *harvest.Job, baseURL func(string) string, badURL, sizeOption string, maxSize int) (
	base string, size int, err error) {
	base = baseURL(job.URL)
	if _, ok := httpURL(base); !ok {
		return "", 0, fmt.Errorf(badURL, job.URL)
	}
	size, err = extract.PageSize(job, sizeOption, maxSize)
	return base, size, err
}

// httpURL parses a portal's URL; ok is false unless it is an absolute http(s) URL with a host.
func httpURL(raw string) (u *url.URL, ok bool) {
	u, err := url.Parse(raw)
	return u, err == nil && u.Host != "" && (u.Scheme == "http" || u.Scheme == "https")
}
