// Package pycswtest starts a real pycsw server (pycsw 2.6.2 from PyPI, installed by
// scripts/services.sh into its own venv and named by HARVESTER_TEST_PYCSW) for tests of the CSW
// source type, as the project's other tests start Postgres, NATS and OpenSearch.
//
// Each [Start] makes a fresh SQLite repository in t.TempDir(), loads the sample records of
// testdata/records into it with pycsw.core.admin.load_records (what `pycsw-admin.py -c
// load_records` runs), and serves pycsw's WSGI application with Python's wsgiref on 127.0.0.1
// and a free port, with the apiso profile on (GetRecords offers outputSchema
// http://www.isotc211.org/2005/gmd besides csw:Record) and CSW-T transactions allowed from
// 127.0.0.1, which [Server.Add] and [Server.Remove] use to change the repository between
// harvests. The server stops when the test ends.
//
// pycsw's PyPI release ships no sample records (its sdist and wheel hold the code and XML
// schemas only; the CITE suite's records live in its source repository), so the records are
// ours: 10 Dublin Core csw:Record documents and 3 ISO 19139 gmd:MD_Metadata documents
// ([SampleIdentifiers]).
package pycswtest

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harvester-dev/harvester/internal/testenv"
)

//go:embed serve.py
var serveScript []byte

// Env is the environment variable naming a Python that imports pycsw.
const Env = "HARVESTER_TEST_PYCSW"

// SampleIdentifiers are the identifiers of the sample records a [Start]ed server holds, in
// pycsw's default order (the order it loaded them: file name order): the dc:identifier of the
// 10 Dublin Core records, then the fileIdentifier of the 3 ISO records.
var SampleIdentifiers = []string{
	"urn:uuid:0c1e7a52-3b7e-4f4a-9d1a-5e0f2c6b8a01",
	"urn:uuid:0c1e7a52-3b7e-4f4a-9d1a-5e0f2c6b8a02",
	"urn:uuid:0c1e7a52-3b7e-4f4a-9d1a-5e0f2c6b8a03",
	"urn:uuid:0c1e7a52-3b7e-4f4a-9d1a-5e0f2c6b8a04",
	"urn:uuid:0c1e7a52-3b7e-4f4a-9d1a-5e0f2c6b8a05",
	"urn:uuid:0c1e7a52-3b7e-4f4a-9d1a-5e0f2c6b8a06",
	"urn:uuid:0c1e7a52-3b7e-4f4a-9d1a-5e0f2c6b8a07",
	"urn:uuid:0c1e7a52-3b7e-4f4a-9d1a-5e0f2c6b8a08",
	"urn:uuid:0c1e7a52-3b7e-4f4a-9d1a-5e0f2c6b8a09",
	"urn:uuid:0c1e7a52-3b7e-4f4a-9d1a-5e0f2c6b8a10",
	"9e1d3c40-6f0b-4c1e-8a57-2a3b4c5d6e01",
	"9e1d3c40-6f0b-4c1e-8a57-2a3b4c5d6e02",
	"9e1d3c40-6f0b-4c1e-8a57-2a3b4c5d6e03",
}

// startTimeout is a safety net only: Start waits on the server's "serving" line and on
// GetCapabilities answering, never on a clock; a busy 2-core machine can take seconds to
// import pycsw and its dependencies.
const startTimeout = 3 * time.Minute

// Server is a running pycsw server.
type Server struct {
	// URL is the CSW endpoint, http://127.0.0.1:PORT/csw, for GET (KVP) and POST (XML)
	// requests, CSW 2.0.2 and 3.0.0.
	URL string
	// Loaded is how many records the repository held when the server started.
	Loaded int

	client *http.Client
}

// RecordsDir returns the absolute path of the sample records' directory (one XML document a
// file), for a test that reads or maps them directly.
func RecordsDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata", "records")
}

// Start starts a pycsw server holding the sample records ([SampleIdentifiers]) and returns it
// once GetCapabilities answers; it stops the server when the test ends. Without
// HARVESTER_TEST_PYCSW the test fails in CI and is skipped elsewhere (internal/testenv).
func Start(t testing.TB) *Server {
	t.Helper()
	return StartRecords(t, RecordsDir())
}

// StartRecords is [Start] with the records of dir (every *.xml file: csw:Record or
// gmd:MD_Metadata documents) instead of the sample records. A file pycsw does not load fails
// the test.
func StartRecords(t testing.TB, dir string) *Server {
	t.Helper()
	python := os.Getenv(Env)
	if python == "" {
		testenv.Missing(t, Env+" is not set: eval \"$(scripts/services.sh)\" installs pycsw from PyPI; no pycsw server for this test")
	}
	home := t.TempDir()
	script := filepath.Join(home, "serve.py")
	if err := os.WriteFile(script, serveScript, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, script, home, dir)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("pycswtest: starting %s: %v", python, err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	s := &Server{client: &http.Client{Timeout: time.Minute}}
	if err := s.readServing(stdout); err != nil {
		t.Fatalf("pycswtest: %v\n%s", err, stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }() // pycsw prints per request
	if err := s.waitCapabilities(); err != nil {
		t.Fatalf("pycswtest: %v\n%s", err, stderr.String())
	}
	return s
}

// readServing reads serve.py's first line, "pycswtest: serving URL LOADED", or fails when the
// process ends (or says nothing for startTimeout).
func (s *Server) readServing(stdout io.Reader) error {
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "pycswtest: serving ") {
				line <- sc.Text()
				return
			}
		}
		close(line)
	}()
	select {
	case l, ok := <-line:
		if !ok {
			return fmt.Errorf("pycsw exited before serving")
		}
		if _, err := fmt.Sscanf(l, "pycswtest: serving %s %d", &s.URL, &s.Loaded); err != nil {
			return fmt.Errorf("unexpected line %q: %v", l, err)
		}
		return nil
	case <-time.After(startTimeout):
		return fmt.Errorf("pycsw said nothing in %s", startTimeout)
	}
}

// waitCapabilities asks GetCapabilities until it answers with an operation list naming
// GetRecords (the listener is up before serve.py prints, so this is normally the first try).
func (s *Server) waitCapabilities() error {
	deadline := time.Now().Add(startTimeout)
	var last error
	for time.Now().Before(deadline) {
		body, err := s.get(url.Values{"service": {"CSW"}, "version": {"2.0.2"}, "request": {"GetCapabilities"}})
		if err == nil && bytes.Contains(body, []byte(`name="GetRecords"`)) {
			return nil
		}
		last = err
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("GetCapabilities did not answer: %v", last)
}

// Get sends a GET (KVP) request with query q and returns the response body; a status other than
// 200 fails the test.
func (s *Server) Get(t testing.TB, q url.Values) []byte {
	t.Helper()
	body, err := s.get(q)
	if err != nil {
		t.Fatalf("pycswtest: %v", err)
	}
	return body
}

func (s *Server) get(q url.Values) ([]byte, error) {
	resp, err := s.client.Get(s.URL + "?" + q.Encode())
	if err != nil {
		return nil, err
	}
	return readOK(resp)
}

// Post sends body as an XML POST request and returns the response body; a status other than 200
// fails the test.
func (s *Server) Post(t testing.TB, body []byte) []byte {
	t.Helper()
	resp, err := s.client.Post(s.URL, "application/xml", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("pycswtest: POST: %v", err)
	}
	out, err := readOK(resp)
	if err != nil {
		t.Fatalf("pycswtest: POST: %v", err)
	}
	return out
}

func readOK(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %d: %.300s", resp.Request.URL, resp.StatusCode, body)
	}
	return body, nil
}

// Identifiers returns the identifiers (dc:identifier) of every record the server holds, in
// pycsw's default order, from one CSW 2.0.2 GetRecords (brief, maxRecords 1000).
func (s *Server) Identifiers(t testing.TB) []string {
	t.Helper()
	body := s.Get(t, url.Values{
		"service": {"CSW"}, "version": {"2.0.2"}, "request": {"GetRecords"},
		"typeNames": {"csw:Record"}, "resultType": {"results"}, "elementSetName": {"brief"},
		"maxRecords": {"1000"},
	})
	var resp struct {
		Results struct {
			Matched int `xml:"numberOfRecordsMatched,attr"`
			Records []struct {
				Identifier string `xml:"http://purl.org/dc/elements/1.1/ identifier"`
			} `xml:"BriefRecord"`
		} `xml:"SearchResults"`
	}
	if err := xml.Unmarshal(body, &resp); err != nil {
		t.Fatalf("pycswtest: GetRecords: %v: %.300s", err, body)
	}
	ids := make([]string, 0, len(resp.Results.Records))
	for _, r := range resp.Results.Records {
		ids = append(ids, r.Identifier)
	}
	if len(ids) != resp.Results.Matched {
		t.Fatalf("pycswtest: GetRecords returned %d of %d matched records", len(ids), resp.Results.Matched)
	}
	return ids
}

// Remove deletes the record with dc:identifier id by a CSW-T Transaction Delete; a count
// deleted other than 1 fails the test.
func (s *Server) Remove(t testing.TB, id string) {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(`<csw:Transaction xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" xmlns:ogc="http://www.opengis.net/ogc" service="CSW" version="2.0.2">` +
		`<csw:Delete><csw:Constraint version="1.1.0"><ogc:Filter><ogc:PropertyIsEqualTo>` +
		`<ogc:PropertyName>dc:identifier</ogc:PropertyName><ogc:Literal>`)
	_ = xml.EscapeText(&b, []byte(id))
	b.WriteString(`</ogc:Literal></ogc:PropertyIsEqualTo></ogc:Filter></csw:Constraint></csw:Delete></csw:Transaction>`)
	if got := s.transaction(t, b.Bytes()).Deleted; got != 1 {
		t.Fatalf("pycswtest: Remove(%q) deleted %d records", id, got)
	}
}

// Add inserts record, one csw:Record or gmd:MD_Metadata XML document (an XML declaration is
// allowed), by a CSW-T Transaction Insert; pycsw indexes it as load_records does. A count
// inserted other than 1 (e.g. an identifier the server already holds) fails the test.
func (s *Server) Add(t testing.TB, record []byte) {
	t.Helper()
	record = bytes.TrimSpace(record)
	if bytes.HasPrefix(record, []byte("<?xml")) {
		if i := bytes.Index(record, []byte("?>")); i >= 0 {
			record = record[i+2:]
		}
	}
	var b bytes.Buffer
	b.WriteString(`<csw:Transaction xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" service="CSW" version="2.0.2"><csw:Insert>`)
	b.Write(record)
	b.WriteString(`</csw:Insert></csw:Transaction>`)
	if got := s.transaction(t, b.Bytes()).Inserted; got != 1 {
		t.Fatalf("pycswtest: Add inserted %d records", got)
	}
}

type transactionSummary struct {
	Inserted int `xml:"totalInserted"`
	Updated  int `xml:"totalUpdated"`
	Deleted  int `xml:"totalDeleted"`
}

// transaction posts a CSW-T request and returns its summary; an ExceptionReport fails the test.
func (s *Server) transaction(t testing.TB, req []byte) transactionSummary {
	t.Helper()
	body := s.Post(t, req)
	var resp struct {
		XMLName xml.Name
		Summary transactionSummary `xml:"TransactionSummary"`
	}
	if err := xml.Unmarshal(body, &resp); err != nil || resp.XMLName.Local != "TransactionResponse" {
		t.Fatalf("pycswtest: Transaction: %v: %.500s", err, body)
	}
	return resp.Summary
}

// lockedBuffer is a bytes.Buffer safe for the process's writes and the test's reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
