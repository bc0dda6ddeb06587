package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// jobTable is a JobGetter over a map: OpenJobs is a cache over any store's JobGet, and what is
// tested here is the cache's answer, not a store.
type jobTable map[string]harvest.JobStatus

func (t jobTable) JobGet(_ context.Context, id string) (*store.HarvestJob, error) {
	st, ok := t[id]
	if !ok {
		return nil, store.ErrNotFound
	}
	return &store.HarvestJob{ID: id, Status: st}, nil
}

func recordMessage(t *testing.T, r harvest.Record) *harvest.Message {
	t.Helper()
	m, err := harvest.RecordMessage(harvest.SubjectCompare, &r)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestAdmitSaysWhatAStageDoesWithARecord(t *testing.T) {
	jobs := store.NewOpenJobs(jobTable{"open": harvest.JobInProgress, "done": harvest.JobError}, time.Minute)
	cases := []struct {
		name      string
		msg       *harvest.Message
		wantEnded bool
		wantErr   func(error) bool
	}{
		{"open job", recordMessage(t, harvest.Record{JobID: "open", Identifier: "a"}), false, nil},
		{"ended job", recordMessage(t, harvest.Record{JobID: "done", Identifier: "a"}), true, nil},
		{"ended job, replayed", recordMessage(t, harvest.Record{JobID: "done", Identifier: "a", Replay: true}), false, nil},
		{"unknown job, replayed", recordMessage(t, harvest.Record{JobID: "gone", Identifier: "a", Replay: true}), false, nil},
		{"unknown job", recordMessage(t, harvest.Record{JobID: "gone", Identifier: "a"}), false,
			func(err error) bool { var u *harvest.UnknownJobError; return errors.As(err, &u) }},
		{"undecodable body", harvest.NewRawMessage("", []byte("{not json")), false, harvest.IsPermanent},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var rec harvest.Record
			ended, err := jobs.Admit(c.msg, &rec)
			if ended != c.wantEnded {
				t.Errorf("ended = %v, want %v", ended, c.wantEnded)
			}
			if (c.wantErr == nil) != (err == nil) || (c.wantErr != nil && !c.wantErr(err)) {
				t.Errorf("err = %v", err)
			}
		})
	}
}
