// Command harvester is Harvester's one binary. It only wires: it reads flags and environment
// (an unreadable environment value is an error naming the variable: env.go), turns them into a
// pipeline.Config, runs that pipeline (store, bus, stages, scheduler, API), and turns signals
// into context cancellation. Jobs are started, cancelled and replayed through package jobs.
//
//	harvester harvest --url URL | --file PATH --schema-type TYPE [--source-type TYPE] [--job-type TYPE] [--organization NAME] [--format json]
//	harvester serve [--addr HOST:PORT]        the API, the web UI, the scheduler and every stage in one process
//	harvester worker --stages validate,sync   only the given stages' consumers, to scale them out
//	harvester scheduler                       only the scheduler: due jobs, the cap, orphans
//	harvester api [--addr HOST:PORT]          only the HTTP API and the web UI
//	harvester source list [--format json]
//	harvester job list [--source ID|NAME|URL] [--limit N] [--format json]
//	harvester job show JOB_ID [--format json]
//	harvester job cancel JOB_ID
//	harvester duplicates [--source ID|NAME|URL] [--limit N] [--format json]
//	harvester version [--format json]
//	harvester replay --job JOB_ID [--stage STAGE] [--since TIME] [--format json]
//	harvester migrate
//	harvester prune [--retention 90d] [--dry-run] [--format json]
//	harvester search [QUERY] [--organization O] [--keyword K] [--format json]
//	harvester reindex [--source ID]
//	harvester reconcile [--source ID] [--fix]
//	harvester import-h2 --from POSTGRES_URL [--rewrite-url OLD=NEW] [--format json]
//	harvester healthcheck [--addr HOST:PORT] [--path /readyz]
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// Exit statuses.
const (
	exitOK       = 0 // the job completed (record errors included)
	exitJobError = 1 // the job ended in error, or a service failed
	exitUsage    = 2 // bad arguments
)

// usageError marks errors that are the caller's arguments' fault.
type usageError struct{ error }

func main() {
	setGCDefaults()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes the command line args and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := rootCommand()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	var jobErr jobFailed
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &jobErr):
		return exitJobError
	case errors.As(err, new(usageError)) || isCobraUsage(err):
		fmt.Fprintln(stderr, "harvester:", err)
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath()) // the subcommand's, when one ran
		return exitUsage
	}
	fmt.Fprintln(stderr, "harvester:", err)
	return exitJobError
}

// rootCommand is the command tree: every subcommand with its flags (the docs test walks it).
func rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "harvester",
		Short:         "Harvest open-data metadata into a DCAT-US catalog",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(harvestCommand(), jobCommand(), migrateCommand(), serveCommand(), workerCommand(), schedulerCommand(), apiCommand(),
		searchCommand(), reindexCommand(), reconcileCommand(), replayCommand(), importH2Command(), healthcheckCommand(),
		pruneCommand(), sourceCommand(), duplicatesCommand(), versionCommand())
	return root
}

// jobFailed is returned after a report was printed for a job that ended in error.
type jobFailed struct{ jobID string }

func (e jobFailed) Error() string { return "job " + e.jobID + " ended in error" }

// isCobraUsage recognises cobra's own argument errors (unknown command, bad arg count).
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires "} {
		if len(msg) >= len(p) && (msg[:len(p)] == p) {
			return true
		}
	}
	return false
}
