package main

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/sources"
	"github.com/harvester-dev/harvester/store"
)

// params checks every argument, before any service is touched: a bad argument writes nothing.
// The source's flags are checked with the source rule table (harvest.SourceFields.Check), so a
// bad source gets the message the API and the web form give, after the flag's name.
func (f *harvestFlags) params() (jobs.Params, error) {
	var p jobs.Params
	if f.format != "text" && f.format != "json" {
		return p, usageError{fmt.Errorf("--format: %q is not text or json", f.format)}
	}
	in := harvest.SourceFields{URL: strings.TrimSpace(f.url), SourceType: f.sourceType, SchemaType: f.schemaType,
		CollectionParentURL: strings.TrimSpace(f.parentURL), WAFTimeZone: f.wafTimeZone}
	switch {
	case (f.url == "") == (f.file == ""):
		return p, usageError{errors.New("give exactly one of --url or --file")}
	case f.file != "":
		abs, err := sourceFile(f.file)
		if err != nil {
			return p, usageError{fmt.Errorf("--file: %w", err)}
		}
		in.URL, in.LocalFile = abs, true
	}
	if err := f.settings(&p); err != nil {
		return p, err
	}
	in.Options = p.Options
	if f.precedence != "" {
		n, err := harvest.ParsePrecedence(f.precedence)
		if err != nil {
			return p, usageError{fmt.Errorf("--precedence: %w", err)}
		}
		in.Precedence, p.Precedence = n, &n
	}
	st, schema, bad := in.Check()
	if err := flagErrors(bad, in); err != nil {
		return p, err
	}
	// The URL in its normal form (a portal's is its base), as the report names it; the source is
	// found or created with both URLs in their normal forms (sources.Sources.Ensure).
	p.SourceType, p.SchemaType, p.URL, p.WAFTimeZone = st, schema, sources.NormalURL(st, in.URL), in.WAFTimeZone
	p.CollectionParentURL = in.CollectionParentURL
	var err error
	if p.JobType, err = harvest.ParseJobType(f.jobType); err != nil {
		return p, usageError{fmt.Errorf("--job-type: %w", err)}
	}
	if f.timeout <= 0 {
		return p, usageError{fmt.Errorf("--timeout: %v is not a positive duration", f.timeout)}
	}
	if f.organization != "" && strings.TrimSpace(f.organization) == "" {
		return p, usageError{errors.New("--organization: the name is blank")}
	}
	p.Organization = f.organization
	return p, nil
}

// settingsHelp lists each source type's settings from the rule table (harvest.SourceSpecs), with
// their values when they are few: "rdf: shacl_profile (dcat-ap-3.0.0, …), languages; …".
func settingsHelp() string {
	var types []string
	for _, spec := range harvest.SourceSpecs {
		var names []string
		for _, set := range spec.Settings {
			name := set.Name
			if set.Values != nil {
				name += " (" + strings.Join(set.Values, ", ") + ")"
			}
			names = append(names, name)
		}
		if names != nil {
			types = append(types, string(spec.Type)+": "+strings.Join(names, ", "))
		}
	}
	return strings.Join(types, "; ")
}

// sourceTypesHelp lists the source types with what each is, from the rule table (so a new
// type, csw for one, is listed as soon as it has a row).
func sourceTypesHelp() string {
	lines := make([]string, 0, len(harvest.SourceSpecs))
	for _, spec := range harvest.SourceSpecs {
		lines = append(lines, string(spec.Type)+": "+spec.What)
	}
	return "the kind of source, one of:\n" + strings.Join(lines, ";\n") + "\n(a portal's or a CSW catalogue's --url is its base or endpoint URL)"
}

// schemasHelp lists each source type's schema types from the rule table, the default marked.
func schemasHelp() string {
	var types []string
	for _, spec := range harvest.SourceSpecs {
		var names []string
		for _, st := range spec.Schemas {
			name := fmt.Sprintf("%q", st)
			if st == spec.DefaultSchema {
				name += " (default)"
			}
			names = append(names, name)
		}
		types = append(types, string(spec.Type)+": "+strings.Join(names, ", "))
	}
	return strings.Join(types, "; ")
}

// sourceFlags names the flag of each field of the source rule table's messages.
var sourceFlags = []struct{ field, flag string }{{"url", "--url"}, {"source_type", "--source-type"},
	{"schema_type", "--schema-type"}, {"collection_parent_url", "--collection-parent-url"},
	{"waf_time_zone", "--waf-time-zone"}, {"precedence", "--precedence"}}

// flagErrors is the usage error of the rule table's messages (nil when there are none): one
// line per bad field, "--flag: message" ("--option key: message" for a setting).
func flagErrors(bad map[string]string, in harvest.SourceFields) error {
	if len(bad) == 0 {
		return nil
	}
	var lines []string
	for _, sf := range sourceFlags {
		msg, ok := bad[sf.field]
		switch {
		case !ok:
			continue
		case sf.field == "url" && in.LocalFile:
			sf.flag = "--file"
		case sf.field == "url" && !strings.Contains(in.URL, "://"):
			msg += " (for a local file, use --file)"
		}
		lines = append(lines, sf.flag+": "+msg)
		delete(bad, sf.field)
	}
	for _, k := range slices.Sorted(maps.Keys(bad)) {
		lines = append(lines, "--option "+strings.TrimPrefix(k, "options.")+": "+bad[k])
	}
	return usageError{errors.New(strings.Join(lines, "\n"))}
}

// settings checks --accept, --auth-header (or its variable, HARVESTER_AUTH_HEADER) and --option into p. No
// error quotes the auth header's value.
func (f *harvestFlags) settings(p *jobs.Params) error {
	p.Accept = strings.TrimSpace(f.accept)
	if strings.ContainsAny(p.Accept, "\r\n\x00") {
		return usageError{errors.New("--accept: the value has a line break or NUL")}
	}
	flag, raw := "--auth-header", f.authHeader
	if raw == "" {
		flag = envName("auth-header")
		raw = os.Getenv(flag)
	}
	if raw != "" {
		h, err := parseAuthHeader(raw)
		if err != nil {
			return usageError{fmt.Errorf("%s: %w", flag, err)}
		}
		p.AuthHeader = h
	}
	for _, o := range f.options {
		k, v, ok := strings.Cut(o, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return usageError{fmt.Errorf("--option %q: want key=value", o)}
		}
		if p.Options == nil {
			p.Options = map[string]string{}
		}
		p.Options[k] = v
	}
	return nil
}

// parseAuthHeader reads "Name: value" (spaces around both trimmed), checked as
// fetch.AuthHeader.Check does; its errors never quote the value.
func parseAuthHeader(raw string) (*store.AuthHeader, error) {
	name, value, ok := strings.Cut(raw, ":")
	if !ok {
		return nil, errors.New(`want "Name: value", e.g. "Authorization: Bearer …"`)
	}
	h := fetch.AuthHeader{Name: strings.TrimSpace(name), Value: strings.TrimSpace(value)}
	if h.Value == "" {
		return nil, errors.New("the value is empty")
	}
	if err := h.Check(); err != nil {
		return nil, err
	}
	return &store.AuthHeader{Name: h.Name, Value: h.Value}, nil
}

// sourceFile returns the absolute path of path, which must be an existing regular file.
func sourceFile(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		what := "not a regular file"
		if fi.IsDir() {
			what = "a directory, not a file"
		}
		return "", fmt.Errorf("%s is %s", abs, what)
	}
	return abs, nil
}
