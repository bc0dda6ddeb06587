// Package profiles holds the official SHACL shapes of the DCAT-AP profiles Harvester validates
// against, embedded in the binary (PROVENANCE.md names each file's upstream and licence), and
// compiles each once on first use.
//
// Profiles: "dcat-ap-2.1.1" (SEMIC DCAT-AP 2.1.1: shapes + range), "dcat-ap-3.0.0" (SEMIC
// DCAT-AP 3.0.0, the default) and "dcat-ap-no-2.0" (Norway's DCAT-AP-NO 2.0, Digdir).
package profiles

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/harvester-dev/harvester/rdf"
	"github.com/harvester-dev/harvester/shacl"
)

// Profile names.
const (
	DCATAP211 = "dcat-ap-2.1.1"
	DCATAP300 = "dcat-ap-3.0.0"
	DCATAPNO2 = "dcat-ap-no-2.0"
	// Default is the profile of a source that names none.
	Default = DCATAP300
)

// Resolve is the name of the profile a source's shacl_profile option selects: name itself, and
// Default for "" (a source that names none). "none" (nothing is checked) and unknown names are
// returned as they are.
func Resolve(name string) string {
	if name == "" {
		return Default
	}
	return name
}

// ErrUnknown is returned by Load for a name that is not a profile.
var ErrUnknown = errors.New("unknown SHACL profile")

//go:embed *.ttl
var files embed.FS

// Files lists each profile's shape files (Turtle, in this package's directory), loaded into one
// shapes graph.
var Files = map[string][]string{
	DCATAP211: {"dcat-ap_2.1.1_shacl_shapes.ttl", "dcat-ap_2.1.1_shacl_range.ttl"},
	DCATAP300: {"dcat-ap_3.0.0_shacl_shapes.ttl"},
	DCATAPNO2: {"dcat-ap-no_2.0_shacl_shapes.ttl"},
}

// Names returns the profile names, sorted.
func Names() []string {
	var out []string
	for n := range Files {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

type compiled struct {
	once   sync.Once
	shapes *shacl.Shapes
	err    error
}

var cache = map[string]*compiled{DCATAP211: {}, DCATAP300: {}, DCATAPNO2: {}}

// Load returns the compiled shapes of the profile name ("" is Default), compiling them on the
// first call (later calls, from any goroutine, share the result). It returns an error wrapping
// ErrUnknown for an unknown name, or the parse or compile error of an embedded file.
func Load(name string) (*shacl.Shapes, error) {
	name = Resolve(name)
	c, ok := cache[name]
	if !ok {
		return nil, fmt.Errorf("%w %q (known: %v)", ErrUnknown, name, Names())
	}
	c.once.Do(func() { c.shapes, c.err = compile(name) })
	return c.shapes, c.err
}

// Graph returns a new in-memory graph of the profile's shape files.
func Graph(name string) (*rdf.MemGraph, error) {
	fs, ok := Files[name]
	if !ok {
		return nil, fmt.Errorf("%w %q (known: %v)", ErrUnknown, name, Names())
	}
	g := rdf.NewMemGraph()
	for _, f := range fs {
		b, err := files.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if err := rdf.ParseGraph(bytes.NewReader(b), rdf.Turtle, "", g); err != nil {
			return nil, fmt.Errorf("profile %s: parse %s: %w", name, f, err)
		}
	}
	return g, nil
}

func compile(name string) (*shacl.Shapes, error) {
	g, err := Graph(name)
	if err != nil {
		return nil, err
	}
	s, err := shacl.Compile(g)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", name, err)
	}
	return s, nil
}
