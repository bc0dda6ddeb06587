package h2import

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/harvester-dev/harvester/change"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// currentState selects a source's ($1) current records as H2.0 defines them: the newest success
// row of each (identifier, record_type), unless it is a delete.
const currentState = `SELECT * FROM (SELECT DISTINCT ON (identifier, record_type) * FROM harvest_record
	WHERE harvest_source_id = $1 AND status = 'success'
	ORDER BY identifier, record_type, date_created DESC, id) cur WHERE action IS DISTINCT FROM 'delete'`

// jobs writes the H2.0 jobs of the source that wrote one of its current records, and returns
// the (canonical) ids of those written: a refused job's records are not imported.
func (si *sourceImport) jobs(ctx context.Context) (map[string]bool, error) {
	src := si.src.p
	rows, err := si.tx.Query(ctx, `SELECT COALESCE(j.id, ''), COALESCE(j.job_type, 'harvest'),
		COALESCE(j.status::text, 'error'),
		COALESCE(j.date_created, j.date_finished, now()), COALESCE(j.date_finished, j.date_created, now()),
		COALESCE(j.records_total, 0), COALESCE(j.records_added, 0), COALESCE(j.records_updated, 0),
		COALESCE(j.records_deleted, 0), COALESCE(j.records_ignored, 0), COALESCE(j.records_errored, 0),
		COALESCE(j.records_validated, 0), COALESCE(j.records_warned, 0)
		FROM harvest_job j WHERE j.id IN (SELECT harvest_job_id FROM (`+currentState+`) c)
		ORDER BY j.date_created, j.id`, src.ID)
	if err != nil {
		return nil, fmt.Errorf("read H2.0 jobs of source %s: %w", src.ID, err)
	}
	var jobs []*store.JobImportParams // the jobs that wrote current records: few per source
	var j store.JobImportParams
	var jobType, status string
	_, err = pgx.ForEachRow(rows, []any{&j.ID, &jobType, &status, &j.CreatedAt, &j.FinishedAt, &j.Total, &j.Added,
		&j.Updated, &j.Deleted, &j.Unchanged, &j.Errored, &j.Validated, &j.Warned}, func() error {
		job := j
		job.SourceID = src.ID
		var err error
		if job.JobType, err = harvest.ParseJobType(jobType); err != nil {
			job.JobType = harvest.JobHarvest
		}
		job.Status = harvest.JobStatus(status)
		if !job.Status.Finished() {
			job.Status = harvest.JobError // H2.0 left it unfinished; it will never finish here
		}
		jobs = append(jobs, &job)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read H2.0 jobs of source %s: %w", src.ID, err)
	}
	written := map[string]bool{}
	for _, job := range jobs {
		h2ID := job.ID
		if why := checkJob(job); why != "" {
			si.rep.refuse("harvest_job", h2ID, "%s; its records and datasets are not imported", why)
			continue
		}
		r, err := si.w.JobImport(ctx, job)
		if err != nil {
			if err := rowError(si.rep, err, "harvest_job", h2ID, "; its records and datasets are not imported"); err != nil {
				return nil, err
			}
			continue
		}
		si.rep.Jobs.add(r)
		written[job.ID] = true
	}
	return written, nil
}

// records writes the source's current records with their datasets, streaming them.
func (si *sourceImport) records(ctx context.Context, jobs map[string]bool) error {
	src := si.src.p
	rows, err := si.tx.Query(ctx, `SELECT COALESCE(r.id, ''), COALESCE(r.harvest_job_id, ''),
		COALESCE(r.identifier, ''), COALESCE(r.record_type::text, 'dataset'),
		COALESCE(r.action::text, 'create'), COALESCE(r.source_hash, ''), COALESCE(r.source_raw, ''),
		r.source_transform::text, COALESCE(r.date_created, r.date_finished, now()),
		d.id, COALESCE(d.slug, ''), COALESCE(d.dcat::text, ''), d.last_harvested_date
		FROM (`+currentState+`) r LEFT JOIN dataset d ON d.harvest_record_id = r.id
		ORDER BY r.identifier, r.record_type`, src.ID)
	if err != nil {
		return fmt.Errorf("read H2.0 records of source %s: %w", src.ID, err)
	}
	var rec store.RecordImportParams
	var ds store.DatasetImportParams
	var recordType, action, dcat string
	var transform, dsID *string
	var harvested *time.Time
	_, err = pgx.ForEachRow(rows, []any{&rec.ID, &rec.JobID, &rec.Identifier, &recordType, &action,
		&rec.H2SourceHash, &rec.SourceRaw, &transform, &rec.CreatedAt, &dsID, &ds.Slug, &dcat, &harvested},
		func() error {
			r, d := rec, ds // copies: ForEachRow scans into rec and ds again
			r.Action, r.SourceTransform = harvest.Action(action), nil
			if transform != nil {
				r.SourceTransform = []byte(*transform)
			}
			if dsID == nil {
				if recordType != "catalog_record" {
					si.rep.NoDataset++
					return nil
				}
				return si.record(ctx, jobs, &r, nil, recordType)
			}
			d.ID, d.DCAT, d.LastHarvestedDate = *dsID, []byte(dcat), r.CreatedAt
			if harvested != nil {
				d.LastHarvestedDate = *harvested
			}
			return si.record(ctx, jobs, &r, &d, recordType)
		})
	if err != nil {
		return fmt.Errorf("read H2.0 records of source %s: %w", src.ID, err)
	}
	return nil
}

// record checks and writes one current record and its dataset (nil for a catalog_record): when
// the checks refuse either, neither is written (the first harvest adds them); a dataset the
// store refuses (its slug is another dataset's) is reported and its record kept.
func (si *sourceImport) record(ctx context.Context, jobs map[string]bool, rec *store.RecordImportParams,
	ds *store.DatasetImportParams, recordType string) error {
	h2ID := rec.ID
	const then = "; its record and dataset are not imported"
	if why := checkRecord(rec); why != "" {
		si.rep.refuse("harvest_record", h2ID, "%s%s", why, then)
		return nil
	}
	if !jobs[rec.JobID] {
		si.rep.refuse("harvest_record", h2ID, "its job %s is not imported%s", rec.JobID, then)
		return nil
	}
	if ds != nil {
		dsH2ID := ds.ID
		if why := checkDataset(ds); why != "" {
			si.rep.refuse("dataset", dsH2ID, "%s%s", why, then)
			return nil
		}
	}
	src := si.src.p
	rec.SourceID, rec.SchemaType = src.ID, src.SchemaType
	rec.SourceHash = ourHash(src.SchemaType, rec.SourceRaw)
	r, err := si.w.RecordImport(ctx, rec)
	if err != nil {
		return rowError(si.rep, err, "harvest_record", h2ID, then)
	}
	si.rep.Records.add(r)
	if ds == nil {
		return nil
	}
	ds.SourceID, ds.Identifier, ds.RecordID, ds.RecordType = src.ID, rec.Identifier, rec.ID, recordTypeOf(recordType)
	r, err = si.w.DatasetImport(ctx, ds)
	if err != nil {
		return rowError(si.rep, err, "dataset", ds.ID, "")
	}
	si.rep.Datasets.add(r)
	return nil
}

// ourHash is Harvester's source_hash of an H2.0 source_raw: COMPARE's SourceHash of a JSON
// record (of the sorted form H2.0 stores, so it matches the publisher's record only when its
// arrays were in order; the H2.0 hash covers the rest), SHA-256 of an XML record's bytes.
func ourHash(schema harvest.SchemaType, raw string) string {
	if schema.IsXML() || strings.HasPrefix(strings.TrimSpace(raw), "<") {
		sum := sha256.Sum256([]byte(raw))
		return hex.EncodeToString(sum[:])
	}
	h, err := change.SourceHash([]byte(raw))
	if err != nil {
		return "" // H2.0 stored something that is not JSON: only H2.0's hash can match it
	}
	return h
}

// recordTypeOf maps H2.0's record_type enum to Harvester's record types.
func recordTypeOf(h2 string) string {
	switch h2 {
	case "data_service":
		return harvest.RecordTypeDataService
	case "catalog_record":
		return harvest.RecordTypeCatalogRecord
	case "data_series":
		return harvest.RecordTypeDatasetSeries
	}
	return harvest.RecordTypeDataset
}
