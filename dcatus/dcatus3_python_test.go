package dcatus

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/catalog"
	"github.com/harvester-dev/harvester/corpustest"
)

// verdicts3Python is the Python side of TestDCATUS3VerdictsEqualPython: it reads
// [{"type": …, "record": …}, …] on stdin and prints one verdict (true: valid) per record, with
// Python jsonschema, Draft 2020-12, FormatChecker, and a referencing Registry of every official
// definition by $id, one validator rooted per record type, as Data.gov H2.0 validates dcatus3.0.
const verdicts3Python = `
import json, sys, glob
from jsonschema import Draft202012Validator, FormatChecker
from referencing import Registry, Resource
defs = [json.load(open(f)) for f in glob.glob(sys.argv[1] + "/*.json")]
registry = Registry().with_resources([(d["$id"], Resource.from_contents(d)) for d in defs])
root = "https://resources.data.gov/dcat-us/3.0.0/definitions/"
validators = {}
out = []
for item in json.load(sys.stdin):
    t = item["type"]
    if t not in validators:
        validators[t] = Draft202012Validator({"$ref": root + t}, registry=registry, format_checker=FormatChecker())
    out.append(validators[t].is_valid(item["record"]))
print(json.dumps(out))
`

// corpus3 returns every DCAT-US 3.0 record of the corpus (as EXTRACT lists them, embedded
// datasets lifted out), with its record type.
func corpus3(t *testing.T) (types []string, records []json.RawMessage, names []string) {
	t.Helper()
	dir := filepath.Join(corpustest.Dir(t), "dcatus")
	files, err := filepath.Glob(filepath.Join(dir, "*dcatus3-*.json"))
	require.NoError(t, err)
	require.Len(t, files, 12, "the DCAT-US 3.0 files of the corpus (the issue says 11; the corpus has 12)")
	for _, f := range files {
		fh, err := os.Open(f)
		require.NoError(t, err)
		links, err := catalog.Check3(fh)
		require.NoError(t, err, f)
		_, _ = fh.Seek(0, 0)
		require.NoError(t, catalog.WalkEntries3(fh, catalog.DefaultMaxRecordBytes, links, func(e catalog.Entry) error {
			types, records = append(types, e.RecordType), append(records, e.Raw)
			names = append(names, filepath.Base(f)+" "+e.Path)
			return nil
		}))
		fh.Close()
	}
	return types, records, names
}

// Acceptance (issue 17, item 3): for every DCAT-US 3.0 record of the corpus, Validate3's
// verdict equals Python jsonschema's on the official definitions. Python comes from
// HARVESTER_TEST_PYTHON (scripts/services.sh makes a venv with jsonschema); without it the
// test fails in CI (CI=true) and is skipped elsewhere.
func TestDCATUS3VerdictsEqualPython(t *testing.T) {
	t.Parallel()
	python := os.Getenv("HARVESTER_TEST_PYTHON")
	if python == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("HARVESTER_TEST_PYTHON is not set: run scripts/services.sh, which makes a venv with Python jsonschema")
		}
		t.Skip("HARVESTER_TEST_PYTHON is not set (scripts/services.sh sets it)")
	}
	types, records, names := corpus3(t)
	require.NotEmpty(t, records)
	var in []map[string]any
	for i, r := range records {
		in = append(in, map[string]any{"type": types[i], "record": r})
	}
	stdin, err := json.Marshal(in)
	require.NoError(t, err)
	// Python reads the corpus copy of the official definitions, not our embedded one.
	cmd := exec.Command(python, "-c", verdicts3Python, filepath.Join(corpustest.Dir(t), "schemas", "dcat-us-3.0", "definitions"))
	cmd.Stdin = strings.NewReader(string(stdin))
	out, err := cmd.Output()
	require.NoError(t, err, "python: %v", err)
	var want []bool
	require.NoError(t, json.Unmarshal(out, &want))
	require.Len(t, want, len(records))
	invalid := 0
	for i, r := range records {
		v, err := NewValidator3(types[i])
		require.NoError(t, err)
		problems, err := v.Validate(r)
		require.NoError(t, err)
		require.Equal(t, want[i], len(problems) == 0, "%s (%s): our problems %v", names[i], types[i], problems)
		if !want[i] {
			invalid++
		}
	}
	require.Positive(t, invalid, "the corpus has invalid 3.0 records: the test can tell verdicts apart")
}
