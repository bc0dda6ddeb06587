package extract

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/harvester-dev/harvester/catalog"
	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// Handler is the EXTRACT stage.
type Handler struct {
	store Store
	pub   harvest.Publisher
	fetch fetch.Config
	cfg   Config
}

// Store is what EXTRACT needs of the store (store.Store has it all).
type Store interface {
	// CatalogChecksums, CatalogChecksumsSet and ResourceIDs are for an rdf source's catalogs
	// (their fdkIds and checksums, the report's changedCatalogs).
	CatalogChecksums(ctx context.Context, sourceID string) (map[string]string, error)
	CatalogChecksumsSet(ctx context.Context, p *store.CatalogChecksumsSetParams) error
	DatasetFindElsewhere(ctx context.Context, p *store.DatasetFindElsewhereParams) (*store.DatasetElsewhere, error)
	JobFetchGet(ctx context.Context, jobID string) (*store.JobFetch, error)
	JobFetchLatest(ctx context.Context, sourceID string) (*store.JobFetch, error)
	JobFetchSet(ctx context.Context, p *store.JobFetch) error
	JobCountBehind(ctx context.Context, jobID string, settled int) (int, error)
	JobGet(ctx context.Context, jobID string) (*store.HarvestJob, error)
	JobHeartbeat(ctx context.Context, jobID string) error
	// JobList finds a csw source's last complete harvest (its modified filter).
	JobList(ctx context.Context, p *store.JobListParams) ([]*store.HarvestJob, int, error)
	JobIdentifierAddBatch(ctx context.Context, p *store.JobIdentifierAddBatchParams) error
	JobIdentifierClaimBatch(ctx context.Context, p *store.JobIdentifierClaimBatchParams) (map[string]int, error)
	RecordLatest(ctx context.Context, p *store.RecordLatestParams) (*store.HarvestRecord, error)
	// RecordCompareBatch, OutcomeSettleBatch and RecordInsertBatch are COMPARE's work in a
	// claimed listing (decideClaimed): its records looked up as COMPARE does, the unchanged
	// settled, the changed stored.
	RecordCompareBatch(ctx context.Context, keys []store.RecordCompareKey) ([]*store.RecordCompare, error)
	OutcomeSettleBatch(ctx context.Context, ps []*store.OutcomeSettleParams) ([]*store.OutcomeSettled, error)
	RecordInsertBatch(ctx context.Context, ps []*store.RecordInsertParams) error
	ResourceIDs(ctx context.Context, uris []string, mint func(uri string) string) (map[string]string, error)
	SourceGet(ctx context.Context, sourceID string) (*store.Source, error)
}

// store.Store satisfies Store.
var _ Store = store.Store(nil)

// DefaultMaxRecordBytes is Config.MaxRecordBytes's default: 16 MiB, the cap
// catalog.WalkCatalog applies too.
const DefaultMaxRecordBytes = catalog.DefaultMaxRecordBytes

// Config configures the handler beyond fetching. Zero fields take the documented defaults.
type Config struct {
	// MaxRecordBytes caps one record, in bytes: a data.json dataset or a portal item as written,
	// or one XML file after decompression (and a portal page's answer outside its items). A record
	// over it settles as errored (RecordTooLarge, naming its size and the cap) and is never read
	// into memory whole: a dataset or portal item is measured as it streams past (its identifier
	// is still recorded as seen, so its dataset is kept), and an XML
	// download stops after MaxRecordBytes+1 bytes. Records larger than a message can carry
	// travel by reference (the router's claim check), so this cap is independent of the NATS
	// server's max_payload. Default DefaultMaxRecordBytes.
	MaxRecordBytes int
	// TempDir is where an rdf source's graph spills past RDFMemTriples triples. Default the
	// system's temporary directory.
	TempDir string
	// RDFMemTriples is how many triples an rdf source's graph holds in memory before it moves to
	// a temporary file. Default DefaultRDFMemTriples.
	RDFMemTriples int
	// MaxRDFPages caps the pages of a paged (Hydra) rdf source; one more fails the job.
	// Default DefaultMaxRDFPages.
	MaxRDFPages int
	// MaxRDFBytes caps the bytes of an rdf source's documents together (after decompression):
	// a paged source's pages, or a file source's file and pages. The page that passes it fails
	// the job, and its download stops at the cap. Default the fetch configuration's MaxBytes
	// (--fetch-max-bytes, 1 GiB), so a paged source holds no more than one document may.
	MaxRDFBytes int64
	// JobWindow caps the records of one job in flight: listed by EXTRACT and not yet settled by
	// the aggregator (the job's settled count in the store). A listing that is JobWindow ahead
	// waits until half of them settled, so that the streams hold at most about JobWindow
	// records of each job and a small job's records queue behind a bounded number of a big
	// one's (fair parallel harvests). Pacing is never a gate on correctness: a listing whose
	// job settles nothing for StallTimeout goes on unpaced. Default DefaultJobWindow; negative:
	// no cap.
	//
	// A job past its first JobWindow records gives way to the running jobs that have settled
	// fewer records than it has (store.Store.JobCountBehind, read at most every
	// giveWayRecheck): its window is then JobWindow/giveWayDivisor, so that small jobs started
	// beside a big one get most of the pipeline (least attained service: the job that has had
	// the least goes first, which favours short jobs without knowing their sizes). Of two big
	// jobs, the one behind keeps its whole window, so the pipeline never runs on small windows
	// alone.
	JobWindow int
	// StallTimeout is how long a paced listing waits without any of its job's records settling
	// before it goes on unpaced. Default DefaultStallTimeout.
	StallTimeout time.Duration
	// RefuseLocalFiles fails a job whose source location is a file path (ErrLocalFile) instead
	// of reading the file: serve and worker set it (unless --local-files), so that a stored
	// source whose url is /etc/passwd is never read; the one-shot commands (harvest --file,
	// replay) read the files their user names. Default false: files are read.
	RefuseLocalFiles bool
	// Settled, when set, is told how many new outcomes of each kind a listing settled itself
	// (a claimed listing's unchanged records, decideClaimed): pipeline counts them in
	// harvester_records_settled_total with the aggregator's (report.Handler.Counted).
	Settled func(outcome harvest.Outcome, n int)
	// Listers list each family's sources (harvest.SourceSpec.Family): a job whose source type's
	// family has none fails ("not supported"). pipeline registers one per family.
	Listers map[harvest.Family]Lister
}

// Lister lists the records of the sources of one family (harvest.SourceSpec.Family) for one
// job (never a clear job: Handle ends that itself). h is the job's handler: its fetches carry
// the source's Accept and auth header. List returns what Handle returns: nil once the listing
// is complete (Run.Complete sent its harvest.Listing) or ended without one (Handler.NotModified),
// a harvest.JobFailure (Handler.Fail, Run.Fail) when the source cannot be listed, any other
// error for a retry of the message.
type Lister interface {
	List(ctx context.Context, h *Handler, job *harvest.Job) error
}

// ErrLocalFile is a source location that is a local file path, in a process that does not read
// local files (Config.RefuseLocalFiles).
var ErrLocalFile = errors.New("this process does not read local files (harvester harvest --file does; " +
	"serve and worker only with --local-files)")

// DefaultRDFMemTriples is Config.RDFMemTriples's default: the triples an RDF source's graph
// keeps in memory before it spills to disk (a million triples then peak at about 100 MiB, rdf.NewGraph).
const DefaultRDFMemTriples = 50_000

// DefaultMaxRDFPages is Config.MaxRDFPages's default.
const DefaultMaxRDFPages = 10_000

// DefaultJobWindow is Config.JobWindow's default, in records.
const DefaultJobWindow = 500

// giveWayDivisor divides Config.JobWindow for a job that gives way to jobs behind it: with
// the default window, 62 of its records in flight against 250–500 of each job behind it.
const giveWayDivisor = 8

// giveWayRecheck is how long a listing trusts its last count of the jobs behind it
// (store.Store.JobCountBehind) before it reads it again: at most 4 reads a second per listing.
const giveWayRecheck = 250 * time.Millisecond

// DefaultStallTimeout is Config.StallTimeout's default.
const DefaultStallTimeout = 30 * time.Second

// Option sets a Config field.
type Option func(*Config)

// WithMaxRecordBytes sets Config.MaxRecordBytes (0 or less: the default).
func WithMaxRecordBytes(n int) Option { return func(c *Config) { c.MaxRecordBytes = n } }

// WithListers sets Config.Listers.
func WithListers(listers map[harvest.Family]Lister) Option {
	return func(c *Config) { c.Listers = listers }
}

// WithConfig replaces the whole Config (zero fields: the defaults).
func WithConfig(cfg Config) Option { return func(c *Config) { *c = cfg } }

// New returns the EXTRACT stage. pub routes by harvest.MetaSubject; records are published as
// they are read.
func New(st Store, pub harvest.Publisher, fc fetch.Config, opts ...Option) *Handler {
	var cfg Config
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.MaxRecordBytes <= 0 {
		cfg.MaxRecordBytes = DefaultMaxRecordBytes
	}
	if cfg.RDFMemTriples <= 0 {
		cfg.RDFMemTriples = DefaultRDFMemTriples
	}
	if cfg.MaxRDFPages <= 0 {
		cfg.MaxRDFPages = DefaultMaxRDFPages
	}
	fc = fc.WithDefaults()
	if cfg.MaxRDFBytes <= 0 {
		cfg.MaxRDFBytes = fc.MaxBytes
	}
	if cfg.JobWindow == 0 {
		cfg.JobWindow = DefaultJobWindow
	}
	if cfg.StallTimeout <= 0 {
		cfg.StallTimeout = DefaultStallTimeout
	}
	return &Handler{store: st, pub: pub, fetch: fc, cfg: cfg}
}

// Handle runs the listing of one job (SubjectExtract). It returns an error only for failures
// that a retry may cure (store or bus); source problems fail the job instead.
func (h *Handler) Handle(msg *harvest.Message) error {
	ctx := msg.Context()
	var job harvest.Job
	if err := harvest.Decode(msg, &job); err != nil {
		return harvest.Permanent(err)
	}
	stored, err := h.store.JobGet(ctx, job.JobID)
	if errors.Is(err, store.ErrNotFound) {
		return harvest.UnknownJob(job.JobID) // deleted with its source: counted, logged and acked
	}
	if err != nil {
		return fmt.Errorf("get job: %w", err)
	}
	if stored.Status.Finished() {
		return nil // redelivered after the job ended
	}
	if job.JobType == harvest.JobClear {
		return h.Publish(harvest.SubjectListing, &harvest.Listing{V: harvest.Version, JobID: job.JobID,
			SourceID: job.SourceID, JobType: job.JobType}, job.JobID)
	}
	fc, err := h.sourceFetch(ctx, &job)
	var se *StageError
	if errors.As(err, &se) {
		return se.Err
	}
	if err != nil {
		return h.Fail(ctx, &job, harvest.TypeExtractError, err)
	}
	h = h.forJob(fc)
	var l Lister
	if spec := harvest.SpecOf(job.SourceType); spec != nil {
		l = h.cfg.Listers[spec.Family]
	}
	if l == nil {
		return h.Fail(ctx, &job, harvest.TypeExtractError, fmt.Errorf("source type %q is not supported", job.SourceType))
	}
	return l.List(ctx, h, &job)
}

// open returns the source document: a download for http(s) URLs, the file itself for an
// absolute path.
func (h *Handler) Open(ctx context.Context, url string) (*os.File, func(), error) {
	return h.OpenWith(ctx, h.fetch, url)
}

// openWith is open with the fetch configuration fc.
func (h *Handler) OpenWith(ctx context.Context, fc fetch.Config, url string) (*os.File, func(), error) {
	switch {
	case IsHTTP(url):
		f, err := fetch.Get(ctx, fc, url)
		if err != nil {
			return nil, nil, err
		}
		return f, func() { f.Close() }, nil // a download has no name to remove (fetch.Get)
	case filepath.IsAbs(url) && h.cfg.RefuseLocalFiles:
		return nil, nil, fmt.Errorf("source location %q is a file path: %w", url, ErrLocalFile)
	case filepath.IsAbs(url):
		f, err := os.Open(url)
		if err != nil {
			return nil, nil, fmt.Errorf("open source file: %w", err)
		}
		return f, func() { f.Close() }, nil
	}
	return nil, nil, fmt.Errorf("unsupported source location %q: want an http(s) URL or an absolute file path", url)
}

// fail is the harvest.JobFailure that ends the job in error with a job error row of type kind
// and cause's text: Handle returns it, and the stage's runner ends the job.
func (h *Handler) Fail(_ context.Context, job *harvest.Job, kind string, cause error) error {
	return harvest.NewJobFailure(job.JobID, kind, cause.Error())
}

func (h *Handler) Publish(subject string, v any, jobID string) error {
	m, err := harvest.NewMessage(subject, v, harvest.MetaJobID, jobID)
	if err != nil {
		return err
	}
	return h.pub.Publish(subject, m)
}

// Run is one job's listing: a family's lister sends the job's entries through it, in listing
// order (Handler.NewRun, NewClaimedRun), and ends it with Complete or Fail.
type Run struct {
	h      *Handler
	ctx    context.Context
	job    *harvest.Job
	seen   map[string]int // identifier -> position of its first record (nil in a claimed or distinct run)
	listed int
	// claims, when set, takes the place of seen and unsaved (a DCAT-US document's listing,
	// NewClaimedRun: the store finds the repeats).
	claims *claims
	// unsaved are identifiers of seen not handed to a save yet (at most seenBatch); saving is
	// the save in flight (nil when none), of the batch in spare. Complete waits until every
	// identifier is stored before it sends the Listing. A listing that fails before then is
	// listed again in full (retry or re-drive), so none is lost.
	unsaved, spare []string
	saving         chan error
	unkeyed        int // pager items listed without a usable identifier, or skipped (ListItem)
	// settled is the job's settled count as pace last read it; unpaced is set once the job
	// stalled (pace).
	settled int
	unpaced bool
	// behind is whether running jobs had settled fewer records than this one when pace counted
	// them last, at behindAt (window).
	behind   bool
	behindAt time.Time
}

// seenBatch is how many seen identifiers a listing stores in one statement
// (store.JobIdentifierAddBatch) instead of one round trip each.
const seenBatch = 500

// complete ends a listing that sent every entry: it stores the identifiers not stored yet, then
// sends the Listing, on which COMPARE's delete detection reads them.
func (l *Run) Complete() error {
	if err := l.flushClaims(); err != nil {
		return err
	}
	if err := l.saveSeen(); err != nil {
		return err
	}
	if err := l.waitSaved(); err != nil {
		return err
	}
	return l.h.Publish(harvest.SubjectListing, &harvest.Listing{V: harvest.Version, JobID: l.job.JobID,
		SourceID: l.job.SourceID, JobType: l.job.JobType, Listed: l.listed}, l.job.JobID)
}

// tooLarge settles a dataset over the record size cap as errored. Its identifier, when usable
// and not a repeat, is recorded as seen, so the dataset it already has is kept, not deleted.
func (l *Run) TooLarge(e *catalog.Entry) error {
	if e.Err == nil && !strings.ContainsRune(e.Identifier, 0) && utf8.ValidString(e.Identifier) {
		if _, dup := l.FirstAt(e.Identifier); !dup {
			if err := l.See(e); err != nil {
				return err
			}
		}
	} else {
		e.Identifier = ""
	}
	return l.SettleError(e, harvest.TypeRecordTooLarge, fmt.Sprintf(
		"dataset #%d%s is %d bytes, over the record size cap of %d bytes (--max-record-bytes)",
		e.Position+1, e.Named(), e.Size, l.h.cfg.MaxRecordBytes))
}

// KeepTooLong counts a record whose identifier is over harvest.MaxIdentifierBytes (bad is its
// IdentifierTooLong problem; any other problem is passed over) as seen, so that a dataset stored
// under that identifier before the cap is kept, not deleted, as a record over the size cap is.
// An identifier over harvest.MaxKeptIdentifierBytes is not seen: no dataset can have it.
func (l *Run) KeepTooLong(e *catalog.Entry, bad *harvest.IdentifierProblem) error {
	if bad.Type != harvest.TypeIdentifierTooLong || len(e.Identifier) > harvest.MaxKeptIdentifierBytes {
		return nil
	}
	return l.See(e)
}

// see records that the listing contains the entry's identifier: later records repeating it are
// duplicates, and COMPARE does not delete its dataset (the identifier is stored with its batch,
// before the Listing at the latest).
func (l *Run) See(e *catalog.Entry) error {
	if l.claims != nil {
		return l.addClaim(claim{identifier: e.Identifier, pos: e.Position})
	}
	if l.seen != nil {
		if _, dup := l.seen[e.Identifier]; dup {
			return nil
		}
		l.seen[e.Identifier] = e.Position
	}
	l.unsaved = append(l.unsaved, e.Identifier)
	if len(l.unsaved) < seenBatch {
		return nil
	}
	return l.saveSeen()
}

// saveSeen starts storing the identifiers seen since the last call, once the save before has
// succeeded: the listing goes on while the database works (one save at a time).
func (l *Run) saveSeen() error {
	if err := l.waitSaved(); err != nil || len(l.unsaved) == 0 {
		return err
	}
	batch := l.unsaved
	l.unsaved, l.spare = l.spare[:0], batch // spare's save is done
	done := make(chan error, 1)             // the save never waits for a listing that gave up
	l.saving = done
	go func() {
		done <- l.h.store.JobIdentifierAddBatch(l.ctx, &store.JobIdentifierAddBatchParams{JobID: l.job.JobID,
			Identifiers: batch})
	}()
	return nil
}

// waitSaved waits for the save in flight, if any, and returns its error.
func (l *Run) waitSaved() error {
	if l.saving == nil {
		return nil
	}
	err := <-l.saving
	l.saving = nil
	if err != nil {
		return fmt.Errorf("record seen identifiers: %w", err)
	}
	return nil
}

// InvalidUTF8 returns the offset of the first byte of b that is not part of a valid UTF-8
// encoding, or -1 when b is valid UTF-8.
func InvalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for off := 0; off < len(b); {
		r, size := utf8.DecodeRune(b[off:])
		if r == utf8.RuneError && size <= 1 {
			return off
		}
		off += size
	}
	return -1
}

func (l *Run) SettleError(e *catalog.Entry, kind, reason string) error {
	m, err := harvest.SettledMessage(harvest.SettleKey(l.job.JobID, harvest.PositionKey(e.Position), e.Identifier,
		harvest.OutcomeErrored, harvest.RecordError{Type: kind, Message: reason, Severity: harvest.SeverityError}))
	if err != nil {
		return err
	}
	return l.h.pub.Publish(harvest.SubjectSettled, m)
}

// Store is the handler's store.
func (h *Handler) Store() Store { return h.store }

// Fetch is the fetch configuration of the handler's job: the source's Accept and auth header
// (Handle gives each job's lister its own handler).
func (h *Handler) Fetch() fetch.Config { return h.fetch }

// Config is the handler's configuration, the defaults applied.
func (h *Handler) Config() Config { return h.cfg }

// Publisher is where the handler publishes (it routes by harvest.MetaSubject).
func (h *Handler) Publisher() harvest.Publisher { return h.pub }

// NewRun starts the listing of job: the records a family's lister sends through it are counted,
// paced (Config.JobWindow) and their identifiers recorded as seen.
func (h *Handler) NewRun(ctx context.Context, job *harvest.Job) *Run {
	return &Run{h: h, ctx: ctx, job: job, seen: map[string]int{}}
}

// NewDistinctRun is NewRun for a listing that gives each identifier once by construction (an
// RDF source's records are its graph's distinct dataset IRIs, dcatap.Split): it keeps no memory
// per identifier (NewRun's set of them took about 42 bytes a dataset, 9 MiB of a 209,715-dataset
// catalog's listing). Its FirstAt knows no earlier identifier; MarkSeen is not for it.
func (h *Handler) NewDistinctRun(ctx context.Context, job *harvest.Job) *Run {
	return &Run{h: h, ctx: ctx, job: job}
}

// Handler is the run's handler.
func (l *Run) Handler() *Handler { return l.h }

// Context is the run's context.
func (l *Run) Context() context.Context { return l.ctx }

// Job is the run's job.
func (l *Run) Job() *harvest.Job { return l.job }

// Listed is how many entries the run has listed (Next).
func (l *Run) Listed() int { return l.listed }

// MarkSeen records identifier as seen at pos without storing it (a listing that collects
// identifiers, Pager.Collect, checks repeats and the total with them).
func (l *Run) MarkSeen(identifier string, pos int) { l.seen[identifier] = pos }

// CountUnkeyed counts one more item listed without a usable identifier, or skipped, against
// the pager's total.
func (l *Run) CountUnkeyed() { l.unkeyed++ }
