package notify

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/notify/smtptest"
)

func newTestMailer(t *testing.T, cfg Config) *Mailer {
	t.Helper()
	m, err := NewMailer(cfg)
	require.NoError(t, err)
	return m
}

// plainServer starts an SMTP server without TLS or authentication and returns it with a
// mailer sending to it.
func plainServer(t *testing.T) (*smtptest.Server, *Mailer) {
	t.Helper()
	ts := smtptest.New(t, smtptest.Options{})
	return ts, newTestMailer(t, configFor(ts))
}

func TestJobFinishedTwoRecipients(t *testing.T) {
	t.Parallel()
	ts, m := plainServer(t)
	src := testSource(harvest.NotifyAlways, "alice@example.gov", " bob@example.gov ", "ALICE@example.gov", "")
	job := erroredJob()

	n, err := m.JobFinished(t.Context(), src, job)
	require.NoError(t, err)
	require.Equal(t, 2, n, "duplicates and blanks skipped")

	msgs := ts.Messages()
	require.Len(t, msgs, 2)
	require.Equal(t, 2, ts.SessionCount(), "one connection per message")
	for i, want := range []string{"alice@example.gov", "bob@example.gov"} {
		msg := msgs[i]
		require.Equal(t, "harvester@example.gov", msg.From)
		require.Equal(t, []string{want}, msg.To, "one recipient per message")
		require.False(t, msg.TLS)
		h, body := msg.Parse(t)
		require.Equal(t, "\"Harvester\" <harvester@example.gov>", h.Get("From"))
		require.Equal(t, "<"+want+">", h.Get("To"))
		require.Equal(t, "Harvest job complete: Example Agency data.json (3 errors)", smtptest.SubjectOf(t, h))
		require.Equal(t, "auto-generated", h.Get("Auto-Submitted"))
		require.NotEmpty(t, h.Get("Message-Id"))
		require.NotEmpty(t, h.Get("Date"))
		for _, line := range []string{
			countLine("Total", 10), countLine("Added", 2), countLine("Updated", 1), countLine("Deleted", 1),
			countLine("Unchanged", 3), countLine("Errored", 3), countLine("Validated", 7),
			"Job details:   https://harvest.example.gov/api/v1/harvest_jobs/" + job.ID + "\n",
			"Organization:  Example Agency\n",
		} {
			require.Contains(t, body, line)
		}
		require.NotContains(t, strings.ToLower(body), "successfully")
	}
}

func TestJobFinishedOnErrorCleanJobSendsNothing(t *testing.T) {
	t.Parallel()
	ts, m := plainServer(t)
	for _, freq := range []harvest.NotificationFrequency{harvest.NotifyOnError, harvest.NotifyOnErrorOrUpdate} {
		n, err := m.JobFinished(t.Context(), testSource(freq, "alice@example.gov"), cleanJob())
		require.NoError(t, err)
		require.Zero(t, n)
	}
	require.Empty(t, ts.Messages())
	require.Zero(t, ts.SessionCount(), "no connection at all")
}

func TestJobFinishedOnErrorFailedJob(t *testing.T) {
	t.Parallel()
	ts, m := plainServer(t)
	job := failedJob() // zero record errors: upstream would not send this one

	n, err := m.JobFinished(t.Context(), testSource(harvest.NotifyOnError, "ops@example.gov"), job)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	msgs := ts.Messages()
	require.Len(t, msgs, 1)
	h, body := msgs[0].Parse(t)
	require.Equal(t, "Harvest job FAILED: Example Agency data.json", smtptest.SubjectOf(t, h))
	require.Contains(t, body, "ExtractInternalException: source returned HTTP 503")
	require.Contains(t, body, "retry later")
	require.NotContains(t, strings.ToLower(body), "successfully")
	require.NotContains(t, strings.ToLower(smtptest.SubjectOf(t, h)), "successfully")
}

func TestJobFinishedRefusedRecipient(t *testing.T) {
	t.Parallel()
	ts := smtptest.New(t, smtptest.Options{Refuse: []string{"gone@example.gov"}})
	m := newTestMailer(t, configFor(ts))

	n, err := m.JobFinished(t.Context(),
		testSource(harvest.NotifyAlways, "gone@example.gov", "not an address", "ok@example.gov"), cleanJob())
	require.Equal(t, 1, n)
	require.Error(t, err)
	require.Contains(t, err.Error(), `"gone@example.gov"`)
	require.Contains(t, err.Error(), "550")
	require.Contains(t, err.Error(), `"not an address"`)
	require.NotContains(t, err.Error(), "ok@example.gov")
	var joined interface{ Unwrap() []error }
	require.True(t, errors.As(err, &joined))
	require.Len(t, joined.Unwrap(), 2, "one error per failed recipient")

	msgs := ts.Messages()
	require.Len(t, msgs, 1)
	require.Equal(t, []string{"ok@example.gov"}, msgs[0].To)
	_, body := msgs[0].Parse(t)
	require.Contains(t, body, "completed successfully")
}

func TestJobFinishedDisabledOrNoRecipients(t *testing.T) {
	t.Parallel()
	m, err := NewMailer(Config{From: "", TLS: "bogus"}) // Host empty: nothing else is checked
	require.NoError(t, err)
	require.False(t, m.Enabled())
	n, err := m.JobFinished(t.Context(), testSource(harvest.NotifyAlways, "a@example.gov"), failedJob())
	require.NoError(t, err)
	require.Zero(t, n)

	var nilMailer *Mailer
	n, err = nilMailer.JobFinished(t.Context(), testSource(harvest.NotifyAlways, "a@example.gov"), failedJob())
	require.NoError(t, err)
	require.Zero(t, n)

	ts := smtptest.New(t, smtptest.Options{})
	m = newTestMailer(t, configFor(ts))
	n, err = m.JobFinished(t.Context(), testSource(harvest.NotifyAlways), failedJob())
	require.NoError(t, err)
	require.Zero(t, n)
	n, err = m.JobFinished(t.Context(), testSource(harvest.NotifyAlways, "  ", ""), failedJob())
	require.NoError(t, err)
	require.Zero(t, n)
	require.Zero(t, ts.SessionCount())
}

func TestJobFinishedHeaderInjection(t *testing.T) {
	t.Parallel()
	ts, m := plainServer(t)
	src := testSource(harvest.NotifyAlways, "ops@example.gov")
	src.Name = "Evil\r\nBcc: victim@example.com\r\n\r\nfake body"
	job := cleanJob()
	job.ID = "id\r\nX-Injected: 1"

	n, err := m.JobFinished(t.Context(), src, job)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	msgs := ts.Messages()
	require.Len(t, msgs, 1)
	require.Equal(t, []string{"ops@example.gov"}, msgs[0].To)
	h, body := msgs[0].Parse(t)
	require.Empty(t, h.Get("Bcc"))
	require.Empty(t, h.Get("X-Injected"))
	require.Equal(t, "Harvest job complete: Evil Bcc: victim@example.com fake body", smtptest.SubjectOf(t, h))
	require.Contains(t, body, "Job ID:        id X-Injected: 1\n")
}

func TestJobFinishedNonASCIISubject(t *testing.T) {
	t.Parallel()
	ts, m := plainServer(t)
	src := testSource(harvest.NotifyAlways, "ops@example.gov")
	src.Name = "Données ouvertes — Île-de-France"
	n, err := m.JobFinished(t.Context(), src, cleanJob())
	require.NoError(t, err)
	require.Equal(t, 1, n)
	h, body := ts.Messages()[0].Parse(t)
	require.Equal(t, "Harvest job complete: Données ouvertes — Île-de-France", smtptest.SubjectOf(t, h))
	require.Contains(t, body, "Source:        Données ouvertes — Île-de-France\n")
}

func TestJobFinishedAuth(t *testing.T) {
	t.Parallel()
	ts := smtptest.New(t, smtptest.Options{User: "harvester", Pass: "s3cret"})

	cfg := configFor(ts)
	cfg.Username, cfg.Password = "harvester", "s3cret"
	n, err := newTestMailer(t, cfg).JobFinished(t.Context(), testSource(harvest.NotifyAlways, "a@example.gov"), cleanJob())
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, "harvester", ts.Messages()[0].User)

	cfg.Password = "wrong"
	n, err = newTestMailer(t, cfg).JobFinished(t.Context(), testSource(harvest.NotifyAlways, "a@example.gov"), cleanJob())
	require.Zero(t, n)
	require.ErrorContains(t, err, "a@example.gov")
	require.ErrorContains(t, err, "535")
	require.Len(t, ts.Messages(), 1)
}

func TestJobFinishedTLS(t *testing.T) {
	t.Parallel()
	serverTLS, roots := smtptest.SelfSigned(t)
	src := testSource(harvest.NotifyAlways, "a@example.gov")

	for _, tc := range []struct {
		name    string
		opts    smtptest.Options // the server's; its User and Pass are the mailer's too
		tls     string
		trusted bool     // the mailer trusts the server's self-signed certificate
		wantErr []string // the delivery fails with each in its error; nil: delivered
		wantTLS bool
	}{
		{name: "starttls", opts: smtptest.Options{TLSConfig: serverTLS}, tls: "", trusted: true, wantTLS: true}, // default: STARTTLS required
		{name: "opportunistic upgrades", opts: smtptest.Options{TLSConfig: serverTLS}, tls: TLSOpportunistic, trusted: true, wantTLS: true},
		{name: "opportunistic falls back to plaintext", tls: TLSOpportunistic},
		{name: "starttls required but not offered", tls: TLSStartTLS, wantErr: []string{"STARTTLS", "a@example.gov"}},
		{name: "untrusted certificate", opts: smtptest.Options{TLSConfig: serverTLS}, tls: TLSStartTLS, // system roots only
			wantErr: []string{"certificate"}},
		{name: "implicit tls", opts: smtptest.Options{TLSConfig: serverTLS, Implicit: true, User: "u", Pass: "p"},
			tls: TLSImplicit, trusted: true, wantTLS: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := smtptest.New(t, tc.opts)
			cfg := configFor(ts)
			cfg.TLS = tc.tls
			cfg.Username, cfg.Password = tc.opts.User, tc.opts.Pass
			m := newTestMailer(t, cfg)
			if tc.trusted {
				m.rootCAs = roots
			}
			n, err := m.JobFinished(t.Context(), src, cleanJob())
			if tc.wantErr != nil {
				require.Zero(t, n)
				for _, want := range tc.wantErr {
					require.ErrorContains(t, err, want)
				}
				require.Empty(t, ts.Messages())
				return
			}
			require.NoError(t, err)
			require.Equal(t, 1, n)
			require.Equal(t, tc.wantTLS, ts.Messages()[0].TLS)
			require.Equal(t, tc.opts.User, ts.Messages()[0].User)
		})
	}
}

// silentServer accepts TCP connections and never says a word.
func silentServer(t *testing.T) (string, int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	conns := make(chan net.Conn, 16)
	t.Cleanup(func() {
		_ = ln.Close()
		for {
			select {
			case c := <-conns:
				_ = c.Close()
			default:
				return
			}
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			select {
			case conns <- c:
			default:
				_ = c.Close()
			}
		}
	}()
	host, port, err := net.SplitHostPort(ln.Addr().String())
	require.NoError(t, err)
	p, err := strconv.Atoi(port)
	require.NoError(t, err)
	return host, p
}

func TestJobFinishedTimeout(t *testing.T) {
	t.Parallel()
	host, port := silentServer(t)
	cfg := Config{Host: host, Port: port, TLS: TLSNone, From: "h@example.gov", Timeout: 200 * time.Millisecond}
	start := time.Now()
	n, err := newTestMailer(t, cfg).JobFinished(t.Context(),
		testSource(harvest.NotifyAlways, "a@example.gov", "b@example.gov"), cleanJob())
	require.Zero(t, n)
	require.ErrorContains(t, err, "a@example.gov")
	require.ErrorContains(t, err, "b@example.gov")
	require.Less(t, time.Since(start), 5*time.Second, "each message is bounded by Timeout")
}

func TestJobFinishedContextCanceled(t *testing.T) {
	t.Parallel()
	host, port := silentServer(t)
	cfg := Config{Host: host, Port: port, TLS: TLSNone, From: "h@example.gov", Timeout: time.Minute}
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	n, err := newTestMailer(t, cfg).JobFinished(ctx, testSource(harvest.NotifyAlways, "a@example.gov", "b@example.gov"), cleanJob())
	require.Zero(t, n)
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "a@example.gov")
	require.ErrorContains(t, err, "b@example.gov")
	require.Less(t, time.Since(start), 5*time.Second, "cancellation cuts the connection")

	ts := smtptest.New(t, smtptest.Options{})
	done, cancelNow := context.WithCancel(t.Context())
	cancelNow()
	n, err = newTestMailer(t, configFor(ts)).JobFinished(done, testSource(harvest.NotifyAlways, "a@example.gov"), cleanJob())
	require.Zero(t, n)
	require.ErrorIs(t, err, context.Canceled)
	require.Zero(t, ts.SessionCount())
}
