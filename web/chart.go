package web

import (
	"slices"

	"github.com/harvester-dev/harvester/store"
)

// chart is an inline SVG bar chart of a source's last jobs, oldest on the left: for each job a
// stacked bar of added, updated, deleted, unchanged and errored records.
type chart struct {
	Width, Height int
	Bars          []chartBar
	Max           int
}

type chartBar struct {
	X      int
	Label  string // the job's creation date
	JobID  string
	Title  string // the counts, for the <title> tooltip and screen readers
	Stacks []chartStack
}

type chartStack struct {
	Y, H  int
	Class string
	Fill  string
}

const (
	chartHeight = 160
	chartBarW   = 24
	chartGap    = 8
)

var chartSeries = []struct{ name, fill string }{
	{"added", "#00703c"}, {"updated", "#005ea2"}, {"deleted", "#8a5300"}, {"unchanged", "#a9aeb1"}, {"errored", "#b50909"},
}

// jobChart charts jobs (newest first, as JobList returns them).
func jobChart(jobs []*store.HarvestJob) chart {
	jobs = slices.Clone(jobs)
	slices.Reverse(jobs)
	c := chart{Height: chartHeight + 30, Width: max(1, len(jobs))*(chartBarW+chartGap) + chartGap}
	for _, j := range jobs {
		c.Max = max(c.Max, j.Added+j.Updated+j.Deleted+j.Unchanged+j.Errored)
	}
	for i, j := range jobs {
		b := chartBar{X: chartGap + i*(chartBarW+chartGap), Label: j.CreatedAt.UTC().Format("01-02"), JobID: j.ID}
		vals := []int{j.Added, j.Updated, j.Deleted, j.Unchanged, j.Errored}
		b.Title = j.CreatedAt.UTC().Format("2006-01-02 15:04") + " " + string(j.JobType) + ": " +
			itoa(j.Added) + " added, " + itoa(j.Updated) + " updated, " + itoa(j.Deleted) + " deleted, " +
			itoa(j.Unchanged) + " unchanged, " + itoa(j.Errored) + " errored"
		y := chartHeight
		for k, v := range vals {
			if v == 0 || c.Max == 0 {
				continue
			}
			h := max(1, v*chartHeight/c.Max)
			y -= h
			b.Stacks = append(b.Stacks, chartStack{Y: y, H: h, Class: chartSeries[k].name, Fill: chartSeries[k].fill})
		}
		c.Bars = append(c.Bars, b)
	}
	return c
}
