package main

import (
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// jobProgress draws a running job's progress on a terminal with schollz/progressbar: settled
// of expected records, records per second and the time left (ETA). Until EXTRACT has finished
// the listing the expected count is unknown, and the bar is a spinner with the settled count.
// The figure never goes above 100%: settled is capped at expected, as on the web UI's job page.
type jobProgress struct {
	bar      *progressbar.ProgressBar
	out      io.Writer
	expected int  // -1 until the listing completed
	done     bool // the bar's line has been ended
}

// newJobProgress returns a progress bar writing to out when out is a terminal and the report
// format is text, and nil otherwise (a pipe, a file, --format json): a nil *jobProgress draws
// nothing.
func newJobProgress(out io.Writer, format string) *jobProgress {
	f, ok := out.(*os.File)
	if !ok || format != "text" || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	bar := progressbar.NewOptions(-1,
		progressbar.OptionSetWriter(f),
		progressbar.OptionSetDescription("harvest"),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("records"),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionFullWidth(),
		progressbar.OptionSetRenderBlankState(true),
		// No spinner goroutine: the bar is drawn on each poll (observe, every 50 ms), which
		// turns the spinner too. progressbar v3.19.1's spinner goroutine stops on Finish but
		// not on Exit, so after a failed job it drew the bar once more after stop had ended
		// its line, and the report was printed on the bar's line
		// (TestHarvestProgressBarStopsWhereTheJobFailed, seen in a fresh-clone CI run).
		progressbar.OptionSetSpinnerChangeInterval(0),
	)
	return &jobProgress{bar: bar, out: f, expected: -1}
}

// observe draws one polled state of the job (jobs.WaitObserve calls it, one poll every
// 50 ms, so the bar needs no throttle). A job that completed ends the bar at 100%; one that
// ended in error leaves it where it stopped.
func (p *jobProgress) observe(job *store.HarvestJob) {
	if p == nil || p.done {
		return
	}
	if job.Expected != nil && *job.Expected != p.expected {
		p.expected = *job.Expected
		p.bar.ChangeMax(max(p.expected, 1)) // an empty listing still ends at 100%
	}
	settled := job.Settled
	if p.expected >= 0 {
		settled = min(settled, p.expected)
	}
	_ = p.bar.Set(settled)
	switch {
	case job.Status == harvest.JobComplete:
		if p.expected < 0 { // not expected: a completed job has a complete listing
			p.bar.ChangeMax(max(settled, 1))
		}
		_ = p.bar.Finish()
		p.end()
	case job.Status.Finished():
		p.stop()
	}
}

// stop leaves the bar where it is and ends its line, so that what is printed next (the
// report, or the error of an interrupted wait) starts on a line of its own.
func (p *jobProgress) stop() {
	if p == nil || p.done {
		return
	}
	_ = p.bar.Exit()
	p.end()
}

func (p *jobProgress) end() {
	p.done = true
	_, _ = io.WriteString(p.out, "\n")
}
