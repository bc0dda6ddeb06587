package main

import (
	"context"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// clockTicks is the unit of utime and stime in /proc/<pid>/stat (USER_HZ, 100 on Linux).
const clockTicks = 100

// cpuMeter measures the CPU time the processes of one scenario spend over its job: the
// harvester, the bench's own nats-server (when it started one) and the Postgres backends of the
// scratch database (those connected when the job ends; a backend that closed during the job is
// not counted). CPU time per record does not move with what else runs on the machine the way
// records/s does, so it compares two commits measured on a busy machine.
type cpuMeter struct {
	harvesterPID, natsPID int
	dbURL                 string
	start                 map[int]float64 // seconds of CPU by pid, at the start
}

// cpuSeconds is a process's user + system CPU time in seconds (/proc/<pid>/stat); 0 when the
// process is gone or cannot be read.
func cpuSeconds(pid int) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name (field 2) is in parentheses and may hold spaces: count after its end.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (state): utime is field 14, stime 15
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (u + st) / clockTicks
}

// postgresPIDs are the pids of the backends connected to the database of dbURL (none on an
// error, or without a database).
func postgresPIDs(ctx context.Context, dbURL string) []int {
	if dbURL == "" {
		return nil
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		return nil
	}
	conn, err := pgx.Connect(ctx, withoutPoolParams(u))
	if err != nil {
		return nil
	}
	defer conn.Close(ctx)
	rows, _ := conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return nil
	}
	out := make([]int, len(pids))
	for i, p := range pids {
		out[i] = int(p)
	}
	return out
}

// startCPU reads the CPU time of the scenario's processes now.
func startCPU(ctx context.Context, harvesterPID, natsPID int, dbURL string) *cpuMeter {
	m := &cpuMeter{harvesterPID: harvesterPID, natsPID: natsPID, dbURL: dbURL, start: map[int]float64{}}
	for _, pid := range append([]int{harvesterPID, natsPID}, postgresPIDs(ctx, dbURL)...) {
		if pid > 0 {
			m.start[pid] = cpuSeconds(pid)
		}
	}
	return m
}

// cpuPerRecord is the CPU time a scenario's processes spent per record of its job, in
// milliseconds (what a record costs the machine). For a ceiling, Harvester is the bench
// process itself (which does the ceiling's work), NATS the nats-server the ceiling talks to and
// Postgres the backend of the ceiling's connection.
type cpuPerRecord struct {
	Harvester float64 `json:"harvester"`
	NATS      float64 `json:"nats,omitempty"`
	Postgres  float64 `json:"postgres,omitempty"`
	Total     float64 `json:"total"`
}

// end returns the CPU time spent since startCPU per record of n records.
func (m *cpuMeter) end(ctx context.Context, n int) *cpuPerRecord {
	if n <= 0 {
		return nil
	}
	delta := func(pid int) float64 { return max(0, cpuSeconds(pid)-m.start[pid]) }
	ms := func(s float64) float64 { return round(1000*s/float64(n), 3) }
	var pg float64
	for _, pid := range postgresPIDs(ctx, m.dbURL) {
		pg += delta(pid)
	}
	c := &cpuPerRecord{Harvester: ms(delta(m.harvesterPID)), Postgres: ms(pg)}
	if m.natsPID > 0 {
		c.NATS = ms(delta(m.natsPID))
	}
	c.Total = round(c.Harvester+c.NATS+c.Postgres, 3)
	return c
}

// cpuSpan measures the CPU time a set of processes spends from its start (startSpan) to now.
type cpuSpan struct {
	pids  []int
	start []float64
}

// startSpan reads the CPU time of pids now; a pid of 0 or less is left out.
func startSpan(pids ...int) *cpuSpan {
	s := &cpuSpan{}
	for _, pid := range pids {
		if pid > 0 {
			s.pids = append(s.pids, pid)
			s.start = append(s.start, cpuSeconds(pid))
		}
	}
	return s
}

// seconds is the CPU time the span's processes spent since startSpan, in seconds.
func (s *cpuSpan) seconds() float64 {
	var total float64
	for i, pid := range s.pids {
		total += max(0, cpuSeconds(pid)-s.start[i])
	}
	return total
}

// ceilingCPU is what a ceiling's processes spent over its run, in seconds: the bench process,
// the nats-server and the Postgres backend (each 0 when the ceiling does not use it).
type ceilingCPU struct{ bench, nats, postgres float64 }

// perRecord is c over n records, in milliseconds.
func (c ceilingCPU) perRecord(n int) *cpuPerRecord {
	if n <= 0 {
		return nil
	}
	ms := func(s float64) float64 { return round(1000*s/float64(n), 4) }
	r := &cpuPerRecord{Harvester: ms(c.bench), NATS: ms(c.nats), Postgres: ms(c.postgres)}
	r.Total = round(r.Harvester+r.NATS+r.Postgres, 4)
	return r
}
