package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// jobProgress draws a running job's progress on one terminal line, counted from the first
// record that settles:
//
//	harvest listing… (1613 settled, 40 records/s) [40s]                  while EXTRACT lists
//	harvest  86% |██████████████     | (1613/1856, 40 records/s) [40s:6s]  once it has
//
// While the listing runs the number of records is unknown, so the line shows the records settled
// so far, the rate and the time elapsed, and no percentage; once the listing is complete
// (HarvestJob.Expected) it shows the percentage of settled of expected and the time left at the
// job's average rate. Settled never goes above expected on the bar, as on the web UI's job
// page. (schollz/progressbar, used before, counted a spinner's records modulo its width and kept
// that remainder when the length became known: 9% at 1,613 of 1,856.)
type jobProgress struct {
	out   io.Writer
	cols  func() int // the terminal's width in columns
	now   func() time.Time
	start time.Time // the first draw: the rate and the elapsed time count from here
	done  bool      // the line has been ended
}

// newJobProgress returns a progress line writing to out when out is a terminal and the report
// format is text, and nil otherwise (a pipe, a file, --format json): a nil *jobProgress draws
// nothing.
func newJobProgress(out io.Writer, format string) *jobProgress {
	f, ok := out.(*os.File)
	if !ok || format != "text" || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	cols := func() int {
		w, _, err := term.GetSize(int(f.Fd()))
		if err != nil || w <= 0 {
			return 80
		}
		return w
	}
	return &jobProgress{out: f, cols: cols, now: time.Now}
}

// observe draws one polled state of the job (jobs.WaitObserve calls it, one poll every 50
// ms, so the line needs no throttle). A job that completed ends the line at 100%; one that
// ended in error leaves it where it stopped.
func (p *jobProgress) observe(job *store.HarvestJob) {
	if p == nil || p.done {
		return
	}
	if p.start.IsZero() {
		p.start = p.now()
	}
	expected := job.Expected
	if job.Status == harvest.JobComplete && expected == nil { // a completed job has a complete listing
		expected = &job.Settled
	}
	_, _ = io.WriteString(p.out, "\r"+p.line(job.Settled, expected)+"\x1b[K")
	if job.Status.Finished() {
		p.stop()
	}
}

// line is the progress line for settled records of expected (nil while listing), fitted to the
// terminal's width.
func (p *jobProgress) line(settled int, expected *int) string {
	elapsed := p.now().Sub(p.start)
	rate := float64(settled) / max(elapsed, time.Second).Seconds() // no absurd rate in the first second
	if expected == nil {
		return fmt.Sprintf("harvest listing… (%d settled, %s) [%s]", settled, perTime(rate), seconds(elapsed))
	}
	total := max(*expected, 1) // an empty listing still ends at 100%
	settled = min(settled, *expected)
	left := "?"
	if rate > 0 {
		left = seconds(time.Duration(float64(*expected-settled) / rate * float64(time.Second)))
	}
	head := fmt.Sprintf("harvest %3d%% |", settled*100/total)
	if *expected == 0 {
		head = "harvest 100% |"
	}
	tail := fmt.Sprintf("| (%d/%d, %s) [%s:%s]", settled, *expected, perTime(rate), seconds(elapsed), left)
	width := max(p.cols()-len([]rune(head))-len([]rune(tail))-1, 10)
	filled := width
	if *expected > 0 {
		filled = width * settled / total
	}
	return head + strings.Repeat("█", filled) + strings.Repeat(" ", width-filled) + tail
}

// stop leaves the line where it is and ends it, so that what is printed next (the report, or
// the error of an interrupted wait) starts on a line of its own.
func (p *jobProgress) stop() {
	if p == nil || p.done {
		return
	}
	p.done = true
	_, _ = io.WriteString(p.out, "\n")
}

// perTime is a rate of records per second written per second, minute or hour, whichever shows
// at least one: "40 records/s", "12 records/min".
func perTime(perSecond float64) string {
	switch {
	case perSecond >= 1:
		return fmt.Sprintf("%.0f records/s", perSecond)
	case perSecond*60 >= 1:
		return fmt.Sprintf("%.0f records/min", perSecond*60)
	}
	return fmt.Sprintf("%.0f records/hr", perSecond*3600)
}

// seconds is d rounded to the second, as time.Duration writes it: "40s", "1m5s".
func seconds(d time.Duration) string {
	return d.Round(time.Second).String()
}
