package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

// printer writes results as JSON lines, or as a table at flush.
type printer struct {
	w    io.Writer
	json bool
	tw   *tabwriter.Writer
}

func newPrinter(w io.Writer, asJSON bool) *printer {
	p := &printer{w: w, json: asJSON}
	if !asJSON {
		p.tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(p.tw, "scenario\trecords\trecords/s\twall s\tpeak RSS MiB\tanon / file MiB\tof lowest ceiling\tjob s p50 / p95 / max\tCPU ms/record total (harvester / nats / pg)\tCPU × ceiling_pipeline\tstatus\t")
	}
	return p
}

func (p *printer) print(r result) {
	if p.json {
		data, _ := json.Marshal(r) // plain data: always encodes
		fmt.Fprintln(p.w, string(data))
		return
	}
	split := "-"
	if r.PeakRSSAnonMiB > 0 {
		split = fmt.Sprintf("%.0f / %.0f", r.PeakRSSAnonMiB, r.PeakRSSFileMiB)
	}
	jobs := "-"
	if d := r.SmallJobS; d != nil {
		jobs = fmt.Sprintf("%.2f / %.2f / %.2f", d.P50, d.P95, d.Max)
	}
	cpu := "-"
	if c := r.CPUMsPerRecord; c != nil {
		cpu = fmt.Sprintf("%.3f (%.3f / %.3f / %.3f)", c.Total, c.Harvester, c.NATS, c.Postgres)
	}
	fmt.Fprintf(p.tw, "%s\t%d\t%.0f\t%.2f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Scenario, r.Records, r.RecordsPerSec, r.WallS,
		orDash(r.PeakRSSMiB, "%.0f"), split, orDash(r.OfLowestCeiling, "%.2f"), jobs, cpu, orDash(r.CPUOfCeiling, "%.2f×"), r.Status)
}

func orDash(x float64, format string) string {
	if x == 0 {
		return "-"
	}
	return fmt.Sprintf(format, x)
}

func (p *printer) flush() {
	if p.tw != nil {
		_ = p.tw.Flush()
	}
}
