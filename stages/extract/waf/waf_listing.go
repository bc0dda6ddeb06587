package waf

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/html"

	"github.com/harvester-dev/harvester/stages/extract"
)

// ParseWAFListing reads one listing page (HTML) at pageURL and returns its .xml files
// (case-insensitive extension, deduplicated, in page order) and its sub-folders (absolute URLs
// ending in "/"). It never returns the page itself, its parent or ancestors, query-only sort
// links (?C=N;O=D), fragments, mailto:, or other hosts. Listing dates that name no zone are
// read as UTC.
//
// Any link with a query string is ignored, and a fragment is dropped before a link is judged
// (so href="#no" is the page itself). Folders are every same-host folder that is not the page's
// own folder or one of its ancestors, so siblings ("../b/") are returned: CrawlWAF keeps only
// those below its root.
//
// A file's date is read from the text near its link, never from another link's text: the text
// after the link up to the next link or line end (Apache <pre>, nginx, the rest of an Apache
// table row), or else, when the link's line holds no other link before it, the text from the
// line start to the link (IIS puts the date before the name). Lines end at newlines (except
// inside a table row), <br>, and block elements (<tr>, <li>, <p>, <hr>, ...). Formats, first
// match wins: Apache "2006-01-02 15:04[:05]", nginx "02-Jan-2006 15:04[:05]", IIS
// "1/2/2006 3:04[:05] PM" and IIS long "Monday, January 2, 2006  3:04 PM", each optionally
// followed by a zone ("+0100", "-05:00", "GMT", "UTC", "Z", or a US zone abbreviation such as
// "EST" or "PDT"); then, when no format with a time matches, a date alone ("2006-01-02" or
// "02-Jan-2006", precision a day). The date's precision is kept in WAFFile.Precision.
//
// Links resolve against pageURL (a <base> element is ignored), and URLs are returned with the
// host in lower case and without the scheme's default port.
//
// A page with no markup at all (an empty or plain-text body) is an error, so that it is never
// taken for an empty listing.
func ParseWAFListing(pageURL string, page io.Reader) (files []WAFFile, folders []string, err error) {
	return parseWAFListing(pageURL, page, time.UTC)
}

// Bounds of the listing parser's memory for pathological pages.
const (
	wafMaxToken   = 16 << 20 // bytes of one HTML token (a tag or an unbroken text run)
	wafSegmentCap = 1024     // bytes of text kept each side of a link for date matching
	wafMaxNesting = 64       // open <pre>/<table>/<tr> elements tracked; deeper ones are ignored
)

// segment is the text between two boundaries (a link or a line end): the first and the last
// wafSegmentCap bytes of it.
type segment struct {
	head, tail []byte
	afterBreak bool // the segment began at a line end, not at a link
}

func (s *segment) add(t string) {
	if n := wafSegmentCap - len(s.head); n > 0 {
		s.head = append(s.head, t[:min(n, len(t))]...)
	}
	if len(t) >= wafSegmentCap {
		s.tail = append(s.tail[:0], t[len(t)-wafSegmentCap:]...)
		return
	}
	s.tail = append(s.tail, t...)
	if over := len(s.tail) - wafSegmentCap; over > 0 {
		s.tail = append(s.tail[:0], s.tail[over:]...)
	}
}

func (s *segment) reset(afterBreak bool) {
	s.head, s.tail, s.afterBreak = s.head[:0], s.tail[:0], afterBreak
}

// wafBlockTags end a line of a listing where they start or end. Table cells do not: a table
// row is one line.
var wafBlockTags = map[string]bool{
	"br": true, "hr": true, "p": true, "div": true, "li": true, "ul": true, "ol": true,
	"dl": true, "dt": true, "dd": true, "tr": true, "table": true, "thead": true, "tbody": true,
	"tfoot": true, "pre": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true,
	"h6": true, "body": true, "html": true, "head": true, "title": true, "blockquote": true,
	"center": true, "form": true, "address": true, "section": true, "article": true,
	"header": true, "footer": true, "main": true, "nav": true, "caption": true,
}

// wafAnchorClosers end an open link when they start or end (unclosed <a> in sloppy listings).
var wafAnchorClosers = map[string]bool{
	"td": true, "th": true, "tr": true, "li": true, "pre": true, "table": true, "ul": true,
	"ol": true, "div": true, "p": true, "body": true, "html": true,
}

// listingParser is the state of one pass over a listing's tokens.
type listingParser struct {
	base    *url.URL
	baseDir string
	loc     *time.Location

	files   []WAFFile
	fileAt  map[string]int
	folders []string
	folder  map[string]bool

	ctx      []string // open "pre", "table" and "tr" elements, innermost last
	seg      segment
	inAnchor bool
	skipText int // depth inside <script>/<style>

	pending    int    // index in files of the last file link, whose date is not settled; -1
	pendingPre string // the text before that link on its line, when the line began there
	anchorFile int    // index in files of the open link's file; -1
	anchorPre  string
}

func parseWAFListing(pageURL string, page io.Reader, loc *time.Location) ([]WAFFile, []string, error) {
	base, err := parsePageURL(pageURL)
	if err != nil {
		return nil, nil, err
	}
	if loc == nil {
		loc = time.UTC
	}
	p := &listingParser{
		base: base, baseDir: dirOf(base.Path), loc: loc,
		fileAt: make(map[string]int), folder: make(map[string]bool),
		pending: -1, anchorFile: -1,
	}
	p.seg.afterBreak = true
	z := html.NewTokenizer(page)
	z.SetMaxBuf(wafMaxToken)
	sawTag := false
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if err := z.Err(); !errors.Is(err, io.EOF) {
				return nil, nil, fmt.Errorf("reading listing: %w", err)
			}
			p.lineBreak()
			if !sawTag {
				return nil, nil, errNotHTML
			}
			return p.files, p.folders, nil
		case html.TextToken:
			if p.skipText == 0 {
				p.text(string(z.Text()))
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			sawTag = true
			name, hasAttr := z.TagName()
			p.startTag(string(name), tt == html.SelfClosingTagToken, z, hasAttr)
		case html.EndTagToken:
			sawTag = true
			name, _ := z.TagName()
			p.endTag(string(name))
		case html.DoctypeToken:
			sawTag = true
		}
	}
}

func (p *listingParser) startTag(name string, selfClosing bool, z *html.Tokenizer, hasAttr bool) {
	switch name {
	case "script", "style":
		if !selfClosing {
			p.skipText++
		}
		return
	case "a":
		var href string
		found := false
		for hasAttr {
			var k, v []byte
			k, v, hasAttr = z.TagAttr()
			if !found && string(k) == "href" {
				href, found = string(v), true
			}
		}
		p.closeAnchor()
		p.openAnchor(href, found)
		return
	}
	if wafAnchorClosers[name] {
		p.closeAnchor()
	}
	switch name {
	case "pre", "table", "tr":
		if name == "tr" {
			// A new row ends an unclosed one of the same table.
			if i := p.lastCtx("tr"); i >= 0 && i > p.lastCtx("table") && i > p.lastCtx("pre") {
				p.ctx = p.ctx[:i]
			}
		}
		if len(p.ctx) < wafMaxNesting {
			p.ctx = append(p.ctx, name)
		}
	}
	if wafBlockTags[name] {
		p.lineBreak()
	}
}

func (p *listingParser) endTag(name string) {
	switch name {
	case "script", "style":
		if p.skipText > 0 {
			p.skipText--
		}
		return
	case "a":
		p.closeAnchor()
		return
	}
	if wafAnchorClosers[name] {
		p.closeAnchor()
	}
	switch name {
	case "pre", "table", "tr":
		if i := p.lastCtx(name); i >= 0 {
			p.ctx = p.ctx[:i]
		}
	}
	if wafBlockTags[name] {
		p.lineBreak()
	}
}

func (p *listingParser) lastCtx(name string) int {
	for i := len(p.ctx) - 1; i >= 0; i-- {
		if p.ctx[i] == name {
			return i
		}
	}
	return -1
}

// text handles a text run outside links' text: newlines end lines except inside a table row.
func (p *listingParser) text(t string) {
	if p.inAnchor {
		return // a link's own text never dates anything
	}
	if n := len(p.ctx); n > 0 && p.ctx[n-1] == "tr" {
		p.seg.add(t)
		return
	}
	for {
		i := strings.IndexByte(t, '\n')
		if i < 0 {
			p.seg.add(t)
			return
		}
		p.seg.add(t[:i])
		p.lineBreak()
		t = t[i+1:]
	}
}

// lineBreak ends the current line: the pending file takes its date from the text after it.
func (p *listingParser) lineBreak() {
	if p.inAnchor {
		return // a <br> or newline inside a link's content is part of the link
	}
	p.settle()
	p.seg.reset(true)
}

// openAnchor starts a link: it ends the segment after the previous file link, and the
// segment before this one is kept for an IIS-style date when a line end began it.
func (p *listingParser) openAnchor(href string, hasHref bool) {
	p.settle()
	pre := ""
	if p.seg.afterBreak {
		pre = string(p.seg.tail)
	}
	p.seg.reset(false)
	p.inAnchor = true
	p.anchorFile = -1
	if hasHref {
		p.anchorFile = p.link(href)
		p.anchorPre = pre
	}
}

func (p *listingParser) closeAnchor() {
	if !p.inAnchor {
		return
	}
	p.inAnchor = false
	p.pending, p.pendingPre = p.anchorFile, p.anchorPre
	p.anchorFile, p.anchorPre = -1, ""
	p.seg.reset(false)
}

// settle dates the pending file from the text after its link, else from the text before it.
func (p *listingParser) settle() {
	if p.pending < 0 {
		return
	}
	i := p.pending
	p.pending = -1
	d, ok := parseListingDate(string(p.seg.head), p.loc)
	if !ok && p.pendingPre != "" {
		d, ok = parseListingDate(p.pendingPre, p.loc)
	}
	p.pendingPre = ""
	if ok && p.files[i].Modified.IsZero() {
		p.files[i].Modified, p.files[i].Precision = d.start, d.precision
	}
}

// link records a link's target as a file or a folder and returns the file's index, or -1.
func (p *listingParser) link(href string) int {
	href = strings.TrimSpace(href)
	if href == "" || strings.HasPrefix(href, "#") {
		return -1
	}
	ref, err := url.Parse(href)
	if err != nil {
		return -1
	}
	u := p.base.ResolveReference(ref)
	u.Fragment, u.RawFragment = "", ""
	if u.Scheme != p.base.Scheme || u.Opaque != "" || u.User != nil || !extract.SameHost(u, p.base) ||
		u.RawQuery != "" || u.ForceQuery {
		return -1
	}
	if u.Path == "" {
		u.Path, u.RawPath = "/", ""
	}
	u.Host = extract.CanonicalHost(u)
	switch {
	case strings.HasSuffix(u.Path, "/"):
		// The page's own folder and its ancestors are prefixes of the page's folder.
		if strings.HasPrefix(p.baseDir, u.Path) {
			return -1
		}
		s := u.String()
		if !p.folder[s] {
			p.folder[s] = true
			p.folders = append(p.folders, s)
		}
	case len(u.Path) > len(".xml") && strings.EqualFold(u.Path[len(u.Path)-len(".xml"):], ".xml") &&
		u.Path[len(u.Path)-len(".xml")-1] != '/':
		s := u.String()
		i, ok := p.fileAt[s]
		if !ok {
			i = len(p.files)
			p.fileAt[s] = i
			p.files = append(p.files, WAFFile{URL: s})
		}
		return i
	}
	return -1
}
