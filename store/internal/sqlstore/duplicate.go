package sqlstore

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/harvester-dev/harvester/store"
)

// duplicateSide are the columns of one side of a pair: source (alias s), organization (o) and
// dataset (d), in store.DuplicateSide's order.
func duplicateSide(s, o, d string) string {
	return s + `.id, ` + s + `.name, COALESCE(CAST(` + s + `.organization_id AS TEXT), ''), COALESCE(` + o + `.name, ''), ` +
		d + `.id, ` + d + `.slug, ` + d + `.identifier, ` + d + `.harvest_record_id, ` + s + `.precedence`
}

// duplicateFrom joins each held dataset (h) to the live dataset it duplicates (k), their sources
// (hs, ks) and organizations (ho, ko), filtered on $1 source (either side), $2 organization
// (either side), $3 first job and $4 the held dataset's source, each NULL for any. In a chain (h held against k1, k1 since
// held against k2 by a third source, ...) k is the live end, followed up to three hops (four
// sources sharing a key); the match and key stay those of h's own pair.
const duplicateFrom = ` FROM dataset h
	JOIN dataset k1 ON k1.id = h.duplicate_of
	LEFT JOIN dataset k2 ON k2.id = k1.duplicate_of
	JOIN dataset k ON k.id = COALESCE(k2.duplicate_of, k1.duplicate_of, h.duplicate_of)
	JOIN harvest_source hs ON hs.id = h.harvest_source_id
	JOIN harvest_source ks ON ks.id = k.harvest_source_id
	LEFT JOIN organization ho ON ho.id = hs.organization_id
	LEFT JOIN organization ko ON ko.id = ks.organization_id
	WHERE h.duplicate_of IS NOT NULL
	AND (CAST($1 AS TEXT) IS NULL OR CAST(h.harvest_source_id AS TEXT) = $1 OR CAST(k.harvest_source_id AS TEXT) = $1)
	AND (CAST($2 AS TEXT) IS NULL OR CAST(hs.organization_id AS TEXT) = $2 OR CAST(ks.organization_id AS TEXT) = $2)
	AND (CAST($3 AS TEXT) IS NULL OR CAST(h.duplicate_job_id AS TEXT) = $3)
	AND (CAST($4 AS TEXT) IS NULL OR CAST(h.harvest_source_id AS TEXT) = $4)`

// CrossSourceDuplicateList implements store.Store.
func (s *Store) CrossSourceDuplicateList(ctx context.Context, p *store.CrossSourceDuplicateListParams) ([]store.CrossSourceDuplicate, int, error) {
	args := []any{nullable(p.SourceID), nullable(p.OrganizationID), nullable(p.JobID), nullable(p.HeldSourceID)}
	total, err := Count(ctx, s.q, `SELECT count(*)`+duplicateFrom, args...)
	if err != nil {
		return nil, 0, err
	}
	limit, offset := p.Bounds()
	pairs, err := Collect(s.q.Query(ctx, `SELECT h.duplicate_match, COALESCE(h.duplicate_key, ''),
		COALESCE(CAST(h.duplicate_job_id AS TEXT), ''), h.duplicate_seen_at, `+
		duplicateSide("ks", "ko", "k")+`, `+duplicateSide("hs", "ho", "h")+duplicateFrom+`
		ORDER BY h.duplicate_seen_at DESC, h.id LIMIT $5 OFFSET $6`, append(args, limit, offset)...), s.scanDuplicate)
	return pairs, total, err
}

// scanDuplicate reads a row of CrossSourceDuplicateList.
func (s *Store) scanDuplicate(row Row) (store.CrossSourceDuplicate, error) {
	var c store.CrossSourceDuplicate
	side := func(d *store.DuplicateSide) []any {
		return []any{&d.SourceID, &d.SourceName, &d.OrganizationID, &d.OrganizationName, &d.DatasetID,
			&d.DatasetSlug, &d.Identifier, &d.RecordID, &d.Precedence}
	}
	dest := append([]any{&c.Match, &c.Key, &c.FirstJobID, s.scan.Time(&c.FirstSeenAt)}, side(&c.Kept)...)
	err := row.Scan(append(dest, side(&c.Held)...)...)
	return c, err
}

// soleLandingPage and soleDownloadURLs are true when the dataset (columns unqualified) has the
// landingPage $4 (downloadURL set hash $5) and no other dataset, live or held, of its source or
// of $1's source $2 has it: a key shared within one source (an agency's home page used as every
// dataset's landingPage) identifies no dataset, so it matches nothing across sources. $2's side
// is an uncorrelated subquery (evaluated once, NULL when shared: then the index finds no row).
const (
	soleLandingPage = `(landing_page = (SELECT CAST($4 AS TEXT) WHERE NOT EXISTS (SELECT 1 FROM dataset x
		WHERE x.landing_page = $4 AND x.harvest_source_id = $2 AND x.id <> $1))
		AND NOT EXISTS (SELECT 1 FROM dataset x WHERE x.landing_page = dataset.landing_page
		AND x.harvest_source_id = dataset.harvest_source_id AND x.id <> dataset.id))`
	soleDownloadURLs = `(download_urls_sha = (SELECT CAST($5 AS TEXT) WHERE NOT EXISTS (SELECT 1 FROM dataset x
		WHERE x.download_urls_sha = $5 AND x.harvest_source_id = $2 AND x.id <> $1))
		AND NOT EXISTS (SELECT 1 FROM dataset x WHERE x.download_urls_sha = dataset.download_urls_sha
		AND x.harvest_source_id = dataset.harvest_source_id AND x.id <> dataset.id))`
)

// matchCase is the Match of a dataset (columns unqualified) sharing a key with $3 identifier,
// $4 landingPage, $5 downloadURL set hash (the last two each unique within both sources);
// matchKey its shared value; matchRank orders them.
const (
	matchCase = `CASE WHEN identifier = $3 THEN 'identifier' WHEN ` + soleLandingPage + ` THEN 'landingPage'
		ELSE 'downloadURL' END`
	matchKey  = `CASE WHEN identifier = $3 THEN identifier WHEN ` + soleLandingPage + ` THEN landing_page ELSE download_urls_sha END`
	matchRank = `CASE WHEN identifier = $3 THEN 0 WHEN ` + soleLandingPage + ` THEN 1 ELSE 2 END`
	// sharesKey selects the live datasets of sources other than $2, other than $1, sharing a key.
	sharesKey = `duplicate_of IS NULL AND harvest_source_id <> $2 AND id <> $1
		AND (identifier = $3 OR ` + soleLandingPage + ` OR ` + soleDownloadURLs + `)`
	// candidateColumns are a DuplicateCandidate's columns of a dataset (unqualified).
	candidateColumns = `id, harvest_source_id, (SELECT name FROM harvest_source s WHERE s.id = harvest_source_id),
		identifier, slug, (SELECT precedence FROM harvest_source s WHERE s.id = harvest_source_id)`
	clearDuplicate = `duplicate_of = NULL, duplicate_match = NULL, duplicate_key = NULL, duplicate_job_id = NULL,
		duplicate_seen_at = NULL`
	// ownPrecedence is the precedence of the source $2.
	ownPrecedence = `(SELECT precedence FROM harvest_source s WHERE s.id = $2)`
)

// Earlier is SQL that is true when the source aSrc published the key (match, key: SQL of a
// Match* and its value) before the source bSrc did, by source_key_first_published: the
// earlier first publication, then the earlier first job (by its creation), then the lower
// source id; a source with a row before one without; with no row for either, the lower source
// id. It is a total order over the sources that publish a key, so that which of two datasets
// stays live never depends on the order they are judged in. One index lookup (the table's
// primary key) per source.
func Earlier(aSrc, bSrc, match, key string) string {
	return `COALESCE((SELECT f.harvest_source_id = ` + aSrc + ` FROM source_key_first_published f
		WHERE f.harvest_source_id IN (` + aSrc + `, ` + bSrc + `) AND f.duplicate_match = ` + match + `
			AND f.duplicate_key = ` + key + `
		ORDER BY f.first_published_at, f.first_job_created_at, f.harvest_source_id LIMIT 1), ` + aSrc + ` < ` + bSrc + `)`
}

// Outranks is SQL that is true when the dataset of the source aSrc (its precedence aPrec)
// ranks above the dataset of the source bSrc (bPrec) that shares the key (match, key) with it:
// the higher precedence, or at equal precedence the source that published the key first
// (Earlier). The cross-source duplicate rule: of a pair, the dataset that outranks is live.
func Outranks(aPrec, aSrc, bPrec, bSrc, match, key string) string {
	return `(` + aPrec + ` > ` + bPrec + ` OR ` + aPrec + ` = ` + bPrec + ` AND ` + Earlier(aSrc, bSrc, match, key) + `)`
}

// StalePair is SQL that is true when the cross-source duplicate standing of the dataset d (its
// source p, a harvest_source row) disagrees with the rule now (a precedence changed, or a rule
// of an earlier version judged it): d is held against a dataset it outranks on their pair's key,
// or a dataset that outranks d is held against it (Outranks). fence ends each EXISTS subquery
// (DuplicatePossible). The dataset_duplicate_of index finds the datasets held against d.
func StalePair(fence string) string {
	other := "(SELECT precedence FROM harvest_source s WHERE s.id = o.harvest_source_id)"
	return `(EXISTS (SELECT 1 FROM dataset o WHERE o.id = d.duplicate_of
			AND ` + Outranks("p.precedence", "d.harvest_source_id", other, "o.harvest_source_id", "d.duplicate_match", "d.duplicate_key") + fence + `)
		OR EXISTS (SELECT 1 FROM dataset o WHERE o.duplicate_of = d.id
			AND ` + Outranks(other, "o.harvest_source_id", "p.precedence", "d.harvest_source_id", "o.duplicate_match", "o.duplicate_key") + fence + `))`
}

// movedBy is the new duplicate_moved of a dataset (columns unqualified) whose held state a
// statement changes for the job n (SQL of its id; NULL for none): set when the job is of
// another source, kept otherwise (only the dataset's own write clears it: DatasetUpsert).
func movedBy(n string) string {
	return `(duplicate_moved OR COALESCE(harvest_source_id <>
		(SELECT j.harvest_source_id FROM harvest_job j WHERE j.id = ` + n + `), FALSE))`
}

// scanCandidate reads candidateColumns, the match, the key, whether the dataset is live and
// whether it outranks the dataset it was found for.
func scanCandidate(row Row) (*store.DuplicateCandidate, error) {
	var c store.DuplicateCandidate
	err := row.Scan(&c.DatasetID, &c.SourceID, &c.SourceName, &c.Identifier, &c.Slug, &c.Precedence, &c.Match, &c.Key,
		&c.Live, &c.Outranks)
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// DatasetDuplicateFind implements store.Store: two index lookups (dataset_identifier,
// dataset_landing_page, dataset_download_urls_sha; dataset_duplicate_of), each one row, and
// each candidate's rank against $1 (Outranks: the first-published table's primary key).
func (s *Store) DatasetDuplicateFind(ctx context.Context, p *store.DatasetDuplicateFindParams) ([]*store.DuplicateCandidate, error) {
	return Collect(s.q.Query(ctx, `SELECT * FROM (SELECT c.*, `+Outranks("c.prec", "c.src", ownPrecedence, "$2", "c.m", "c.k")+`
			FROM (SELECT `+candidateColumns+` AS prec, `+matchCase+` AS m, `+matchKey+` AS k, TRUE AS live,
				harvest_source_id AS src, `+matchRank+` AS mrank
				FROM dataset WHERE `+sharesKey+`) c
			ORDER BY c.prec DESC, 12 DESC, c.mrank, c.id LIMIT 1) a
		UNION ALL
		SELECT * FROM (SELECT c.*, `+Outranks("c.prec", "c.src", ownPrecedence, "$2", "c.m", "c.k")+`
			FROM (SELECT `+candidateColumns+` AS prec, duplicate_match AS m, COALESCE(duplicate_key, '') AS k,
				FALSE AS live, harvest_source_id AS src, 0 AS mrank
				FROM dataset WHERE duplicate_of = $1) c
			ORDER BY c.prec DESC, 12 DESC, c.id LIMIT 1) b`,
		p.DatasetID, p.SourceID, nullable(p.Identifier), nullable(p.LandingPage), nullable(p.DownloadURLsSHA)),
		func(row Row) (*store.DuplicateCandidate, error) {
			var c store.DuplicateCandidate
			var src string
			var rank int
			err := row.Scan(&c.DatasetID, &c.SourceID, &c.SourceName, &c.Identifier, &c.Slug, &c.Precedence, &c.Match,
				&c.Key, &c.Live, &src, &rank, &c.Outranks)
			return &c, err
		})
}

// DuplicatePossible is the condition on a dataset d under which DatasetDuplicatePossible
// returns it: a superset of DatasetDuplicateFind's (no rank, no uniqueness within a source, live
// or held), each branch one index lookup (dataset_identifier, dataset_landing_page,
// dataset_download_urls_sha, dataset_duplicate_of). fence ends each EXISTS subquery: Postgres
// passes " OFFSET 0", so that no plan (a generic plan made while the table was empty among them)
// turns one into a hashed subplan that reads the whole table on every call.
func DuplicatePossible(fence string) string {
	return `(d.duplicate_of IS NOT NULL
	OR EXISTS (SELECT 1 FROM dataset x WHERE x.identifier = d.identifier AND x.harvest_source_id <> d.harvest_source_id` + fence + `)
	OR (d.landing_page IS NOT NULL AND EXISTS (SELECT 1 FROM dataset x
		WHERE x.landing_page = d.landing_page AND x.harvest_source_id <> d.harvest_source_id` + fence + `))
	OR (d.download_urls_sha IS NOT NULL AND EXISTS (SELECT 1 FROM dataset x
		WHERE x.download_urls_sha = d.download_urls_sha AND x.harvest_source_id <> d.harvest_source_id` + fence + `))
	OR EXISTS (SELECT 1 FROM dataset x WHERE x.duplicate_of = d.id` + fence + `))`
}

// maxIDsPerStatement bounds the ids of one DatasetDuplicatePossible statement (SQLite's bound
// parameters).
const maxIDsPerStatement = 500

// DatasetDuplicatePossible implements store.Store: the ids as a list of parameters, at most
// maxIDsPerStatement a statement.
func (s *Store) DatasetDuplicatePossible(ctx context.Context, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	for chunk := range slices.Chunk(ids, maxIDsPerStatement) {
		marks, args := inList(chunk)
		err := AddIDs(out, s.q.Query(ctx, `SELECT CAST(d.id AS TEXT) FROM dataset d WHERE d.id IN (`+
			marks+`) AND `+DuplicatePossible(""), args...))
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// AddIDs adds to set the one text column of each of rows (ids), and closes rows.
func AddIDs(set map[string]bool, rows Rows) error {
	return Each(rows, func(row Row) (string, error) {
		var id string
		return id, row.Scan(&id)
	}, func(id string) error {
		set[id] = true
		return nil
	})
}

// DatasetDuplicateKeep implements store.Store in one transaction: read the dataset's keys and
// standing, make it live, hold the lower-ranked live datasets sharing a key, and give a pair
// that swapped its first job and time back.
func (s *Store) DatasetDuplicateKeep(ctx context.Context, p *store.DatasetDuplicateKeepParams) ([]*store.DuplicateCandidate, error) {
	var held []*store.DuplicateCandidate
	err := s.d.InTx(ctx, func(tx Querier) error {
		var src, ident string
		var landing, sha, oldKept, oldJob *string
		var oldSeen *time.Time
		var prec int
		err := tx.QueryRow(ctx, `SELECT harvest_source_id, identifier, landing_page, download_urls_sha,
			CAST(duplicate_of AS TEXT), CAST(duplicate_job_id AS TEXT), duplicate_seen_at,
			(SELECT precedence FROM harvest_source s WHERE s.id = harvest_source_id)
			FROM dataset WHERE id = $1`, p.DatasetID).Scan(&src, &ident, &landing, &sha, &oldKept, &oldJob,
			s.scan.NullTime(&oldSeen), &prec)
		if err != nil {
			return err
		}
		if oldKept != nil {
			if _, err := tx.Exec(ctx, `UPDATE dataset SET `+clearDuplicate+`, duplicate_moved = `+movedBy("$2")+`
				WHERE id = $1`, p.DatasetID, nullable(p.JobID)); err != nil {
				return err
			}
		}
		now := s.d.NowArgs()
		// The live datasets sharing a key that the dataset outranks (dataset.* is the row updated).
		held, err = Collect(tx.Query(ctx, s.sql(`UPDATE dataset SET duplicate_of = $1, duplicate_match = `+matchCase+`,
			duplicate_key = `+matchKey+`, duplicate_job_id = $7, duplicate_seen_at = now(),
			duplicate_moved = `+movedBy("$7")+`
			WHERE `+sharesKey+` AND `+Outranks("$6", "$2",
			"(SELECT precedence FROM harvest_source s WHERE s.id = dataset.harvest_source_id)", "dataset.harvest_source_id",
			matchCase, matchKey)+`
			RETURNING `+candidateColumns+`, duplicate_match, duplicate_key, FALSE, FALSE`),
			s.stamped(now, p.DatasetID, src, ident, landing, sha, prec, nullable(p.JobID))...), scanCandidate)
		if err != nil || oldKept == nil {
			return err
		}
		var seen any
		if oldSeen != nil {
			seen = s.d.Time(*oldSeen)
		}
		_, err = tx.Exec(ctx, `UPDATE dataset SET duplicate_job_id = $3, duplicate_seen_at = COALESCE($4, duplicate_seen_at)
			WHERE id = $2 AND duplicate_of = $1`, p.DatasetID, *oldKept, oldJob, seen)
		return err
	})
	return held, err
}

// DatasetHold implements store.Store in one transaction. Its first statement writes the kept
// row (a no-op for a live one), so that two SYNCs holding a pair each way wait for each other:
// the second finds the other no longer live.
func (s *Store) DatasetHold(ctx context.Context, p *store.DatasetHoldParams) (bool, error) {
	held := false
	err := s.d.InTx(ctx, func(tx Querier) error {
		var oldJob *string
		var oldSeen *time.Time
		swap := tx.QueryRow(ctx, `SELECT CAST(duplicate_job_id AS TEXT), duplicate_seen_at FROM dataset
			WHERE id = $1 AND duplicate_of = $2`, p.KeptID, p.HeldID).Scan(&oldJob, s.scan.NullTime(&oldSeen))
		n, err := tx.Exec(ctx, `UPDATE dataset SET `+clearDuplicate+`,
			duplicate_moved = CASE WHEN duplicate_of = $2 THEN `+movedBy("$3")+` ELSE duplicate_moved END
			WHERE id = $1 AND (duplicate_of IS NULL OR duplicate_of = $2)`, p.KeptID, p.HeldID, nullable(p.JobID))
		if err != nil || n == 0 {
			return err
		}
		var job any = nullable(p.JobID)
		var seen any
		switch {
		case swap == nil: // the pair swaps: it keeps when it was first found
			job = oldJob
			if oldSeen != nil {
				seen = s.d.Time(*oldSeen)
			}
		case !errors.Is(swap, store.ErrNotFound):
			return swap
		}
		now := s.d.NowArgs()
		n, err = tx.Exec(ctx, s.sql(`UPDATE dataset SET duplicate_match = $3, duplicate_key = $4,
			duplicate_job_id = CASE WHEN duplicate_of = $2 THEN duplicate_job_id ELSE $5 END,
			duplicate_seen_at = CASE WHEN duplicate_of = $2 THEN duplicate_seen_at ELSE COALESCE($6, now()) END,
			duplicate_moved = CASE WHEN duplicate_of = $2 THEN duplicate_moved ELSE `+movedBy("$7")+` END,
			duplicate_of = $2
			WHERE id = $1`), s.stamped(now, p.HeldID, p.KeptID, p.Match, p.Key, job, seen, nullable(p.JobID))...)
		held = n == 1
		return err
	})
	return held, err
}

// DatasetDuplicateRelease implements store.Store in one statement (the dataset_duplicate_orphan
// index finds the rows).
func (s *Store) DatasetDuplicateRelease(ctx context.Context, limit int) ([]*store.Dataset, error) {
	return Collect(s.q.Query(ctx, `UPDATE dataset SET `+clearDuplicate+`, duplicate_moved = TRUE
		WHERE id IN (SELECT id FROM dataset WHERE duplicate_of IS NULL AND duplicate_match IS NOT NULL LIMIT $1)
		RETURNING `+DatasetColumns, limit), s.scan.Dataset)
}

// sharedKey is true for a held dataset h whose pair (h against k) was matched by landingPage or
// downloadURL set and whose key another dataset, live or held, of h's or k's source has too.
const sharedKey = `((h.duplicate_match = 'landingPage' AND EXISTS (SELECT 1 FROM dataset x
		WHERE x.landing_page = h.duplicate_key AND x.harvest_source_id IN (h.harvest_source_id, k.harvest_source_id)
		AND x.id <> h.id AND x.id <> k.id))
	OR (h.duplicate_match = 'downloadURL' AND EXISTS (SELECT 1 FROM dataset x
		WHERE x.download_urls_sha = h.duplicate_key AND x.harvest_source_id IN (h.harvest_source_id, k.harvest_source_id)
		AND x.id <> h.id AND x.id <> k.id)))`

// DatasetDuplicateUnpair implements store.Store in one statement: it clears duplicate_of and
// keeps duplicate_match, the mark DatasetDuplicateRelease finds.
func (s *Store) DatasetDuplicateUnpair(ctx context.Context, p *store.DatasetDuplicateUnpairParams) ([]*store.DuplicateCandidate, error) {
	return Collect(s.q.Query(ctx, `UPDATE dataset SET duplicate_of = NULL WHERE id IN (SELECT h.id FROM dataset h
		JOIN dataset k ON k.id = h.duplicate_of
		WHERE (h.harvest_source_id = $1 OR k.harvest_source_id = $1) AND `+sharedKey+` ORDER BY h.id LIMIT $2)
		RETURNING `+candidateColumns+`, duplicate_match, COALESCE(duplicate_key, ''), FALSE, FALSE`, p.SourceID, p.Limit), scanCandidate)
}

// DatasetDuplicateUnpairStale implements store.Store in one statement (the dataset_duplicate_of
// index finds the rows): it clears duplicate_of and keeps duplicate_match, the mark
// DatasetDuplicateRelease finds. A NULL key of the kept dataset matches nothing.
func (s *Store) DatasetDuplicateUnpairStale(ctx context.Context, keptID string) (int, error) {
	n, err := s.q.Exec(ctx, `UPDATE dataset SET duplicate_of = NULL WHERE duplicate_of = $1
		AND NOT EXISTS (SELECT 1 FROM dataset k WHERE k.id = $1 AND CASE dataset.duplicate_match
			WHEN 'identifier' THEN k.identifier = dataset.identifier
			WHEN 'landingPage' THEN k.landing_page = dataset.duplicate_key
			WHEN 'downloadURL' THEN k.download_urls_sha = dataset.duplicate_key
			ELSE TRUE END)`, keptID)
	return int(n), err
}
