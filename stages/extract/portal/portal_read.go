package portal

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/stages/extract"
)

// pageShape says where a portal API answer holds its items, and which members of an item key
// and name it.
type pageShape struct {
	// items are the JSON Pointers (RFC 6901) the items array may be at, e.g. "/result/results";
	// "" is the answer itself (a bare array). The first array found at one of them is read.
	items []string
	// keys are JSON Pointers, relative to an item, of the scalar members the family's item
	// reader reads to key and name an item (e.g. "/id", "/title"): all that is kept of an item
	// over the record size cap.
	keys []string
}

// pageItem is one item of a portal page, as readPage streamed it past.
type pageItem struct {
	raw  json.RawMessage // the item as served; nil when it is over the cap
	size int64           // its length in bytes, as served
	// keys, for an item over the cap only, is a JSON object of its members named by
	// pageShape.keys (each at most extract.MaxKeyBytes), for the family's item reader to key it by.
	keys json.RawMessage
}

// maxKeyDepth is how deep below an item pageShape.keys may point.
const maxKeyDepth = 4

// readPage GETs url with fc and reads its JSON answer from the downloaded file a token at a
// time: each element of the items array (shape.items) is measured as it streams past, kept
// when it is at most limit bytes and otherwise never held (only its shape.keys members are
// kept), and env, when not nil, gets the rest of the answer (encoding/json), its items array
// empty. So a page's memory is its kept items, whatever one item's size (a single JSON string
// being the exception: a token is held whole while it is read). The answer outside its items
// is held whole, so it too is capped at limit bytes.
//
// Its errors name the URL: a *fetch.Error (status, attempts) when the GET failed, an HTML
// page's title when the portal sent one, a syntax error with its byte offset, a second items
// array, an answer over the cap outside its items, or the decode error of env.
func readPage(ctx context.Context, fc fetch.Config, url string, shape *pageShape, limit int, env any) ([]pageItem, error) {
	f, err := fetch.Get(ctx, fc, url)
	if err != nil {
		return nil, err
	}
	defer func() { f.Close(); os.Remove(f.Name()) }()
	if title, ok := fetch.HTMLPage(f); ok {
		return nil, fmt.Errorf("GET %s: the server sent an HTML page (title %q) where JSON was expected", url, title)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	s := &pageScan{f: f, shape: shape, limit: int64(limit)}
	if err := s.scan(); err != nil {
		var se *jsontext.SyntacticError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("GET %s: not JSON at byte %d: %v", url, se.ByteOffset, err)
		}
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	if env == nil {
		return s.items, nil
	}
	rest, err := s.envelope()
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	if err := json.Unmarshal(rest, env); err != nil {
		return nil, fmt.Errorf("GET %s: unexpected JSON: %w", url, err)
	}
	return s.items, nil
}

// pageScan is one reading of a downloaded page.
type pageScan struct {
	f     *os.File
	shape *pageShape
	limit int64
	d     *jsontext.Decoder
	// names are the last names of shape.keys, quoted as JSON writes them: a scalar is looked up
	// in shape.keys (its pointer built) only after a member name among them.
	names map[string]bool
	items []pageItem
	found bool  // the items array was read
	open  int64 // the offsets just after the items array's "[" and at its "]"
	close int64
	total int64 // the answer's length
}

// scan reads the whole answer, checking its syntax as it goes, and reads the items array.
func (s *pageScan) scan() error {
	s.names = map[string]bool{}
	for _, k := range s.shape.keys {
		s.names[strconv.Quote(k[strings.LastIndexByte(k, '/')+1:])] = true
	}
	s.d = jsontext.NewDecoder(bufio.NewReaderSize(s.f, 64<<10),
		jsontext.AllowDuplicateNames(true), // as encoding/json does; tracking names costs memory
		jsontext.AllowInvalidUTF8(true))    // an item's bad bytes are its error row (InvalidEncoding), not the page's
	for {
		tok, err := s.d.ReadToken()
		if err == io.EOF {
			s.total = s.d.InputOffset()
			return nil
		}
		if err != nil {
			return err
		}
		if tok.Kind() != '[' {
			continue
		}
		ptr := string(s.d.StackPointer())
		if !isItemsPointer(s.shape.items, ptr) {
			continue
		}
		if s.found {
			return fmt.Errorf("the answer has a second items array at %q: which one holds the items is not clear", ptr)
		}
		s.found, s.open = true, s.d.InputOffset()
		if err := s.elements(ptr); err != nil {
			return err
		}
		s.close = s.d.InputOffset()
	}
}

func isItemsPointer(items []string, ptr string) bool {
	for _, p := range items {
		if p == ptr {
			return true
		}
	}
	return false
}

// elements reads the elements of the items array at ptr, whose "[" was just read, up to its "]".
func (s *pageScan) elements(ptr string) error {
	depth := s.d.StackDepth()
	for {
		switch s.d.PeekKind() {
		case ']':
			return nil
		case 0:
			_, err := s.d.ReadToken() // the error PeekKind met
			return cmpErr(err, io.ErrUnexpectedEOF)
		}
		start := s.d.InputOffset()
		prefix := ptr + "/" + strconv.Itoa(len(s.items))
		keys := map[string]json.RawMessage{}
		if err := s.element(depth, prefix, keys); err != nil {
			return err
		}
		it, err := s.item(start, s.d.InputOffset(), keys)
		if err != nil {
			return err
		}
		s.items = append(s.items, it)
	}
}

// cmpErr is err, or def when err is nil.
func cmpErr(err, def error) error {
	if err == nil {
		return def
	}
	return err
}

// element reads one element of the array at depth, keeping its key members (pointers relative
// to prefix, the element's own pointer) into keys.
func (s *pageScan) element(depth int, prefix string, keys map[string]json.RawMessage) error {
	named := false // the last value read is a name among s.names
	for first := true; first || s.d.StackDepth() > depth; first = false {
		switch s.d.PeekKind() {
		case '{', '[', '}', ']':
			named = false
			if _, err := s.d.ReadToken(); err != nil {
				return err
			}
			continue
		case 0:
			_, err := s.d.ReadToken()
			return cmpErr(err, io.ErrUnexpectedEOF)
		}
		v, err := s.d.ReadValue() // a scalar, or an object member's name
		if err != nil {
			return err
		}
		at := s.d.StackDepth()
		if kind, n := s.d.StackIndex(at); kind == '{' && n%2 == 1 { // a member's name
			named = at <= depth+maxKeyDepth && s.names[string(v)]
			continue
		}
		if !named || len(v) > extract.MaxKeyBytes {
			continue
		}
		named = false
		rel := strings.TrimPrefix(string(s.d.StackPointer()), prefix)
		for _, k := range s.shape.keys {
			if k == rel {
				keys[k] = bytes.Clone(v)
			}
		}
	}
	return nil
}

// item is the pageItem of the element between the offsets start (just after the token before
// it) and end.
func (s *pageScan) item(start, end int64, keys map[string]json.RawMessage) (pageItem, error) {
	if end-start <= s.limit+maxLead { // read at once, separators and all
		buf := make([]byte, end-start)
		if _, err := s.f.ReadAt(buf, start); err != nil {
			return pageItem{}, fmt.Errorf("read item back: %w", err)
		}
		raw := bytes.TrimLeft(buf, " \t\r\n,")
		if len(raw) <= int(s.limit) {
			return pageItem{raw: raw, size: int64(len(raw))}, nil
		}
		return pageItem{size: int64(len(raw)), keys: keysObject(keys)}, nil
	}
	lead, err := s.separators(start, end)
	if err != nil {
		return pageItem{}, err
	}
	return pageItem{size: end - start - lead, keys: keysObject(keys)}, nil
}

// maxLead is how many bytes of white space and comma before an item are read with it.
const maxLead = 4 << 10

// separators counts the white space and comma at offset start of the file, before an element.
func (s *pageScan) separators(start, end int64) (int64, error) {
	buf := make([]byte, 512)
	var n int64
	for start+n < end {
		k, err := s.f.ReadAt(buf[:min(int64(len(buf)), end-start-n)], start+n)
		if k == 0 {
			return 0, fmt.Errorf("read item back: %w", cmpErr(err, io.ErrUnexpectedEOF))
		}
		i := len(bytes.TrimLeft(buf[:k], " \t\r\n,"))
		n += int64(k - i)
		if i > 0 {
			break
		}
	}
	return n, nil
}

// keysObject is the JSON object holding each key member at its pointer.
func keysObject(keys map[string]json.RawMessage) json.RawMessage {
	root := map[string]any{}
	for ptr, v := range keys {
		names := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
		m := root
		for _, name := range names[:len(names)-1] {
			sub, ok := m[name].(map[string]any)
			if !ok {
				sub = map[string]any{}
				m[name] = sub
			}
			m = sub
		}
		m[names[len(names)-1]] = json.RawMessage(v)
	}
	b, _ := json.Marshal(root) // raw values the decoder read: valid JSON
	return b
}

// envelope returns the answer without its items: the bytes before the items array's "[" and
// from its "]" on. It is at most the cap.
func (s *pageScan) envelope() ([]byte, error) {
	if !s.found {
		s.open, s.close = s.total, s.total
	}
	n := s.total - (s.close - s.open)
	if n > s.limit {
		return nil, fmt.Errorf("the answer is %d bytes outside its items, over the record size cap of %d bytes "+
			"(--max-record-bytes)", n, s.limit)
	}
	rest := make([]byte, n)
	if _, err := s.f.ReadAt(rest[:s.open], 0); err != nil {
		return nil, err
	}
	if _, err := s.f.ReadAt(rest[s.open:], s.close); err != nil && err != io.EOF {
		return nil, err
	}
	return rest, nil
}

// portalItems reads a page's items with read, the family's item reader: an item over the cap
// is read from its key members, and marked TooLarge with its size.
func portalItems(items []pageItem, read func(raw json.RawMessage) extract.PortalItem) []extract.PortalItem {
	out := make([]extract.PortalItem, 0, len(items))
	for _, pi := range items {
		if pi.raw != nil {
			out = append(out, read(pi.raw))
			continue
		}
		it := read(pi.keys)
		it.Raw, it.TooLarge, it.Size = nil, true, pi.size
		out = append(out, it)
	}
	return out
}
