package fetch

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"io"
	"regexp"
	"strings"
)

var titleRe = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

// htmlTitle returns the title of an HTML page (whitespace collapsed, at most 200 bytes), or "".
func htmlTitle(page []byte) string {
	m := titleRe.FindSubmatch(page)
	if m == nil {
		return ""
	}
	t := strings.Join(strings.Fields(html.UnescapeString(string(m[1]))), " ")
	if len(t) > 200 {
		t = t[:200]
	}
	return t
}

// utf8BOM is the UTF-8 byte order mark, which a document may start with.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// ErrHTMLPage is the cause of an error for an HTML page (a login or error page sent with status
// 200) where an XML document was expected.
var ErrHTMLPage = errors.New("the server sent an HTML page")

// NotHTML returns an error wrapping ErrHTMLPage, with the page's title, when body is an HTML
// page: its first markup (after a BOM, white space, comments and an XML declaration, within
// the first 8 KiB) is an HTML doctype or an <html> element. It is the check of a document
// where XML is expected (the error says so); nil otherwise.
func NotHTML(body []byte) error {
	head := bytes.TrimPrefix(body[:min(len(body), 8<<10)], utf8BOM)
	for {
		head = bytes.TrimLeft(head, " \t\r\n")
		var closing []byte
		switch {
		case bytes.HasPrefix(head, []byte("<!--")):
			closing = []byte("-->")
		case bytes.HasPrefix(head, []byte("<?")):
			closing = []byte("?>")
		}
		end := bytes.Index(head, closing)
		if closing == nil || end < 0 {
			break
		}
		head = head[end+len(closing):]
	}
	lower := bytes.ToLower(head[:min(len(head), 64)])
	if !bytes.HasPrefix(lower, []byte("<!doctype html")) && !bytes.HasPrefix(lower, []byte("<html")) {
		return nil
	}
	return fmt.Errorf("%w (HTTP 200, title %q) where an XML document was expected", ErrHTMLPage,
		htmlTitle(body[:min(len(body), 64<<10)]))
}

// HTMLPage reports whether the document in f is an HTML page (a login page, an error page sent
// with status 200: after a BOM and white space, an HTML doctype, or an <html> tag within the
// first KiB), and its title. f is read from its start, at most 64 KiB.
func HTMLPage(f io.ReadSeeker) (title string, ok bool) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", false
	}
	head, _ := io.ReadAll(io.LimitReader(f, 64<<10))
	head = bytes.TrimLeft(bytes.TrimPrefix(head, utf8BOM), " \t\r\n")
	lower := bytes.ToLower(head[:min(len(head), 1024)])
	if !bytes.HasPrefix(lower, []byte("<!doctype html")) && !bytes.Contains(lower, []byte("<html")) {
		return "", false
	}
	return htmlTitle(head), true
}
