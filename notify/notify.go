// Package notify sends the job report email of a harvest job to the notification_emails of its
// harvest source, as Data.gov Harvesting 2.0 does (reference section 2.9 "REPORT and email"),
// minus two upstream bugs: a job that failed as a whole counts as "on_error" even when no
// record errored, and the text never claims that a failed or errored job "successfully
// completed".
//
// Compose builds the subject and plain-text body; ShouldSend decides from the source's
// notification frequency whether a finished job warrants a message; Mailer delivers one message
// per recipient over SMTP (github.com/wneessen/go-mail).
package notify

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/harvester-dev/harvester/harvest"
)

// TLS modes accepted in Config.TLS.
const (
	TLSStartTLS      = "starttls"      // plain connect, then STARTTLS; fails if the server does not offer it
	TLSOpportunistic = "opportunistic" // STARTTLS when the server offers it, plaintext otherwise
	TLSNone          = "none"          // never encrypt (local relays and tests only)
	TLSImplicit      = "tls"           // TLS from the first byte ("SMTPS", usually port 465)
)

// Defaults applied by Config.WithDefaults.
const (
	DefaultPort         = 587              // submission port, used with every TLS mode but "tls"
	DefaultImplicitPort = 465              // used when TLS is "tls" and Port is 0
	DefaultTimeout      = 30 * time.Second // per message: connect, greet, auth, send, quit
)

// Config holds the SMTP settings of a Mailer. Zero fields take defaults (see WithDefaults);
// NewMailer reports invalid fields by name.
type Config struct {
	// Host is the SMTP server's host name or IP address, without a port. Empty disables email:
	// NewMailer then returns a Mailer whose JobFinished is a no-op.
	Host string
	// Port is the SMTP server's TCP port, 1..65535. Default 587 (465 when TLS is "tls").
	Port int
	// Username and Password enable SMTP AUTH when set (both or neither). go-mail picks PLAIN
	// or LOGIN, whichever the server offers, and refuses to send them over an unencrypted
	// connection to anything but localhost.
	Username, Password string
	// From is the RFC 5322 sender address, e.g. "Harvester <harvester@example.gov>"; it is
	// both the From header and the envelope sender (MAIL FROM). Required when Host is set.
	From string
	// TLS is one of "starttls" (default: STARTTLS required), "opportunistic", "none" or "tls"
	// (implicit TLS). Case-insensitive. Certificates are verified against the system roots.
	TLS string
	// Timeout bounds each message (connect through QUIT). Default 30 s; must not be negative.
	Timeout time.Duration
	// BaseURL is where the harvester API is served, e.g. "https://harvest.example.gov". When
	// set, the report links BaseURL + "/api/v1/harvest_jobs/" + job id (a trailing slash of
	// BaseURL is dropped). May be empty; otherwise it must be an absolute http(s) URL.
	BaseURL string
}

// WithDefaults returns c with surrounding spaces trimmed from Host, TLS lower-cased and zero
// fields replaced by their defaults: TLS "starttls", Port 587 (465 for TLS "tls"), Timeout 30 s.
func (c Config) WithDefaults() Config {
	c.Host = strings.TrimSpace(c.Host)
	c.From = strings.TrimSpace(c.From)
	c.BaseURL = strings.TrimSpace(c.BaseURL)
	c.TLS = cmp.Or(strings.ToLower(strings.TrimSpace(c.TLS)), TLSStartTLS)
	defPort := DefaultPort
	if c.TLS == TLSImplicit {
		defPort = DefaultImplicitPort
	}
	c.Port = cmp.Or(c.Port, defPort)
	c.Timeout = cmp.Or(c.Timeout, DefaultTimeout)
	return c
}

// validate checks a Config that went through WithDefaults and has a Host. It returns nil or
// errors.Join of one error per bad field, each starting with the field name.
func (c Config) validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	if strings.ContainsFunc(c.Host, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) || r == '/' }) {
		bad("Host", "%q is not a host name", c.Host)
	} else if _, _, err := net.SplitHostPort(c.Host); err == nil {
		bad("Host", "%q includes a port; set Port instead", c.Host)
	}
	if c.Port < 1 || c.Port > 65535 {
		bad("Port", "%d is out of range 1..65535", c.Port)
	}
	if c.From == "" {
		bad("From", "required when Host is set")
	} else if _, err := mail.ParseAddress(c.From); err != nil {
		bad("From", "%q is not an email address: %v", c.From, err)
	}
	switch c.TLS {
	case TLSStartTLS, TLSOpportunistic, TLSNone, TLSImplicit:
	default:
		bad("TLS", "%q is not one of starttls, opportunistic, none, tls", c.TLS)
	}
	if c.Timeout < 0 {
		bad("Timeout", "%v is negative", c.Timeout)
	}
	switch {
	case c.Username != "" && c.Password == "":
		bad("Password", "required when Username is set")
	case c.Username == "" && c.Password != "":
		bad("Username", "required when Password is set")
	}
	if c.BaseURL != "" {
		u, err := url.Parse(c.BaseURL)
		switch {
		case err != nil:
			bad("BaseURL", "%v", err)
		case u.Scheme != "http" && u.Scheme != "https", u.Host == "":
			bad("BaseURL", "%q is not an absolute http(s) URL", c.BaseURL)
		}
	}
	return errors.Join(errs...)
}

// Source is the part of a harvest source the report needs. NotificationEmails are plain
// addresses ("a@example.gov"; a display-name form is accepted too); blanks and duplicates are
// skipped. NotificationFrequency decides, through ShouldSend, whether a job is reported.
type Source struct {
	ID                    string
	Name                  string
	URL                   string
	OrganizationName      string
	NotificationEmails    []string
	NotificationFrequency harvest.NotificationFrequency
}

// Job is the finished harvest job being reported. Status is normally harvest.JobComplete or
// harvest.JobError; JobError is the job-level error message of a failed job (may be
// multi-line, empty otherwise). StartedAt and FinishedAt may be zero when unknown.
type Job struct {
	ID         string
	JobType    harvest.JobType
	Status     harvest.JobStatus
	Counts     harvest.Counts
	StartedAt  time.Time
	FinishedAt time.Time
	JobError   string
	// NewDuplicates is how many cross-source duplicates the job found first; Duplicates lists
	// some of them (the report shows at most MaxDuplicateLines). Neither changes ShouldSend.
	NewDuplicates int
	Duplicates    []Duplicate
	// Held lists some of the source's datasets held as cross-source duplicates when the job
	// ended (Counts.Held says how many; the report shows at most MaxDuplicateLines), each with
	// Dataset set and Live false. It does not change ShouldSend.
	Held []Duplicate
	// Quality is the source's metadata quality when the job ended (writeQuality); nil when it
	// was not recorded (a validate or failed job, or no recorder). It does not change ShouldSend.
	Quality *Quality
}

// failed reports whether the job as a whole failed.
func (j Job) failed() bool { return j.Status == harvest.JobError }

// ShouldSend reports whether a job report goes out for notification frequency f:
//   - always: true;
//   - on_error: the job failed (status error) or has record errors (Counts.Errored > 0);
//   - on_error_or_update: that, or anything was added, updated or deleted.
//
// Unlike upstream, a failed job with no record errors counts as an error. An unknown or empty
// frequency sends nothing.
func ShouldSend(f harvest.NotificationFrequency, j Job) bool {
	hasError := j.failed() || j.Counts.Errored > 0
	switch f {
	case harvest.NotifyAlways:
		return true
	case harvest.NotifyOnError:
		return hasError
	case harvest.NotifyOnErrorOrUpdate:
		return hasError || j.Counts.Added > 0 || j.Counts.Updated > 0 || j.Counts.Deleted > 0
	}
	return false
}

// Limits of what Compose copies from free-text fields.
const (
	maxNameRunes     = 200  // source name in the subject
	maxFieldRunes    = 2000 // any single-line body field
	maxJobErrorRunes = 8000 // job error in the body
)

// Compose returns the subject and the plain-text body ("\n" line ends) of the report for job
// of src. Only cfg.BaseURL is used (for the job link). The subject is a single line with
// control characters replaced, so it is safe as a header value: "Harvest job FAILED: <name>"
// for a failed job, "Harvest job complete: <name> (3 errors)" when records errored, otherwise
// "Harvest job complete: <name>" (an empty Status reads as complete; new or in_progress gives
// its status instead of "complete"). The body gives the organization, source name and URL, job
// id, type and status, start and finish times (RFC 3339, UTC), the job link when BaseURL is
// set, every count, the new cross-source duplicates (writeDuplicates), the source's held
// datasets (writeHeld), the source's metadata quality (writeQuality) and, for a failed job,
// the job error. It says "successfully" only for a complete job with no record errors.
func Compose(cfg Config, src Source, job Job) (subject, body string) {
	name := cmp.Or(oneLine(src.Name), oneLine(src.URL), oneLine(src.ID), "(unnamed source)")
	jobType := cmp.Or(oneLine(string(job.JobType)), string(harvest.JobHarvest))
	status := cmp.Or(oneLine(string(job.Status)), "unknown")
	subject, headline := subjectAndHeadline(job, name, jobType, status)
	subject = oneLine(subject)

	var b strings.Builder
	b.WriteString(headline + "\n\n")
	field := func(label, value string) { fmt.Fprintf(&b, "%-14s %s\n", label+":", value) }
	field("Organization", cmp.Or(oneLine(src.OrganizationName), "(none)"))
	field("Source", name)
	if u := oneLine(src.URL); u != "" {
		field("Source URL", u)
	}
	if id := oneLine(src.ID); id != "" {
		field("Source ID", id)
	}
	field("Job ID", cmp.Or(oneLine(job.ID), "(none)"))
	field("Job type", jobType)
	field("Status", status)
	field("Started", formatTime(job.StartedAt))
	field("Finished", formatTime(job.FinishedAt))
	if !job.StartedAt.IsZero() && !job.FinishedAt.IsZero() && !job.FinishedAt.Before(job.StartedAt) {
		field("Duration", job.FinishedAt.Sub(job.StartedAt).Round(time.Second).String())
	}
	if link := jobLink(cfg.BaseURL, job.ID); link != "" {
		field("Job details", link)
	}

	b.WriteString("\nRecords:\n")
	count := func(label string, n int) { fmt.Fprintf(&b, "  %-11s %d\n", label+":", n) }
	c := job.Counts
	count("Total", c.Total)
	count("Added", c.Added)
	count("Updated", c.Updated)
	count("Deleted", c.Deleted)
	count("Unchanged", c.Unchanged)
	count("Errored", c.Errored)
	count("Validated", c.Validated)
	if c.Held > 0 {
		count("Held", c.Held)
	}
	writeDuplicates(&b, cfg.BaseURL, job)
	writeHeld(&b, cfg.BaseURL, src.ID, job)
	writeQuality(&b, cfg.BaseURL, src.ID, job)

	if job.failed() || strings.TrimSpace(job.JobError) != "" {
		b.WriteString("\nJob error:\n")
		msg := strings.TrimSpace(cleanText(job.JobError))
		if msg == "" {
			msg = "(no job error message was recorded)"
		}
		for line := range strings.SplitSeq(truncate(msg, maxJobErrorRunes), "\n") {
			b.WriteString("  " + strings.TrimRight(line, " \t") + "\n")
		}
	}

	freq := cmp.Or(oneLine(string(src.NotificationFrequency)), "unset")
	fmt.Fprintf(&b, "\n-- \nYou receive this automatic message because your address is a notification email of this\n"+
		"harvest source (notification frequency: %s).\n", freq)
	return subject, b.String()
}

// subjectAndHeadline returns the subject (before oneLine) and the body's first line of the report of
// job, whose source is called name: what Compose says about it.
func subjectAndHeadline(job Job, name, jobType, status string) (subject, headline string) {
	errored := job.Counts.Errored
	switch {
	case job.failed():
		subject = "Harvest job FAILED: " + truncate(name, maxNameRunes)
		headline = fmt.Sprintf("The %s job of harvest source %q FAILED.", jobType, name)
		if errored > 0 {
			headline += fmt.Sprintf(" %s also had errors.", plural(errored, "record", "records"))
		}
	case job.Status == harvest.JobComplete || job.Status == "":
		subject = "Harvest job complete: " + truncate(name, maxNameRunes)
		if errored > 0 {
			subject += " (" + plural(errored, "error", "errors") + ")"
			headline = fmt.Sprintf("The %s job of harvest source %q finished with %s.",
				jobType, name, plural(errored, "record error", "record errors"))
		} else {
			headline = fmt.Sprintf("The %s job of harvest source %q completed successfully.", jobType, name)
		}
	default: // not finished: a caller reporting early; say what is known
		subject = "Harvest job " + status + ": " + truncate(name, maxNameRunes)
		headline = fmt.Sprintf("The %s job of harvest source %q is %s.", jobType, name, status)
		if errored > 0 {
			subject += " (" + plural(errored, "error", "errors") + ")"
		}
	}
	return subject, headline
}

// jobLink returns base + "/api/v1/harvest_jobs/" + id, or "" when either is empty.
func jobLink(base, id string) string {
	base = strings.TrimRight(oneLine(base), "/")
	id = oneLine(id)
	if base == "" || id == "" {
		return ""
	}
	return base + "/api/v1/harvest_jobs/" + url.PathEscape(id)
}

// formatTime renders t as RFC 3339 in UTC, or "(not recorded)" for the zero time.
func formatTime(t time.Time) string {
	if t.IsZero() {
		return "(not recorded)"
	}
	return t.UTC().Format(time.RFC3339)
}

// plural returns "1 error" or "3 errors".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// oneLine turns every control or space character (CR, LF, tabs, U+2028…) into one space,
// collapses runs of them and trims the ends, then caps the result at maxFieldRunes. The
// result is safe in a header value and as a single body line.
func oneLine(s string) string {
	return truncate(strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
	}), " "), maxFieldRunes)
}

// cleanText normalizes line ends to "\n" and drops control characters other than "\n" and
// tab, for multi-line text in the body.
func cleanText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r == '\r' || r == '\u2028' || r == '\u2029':
			return '\n'
		case unicode.IsControl(r):
			return -1
		}
		return r
	}, s)
}

// truncate caps s at limit runes, marking a cut with "…".
func truncate(s string, limit int) string {
	if len(s) <= limit { // bytes >= runes
		return s
	}
	r := []rune(s)
	if len(r) <= limit {
		return s
	}
	return string(r[:limit-1]) + "…"
}
