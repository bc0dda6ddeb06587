package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/store"
)

type harvestFlags struct {
	serviceFlags
	links                                                                       linkFlags
	url, file, schemaType, jobType, format, sourceType, parentURL, organization string
	wafTimeZone, accept, authHeader, precedence                                 string
	options                                                                     []string
	timeout                                                                     time.Duration
}

func harvestCommand() *cobra.Command {
	var f harvestFlags
	cmd := &cobra.Command{
		Use:   "harvest (--url URL | --file PATH) --schema-type TYPE",
		Short: "Run one harvest job of a source through every stage and print its report",
		Long: `Run one harvest job of a source through every stage (extract, compare, transform, validate,
sync, report) in this process, and print the job report. A source is a DCAT-US 1.1 data.json,
one ISO 19115 or FGDC CSDGM XML file (--schema-type iso19115_1, iso19115_2 or fgdc), a WAF (a
folder listing) of such XML files, an OGC CSW catalogue (--source-type csw), a DCAT-AP RDF
document (--source-type rdf --schema-type dcat-ap: Turtle, RDF/XML, JSON-LD, N-Triples), or a
portal API (ckan, dkan, socrata, arcgis, opendatasoft: its items are mapped to DCAT-US, schema
type "dcatus1.1: non-federal" by default).

--accept sets the Accept header sent for the source's documents, --auth-header "Name: value"
a secret header sent only to the source's own host (or set ` + envName("auth-header") + `="Name: value"
to keep it off the command line), and --option key=value the source type's settings (e.g.
shacl_profile=dcat-ap-no-2.0, languages=nb,en, fq=organization:epa-gov). All three are kept with
the source for later runs (given again, they replace the stored ones).

The source is created on first use, keyed by its URL (or the file's absolute path), so the
next run of the same source compares against what the last one stored. --organization
attaches it to the organization of that name (created when missing): its datasets are then
found by 'harvester search --organization NAME'.

--check-links runs CHECK too: the distribution URLs of the datasets the job adds or changes, and
after the job those of the source's other live datasets, are checked (each distinct URL once,
at most --link-host-concurrency at a time and --link-host-rate a second per host, none on
--link-exclude-hosts), the results stored, and once the job's checks settle the source's
metadata quality (the MQA score, its rating, links checked, ok and broken) is added to the
report (docs/quality.md).

On a terminal, a progress line counts the job's settled records from the first one: while the
listing runs, the records settled so far; once it is complete, settled of expected with the
percentage, records per second and the time left; there is none when stdout is not a terminal
or with --format json.

Exit status: 0 when the job completed (record errors included), 1 when it ended in error
or did not run (e.g. the source already has a job in progress), 2 for bad arguments. With
--format json, stdout holds exactly one JSON object: the job report, or, when there is no
report, {"status":"error","error":"…","job_id":"…"} (job_id: the job concerned, when known).

` + servicesHelp(),
		Example: `  harvester harvest --url https://agency.example.gov/data.json --schema-type "dcatus1.1: federal"
  harvester harvest --file ./data.json --schema-type "dcatus1.1: non-federal" --job-type validate --format json
  harvester harvest --url https://agency.example.gov/waf/ --source-type waf --schema-type iso19115_2
  harvester harvest --url https://agency.example.gov/fgdc/ --source-type waf --schema-type fgdc
  harvester harvest --url https://catalog.example.org --source-type ckan
  harvester harvest --url https://data.example.gov --source-type socrata
  harvester harvest --url https://www.dhs.gov/data.json --schema-type "dcatus1.1: federal" --organization "Department of Homeland Security"
  harvester harvest --file catalog.rdf --source-type rdf --schema-type dcat-ap --accept application/rdf+xml
  HARVESTER_AUTH_HEADER="Authorization: Bearer …" harvester harvest --url https://data.example.no/catalog.ttl \
    --source-type rdf --schema-type dcat-ap --option languages=nb,en`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return f.run(cmd.Context(), cmd.OutOrStdout()) },
	}
	f.register(cmd)
	f.links.register(cmd, false, &f.flagEnv)
	fl := cmd.Flags()
	fl.StringVar(&f.url, "url", "", "the source's http(s) URL")
	fl.StringVar(&f.file, "file", "", "a local file: a data.json, an ISO 19115 or FGDC CSDGM XML record or an RDF document (the source is keyed by its absolute path)")
	fl.StringVar(&f.schemaType, "schema-type", "", "the schema type its records follow, by source type: "+schemasHelp())
	fl.StringVar(&f.sourceType, "source-type", "document", sourceTypesHelp())
	fl.StringVar(&f.accept, "accept", "", `the Accept header for the source's documents, e.g. "text/turtle" (default: the fetch default)`)
	f.bind(cmd, &f.authHeader, "auth-header")
	fl.StringArrayVar(&f.options, "option", nil, "a setting of the source type, key=value (repeatable): "+settingsHelp())
	fl.StringVar(&f.parentURL, "collection-parent-url", "",
		"the parent record of a waf-collection: harvested first, and the isPartOf of every other record")
	fl.StringVar(&f.wafTimeZone, "waf-time-zone", "",
		"the IANA time zone (e.g. America/New_York) of a WAF's listing dates where the listing names none;\n"+
			"kept with the source for later runs (default UTC)")
	fl.StringVar(&f.precedence, "precedence", "",
		"the source's precedence, a whole number from -1000 to 1000: higher wins a cross-source duplicate\n"+
			"(another source publishing the same dataset); kept with the source for later runs (default: leave it as\n"+
			"it is; a new source's is 0)")
	fl.StringVar(&f.organization, "organization", "",
		"the source's organization, by exact name: created when no organization has it (default: leave the source's as it is)")
	fl.StringVar(&f.jobType, "job-type", "harvest", "harvest, force_harvest, validate or clear")
	fl.StringVar(&f.format, "format", "text", "report format: text or json")
	fl.DurationVar(&f.timeout, "timeout", 2*time.Hour, "give up waiting for the job after this long")
	return cmd
}

// run runs the job and prints its report. With --format json, an error that leaves no report
// (the job did not start or was not waited for) is printed as one JSON error object instead.
func (f *harvestFlags) run(ctx context.Context, out io.Writer) error {
	jobID, err := f.harvest(ctx, out)
	if err != nil && f.format == "json" && !errors.As(err, new(jobFailed)) {
		_ = json.NewEncoder(out).Encode(errorReport{Status: string(harvest.JobError), Error: err.Error(), JobID: jobID})
	}
	return err
}

// errorReport is the --format json output of a run that has no job report.
type errorReport struct {
	Status string `json:"status"` // always "error"
	Error  string `json:"error"`
	JobID  string `json:"job_id"` // the job the error is about, when known: this run's, or the one in its way
}

// harvest runs the job (jobs.Control.Run) and prints its report; it returns the id of the job
// the error is about, when there is one.
func (f *harvestFlags) harvest(ctx context.Context, out io.Writer) (jobID string, err error) {
	p, err := f.params()
	if err != nil {
		return "", err
	}
	pl, err := f.startHarvestPipeline(ctx)
	if err != nil {
		return "", err
	}
	defer pl.Close()
	qualities, unsubscribe, err := pl.Bus().QualityReports() // --check-links waits for the job's
	if err != nil {
		return "", err
	}
	defer unsubscribe()
	ctl := pl.Jobs()
	ctl.Index = pl.Index()
	progress := newJobProgress(out, f.format) // nil (draws nothing) unless stdout is a terminal
	job, err := ctl.Run(ctx, p, jobs.RunOptions{Timeout: f.timeout, Observe: progress.observe,
		Waiter: "the harvest command", ReportGrace: reportGrace})
	progress.stop()
	var busy *jobs.BusyError
	var stopped *jobs.StoppedError
	switch {
	case errors.As(err, &busy):
		return jobInProgress(busy)
	case errors.As(err, &stopped) && ctx.Err() != nil:
		return stopped.JobID, fmt.Errorf("interrupted while waiting for job %s, which was ended in error (CancelledJob): %w",
			stopped.JobID, stopped.Err)
	case errors.As(err, &stopped) && errors.Is(err, context.DeadlineExceeded):
		return stopped.JobID, fmt.Errorf("job %s did not finish within --timeout %v and was ended in error (CancelledJob): %w",
			stopped.JobID, f.timeout, stopped.Err)
	case errors.As(err, &stopped):
		return stopped.JobID, err
	case err != nil && job != nil:
		return job.ID, err
	case err != nil:
		return "", err
	}
	st := pl.Store()
	var q *qualityReport
	if f.waitsForQuality(job.JobType, p.Options) {
		wctx, cancel := context.WithTimeout(ctx, f.timeout)
		defer cancel()
		if q, err = awaitQuality(wctx, qualities, job.ID); err != nil {
			return job.ID, fmt.Errorf("--check-links: %w (see --timeout)", err)
		}
	}
	if err := printReportQuality(ctx, out, st, job, p.URL, f.format, q); err != nil {
		return job.ID, err
	}
	if job.Status == harvest.JobError {
		return job.ID, jobFailed{jobID: job.ID}
	}
	return job.ID, nil
}

// startHarvestPipeline runs every stage here, as startPipeline; CHECK only with --check-links,
// which checks each URL of the source once however recently it was checked (Recheck 0).
func (f *harvestFlags) startHarvestPipeline(ctx context.Context) (*pipeline.Pipeline, error) {
	logger, err := f.logger()
	if err != nil {
		return nil, err
	}
	if err := f.checkSearchIndex(); err != nil {
		return nil, err
	}
	cfg := f.config(logger)
	cfg.Stages = slices.DeleteFunc(pipeline.StageNames(), func(s string) bool { return s == pipeline.StageCheck })
	if f.links.checkLinks {
		if cfg.LinkChecks, err = f.links.config(0); err != nil {
			return nil, err
		}
		cfg.Stages = pipeline.StageNames()
	}
	return startConfig(ctx, cfg)
}

// waitsForQuality says whether a job of type t of a source with options has a quality event to wait for: with
// --check-links, a harvest or force_harvest job of a source that checks its links.
func (f *harvestFlags) waitsForQuality(t harvest.JobType, options map[string]string) bool {
	return f.links.checkLinks && (t == harvest.JobHarvest || t == harvest.JobForceHarvest) && harvest.LinkChecksOn(options)
}

// jobInProgress explains jobs.ErrJobInProgress: which job holds the source, since when, and
// how to end it if the process running it died. It returns that job's id.
func jobInProgress(busy *jobs.BusyError) (string, error) {
	j, url := busy.Job, busy.Source.URL
	if j == nil { // the job ended between the two calls
		return "", fmt.Errorf("%w: %s had one, which has just ended; run the command again", jobs.ErrJobInProgress, url)
	}
	since, dead := "started", "the process running it died"
	if j.Status == harvest.JobNew {
		since, dead = "queued", "no scheduler will start it"
	}
	return j.ID, fmt.Errorf("%w: %s has job %s (%s, %s), %s %s (%s ago). Wait for it to end; "+
		"if %s, end it with 'harvester job cancel %s' (with the same --database-url or --data-dir)",
		jobs.ErrJobInProgress, url, j.ID, j.JobType, j.Status, since,
		j.CreatedAt.UTC().Format(time.RFC3339), time.Since(j.CreatedAt).Round(time.Second), dead, j.ID)
}

// reportGrace is how long the command waits, after the job finished, for the aggregator to
// publish its report event before stopping the stages.
const reportGrace = 10 * time.Second

// jobReport is the --format json report: one object.
type jobReport struct {
	JobID    string `json:"job_id"`
	SourceID string `json:"source_id"`
	URL      string `json:"url"`
	JobType  string `json:"job_type"`
	Status   string `json:"status"`
	harvest.Counts
	StartedAt  string   `json:"started_at"`
	FinishedAt string   `json:"finished_at"`
	JobErrors  []string `json:"job_errors"`
	// NotModified: the source answered 304 Not Modified to the job's conditional GET, so its
	// document was not read again and every live dataset counts as unchanged.
	NotModified bool `json:"not_modified,omitempty"`
	// RecordErrors and Warnings are the first record rows of severity error and warning.
	RecordErrors reportRows `json:"record_errors"`
	Warnings     reportRows `json:"warnings"`
	// HeldDatasets are the first of the source's datasets held as cross-source duplicates
	// (held counts them when the job ended), each with the live dataset that holds it.
	HeldDatasets heldRows `json:"held_datasets"`
	// Quality is the source's metadata quality after --check-links; absent without it.
	Quality *qualityReport `json:"quality,omitempty"`
}

func printReport(ctx context.Context, out io.Writer, st store.Store, job *store.HarvestJob, url, format string) error {
	return printReportQuality(ctx, out, st, job, url, format, nil)
}

// printReportQuality prints the job's report with the quality section q (nil: none).
func printReportQuality(ctx context.Context, out io.Writer, st store.Store, job *store.HarvestJob, url, format string,
	q *qualityReport,
) error {
	view, err := jobs.View(ctx, st, job)
	if err == nil {
		err = view.ReadNotModified(ctx, st)
	}
	if err != nil {
		return err
	}
	// The stored counts, not view.Counts: the report is of a job that ended (or was replayed).
	rep := jobReport{JobID: job.ID, SourceID: job.SourceID, URL: url, JobType: string(job.JobType),
		Status: string(job.Status), Counts: job.Counts, NotModified: view.NotModified,
		StartedAt: job.CreatedAt.UTC().Format(time.RFC3339), JobErrors: []string{},
		RecordErrors: reportRows{Rows: []reportRow{}}, Quality: q}
	if job.FinishedAt != nil {
		rep.FinishedAt = job.FinishedAt.UTC().Format(time.RFC3339)
	}
	for _, e := range view.JobErrors {
		rep.JobErrors = append(rep.JobErrors, e.Type+": "+e.Message)
	}
	if job.Errored > 0 {
		if rep.RecordErrors, err = listReportRows(ctx, st, job.ID, harvest.SeverityError); err != nil {
			return err
		}
	}
	if rep.Warnings, err = listReportRows(ctx, st, job.ID, harvest.SeverityWarning); err != nil {
		return err
	}
	if rep.HeldDatasets, err = listHeldRows(ctx, st, job); err != nil {
		return err
	}
	if format == "json" {
		enc := json.NewEncoder(out)
		return enc.Encode(rep)
	}
	fmt.Fprintf(out, "Harvest job %s (%s) of %s: %s\n", rep.JobID, rep.JobType, url, rep.Status)
	fmt.Fprintf(out, "  total %d: added %d, updated %d, deleted %d, unchanged %d, errored %d (validated %d, warned %d)\n",
		rep.Total, rep.Added, rep.Updated, rep.Deleted, rep.Unchanged, rep.Errored, rep.Validated, rep.Warned)
	if rep.Held > 0 {
		fmt.Fprintf(out, "  held %d: datasets of this source held as cross-source duplicates (not live: another source's copy is)\n",
			rep.Held)
	}
	fmt.Fprintf(out, "  started %s, finished %s\n", rep.StartedAt, rep.FinishedAt)
	if rep.NotModified {
		fmt.Fprintln(out, "  not modified: the source answered 304 to a conditional GET, so its document was "+
			"not read again and every live dataset counts as unchanged")
	}
	for _, e := range rep.JobErrors {
		fmt.Fprintf(out, "  job error: %s\n", e)
	}
	rep.RecordErrors.print(out, "error row", job.Errored)
	rep.Warnings.print(out, "warning row", job.Warned)
	rep.HeldDatasets.print(out)
	rep.Quality.print(out)
	return nil
}

// plural is "1 thing" or "n things".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
