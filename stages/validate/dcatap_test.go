package validate_test

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/rdf"
	"github.com/harvester-dev/harvester/shacl/profiles"
	"github.com/harvester-dev/harvester/stages/validate"
)

const (
	dcat = "http://www.w3.org/ns/dcat#"
	dct  = "http://purl.org/dc/terms/"
)

// recordGraph is a dataset's record graph as EXTRACT sends it (until dcatap.Split is used
// here): the dataset's triples and those of every node reachable from it, not entering other
// catalogs or datasets, as canonical N-Quads.
func recordGraph(t *testing.T, g rdf.Graph, root rdf.Term) []byte {
	t.Helper()
	stop := func(n rdf.Term) bool {
		found := false
		for _, c := range []string{"Catalog", "Dataset"} {
			_ = g.Match(n, rdf.IRI(rdf.RDFType), rdf.IRI(dcat+c), func(rdf.Triple) error { found = true; return nil })
		}
		return found
	}
	seen := map[rdf.Term]bool{root: true}
	todo := []rdf.Term{root}
	var ts []rdf.Triple
	for len(todo) > 0 {
		n := todo[0]
		todo = todo[1:]
		_ = g.Match(n, rdf.Term{}, rdf.Term{}, func(tr rdf.Triple) error {
			ts = append(ts, tr)
			if !tr.O.IsLiteral() && !seen[tr.O] && !stop(tr.O) {
				seen[tr.O] = true
				todo = append(todo, tr.O)
			}
			return nil
		})
	}
	nq, err := rdf.CanonicalNQuads(ts)
	require.NoError(t, err)
	return nq
}

func parseCorpus(t *testing.T, name string) *rdf.MemGraph {
	t.Helper()
	p := corpustest.Path(t, "dcatap/"+name)
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	f, err := rdf.FormatFor("", "", name)
	require.NoError(t, err)
	g := rdf.NewMemGraph()
	require.NoError(t, rdf.ParseGraph(bytes.NewReader(b), f, "http://example.org/corpus/"+name, g))
	return g
}

func datasets(g rdf.Graph) []rdf.Term {
	var out []rdf.Term
	_ = g.Match(rdf.Term{}, rdf.IRI(rdf.RDFType), rdf.IRI(dcat+"Dataset"), func(tr rdf.Triple) error {
		if tr.S.IsIRI() {
			out = append(out, tr.S)
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Value < out[j].Value })
	return out
}

func dcatapRecord(jobType harvest.JobType, identifier string, body []byte, profile string) *harvest.Record {
	return &harvest.Record{JobID: "00000000-0000-0000-0000-000000000001", RecordID: "r", JobType: jobType,
		SchemaType: harvest.SchemaDCATAP, Identifier: identifier, Action: harvest.ActionCreate, Profile: profile,
		Body: harvest.RawText(body), Transformed: harvest.RawText(`{"identifier": "` + identifier + `"}`)}
}

func handle(t *testing.T, rec *harvest.Record) *harvest.Message {
	t.Helper()
	msg, err := harvest.RecordMessage(harvest.SubjectValidate, rec)
	require.NoError(t, err)
	msg.SetContext(t.Context())
	out, err := validate.New().Handle(msg)
	require.NoError(t, err)
	require.Len(t, out, 1)
	return out[0]
}

// severities counts the error and warning rows; a row whose type does not match its severity
// (a warning typed ValidationError, as issue 26 item 7 found) panics.
func severities(errs []harvest.RecordError) (nErr, nWarn int) {
	types := map[harvest.Severity]string{harvest.SeverityError: harvest.TypeValidationError,
		harvest.SeverityWarning: harvest.TypeValidationWarning}
	for _, e := range errs {
		if e.Type != types[e.Severity] {
			panic("row type " + e.Type + " of severity " + string(e.Severity))
		}
		if e.Severity == harvest.SeverityError {
			nErr++
		} else {
			nWarn++
		}
	}
	return
}

// A valid example record goes on to SYNC under its profile (SEMIC's example under DCAT-AP 2.1.1,
// 3.0.0 and the default; Digdir's under DCAT-AP-NO); its range findings, if any, ride along as
// warnings, never as errors.
func TestDCATAPValidRecordGoesToSync(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ file, profile string }{
		{"semic-2.1.1-example1.nt", profiles.DCATAP211}, {"semic-2.1.1-example1.nt", profiles.DCATAP300},
		{"semic-2.1.1-example1.nt", ""}, {"dcat-ap-no-2.0-examples.ttl", profiles.DCATAPNO2},
	} {
		g := parseCorpus(t, c.file)
		ds := datasets(g)
		require.Len(t, ds, 1)
		profile := c.profile
		out := handle(t, dcatapRecord(harvest.JobHarvest, ds[0].Value, recordGraph(t, g, ds[0]), profile))
		require.Equal(t, harvest.SubjectSync, out.Metadata.Get(harvest.MetaSubject), "profile %q", profile)
		var rec harvest.Record
		require.NoError(t, harvest.Decode(out, &rec))
		require.True(t, rec.Validated)
		nErr, _ := severities(rec.Warnings)
		require.Zero(t, nErr)
	}
}

// A dataset without dct:title and dct:description fails (mandatory properties), with one error
// row per missing property naming the focus node and path, and the range findings as warnings.
func TestDCATAPMissingMandatoryFails(t *testing.T) {
	t.Parallel()
	const id = "http://example.org/ds/1"
	body := []byte(`<http://example.org/ds/1> <` + rdf.RDFType + `> <` + dcat + `Dataset> .
<http://example.org/ds/1> <` + dct + `issued> "yesterday" .
<http://example.org/ds/1> <` + dcat + `distribution> <http://example.org/dist/1> .
<http://example.org/dist/1> <` + rdf.RDFType + `> <` + dcat + `Distribution> .
`)
	for _, profile := range profiles.Names() {
		out := handle(t, dcatapRecord(harvest.JobHarvest, id, body, profile))
		require.Equal(t, harvest.SubjectSettled, out.Metadata.Get(harvest.MetaSubject))
		var s harvest.Settled
		require.NoError(t, harvest.Decode(out, &s))
		require.Equal(t, harvest.RecordErrorValidation, s.Status, profile)
		require.Equal(t, harvest.OutcomeErrored, s.Outcome)
		require.NotEmpty(t, s.Transformed)
		var errs, warns []string
		for _, e := range s.Errors {
			if e.Severity == harvest.SeverityError {
				errs = append(errs, e.Message)
			} else {
				warns = append(warns, e.Message)
			}
		}
		joined := strings.Join(errs, "\n")
		require.Contains(t, joined, id+" dct:title: ", profile)
		require.Contains(t, joined, id+" dct:description: ", profile)
		require.Contains(t, joined, "http://example.org/dist/1 dcat:accessURL: ", profile)
		require.Contains(t, joined, "(sh:minCount)")
		for _, e := range errs {
			require.Contains(t, e, "(sh:minCount)", "only missing mandatory properties are errors")
		}
		if profile != profiles.DCATAP300 { // 3.0.0 has no datatype shape on dct:issued
			require.Contains(t, strings.Join(warns, "\n"), id+" dct:issued: ", "range finding as a warning (%s)", profile)
		}
	}
}

func TestDCATAPBadRecords(t *testing.T) {
	t.Parallel()
	const id = "http://example.org/ds/1"
	good := `<http://example.org/ds/1> <` + rdf.RDFType + `> <` + dcat + `Dataset> .` + "\n"
	for name, c := range map[string]struct {
		body, profile, want string
	}{
		"body does not parse": {body: "<http://example.org/ds/1> not n-quads", want: "record graph (N-Quads) does not parse"},
		"unknown profile":     {body: good, profile: "dcat-ap-0.1", want: `unknown SHACL profile "dcat-ap-0.1"`},
		"not a dataset":       {body: `<http://example.org/ds/1> <` + dct + `title> "T" .` + "\n", want: id + " rdf:type: the record is not a dcat:Dataset"},
	} {
		t.Run(name, func(t *testing.T) {
			out := handle(t, dcatapRecord(harvest.JobHarvest, id, []byte(c.body), c.profile))
			var s harvest.Settled
			require.NoError(t, harvest.Decode(out, &s))
			require.Equal(t, harvest.RecordErrorValidation, s.Status)
			var msgs []string
			for _, e := range s.Errors {
				if e.Severity == harvest.SeverityError {
					msgs = append(msgs, e.Message)
				}
			}
			require.Contains(t, strings.Join(msgs, "\n"), c.want)
		})
	}
}

// In a validate job a passing record settles at VALIDATE with its warnings as the outcome's rows.
func TestDCATAPValidateJobSettlesWithWarnings(t *testing.T) {
	t.Parallel()
	g := parseCorpus(t, "ckan-demo-catalog-hydra.ttl")
	var id string
	var body []byte
	for _, d := range datasets(g) {
		b := recordGraph(t, g, d)
		errs, warns := validate.ValidateDCATAP(d.Value, b, "")
		if len(errs) == 0 && len(warns) > 0 {
			id, body = d.Value, b
			break
		}
	}
	require.NotEmpty(t, id, "a demo.ckan.org dataset that passes with warnings")
	out := handle(t, dcatapRecord(harvest.JobValidate, id, body, ""))
	require.Equal(t, harvest.SubjectSettled, out.Metadata.Get(harvest.MetaSubject))
	var s harvest.Settled
	require.NoError(t, harvest.Decode(out, &s))
	require.True(t, s.Validated)
	require.Equal(t, harvest.OutcomeOf(harvest.ActionCreate), s.Outcome)
	nErr, nWarn := severities(s.Errors)
	require.Zero(t, nErr)
	require.NotZero(t, nWarn)
}

// The corpus files whose records fail under the default profile, and the mandatory property
// they lack (checked against the files by hand: these are real omissions, not range findings).
var knownFailing = map[string]string{
	"ckan-demo-catalog-hydra.rdf":                    "dct:description", // 25 of 100 CKAN datasets have no notes
	"ckan-demo-catalog-hydra.ttl":                    "dct:description",
	"ckanext-dcat-catalog-pod.jsonld":                "dcat:accessURL",  // POD distributions have downloadURL only
	"fdk-harvest-response-0-old-dataset-removed.ttl": "dct:description", // FDK test fixtures: title only
	"fdk-norway-nested-blank-nodes.ttl":              "dct:description",
	// its IRIs contain spaces, which rdf.CanonicalNQuads writes raw and rdf.Parse then rejects
	"geonetwork-sig-oreme-catalogrecords.rdf": "parse",
}

// TestDCATAPCorpus validates every dataset record of every valid dcatap/ corpus file with every
// profile and logs how many fail and why. Under the default profile a record fails only for a
// missing mandatory property (never a range finding), only the files of knownFailing have failing
// records, and most records of the corpus pass.
func TestDCATAPCorpus(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(corpustest.Dir(t), "dcatap", "*"))
	require.NoError(t, err)
	total, totalFailed := 0, 0
	for _, f := range files {
		name := filepath.Base(f)
		if strings.HasPrefix(name, "INVALID-") {
			continue
		}
		g := parseCorpus(t, name)
		ds := datasets(g)
		if len(ds) == 0 {
			t.Logf("%s: no dataset with an IRI", name)
			continue
		}
		for _, profile := range profiles.Names() {
			failed := 0
			reasons := map[string]int{}
			warnings := 0
			for _, d := range ds {
				errs, warns := validate.ValidateDCATAP(d.Value, recordGraph(t, g, d), profile)
				warnings += len(warns)
				if len(errs) > 0 {
					failed++
				}
				for _, e := range errs {
					// "<focus> <path>: …" -> the path, for a short reason
					reason := e.Message
					if strings.HasPrefix(reason, "record graph (N-Quads) does not parse") {
						reason = "parse"
					} else if i := strings.Index(reason, ": "); i > 0 {
						reason = reason[:i]
						if j := strings.LastIndex(reason, " "); j > 0 {
							reason = reason[j+1:]
						}
					}
					reasons[reason]++
				}
			}
			t.Logf("%s [%s]: %d/%d records fail %v; %d warning rows", name, profile, failed, len(ds), reasons, warnings)
			if profile != profiles.Default {
				continue
			}
			total += len(ds)
			totalFailed += failed
			if want, ok := knownFailing[name]; ok {
				require.NotZero(t, failed, "%s no longer fails: update knownFailing", name)
				require.Equal(t, []string{want}, keysOf(reasons), name)
			} else {
				require.Zero(t, failed, "%s: %v", name, reasons)
			}
		}
	}
	require.Less(t, 2*totalFailed, total, "most corpus records pass under %s", profiles.Default)
}

func keysOf(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// A record COMPARE sends only to be checked again under its source's new settings
// (Record.Revalidate) settles unchanged when it passes, a success whose dataset SYNC does not
// rewrite, and errored when it fails; a validate job counts it as a harvest would.
func TestRevalidatedRecordSettles(t *testing.T) {
	t.Parallel()
	g := parseCorpus(t, "semic-2.1.1-example1.nt")
	ds := datasets(g)[0]
	body := recordGraph(t, g, ds)
	for _, c := range []struct {
		jobType harvest.JobType
		body    []byte
		want    harvest.Settled
	}{
		{harvest.JobHarvest, body, harvest.Settled{Outcome: harvest.OutcomeUnchanged, RecordID: "r",
			Status: harvest.RecordSuccess, Validated: true}},
		{harvest.JobValidate, body, harvest.Settled{Outcome: harvest.OutcomeUnchanged, Validated: true}},
		{harvest.JobHarvest, []byte("not n-quads"), harvest.Settled{Outcome: harvest.OutcomeErrored, RecordID: "r",
			Status: harvest.RecordErrorValidation}},
	} {
		rec := dcatapRecord(c.jobType, ds.Value, c.body, profiles.DCATAP300)
		rec.Action, rec.Revalidate = harvest.ActionUpdate, true
		out := handle(t, rec)
		require.Equal(t, harvest.SubjectSettled, out.Metadata.Get(harvest.MetaSubject))
		var s harvest.Settled
		require.NoError(t, harvest.Decode(out, &s))
		require.Equal(t, c.want, harvest.Settled{Outcome: s.Outcome, RecordID: s.RecordID, Status: s.Status,
			Validated: s.Validated}, "%s", c.jobType)
	}
}
