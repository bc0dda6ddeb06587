package rdf

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/piprate/json-gold/ld"
)

// ErrRemoteContext is returned (wrapped in a *SyntaxError's reason) for a JSON-LD document
// whose @context names a URL: Harvester never fetches remote contexts at harvest time
// (corpus NOTES §12), since that would make every harvest depend on, and trust, a third host.
var ErrRemoteContext = errors.New("remote JSON-LD context not fetched")

// noRemoteLoader is a json-gold DocumentLoader that refuses every URL.
type noRemoteLoader struct{}

func (noRemoteLoader) LoadDocument(u string) (*ld.RemoteDocument, error) {
	return nil, ld.NewJsonLdError(ld.LoadingRemoteContextFailed, fmt.Errorf("%w: %s (inline the context)", ErrRemoteContext, u))
}

// jsonldParser streams a JSON-LD document: json-gold expands one node object of the top-level
// @graph array (or of a top-level array) at a time and converts them to triples in batches of
// up to jsonldBatchNodes node objects or jsonldBatchBytes bytes, with the document's @context
// parsed once and one blank node issuer for the whole document, so that a node's blank node
// labels mean the same node across the array (JSON-LD 1.1 API §8.4 on each batch gives the
// triples of the whole document, graphs merged). What is not in that array (the @context, the
// other members of the top-level object, and @graph elements read before an @context that may
// follow) is held whole.
type jsonldParser struct {
	cr      *capReader
	dec     *json.Decoder
	opts    *ld.JsonLdOptions
	api     *ld.JsonLdApi
	ctx     *ld.Context
	issuer  *ld.IdentifierIssuer
	blanks  *blankScope
	direct  *directConverter // nil when jsonldDirect is off
	fn      func(Triple) error
	maxTerm int
	hold    int64 // the cap on bytes held at once: 2×maxTerm
	held    int64 // bytes held now outside the streamed array
	at      int64 // offset of the value being handled, for errors

	// The node map of the node objects converted but not yet turned into triples (nil when
	// none is), how many node objects and JSON bytes it holds, and where the first starts.
	batch      map[string]any
	batchN     int
	batchBytes int64
	batchAt    int64
}

// A batch of node objects is turned into triples at once when it holds this many node objects
// or JSON bytes: json-gold's GraphToRDF checks every http(s) IRI against a regular expression,
// remembering the results only within one call, and called once a node object that check was
// 60% of json-gold's time on a chain of blank nodes (BenchmarkRDFBlankChainJSONLD). The byte
// bound keeps the batch small and bounds the node map's merge of values of one node (json-gold
// compares each value with those before it).
const (
	jsonldBatchNodes = 256
	jsonldBatchBytes = 64 << 10
)

// parseJSONLD parses a JSON-LD 1.1 document (expanded, compacted with an inline @context, or
// with @graph) with github.com/piprate/json-gold (JSON-LD 1.1 API §8.4 toRdf; its expansion,
// then directConverter for node objects of the common forms, json-gold's node map for the
// rest: the same triples, TestJSONLDDirectSameAsJSONGold), streaming the
// top-level @graph array (or top-level array) node object by node object: memory holds one
// node object and what is outside the array, each at most 2×o.MaxTermBytes bytes (32 MiB by
// default), and the converted batch (at most 256 node objects of 64 KiB of JSON together, or
// the one node object that passes that); a larger node object is a *SyntaxError once that much
// is read, and so is a term over o.MaxTermBytes (at the position of its node object). The
// triples of a batch come in json-gold's node map order, not the document's. An @context that comes after a @graph array longer than that cap is a
// *SyntaxError too (the nodes before it were read without it). A JSON syntax error is a
// *SyntaxError with the line and column of the offending byte; a JSON-LD error (an invalid
// context, a remote context) is a *SyntaxError at line 0.
func parseJSONLD(r io.Reader, base string, o Options, fn func(Triple) error) error {
	br := bufio.NewReader(r)
	if b, _ := br.Peek(3); bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		_, _ = br.Discard(3)
	}
	opts := ld.NewJsonLdOptions(base)
	opts.DocumentLoader = noRemoteLoader{}
	opts.ProcessingMode = ld.JsonLd_1_1
	cr := newCapReader(br)
	p := &jsonldParser{cr: cr, dec: json.NewDecoder(cr), opts: opts, api: ld.NewJsonLdApi(),
		ctx: ld.NewContext(nil, opts), issuer: ld.NewIdentifierIssuer("_:b"), blanks: newBlankScope(),
		fn: fn, maxTerm: o.maxTerm(), hold: 2 * int64(o.maxTerm())}
	if jsonldDirect {
		p.direct = newDirectConverter(p.issuer, p.blanks)
	}
	p.cr.arm(p.hold)
	tok, err := p.dec.Token()
	if err != nil {
		return p.jsonErr(err)
	}
	switch tok {
	case json.Delim('['):
		err = p.array("")
	case json.Delim('{'):
		err = p.object()
	}
	if err == nil {
		err = p.flushBatch()
	}
	if err != nil {
		return err
	}
	p.cr.arm(p.hold)
	if _, err := p.dec.Token(); !errors.Is(err, io.EOF) {
		l, c := p.cr.lineCol(p.dec.InputOffset())
		return &SyntaxError{Format: JSONLD, Line: l, Col: c, Msg: "data after the JSON document"}
	}
	return nil
}

// object reads the top-level object, whose '{' was read: its @context is parsed, its @graph
// array streamed, the rest held and converted at the end.
func (p *jsonldParser) object() error {
	rest := map[string]any{}
	var pending []json.RawMessage // @graph elements read before any @context
	streamed, hasCtx := false, false
	for p.dec.More() {
		p.cr.arm(p.hold - p.held)
		p.setAt(p.dec.InputOffset())
		key, err := p.dec.Token()
		if err != nil {
			return p.jsonErr(err)
		}
		switch key {
		case "@context":
			v, err := p.decodeHeld()
			if err != nil {
				return err
			}
			if streamed {
				return p.ldErr(errors.New("@context after a @graph array longer than the JSON-LD node cap; " +
					"the nodes before it were read without it (write @context first)"))
			}
			if p.ctx, err = p.ctx.Parse(v); err != nil {
				return p.ldErr(err)
			}
			hasCtx = true
			if err := p.flush(&pending); err != nil {
				return err
			}
		case "@graph":
			tok, err := p.dec.Token()
			if err != nil {
				return p.jsonErr(err)
			}
			switch tok {
			case json.Delim('['):
				err = p.graph(hasCtx, &pending, &streamed)
			case json.Delim('{'):
				rest["@graph"], err = p.restOfObject()
			default:
				rest["@graph"] = tok
			}
			if err != nil {
				return err
			}
		default:
			k, _ := key.(string)
			if rest[k], err = p.decodeHeld(); err != nil {
				return err
			}
		}
	}
	p.cr.arm(p.hold)
	if _, err := p.dec.Token(); err != nil { // '}'
		return p.jsonErr(err)
	}
	if err := p.flush(&pending); err != nil {
		return err
	}
	if len(rest) == 0 {
		return nil
	}
	return p.convert(rest, "", 0)
}

// setAt records off as the start of the value being handled, for an error's position.
func (p *jsonldParser) setAt(off int64) {
	p.at = off
	p.cr.mark = off
}

// restOfObject reads the members of an object whose '{' was read, up to its '}', to hold.
func (p *jsonldParser) restOfObject() (map[string]any, error) {
	m := map[string]any{}
	for p.dec.More() {
		p.cr.arm(p.hold - p.held)
		key, err := p.dec.Token()
		if err != nil {
			return nil, p.jsonErr(err)
		}
		k, _ := key.(string)
		if m[k], err = p.decodeHeld(); err != nil {
			return nil, err
		}
	}
	if _, err := p.dec.Token(); err != nil { // '}'
		return nil, p.jsonErr(err)
	}
	return m, nil
}

// graph streams the elements of a @graph array whose '[' was read, up to its ']'. Before any
// @context was read, elements are held in pending up to the node cap (an @context may follow),
// then converted with what context there is and streamed on (streamed is set).
func (p *jsonldParser) graph(hasCtx bool, pending *[]json.RawMessage, streamed *bool) error {
	if hasCtx {
		return p.array("@graph")
	}
	for p.dec.More() {
		if *streamed {
			if err := p.element("@graph"); err != nil {
				return err
			}
			continue
		}
		var raw json.RawMessage
		p.cr.arm(p.hold - p.held)
		p.setAt(p.dec.InputOffset())
		if err := p.dec.Decode(&raw); err != nil {
			return p.jsonErr(err)
		}
		*pending = append(*pending, raw)
		if p.held += int64(len(raw)); p.held > p.hold/2 {
			if err := p.flush(pending); err != nil {
				return err
			}
			*streamed = true
		}
	}
	p.cr.arm(p.hold)
	if _, err := p.dec.Token(); err != nil { // ']'
		return p.jsonErr(err)
	}
	return nil
}

// flush converts the held @graph elements with the context read so far.
func (p *jsonldParser) flush(pending *[]json.RawMessage) error {
	for i, raw := range *pending {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return p.jsonErr(err)
		}
		p.held -= int64(len(raw))
		(*pending)[i] = nil
		if err := p.convert(v, "@graph", int64(len(raw))); err != nil {
			return err
		}
	}
	*pending = (*pending)[:0]
	return nil
}

// array streams the elements of an array whose '[' was read, up to its ']'.
func (p *jsonldParser) array(activeProperty string) error {
	for p.dec.More() {
		if err := p.element(activeProperty); err != nil {
			return err
		}
	}
	p.cr.arm(p.hold)
	if _, err := p.dec.Token(); err != nil { // ']'
		return p.jsonErr(err)
	}
	return nil
}

// element reads one array element, holding at most the node cap, and converts it.
func (p *jsonldParser) element(activeProperty string) error {
	var v any
	p.cr.arm(p.hold)
	p.setAt(p.dec.InputOffset())
	if err := p.dec.Decode(&v); err != nil {
		return p.jsonErr(err)
	}
	return p.convert(v, activeProperty, p.dec.InputOffset()-p.at)
}

// decodeHeld reads one value to keep until the end of the document, within what is left of
// the node cap.
func (p *jsonldParser) decodeHeld() (any, error) {
	p.cr.arm(p.hold - p.held)
	start := p.dec.InputOffset()
	p.setAt(start)
	var v any
	if err := p.dec.Decode(&v); err != nil {
		return nil, p.jsonErr(err)
	}
	p.held += p.dec.InputOffset() - start
	return v, nil
}

// convert expands one element (size bytes of JSON) with the document's context and delivers
// its triples (JSON-LD 1.1 API: the Expansion, Node Map Generation and Deserialize JSON-LD to RDF
// algorithms, graphs merged). Expansion is json-gold's; an expanded node object of the common
// forms is turned into triples at once by directConverter, without a node map. Other node
// objects are gathered into a batch's node map, as the
// algorithms gather a whole document's, and turned into triples a batch at a time (flushBatch);
// a node object with more than maxNodeValues values of a property is turned into triples on its
// own, in parts (splitNode). A term over the term cap is refused at the element's position.
// json-gold panics on some malformed input: that is an error.
func (p *jsonldParser) convert(v any, activeProperty string, size int64) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = p.ldErr(fmt.Errorf("json-gold: %v", r))
		}
	}()
	expanded, err := p.api.Expand(p.ctx, activeProperty, v, p.opts, false, nil)
	if err != nil {
		return p.ldErr(err)
	}
	if m, ok := expanded.(map[string]any); ok && len(m) == 1 && m["@graph"] != nil {
		expanded = m["@graph"] // a top-level object with only @graph is the default graph
	}
	if expanded == nil {
		return nil
	}
	if n := longestString(expanded); n > p.maxTerm {
		return p.termErr(n, p.at)
	}
	if p.direct != nil {
		if p.direct.convert(expanded) {
			return p.deliverDirect()
		}
		p.direct.hideBlankLabels(expanded)
	}
	parts := splitNode(expanded)
	if len(parts) > 1 {
		if err := p.flushBatch(); err != nil {
			return err
		}
		for _, part := range parts {
			if err := p.addToBatch(part); err != nil {
				return err
			}
			if err := p.flushBatch(); err != nil {
				return err
			}
		}
		return nil
	}
	if p.batch == nil {
		p.batchAt = p.at
	}
	if err := p.addToBatch(expanded); err != nil {
		return err
	}
	p.batchN++
	if p.batchBytes += size; p.batchN >= jsonldBatchNodes || p.batchBytes >= jsonldBatchBytes {
		return p.flushBatch()
	}
	return nil
}

// addToBatch adds an expanded element to the batch's node map (Node Map Generation).
func (p *jsonldParser) addToBatch(expanded any) error {
	if p.batch == nil {
		p.batch = map[string]any{"@default": map[string]any{}}
	}
	if _, err := p.api.GenerateNodeMap(expanded, p.batch, "@default", p.issuer, "", "", nil); err != nil {
		return p.ldErr(err)
	}
	return nil
}

// flushBatch turns the batch's node map into triples and delivers them.
func (p *jsonldParser) flushBatch() (err error) {
	if p.batch == nil {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = p.ldErr(fmt.Errorf("json-gold: %v", r))
		}
	}()
	nodeMap := p.batch
	p.batch, p.batchN, p.batchBytes = nil, 0, 0
	ds := ld.NewRDFDataset()
	for name, g := range nodeMap {
		if !ld.IsRelativeIri(name) {
			ds.GraphToRDF(name, g.(map[string]any), p.issuer, false)
		}
	}
	return p.deliver(ds)
}

// longestString returns the length of the longest string in an expanded JSON-LD value: its
// @id, property IRIs, @type and @value strings.
func longestString(v any) int {
	switch v := v.(type) {
	case string:
		return len(v)
	case []any:
		n := 0
		for _, x := range v {
			n = max(n, longestString(x))
		}
		return n
	case map[string]any:
		n := 0
		for k, x := range v {
			n = max(n, len(k), longestString(x))
		}
		return n
	}
	return 0
}

// maxNodeValues is how many values of one property splitNode leaves in one node object.
const maxNodeValues = 1000

// splitNode splits an expanded node object with an @id whose properties have more than
// maxNodeValues values into node objects with that @id and at most maxNodeValues values of a
// property each: the same triples (node objects with one @id are one node), but json-gold's
// Node Map Generation checks each value against those before it (utils.go mergeValue), so a
// catalog node of 700,000 dcat:dataset references took more than 13 minutes whole. A node
// without @id (a blank node json-gold would name once per part) is left whole.
func splitNode(expanded any) []any {
	node, ok := expanded.(map[string]any)
	id, named := node["@id"].(string)
	if !ok || !named {
		return []any{expanded}
	}
	parts := []any{node}
	for prop, v := range node {
		values, ok := v.([]any)
		if strings.HasPrefix(prop, "@") || !ok || len(values) <= maxNodeValues {
			continue
		}
		node[prop] = values[:maxNodeValues]
		for i := maxNodeValues; i < len(values); i += maxNodeValues {
			parts = append(parts, map[string]any{"@id": id, prop: values[i:min(i+maxNodeValues, len(values))]})
		}
	}
	return parts
}

// deliverDirect calls fn for each triple the direct converter made of the element read last,
// refusing a term over the term cap.
func (p *jsonldParser) deliverDirect() error {
	for _, t := range p.direct.out {
		for _, x := range [3]Term{t.S, t.P, t.O} {
			if len(x.Value) > p.maxTerm {
				return p.termErr(len(x.Value), p.at)
			}
		}
		if err := p.fn(t); err != nil {
			return err
		}
	}
	clear(p.direct.out)
	return nil
}

// deliver calls fn for each triple of ds, refusing a term over the term cap.
func (p *jsonldParser) deliver(ds *ld.RDFDataset) error {
	term := func(n ld.Node) Term { return termFromLD(n, p.blanks) }
	if p.direct != nil {
		term = p.direct.term
	}
	for _, quads := range ds.Graphs {
		for _, q := range quads {
			s, pr, o := term(q.Subject), term(q.Predicate), term(q.Object)
			if s.IsZero() || pr.IsZero() || o.IsZero() {
				continue
			}
			for _, t := range []Term{s, pr, o} {
				if len(t.Value) > p.maxTerm { // a lexical form json-gold made (convert checked the rest)
					return p.termErr(len(t.Value), p.batchAt)
				}
			}
			if err := p.fn(Triple{S: s, P: pr, O: o}); err != nil {
				return err
			}
		}
	}
	return nil
}

// termErr is a term of n bytes over the term cap, in the element at offset at.
func (p *jsonldParser) termErr(n int, at int64) error {
	l, c := p.cr.lineCol(at)
	return &SyntaxError{Format: JSONLD, Line: l, Col: c, Msg: fmt.Sprintf(
		"JSON-LD: a term of %d bytes, over the term cap of %d bytes (the record size cap, --max-record-bytes)",
		n, p.maxTerm)}
}

// ldErr is a JSON-LD error as a *SyntaxError (no position: json-gold gives none).
func (p *jsonldParser) ldErr(err error) error {
	msg := err.Error()
	if errors.Is(err, ErrRemoteContext) || strings.Contains(msg, ErrRemoteContext.Error()) {
		msg = "remote @context not fetched: " + msg
	}
	return &SyntaxError{Format: JSONLD, Msg: "JSON-LD: " + msg}
}

func termFromLD(n ld.Node, blanks *blankScope) Term {
	switch v := n.(type) {
	case ld.IRI:
		return IRI(v.Value)
	case *ld.IRI:
		return IRI(v.Value)
	case ld.BlankNode:
		return blanks.label(strings.TrimPrefix(v.Attribute, "_:"))
	case *ld.BlankNode:
		return blanks.label(strings.TrimPrefix(v.Attribute, "_:"))
	case ld.Literal:
		return Literal(v.Value, v.Datatype, v.Language)
	case *ld.Literal:
		return Literal(v.Value, v.Datatype, v.Language)
	}
	return Term{}
}

// jsonErr turns a read or decode error into a *SyntaxError at the offending byte.
func (p *jsonldParser) jsonErr(err error) error {
	off := p.dec.InputOffset()
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, errOverCap):
		l, c := p.cr.lineCol(p.at)
		return &SyntaxError{Format: JSONLD, Line: l, Col: c, Msg: fmt.Sprintf("JSON-LD: a value over the JSON-LD node cap of %d bytes "+
			"(2 × the record size cap, --max-record-bytes): a node object of the top-level @graph, the document outside "+
			"that array, or one term is held whole, and this one was refused after that many bytes", p.hold)}
	case errors.As(err, &se) && se.Offset != off:
		// A Decode error's Offset counts from no fixed point: find the error again in what
		// is buffered from the value's start.
		var raw json.RawMessage
		var again *json.SyntaxError
		if errors.As(json.NewDecoder(p.dec.Buffered()).Decode(&raw), &again) {
			off += again.Offset - 1
		}
	case errors.As(err, &te):
		off += te.Offset
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		off = p.cr.n
		err = errors.New("unexpected end of JSON input")
	case !errors.As(err, &se):
		return fmt.Errorf("rdf: reading JSON-LD: %w", err)
	}
	l, c := p.cr.lineCol(off)
	return &SyntaxError{Format: JSONLD, Line: l, Col: c, Msg: "JSON: " + err.Error()}
}
