package api

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/harvester-dev/harvester/catalog"
	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
)

// ValidateInput is the body of POST /api/v1/validate: a schema type and either a pasted
// document (a dataset object, a catalog object, or either one as a JSON string of its text)
// or the URL of a catalog.
type ValidateInput struct {
	SchemaType string          `json:"schema_type"`
	JSON       json.RawMessage `json:"json"`
	URL        string          `json:"url"`
}

// ValidationResult is the answer of POST /api/v1/validate. It is bounded whatever the
// document's size: at most Validator.MaxRecords records, each with at most
// maxRecordProblems errors (and one that says how many more there were).
type ValidationResult struct {
	Valid     bool           `json:"valid"` // every record was checked, and each is valid
	Truncated bool           `json:"truncated"`
	Records   []RecordResult `json:"records"`
	Error     string         `json:"error,omitempty"` // why the document could not be read
}

// maxRecordProblems caps the errors one record's verdict lists: a record with thousands of
// bad distributions would otherwise make the answer as large as the record many times over.
const maxRecordProblems = 100

// errEnoughRecords stops the walk of a catalog once ValidateMaxRecords datasets were checked.
var errEnoughRecords = errors.New("validate: enough records checked")

// RecordResult is the verdict on one dataset of the document (one record of a DCAT-US 3.0
// catalog: a dataset, data service, catalog record or dataset series).
type RecordResult struct {
	Index      int       `json:"index"` // 0-based position in the dataset array (3.0: in the walk's order)
	Identifier string    `json:"identifier"`
	Valid      bool      `json:"valid"`
	Errors     []Problem `json:"errors"`
	// RecordType and Path are set for DCAT-US 3.0 only: the record's type and its JSON path.
	RecordType string `json:"record_type,omitempty"`
	Path       string `json:"path,omitempty"`
	// Warnings are DCAT-US 3.0's content-quality warnings (dcatus.Warnings3), which never make a
	// record invalid.
	Warnings []Problem `json:"warnings,omitempty"`
}

// Problem is one error or warning of a record: where (a JSON path into the record) and what.
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Validator checks documents as a harvest would, storing nothing. POST /api/v1/validate and
// the web UI's validate page call it (typed, in process), so that both say the same.
type Validator struct {
	// Fetch configures the download of a URL; zero fields take fetch's defaults, and its
	// retry budget is at most 20 s (the caller is waiting).
	Fetch fetch.Config
	// MaxRecords is how many records of one document are checked and answered
	// (Config.ValidateMaxRecords); the rest of the document is not read. 0 or less: 10,000.
	MaxRecords int
}

func (s *server) validator() Validator {
	return Validator{Fetch: s.fetch, MaxRecords: s.cfg.ValidateMaxRecords}
}

// validate checks a document with Validator.Validate: 200 with the verdicts, a 422 naming the
// bad fields, or a 422 whose error says why the document could not be read.
func (s *server) validate(w http.ResponseWriter, r *http.Request) error {
	data, err := readBody(r)
	if err != nil {
		return err
	}
	var in ValidateInput
	fields := fieldErrors{}
	if err := decodeObject(data, &in, fields); err != nil {
		return err
	}
	v := s.validator()
	if in.URL != "" {
		v.ExtendWriteDeadline(w)
	}
	res, err := v.Validate(r.Context(), &in, fields)
	switch {
	case err != nil:
		return err
	case res.Error != "":
		return writeJSON(w, http.StatusUnprocessableEntity, res)
	}
	return writeJSON(w, http.StatusOK, res)
}

// ExtendWriteDeadline moves w's write deadline (the server's WriteTimeout) past the longest
// the check of a URL can take: the download's whole retry budget and one attempt's timeout,
// and a minute to be checked and sent. Writers without a deadline are left alone.
func (v Validator) ExtendWriteDeadline(w http.ResponseWriter) {
	f := validateFetch(v.Fetch)
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(f.RetryBudget + f.Timeout + time.Minute))
}

// Validate checks in's document: the pasted one, or the catalog downloaded from in.URL.
// fields holds what the caller already found wrong (e.g. a body member of the wrong type), by
// field name. The error is a 422 naming every bad field (ErrorOf reads it) or a failure to
// build a schema's validator. A document that cannot be read (not JSON, not a catalog, or a
// download that failed) is no error: the result's Error says why (the line and column, or the
// HTTP status) and it has no records. Only the first MaxRecords records are checked and
// answered: the rest of the document is not read, the result is Truncated, and Valid is then
// false (the records not checked may be invalid).
func (v Validator) Validate(ctx context.Context, in *ValidateInput, fields map[string]string) (*ValidationResult, error) {
	dv, v3, err := checkValidateInput(in, fields)
	if err != nil {
		return nil, err
	}
	c := checker{v: dv, v3: v3, max: v.MaxRecords, seen: map[string]int{}}
	if c.max <= 0 {
		c.max = defaultValidateMaxRecords
	}
	if in.URL != "" {
		err = c.checkURL(ctx, validateFetch(v.Fetch), in.URL)
	} else {
		err = c.checkPasted(in.JSON)
	}
	var (
		perr *catalog.ParseError
		ferr *fetch.Error
	)
	switch {
	case errors.As(err, &ferr):
		return &ValidationResult{Records: []RecordResult{},
			Error: "the document could not be downloaded: " + ferr.Error()}, nil
	case errors.As(err, &perr):
		return &ValidationResult{Records: []RecordResult{},
			Error: "the document is not a readable DCAT-US catalog: " + perr.Error()}, nil
	case err != nil:
		return nil, err
	}
	res := &ValidationResult{Valid: !c.truncated, Truncated: c.truncated, Records: c.records}
	if res.Records == nil {
		res.Records = []RecordResult{}
	}
	for _, rec := range c.records {
		res.Valid = res.Valid && rec.Valid
	}
	return res, nil
}

// checkValidateInput checks in, adding to fields, and returns the 422 naming every bad field,
// or the validator of a DCAT-US 1.1 schema type, or those of each DCAT-US 3.0 record type.
func checkValidateInput(in *ValidateInput, f map[string]string) (*dcatus.Validator, map[string]*dcatus.Validator, error) {
	fields := fieldErrors(f)
	var (
		v  *dcatus.Validator
		v3 map[string]*dcatus.Validator
	)
	if in.SchemaType == "" {
		fields.add("schema_type", "required: %q, %q or %q", harvest.SchemaDCATUS11Federal, harvest.SchemaDCATUS11NonFederal,
			harvest.SchemaDCATUS30)
	} else if st, err := harvest.ParseSchemaType(in.SchemaType); err != nil {
		fields.add("schema_type", "%v", err)
	} else if st.IsXML() || st == harvest.SchemaDCATAP {
		what := "ISO 19115 XML"
		switch st {
		case harvest.SchemaDCATAP:
			what = "DCAT-AP"
		case harvest.SchemaFGDC:
			what = "FGDC CSDGM XML"
		}
		fields.add("schema_type", "validating %s here is not supported yet: want %q, %q or %q", what,
			harvest.SchemaDCATUS11Federal, harvest.SchemaDCATUS11NonFederal, harvest.SchemaDCATUS30)
	} else if st.IsDCATUS3() {
		v3 = map[string]*dcatus.Validator{}
		for _, rt := range []string{catalog.RecordTypeDataset, catalog.RecordTypeDataService,
			catalog.RecordTypeCatalogRecord, catalog.RecordTypeDatasetSeries} {
			if v3[rt], err = dcatus.NewValidator3(rt); err != nil {
				return nil, nil, fmt.Errorf("validator for %q %s: %w", st, rt, err)
			}
		}
	} else if v, err = dcatus.NewValidator(string(st)); err != nil {
		return nil, nil, fmt.Errorf("validator for %q: %w", st, err)
	}
	pasted := len(bytes.TrimSpace(in.JSON)) > 0 && string(bytes.TrimSpace(in.JSON)) != "null"
	switch {
	case pasted && in.URL != "":
		fields.add("url", "send either json or url, not both")
	case !pasted && in.URL == "":
		fields.add("json", "required: send json (a dataset or a catalog) or url (a catalog to download)")
	case in.URL != "":
		if msg := harvest.CheckSourceURL(in.URL); msg != "" {
			fields.add("url", "%s", msg)
		}
	}
	return v, v3, fields.err()
}

// checker checks the datasets of one document in order, keeping the verdicts of at most max.
type checker struct {
	v         *dcatus.Validator            // DCAT-US 1.1
	v3        map[string]*dcatus.Validator // DCAT-US 3.0, by record type; nil for 1.1
	max       int
	seen      map[string]int // identifier → position, for repeated identifiers
	records   []RecordResult
	truncated bool // a dataset after the first max was found, and not checked
}

// add checks the dataset at pos, or stops the walk with errEnoughRecords when max were checked.
func (c *checker) add(pos int, raw []byte) error {
	if len(c.records) >= c.max {
		c.truncated = true
		return errEnoughRecords
	}
	if raw == nil { // over the record size cap: WalkCatalog does not hold it
		c.records = append(c.records, RecordResult{Index: pos, Errors: []Problem{{Path: "$", Message: fmt.Sprintf(
			"dataset #%d is over the record size cap of %d bytes; a harvest makes it an error row",
			pos+1, catalog.DefaultMaxRecordBytes)}}})
		return nil
	}
	c.records = append(c.records, checkRecord(c.v, catalog.Identify(pos, raw), c.seen))
	return nil
}

// add3 checks one record of a DCAT-US 3.0 catalog (catalog.WalkEntries3's entry), against the
// schema of its record type, or stops the walk with errEnoughRecords when max were checked.
func (c *checker) add3(e catalog.Entry) error {
	if len(c.records) >= c.max {
		c.truncated = true
		return errEnoughRecords
	}
	var res RecordResult
	if e.TooLarge {
		res = RecordResult{Index: e.Position, Identifier: e.Identifier, Errors: []Problem{{Path: "$", Message: fmt.Sprintf(
			"record #%d is over the record size cap of %d bytes; a harvest makes it an error row",
			e.Position+1, catalog.DefaultMaxRecordBytes)}}}
	} else {
		res = checkRecord(c.v3[cmp.Or(e.RecordType, catalog.RecordTypeDataset)], e, c.seen)
		for _, w := range dcatus.Warnings3(e.Raw) {
			res.Warnings = append(res.Warnings, Problem{Path: w.Path, Message: w.Message})
		}
	}
	res.RecordType, res.Path = cmp.Or(e.RecordType, catalog.RecordTypeDataset), e.Path
	c.records = append(c.records, res)
	return nil
}

// checkURL downloads the catalog at url with cfg and checks its datasets.
func (c *checker) checkURL(ctx context.Context, cfg fetch.Config, url string) error {
	f, err := fetch.Get(ctx, cfg, url)
	if err != nil {
		return err
	}
	defer func() {
		f.Close()
		os.Remove(f.Name())
	}()
	if c.v3 != nil {
		return c.checkCatalog3(f)
	}
	return c.checkCatalog(f)
}

// checkPasted checks a pasted document: a catalog (an object with a "dataset" member, or an
// array, which WalkCatalog refuses as a Project Open Data 1.0 catalog) or one dataset. A JSON
// string holds the document's text; text that is not JSON is read as a catalog, so that the
// error names the line and column.
func (c *checker) checkPasted(raw json.RawMessage) error {
	doc := []byte(raw)
	var text string
	if json.Unmarshal(raw, &text) == nil {
		doc = []byte(text)
	}
	trimmed := bytes.TrimSpace(doc)
	var members map[string]json.RawMessage
	hasDataset := false
	if len(trimmed) > 0 && trimmed[0] == '{' && json.Unmarshal(trimmed, &members) == nil {
		_, hasDataset = members["dataset"]
		if c.v3 != nil { // a DCAT-US 3.0 catalog may list services, records or series only
			for _, k := range []string{"service", "record", "datasetSeries", "catalog"} {
				_, in := members[k]
				hasDataset = hasDataset || in
			}
		}
	}
	if !hasDataset && json.Valid(trimmed) && trimmed[0] != '[' {
		if c.v3 != nil {
			e := catalog.Identify(0, trimmed)
			e.Raw, e.Path = trimmed, "$"
			return c.add3(e)
		}
		return c.add(0, trimmed)
	}
	if c.v3 != nil {
		return c.checkCatalog3(bytes.NewReader(doc))
	}
	return c.checkCatalog(bytes.NewReader(doc))
}

// checkCatalog3 checks the records of a DCAT-US 3.0 catalog document as a harvest lists them
// (catalog.Check3, then catalog.WalkEntries3: nested catalogs, embedded datasets lifted out),
// up to c.max, with checkCatalog's rules for a document that cannot be read.
func (c *checker) checkCatalog3(r io.ReadSeeker) error {
	links, err := catalog.Check3(r)
	if err == nil {
		if _, err = r.Seek(0, io.SeekStart); err == nil {
			err = catalog.WalkEntries3(r, catalog.DefaultMaxRecordBytes, links, c.add3)
		}
	}
	if errors.Is(err, errEnoughRecords) {
		return nil
	}
	if err != nil {
		c.records = nil
	}
	return err
}

// checkCatalog checks the datasets of a catalog document, up to c.max. It returns
// WalkCatalog's *ParseError when the document cannot be read; what was checked before is then
// dropped, as a harvest drops the whole job. Past c.max the document is not read further, so a
// syntax error there is not seen.
func (c *checker) checkCatalog(r io.Reader) error {
	err := catalog.WalkCatalog(r, func(pos int, raw json.RawMessage) error { return c.add(pos, raw) })
	if errors.Is(err, errEnoughRecords) {
		return nil
	}
	if err != nil {
		c.records = nil
	}
	return err
}

// checkRecord checks one record (e, as catalog.Identify or catalog.WalkEntries3 made it) against the schema, and its identifier as a harvest keys it
// (harvest.CheckIdentifier, EXTRACT's rule): a record that passes the schema but has no usable
// identifier, or one with U+0000 or repeating one of an earlier record of the catalog (seen:
// identifier → position), is not valid either. At most
// maxRecordProblems errors are listed; a last one says how many more there were.
func checkRecord(v *dcatus.Validator, e catalog.Entry, seen map[string]int) RecordResult {
	pos := e.Position
	res := RecordResult{Index: pos, Identifier: e.Identifier, Errors: []Problem{}}
	problems, err := v.Validate(e.Raw)
	if err != nil {
		problems = []dcatus.Problem{{Path: "$", Message: err.Error()}}
	}
	for _, p := range problems {
		res.Errors = append(res.Errors, Problem{Path: p.Path, Message: p.Message})
	}
	switch bad := harvest.CheckIdentifier(pos, e.Identifier, e.Title, e.Err, seen); {
	case bad == nil:
		seen[e.Identifier] = pos
	case bad.Type != harvest.TypeMissingIdentifier || len(problems) == 0: // the schema names a missing one already
		res.Errors = append(res.Errors, Problem{Path: "$.identifier", Message: bad.Message})
	}
	res.Valid = len(res.Errors) == 0
	if n := len(res.Errors); n > maxRecordProblems {
		res.Errors = append(res.Errors[:maxRecordProblems:maxRecordProblems], Problem{Path: "$",
			Message: fmt.Sprintf("%d more errors not listed (at most %d are)", n-maxRecordProblems, maxRecordProblems)})
	}
	return res
}
