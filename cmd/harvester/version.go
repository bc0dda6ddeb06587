package main

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// versionJSON is the version command's --format json: the build information the Go toolchain
// stamped into the binary (runtime/debug.ReadBuildInfo).
type versionJSON struct {
	Module  string `json:"module"`  // the main module's path
	Version string `json:"version"` // its version: a tag, a pseudo-version, or "(devel)" for a build from a checkout
	// Revision, Time and Modified are the VCS revision the binary was built from, its commit time
	// (RFC 3339) and whether the tree had uncommitted changes; "" and false when the build did
	// not record them (go run, go test, -buildvcs=false, a build outside a checkout).
	Revision string `json:"revision"`
	Time     string `json:"time"`
	Modified bool   `json:"modified"`
	Go       string `json:"go"` // the Go toolchain that built it
}

func versionCommand() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the module version and VCS revision the binary was built from",
		Long: `Print the main module's path and version, the VCS revision (commit, commit time, and
"modified" when the tree had uncommitted changes) and the Go version, as the Go toolchain
recorded them in the binary. A binary built from a checkout has version "(devel)"; go build
records the revision, go run and go test do not.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "text" && format != "json" {
				return usageError{fmt.Errorf("--format: %q is not text or json", format)}
			}
			bi, ok := debug.ReadBuildInfo()
			if !ok {
				return errors.New("version: this binary carries no build information")
			}
			return printVersion(cmd.OutOrStdout(), versionOf(bi), format)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output: text or json")
	return cmd
}

func versionOf(bi *debug.BuildInfo) versionJSON {
	v := versionJSON{Module: bi.Main.Path, Version: bi.Main.Version, Go: bi.GoVersion}
	if v.Version == "" {
		v.Version = "(devel)"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

func printVersion(out io.Writer, v versionJSON, format string) error {
	if format == "json" {
		return writeJSON(out, v)
	}
	fmt.Fprintf(out, "harvester %s %s\n", v.Module, v.Version)
	switch {
	case v.Revision == "":
		fmt.Fprintln(out, "revision: not recorded (built with go run, go test or -buildvcs=false)")
	case v.Modified:
		fmt.Fprintf(out, "revision: %s (%s), with uncommitted changes\n", v.Revision, v.Time)
	default:
		fmt.Fprintf(out, "revision: %s (%s)\n", v.Revision, v.Time)
	}
	fmt.Fprintf(out, "go: %s\n", v.Go)
	return nil
}
