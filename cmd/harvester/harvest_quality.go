package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/harvester-dev/harvester/quality"
	"github.com/harvester-dev/harvester/quality/assess"
	"github.com/harvester-dev/harvester/stages/check"
	"github.com/harvester-dev/harvester/store"
)

// linkFlags are harvest's --check-links and the link checker's limits.
type linkFlags struct {
	checkLinks      bool
	hostConcurrency int
	hostRate        float64
}

func (l *linkFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVar(&l.checkLinks, "check-links", false,
		"after the job, check the distribution URLs (accessURL, downloadURL) of the source's live datasets, store\n"+
			"the results and print the source's metadata quality (MQA score, rating, links checked, ok, broken)")
	fl.IntVar(&l.hostConcurrency, "link-host-concurrency", 2, "with --check-links, the most link checks in flight to one host")
	fl.Float64Var(&l.hostRate, "link-host-rate", 2, "with --check-links, the most link checks started per second to one host")
}

// qualityReport is the report's quality section (--check-links): the MQA of the source's live
// datasets after their links were checked.
type qualityReport struct {
	Score    float64       `json:"score"`  // the mean of the datasets' scores, 0–405
	Max      int           `json:"max"`    // 405
	Rating   string        `json:"rating"` // Excellent, Good, Sufficient or Bad
	Datasets int           `json:"datasets"`
	Links    qualityLinks  `json:"links"`
	Costly   []costlyPoint `json:"costliest"` // the indicators that cost the most points, up to 5
}

// qualityLinks counts the source's distinct distribution URLs by their check.
type qualityLinks struct {
	URLs      int `json:"urls"`
	Checked   int `json:"checked"`
	OK        int `json:"ok"`
	Broken    int `json:"broken"`
	Unchecked int `json:"unchecked"` // not checkable (ftp:, mailto:, …) or not checked
}

// costlyPoint is an indicator and the points it costs the average dataset.
type costlyPoint struct {
	Metric string  `json:"metric"`
	Lost   float64 `json:"lost"`
	Max    int     `json:"max"`
}

// checkSourceLinks checks the source's distribution URLs, stores the results, drops the results no
// live dataset uses and scores the source. When the job jobID recorded the source's quality at
// its end (assess.Records), before the checks, it is recorded again with them, so that the
// history, the metrics and the pages show what the checks found.
func (l *linkFlags) checkSourceLinks(ctx context.Context, st store.Store, jobID, sourceID string, allowPrivate bool) (*qualityReport, error) {
	c, err := check.New(check.Config{HostConcurrency: l.hostConcurrency, HostRate: l.hostRate, AllowPrivate: allowPrivate})
	if err != nil {
		return nil, usageError{err}
	}
	if _, err := assess.CheckSource(ctx, c, st, sourceID); err != nil {
		return nil, fmt.Errorf("check links: %w", err)
	}
	if _, err := st.LinkResultPrune(ctx); err != nil {
		return nil, fmt.Errorf("drop unused link checks: %w", err)
	}
	q, err := l.rescore(ctx, st, jobID, sourceID)
	if err != nil {
		return nil, err
	}
	rep := &qualityReport{Score: q.Mean, Max: quality.MaxPoints, Rating: string(q.Rating), Datasets: q.Datasets,
		Links: qualityLinks(q.Links), Costly: []costlyPoint{}}
	for _, is := range q.Costliest(5) {
		rep.Costly = append(rep.Costly, costlyPoint{Metric: string(is.Metric), Lost: is.Lost, Max: is.Max})
	}
	return rep, nil
}

// rescore scores the source after its checks: recorded again for the job when the job recorded
// it (assess.RecordJob), else only computed (assess.SourceQuality).
func (l *linkFlags) rescore(ctx context.Context, st store.Store, jobID, sourceID string) (*assess.Source, error) {
	job, err := st.JobGet(ctx, jobID)
	if err != nil {
		return nil, fmt.Errorf("read job %s: %w", jobID, err)
	}
	if !assess.Records(job) {
		return assess.SourceQuality(ctx, st, sourceID)
	}
	src, err := st.SourceGet(ctx, sourceID)
	if err != nil {
		return nil, fmt.Errorf("read source %s: %w", sourceID, err)
	}
	rec, err := assess.RecordJob(ctx, st, job, src)
	if err != nil {
		return nil, err
	}
	return rec.Source, nil
}

// print writes the quality section of the text report.
func (q *qualityReport) print(out io.Writer) {
	if q == nil {
		return
	}
	fmt.Fprintf(out, "  quality: %.1f of %d points (%s), mean of %s\n", q.Score, q.Max, q.Rating, plural(q.Datasets, "live dataset"))
	fmt.Fprintf(out, "  links: %s, %d checked: %d ok, %d broken; %d not checked\n",
		plural(q.Links.URLs, "distinct URL"), q.Links.Checked, q.Links.OK, q.Links.Broken, q.Links.Unchecked)
	for _, c := range q.Costly {
		fmt.Fprintf(out, "    %s costs %.1f of %d points on average\n", c.Metric, c.Lost, c.Max)
	}
}
