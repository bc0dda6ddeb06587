package web

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// timeline is the dashboard's inline SVG of the jobs of a window (the last 24 h, or the last
// hour: timelineZooms): one row per
// source, by name, and in it one bar per job from its creation to its finish (to the window's
// end while it runs), coloured by jobLook. Coordinates are in the SVG's viewBox units.
type timeline struct {
	Width, Height int
	LabelW        int // the width of the source names' column
	PlotW         int
	Rows          []timelineRow
	Ticks         []timelineTick
	Since, Until  time.Time
	Zoom          timelineZoom
}

// timelineZoom is a window the timeline can show: the last Window, with a grid line every
// TickEvery. Param is its ?window= value, Words names it ("24 hours").
type timelineZoom struct {
	Param, Words string
	Window       time.Duration
	TickEvery    time.Duration
}

// timelineZooms are the timeline's windows, the default first: a day, and the last hour to see
// the short jobs a day's scale makes a sliver of.
var timelineZooms = []timelineZoom{
	{Param: "24h", Words: "24 hours", Window: 24 * time.Hour, TickEvery: 3 * time.Hour},
	{Param: "1h", Words: "hour", Window: time.Hour, TickEvery: 10 * time.Minute},
}

// zoomOf is the zoom whose Param is param ("" is the default); false for another.
func zoomOf(param string) (timelineZoom, bool) {
	if param == "" {
		return timelineZooms[0], true
	}
	for _, z := range timelineZooms {
		if z.Param == param {
			return z, true
		}
	}
	return timelineZoom{}, false
}

type timelineRow struct {
	Y, TextY int
	SourceID string
	Name     string // the source's name, cut to fit the label column
	Bars     []timelineBar
}

type timelineBar struct {
	X, W  int
	JobID string
	Class string // bar-complete, bar-errors, bar-error, bar-running or bar-new
	Label string // the job, its status, counts and times, for <title> and screen readers
}

// timelineTick is a line of the grid, every timelineZoom.TickEvery.
type timelineTick struct {
	X     int
	Label string // "15:00"
}

const (
	timelineLabelW  = 220
	timelinePlotW   = 740
	timelineRowH    = 26
	timelineBarH    = 16
	timelineTop     = 24 // the tick labels' band
	timelineNameMax = 30 // characters of a source name shown
)

// jobLook is a job's bar class and the words for it: failed (status error, or complete with
// every record errored, as store.HealthFailing), complete with errors, complete, running, queued.
func jobLook(j *store.HarvestJob) (class, words string) {
	switch {
	case j.Status == harvest.JobError || j.Status == harvest.JobComplete && j.Errored > 0 && j.Added+j.Updated+j.Unchanged == 0:
		if j.Status == harvest.JobComplete {
			return "bar-error", "failed: every record errored"
		}
		return "bar-error", "failed"
	case j.Status == harvest.JobComplete && j.Errored > 0:
		return "bar-errors", "complete with errors"
	case j.Status == harvest.JobComplete:
		return "bar-complete", "complete"
	case j.Status == harvest.JobInProgress:
		return "bar-running", "running"
	}
	return "bar-new", "queued"
}

// outcome is how a finished job ended, as the job page's badge shows it.
type outcome struct {
	Health store.SourceHealth // the health it gives its source: failing, errors or ok
	Words  string
}

// jobOutcome is how a finished job ended (jobLook's words), or nil for an unfinished job.
func jobOutcome(j *store.HarvestJob) *outcome {
	class, words := jobLook(j)
	switch class {
	case "bar-error":
		return &outcome{store.HealthFailing, words}
	case "bar-errors":
		return &outcome{store.HealthErrors, words}
	case "bar-complete":
		return &outcome{store.HealthOK, words}
	}
	return nil
}

// jobTimeline lays out jobs (any order) of the sources in names (by id) over zoom's window
// that ends at until; jobs of other sources and jobs wholly outside the window are left out.
func jobTimeline(jobs []*store.HarvestJob, names map[string]string, until time.Time, zoom timelineZoom) timeline {
	tl := timeline{LabelW: timelineLabelW, PlotW: timelinePlotW, Width: timelineLabelW + timelinePlotW + 10,
		Since: until.Add(-zoom.Window), Until: until, Zoom: zoom}
	x := func(t time.Time) int {
		if t.Before(tl.Since) {
			t = tl.Since
		} else if t.After(until) {
			t = until
		}
		return tl.LabelW + int(int64(tl.PlotW)*int64(t.Sub(tl.Since))/int64(zoom.Window))
	}
	rows := map[string]*timelineRow{}
	for _, j := range jobs {
		name, ok := names[j.SourceID]
		end := until
		if j.FinishedAt != nil {
			end = *j.FinishedAt
		}
		if !ok || end.Before(tl.Since) || j.CreatedAt.After(until) {
			continue
		}
		row := rows[j.SourceID]
		if row == nil {
			row = &timelineRow{SourceID: j.SourceID, Name: cutName(name)}
			rows[j.SourceID] = row
		}
		class, words := jobLook(j)
		b := timelineBar{X: x(j.CreatedAt), JobID: j.ID, Class: class}
		b.W = max(3, x(end)-b.X)
		b.Label = fmt.Sprintf("%s: %s job %s, %d added, %d updated, %d deleted, %d errored; %s to %s", name,
			j.JobType, words, j.Added, j.Updated, j.Deleted, j.Errored, j.CreatedAt.UTC().Format("15:04"),
			finishWords(j.FinishedAt))
		row.Bars = append(row.Bars, b)
	}
	for _, r := range rows {
		tl.Rows = append(tl.Rows, *r)
	}
	slices.SortFunc(tl.Rows, func(a, b timelineRow) int {
		return cmp.Or(strings.Compare(strings.ToLower(names[a.SourceID]), strings.ToLower(names[b.SourceID])),
			strings.Compare(a.SourceID, b.SourceID))
	})
	for i := range tl.Rows {
		tl.Rows[i].Y = timelineTop + i*timelineRowH + (timelineRowH-timelineBarH)/2
		tl.Rows[i].TextY = timelineTop + i*timelineRowH + timelineRowH/2 + 4
	}
	tl.Height = timelineTop + max(1, len(tl.Rows))*timelineRowH + 4
	for t := tl.Since.Truncate(zoom.TickEvery).Add(zoom.TickEvery); !t.After(until); t = t.Add(zoom.TickEvery) {
		tl.Ticks = append(tl.Ticks, timelineTick{X: x(t), Label: t.UTC().Format("15:04")})
	}
	return tl
}

func finishWords(t *time.Time) string {
	if t == nil {
		return "now (unfinished)"
	}
	return t.UTC().Format("15:04 UTC")
}

// cutName is name cut to timelineNameMax characters, with an ellipsis when cut.
func cutName(name string) string {
	r := []rune(name)
	if len(r) <= timelineNameMax {
		return name
	}
	return string(r[:timelineNameMax-1]) + "…"
}
