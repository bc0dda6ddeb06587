package main

import "testing"

// TestPipelineCeiling: the pipeline's ceiling is one over the sum of a record's shares of the
// machine, five hops counted; without the Postgres ceiling there is none.
func TestPipelineCeiling(t *testing.T) {
	ceilings := []result{
		{Scenario: "ceiling_jetstream", Records: 1000, RecordsPerSec: 50_000},
		{Scenario: "ceiling_postgres_upsert", Records: 1000, RecordsPerSec: 20_000},
		{Scenario: "ceiling_validate", Records: 1000, RecordsPerSec: 10_000},
		{Scenario: "ceiling_hash", Records: 1000, RecordsPerSec: 100_000},
	}
	got, ok := pipelineCeiling(ceilings)
	// 5/50,000 + 1/20,000 + 1/10,000 + 1/100,000 = 0.00026 s a record
	if !ok || got.Scenario != "ceiling_pipeline" || got.RecordsPerSec != 3846.2 || got.Records != 1000 {
		t.Errorf("got %+v, %v; want ceiling_pipeline at 3846.2 records/s", got, ok)
	}
	if got.CPUMsPerRecord != nil {
		t.Errorf("a pipeline CPU a record from ceilings without CPU: %+v", got.CPUMsPerRecord)
	}
	cpu := []*cpuPerRecord{{Harvester: 0.01, NATS: 0.02}, {Harvester: 0.005, Postgres: 0.03}, {Harvester: 0.2}, {Harvester: 0.05}}
	for i := range ceilings {
		ceilings[i].CPUMsPerRecord = cpu[i]
	}
	got, _ = pipelineCeiling(ceilings)
	// five hops of 0.03 ms, one upsert of 0.035, one validation of 0.2, one hash of 0.05
	want := cpuPerRecord{Harvester: 0.305, NATS: 0.1, Postgres: 0.03, Total: 0.435}
	if got.CPUMsPerRecord == nil || *got.CPUMsPerRecord != want {
		t.Errorf("pipeline CPU a record %+v, want %+v", got.CPUMsPerRecord, want)
	}
	if _, ok := pipelineCeiling(append(ceilings[:1:1], ceilings[2:]...)); ok {
		t.Error("a pipeline ceiling without the Postgres ceiling")
	}
}
