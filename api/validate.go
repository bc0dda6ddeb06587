package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
	"github.com/harvester-dev/harvester/stages/validate"
)

// validateInput is the body of POST /api/v1/validate: a schema type and either a pasted
// document (a dataset object, a catalog object, or either one as a JSON string of its text)
// or the URL of a catalog.
type validateInput struct {
	SchemaType string          `json:"schema_type"`
	JSON       json.RawMessage `json:"json"`
	URL        string          `json:"url"`
}

// validationResult is the answer of POST /api/v1/validate.
type validationResult struct {
	Valid   bool           `json:"valid"`
	Records []recordResult `json:"records"`
	Error   string         `json:"error,omitempty"` // why the document could not be read
}

// recordResult is the verdict on one dataset of the document.
type recordResult struct {
	Index      int           `json:"index"` // 0-based position in the dataset array
	Identifier string        `json:"identifier"`
	Valid      bool          `json:"valid"`
	Errors     []problemJSON `json:"errors"`
}

type problemJSON struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// validate checks a document as a harvest would, storing nothing. A document that cannot be
// read (not JSON, not a catalog, or a download that failed) is a 422 whose error says why:
// the line and column, or the HTTP status.
func (s *server) validate(w http.ResponseWriter, r *http.Request) error {
	in, v, err := decodeValidate(r)
	if err != nil {
		return err
	}
	var records []recordResult
	if in.URL != "" {
		records, err = s.checkURL(r.Context(), v, in.URL)
	} else {
		records, err = checkPasted(v, in.JSON)
	}
	var (
		perr *extract.ParseError
		ferr *extract.FetchError
	)
	switch {
	case errors.As(err, &ferr):
		return writeJSON(w, http.StatusUnprocessableEntity, validationResult{Records: []recordResult{},
			Error: "the document could not be downloaded: " + ferr.Error()})
	case errors.As(err, &perr):
		return writeJSON(w, http.StatusUnprocessableEntity, validationResult{Records: []recordResult{},
			Error: "the document is not a readable DCAT-US catalog: " + perr.Error()})
	case err != nil:
		return err
	}
	res := validationResult{Valid: true, Records: records}
	if records == nil {
		res.Records = []recordResult{}
	}
	for _, rec := range records {
		res.Valid = res.Valid && rec.Valid
	}
	return writeJSON(w, http.StatusOK, res)
}

// decodeValidate reads and checks the request, naming every bad field.
func decodeValidate(r *http.Request) (*validateInput, *validate.Validator, error) {
	data, err := readBody(r)
	if err != nil {
		return nil, nil, err
	}
	var in validateInput
	fields := fieldErrors{}
	if err := decodeObject(data, &in, fields); err != nil {
		return nil, nil, err
	}
	var v *validate.Validator
	if in.SchemaType == "" {
		fields.add("schema_type", "required: %q or %q", harvest.SchemaDCATUS11Federal, harvest.SchemaDCATUS11NonFederal)
	} else if st, err := harvest.ParseSchemaType(in.SchemaType); err != nil {
		fields.add("schema_type", "%v", err)
	} else if st.IsISO() {
		fields.add("schema_type", "validating ISO 19115 XML here is not supported yet: want %q or %q",
			harvest.SchemaDCATUS11Federal, harvest.SchemaDCATUS11NonFederal)
	} else if v, err = validate.NewValidator(string(st)); err != nil {
		return nil, nil, fmt.Errorf("validator for %q: %w", st, err)
	}
	pasted := len(bytes.TrimSpace(in.JSON)) > 0 && string(bytes.TrimSpace(in.JSON)) != "null"
	switch {
	case pasted && in.URL != "":
		fields.add("url", "send either json or url, not both")
	case !pasted && in.URL == "":
		fields.add("json", "required: send json (a dataset or a catalog) or url (a catalog to download)")
	case in.URL != "":
		if msg := checkSourceURL(in.URL); msg != "" {
			fields.add("url", "%s", msg)
		}
	}
	return &in, v, fields.err()
}

// checkURL downloads the catalog at url and checks each of its datasets.
func (s *server) checkURL(ctx context.Context, v *validate.Validator, url string) ([]recordResult, error) {
	f, err := extract.Fetch(ctx, s.fetch, url)
	if err != nil {
		return nil, err
	}
	defer func() {
		f.Close()
		os.Remove(f.Name())
	}()
	return checkCatalog(v, f)
}

// checkPasted checks a pasted document: a catalog (an object with a "dataset" member, or an
// array, which WalkCatalog refuses as a Project Open Data 1.0 catalog) or one dataset. A JSON
// string holds the document's text; text that is not JSON is read as a catalog, so that the
// error names the line and column.
func checkPasted(v *validate.Validator, raw json.RawMessage) ([]recordResult, error) {
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
	}
	if !hasDataset && json.Valid(trimmed) && trimmed[0] != '[' {
		return []recordResult{checkRecord(v, 0, trimmed, map[string]int{})}, nil
	}
	return checkCatalog(v, bytes.NewReader(doc))
}

// checkCatalog checks every dataset of a catalog document. It returns WalkCatalog's
// *ParseError when the document cannot be read; what was checked before is then dropped, as a
// harvest drops the whole job.
func checkCatalog(v *validate.Validator, r io.Reader) ([]recordResult, error) {
	var out []recordResult
	seen := map[string]int{}
	err := extract.WalkCatalog(r, func(pos int, raw json.RawMessage) error {
		out = append(out, checkRecord(v, pos, raw, seen))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// checkRecord checks one dataset against the schema, and its identifier as a harvest keys it:
// a record that passes the schema but has no usable identifier, or repeats one of an earlier
// record of the catalog (seen: identifier → position), is not valid either.
func checkRecord(v *validate.Validator, pos int, raw []byte, seen map[string]int) recordResult {
	e := extract.Identify(pos, raw)
	res := recordResult{Index: pos, Identifier: e.Identifier, Errors: []problemJSON{}}
	problems, err := v.Validate(raw)
	if err != nil {
		problems = []validate.Problem{{Path: "$", Message: err.Error()}}
	}
	for _, p := range problems {
		res.Errors = append(res.Errors, problemJSON{Path: p.Path, Message: p.Message})
	}
	switch first, dup := seen[e.Identifier]; {
	case e.Err != nil && len(problems) == 0:
		res.Errors = append(res.Errors, problemJSON{Path: "$.identifier", Message: e.Err.Error()})
	case e.Err == nil && dup:
		res.Errors = append(res.Errors, problemJSON{Path: "$.identifier", Message: fmt.Sprintf(
			"dataset #%d repeats identifier %q of dataset #%d in this catalog; a harvest keeps the first one",
			pos+1, e.Identifier, first+1)})
	case e.Err == nil:
		seen[e.Identifier] = pos
	}
	res.Valid = len(res.Errors) == 0
	return res
}
