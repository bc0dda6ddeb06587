package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/harvest"
)

// corpusCatalogs are the real federal catalogs the synthetic catalog's records come from.
var corpusCatalogs = []string{
	"dcatus/agency-gsa-2025-07.data.json", "dcatus/agency-dhs-2025-07.data.json",
	"dcatus/agency-dol-2025-07.data.json", "dcatus/agency-energy-2025-07.data.json",
	"dcatus/agency-va-2025-07.data.json", "dcatus/agency-cms-2025-07.data.json",
}

const (
	// maxTemplates caps the distinct corpus records the catalog cycles through.
	maxTemplates = 2000
	// maxTemplateBytes leaves out the rare very large record, so a run's record size stays
	// that of a typical catalog (about 2 KB).
	maxTemplateBytes = 8 << 10
	// changedEvery: every changedEvery-th record differs in the changed catalog (10%).
	changedEvery = 10
)

// loadTemplates returns up to maxTemplates records of the corpus catalogs (each one dataset
// object, as the publisher wrote it) that are valid DCAT-US 1.1 federal, so a harvest of the
// synthetic catalog adds every record. It returns an error when the corpus cannot be read or
// holds no such record.
func loadTemplates(corpusDir string) ([]map[string]json.RawMessage, error) {
	v, err := dcatus.NewValidator(string(harvest.SchemaDCATUS11Federal))
	if err != nil {
		return nil, err
	}
	var out []map[string]json.RawMessage
	for _, name := range corpusCatalogs {
		data, err := os.ReadFile(filepath.Join(corpusDir, name))
		if err != nil {
			return nil, fmt.Errorf("corpus: %w", err)
		}
		var cat struct {
			Dataset []json.RawMessage `json:"dataset"`
		}
		if err := json.Unmarshal(data, &cat); err != nil {
			return nil, fmt.Errorf("corpus %s: %w", name, err)
		}
		for _, raw := range cat.Dataset {
			if len(raw) > maxTemplateBytes {
				continue
			}
			if problems, err := v.Validate(raw); err != nil || len(problems) > 0 {
				continue
			}
			var rec map[string]json.RawMessage
			if err := json.Unmarshal(raw, &rec); err != nil {
				continue
			}
			var desc string
			if json.Unmarshal(rec["description"], &desc) != nil || json.Unmarshal(rec["title"], new(string)) != nil {
				continue
			}
			out = append(out, rec)
			if len(out) == maxTemplates {
				return out, nil
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("corpus %s: no valid DCAT-US 1.1 federal record in %v", corpusDir, corpusCatalogs)
	}
	return out, nil
}

// benchIdentifier is the identifier of the synthetic catalog's record i.
func benchIdentifier(i int) string { return fmt.Sprintf("bench-%07d", i) }

// writeCatalog writes a DCAT-US 1.1 catalog of n records to w, streaming: record i is
// templates[i % len] with identifier benchIdentifier(i) and its title suffixed with the index
// (unique titles; a title longer than catalogsync.MaxSlugLen still shares its slug with others,
// as in real catalogs, and takes a suffixed one). With changed, every changedEvery-th record (i = 0, 10,
// 20, …) has " (revised)" appended to its description.
func writeCatalog(w io.Writer, templates []map[string]json.RawMessage, n int, changed bool) error {
	return writeCatalogFrom(w, templates, 0, n, changed, nil)
}

// writeCatalogFrom is writeCatalog of the records from, from+1, …, from+n-1 of the synthetic
// catalog: the catalogs of the fleet's sources are disjoint ranges of it, so every dataset
// identifier, title and link is unique across sources (no cross-source duplicates). relink makes
// record i's links its own; nil is uniqueLinks.
func writeCatalogFrom(w io.Writer, templates []map[string]json.RawMessage, from, n int, changed bool,
	relink func(map[string]json.RawMessage, int)) error {
	if relink == nil {
		relink = uniqueLinks
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	if _, err := bw.WriteString(`{"@type":"dcat:Catalog","conformsTo":"https://project-open-data.cio.gov/v1.1/schema","dataset":[`); err != nil {
		return err
	}
	var buf bytes.Buffer
	for k := range n {
		i := from + k
		t := templates[i%len(templates)]
		rec := make(map[string]json.RawMessage, len(t))
		for k, v := range t {
			rec[k] = v
		}
		var title, desc string
		_ = json.Unmarshal(t["title"], &title)
		rec["title"] = mustJSON(fmt.Sprintf("%s #%d", title, i))
		rec["identifier"] = mustJSON(benchIdentifier(i))
		relink(rec, i)
		if changed && i%changedEvery == 0 {
			_ = json.Unmarshal(t["description"], &desc)
			rec["description"] = mustJSON(desc + " (revised)")
		}
		buf.Reset()
		if k > 0 {
			buf.WriteByte(',')
		}
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rec); err != nil {
			return err
		}
		if _, err := bw.Write(bytes.TrimRight(buf.Bytes(), "\n")); err != nil {
			return err
		}
	}
	if _, err := bw.WriteString("]}\n"); err != nil {
		return err
	}
	return bw.Flush()
}

// uniqueLinks makes record i's landingPage and distribution downloadURLs its own (a fragment
// "bench-<i>" added, or "-bench-<i>" appended to the fragment a URL has), as the identifier is:
// records cycle through the templates, and two sources sharing a landingPage or a downloadURL
// set would be cross-source duplicates, whose warning rows the bench's exact counts do not
// expect.
func uniqueLinks(rec map[string]json.RawMessage, i int) {
	unique := func(u string) string {
		if strings.Contains(u, "#") {
			return fmt.Sprintf("%s-bench-%d", u, i)
		}
		return fmt.Sprintf("%s#bench-%d", u, i)
	}
	var landing string
	if json.Unmarshal(rec["landingPage"], &landing) == nil && landing != "" {
		rec["landingPage"] = mustJSON(unique(landing))
	}
	var dists []map[string]json.RawMessage
	if json.Unmarshal(rec["distribution"], &dists) != nil {
		return
	}
	for _, d := range dists {
		var u string
		if json.Unmarshal(d["downloadURL"], &u) == nil && u != "" {
			d["downloadURL"] = mustJSON(unique(u))
		}
	}
	if b, err := json.Marshal(dists); err == nil {
		rec["distribution"] = b
	}
}

// changedCount is how many records writeCatalog changes in a catalog of n.
func changedCount(n int) int { return (n + changedEvery - 1) / changedEvery }

func mustJSON(s string) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// catalogServer serves the bench source's catalog at /data.json (as written, or with 10% of
// the records changed: serving picks 0 or 1) and the fleet scenarios' catalogs, streamed from
// disk with no validators (no Last-Modified or ETag), so every job downloads and reads the
// whole catalog. base is the server's http://host:port.
type catalogServer struct {
	base    string
	serving atomic.Int32
	stop    func()
	// links are the first_harvest_check scenario's link hosts (its catalog at /check.json);
	// nil when it does not run.
	links *linkServers
}

// serveCatalogs writes the catalogs into dir and serves them.
func serveCatalogs(dir string, templates []map[string]json.RawMessage, o options) (*catalogServer, error) {
	files := [2]string{filepath.Join(dir, "catalog.json"), filepath.Join(dir, "catalog-changed.json")}
	for i, f := range files {
		if err := writeFile(f, func(w io.Writer) error { return writeCatalog(w, templates, o.records, i == 1) }); err != nil {
			return nil, fmt.Errorf("write catalog: %w", err)
		}
	}
	// records [0, n) are the bench source's, [n, 2n) first_harvest_check's, the fleets' after them
	fleetFiles, err := o.fleet.writeCatalogs(dir, templates, 2*o.records, o.scenarios)
	if err != nil {
		return nil, fmt.Errorf("write catalog: %w", err)
	}
	c := &catalogServer{}
	checkFile := filepath.Join(dir, "catalog-check.json")
	if slices.Contains(o.scenarios, checkScenario) {
		if c.links, err = serveLinks(); err != nil {
			return nil, err
		}
		relink := loopbackLinks(c.links.hosts)
		if err := writeFile(checkFile, func(w io.Writer) error {
			return writeCatalogFrom(w, templates, o.records, o.records, false, relink)
		}); err != nil {
			c.links.stop()
			return nil, fmt.Errorf("write catalog: %w", err)
		}
	}
	route := func(path string) (string, bool) {
		switch path {
		case "/data.json":
			return files[c.serving.Load()], true
		case "/check.json":
			return checkFile, c.links != nil
		}
		f, ok := fleetFiles[path]
		return f, ok
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		file, ok := route(r.URL.Path)
		if !ok {
			http.NotFound(w, r)
			return
		}
		f, err := os.Open(file)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer f.Close()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.Copy(w, f)
	})}
	go func() { _ = srv.Serve(ln) }()
	c.base, c.stop = "http://"+ln.Addr().String(), func() {
		_ = srv.Close()
		if c.links != nil {
			c.links.stop()
		}
	}
	return c, nil
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
