package notify

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"strconv"
	"strings"
	"sync"

	gomail "github.com/wneessen/go-mail"
)

// Mailer sends job reports over SMTP. It holds no connection: each message is delivered on
// its own connection (connect, EHLO, TLS, AUTH, MAIL/RCPT/DATA, QUIT), so one Mailer is safe
// for concurrent use and a refused recipient cannot spoil the next one. The zero value and a
// nil *Mailer are disabled (JobFinished is a no-op).
type Mailer struct {
	cfg     Config // WithDefaults applied; validated when Host is set
	enabled bool
	rootCAs *x509.CertPool // nil: system roots (tests set their own CA)
}

// NewMailer returns a Mailer for cfg after applying WithDefaults. An empty Host gives a disabled
// Mailer and no error (no other field is checked). Otherwise an invalid configuration returns
// an error "notify: invalid SMTP config: " followed by one "Field: problem" per bad field
// (joined with newlines), e.g. "From: required when Host is set". No connection is made.
func NewMailer(cfg Config) (*Mailer, error) {
	cfg = cfg.WithDefaults()
	if cfg.Host == "" {
		return &Mailer{cfg: cfg}, nil
	}
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("notify: invalid SMTP config: %w", err)
	}
	m := &Mailer{cfg: cfg, enabled: true}
	// Catch option errors now rather than at the first job.
	if _, err := gomail.NewClient(cfg.Host, m.options(&connTracker{})...); err != nil {
		return nil, fmt.Errorf("notify: invalid SMTP config: %w", err)
	}
	return m, nil
}

// Enabled reports whether m sends email (Host was set).
func (m *Mailer) Enabled() bool { return m != nil && m.enabled }

// JobFinished sends the report of job (see Compose) to each address of src.NotificationEmails,
// one message per recipient as upstream does, when ShouldSend(src.NotificationFrequency, job)
// holds. Blank and duplicate (case-insensitive) addresses are skipped. A failure for one
// recipient does not stop the others. It returns how many messages the server accepted and
// nil, or errors.Join of one error per failed recipient, each naming the address, e.g.
// `notify: job 42 report to "a@example.gov": …`. A disabled Mailer (Host empty), no
// recipients, or a job ShouldSend rejects give (0, nil) without connecting. ctx cancels
// the sending; each message is also bounded by Config.Timeout.
func (m *Mailer) JobFinished(ctx context.Context, src Source, job Job) (int, error) {
	if !m.Enabled() || !ShouldSend(src.NotificationFrequency, job) {
		return 0, nil
	}
	rcpts := recipients(src.NotificationEmails)
	if len(rcpts) == 0 {
		return 0, nil
	}
	subject, body := Compose(m.cfg, src, job)
	sent := 0
	var errs []error
	for _, rcpt := range rcpts {
		err := ctx.Err()
		if err == nil {
			err = m.send(ctx, rcpt, subject, body)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("notify: job %s report to %q: %w", oneLine(job.ID), rcpt, err))
			continue
		}
		sent++
	}
	return sent, errors.Join(errs...)
}

// recipients trims addrs and drops blanks and case-insensitive duplicates, keeping order.
func recipients(addrs []string) []string {
	seen := make(map[string]bool, len(addrs))
	out := make([]string, 0, len(addrs))
	for _, a := range addrs {
		a = strings.TrimSpace(a)
		key := strings.ToLower(a)
		if a == "" || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, a)
	}
	return out
}

// send delivers one message to rcpt on a fresh connection, within cfg.Timeout and ctx.
func (m *Mailer) send(ctx context.Context, rcpt, subject, body string) error {
	if _, err := mail.ParseAddress(rcpt); err != nil {
		return fmt.Errorf("invalid recipient address: %w", err)
	}
	msg := gomail.NewMsg()
	if err := msg.From(m.cfg.From); err != nil {
		return fmt.Errorf("sender: %w", err)
	}
	if err := msg.To(rcpt); err != nil {
		return fmt.Errorf("invalid recipient address: %w", err)
	}
	msg.Subject(oneLine(subject)) // go-mail only Q-encodes non-ASCII; CR/LF must not reach it
	msg.SetDate()
	msg.SetMessageID()
	msg.SetGenHeader(gomail.Header("Auto-Submitted"), "auto-generated") // RFC 3834: no auto-replies
	msg.SetBodyString(gomail.TypeTextPlain, body)

	sctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	tracker := &connTracker{}
	defer tracker.close()
	// go-mail holds its client lock while it waits for a reply, so cancellation closes the
	// raw connection underneath it instead.
	defer context.AfterFunc(sctx, tracker.close)()

	client, err := gomail.NewClient(m.cfg.Host, m.options(tracker)...)
	if err != nil {
		return err
	}
	addr := net.JoinHostPort(m.cfg.Host, strconv.Itoa(m.cfg.Port))
	sc, err := client.DialToSMTPClientWithContext(sctx)
	if err != nil {
		return withCause(sctx, fmt.Errorf("connect to %s: %w", addr, err))
	}
	if err := client.SendWithSMTPClient(sc, msg); err != nil {
		return withCause(sctx, err)
	}
	// Delivered once DATA is accepted; a failing QUIT does not undo that.
	_ = client.CloseWithSMTPClient(sc)
	return nil
}

// withCause adds ctx's cause to err when ctx ended (the connection was cut because of it).
func withCause(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil && !errors.Is(err, cause) {
		return fmt.Errorf("%w (%w)", err, cause)
	}
	return err
}

// options returns the go-mail client options for cfg, dialing through tracker.
func (m *Mailer) options(tracker *connTracker) []gomail.Option {
	cfg := m.cfg
	tlsConfig := &tls.Config{ServerName: cfg.Host, MinVersion: tls.VersionTLS12, RootCAs: m.rootCAs}
	opts := []gomail.Option{
		gomail.WithPort(cfg.Port),
		gomail.WithTimeout(cfg.Timeout),
		gomail.WithTLSConfig(tlsConfig),
		gomail.WithDialContextFunc(tracker.dialer(cfg.TLS == TLSImplicit, tlsConfig)),
	}
	switch cfg.TLS {
	case TLSStartTLS:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	case TLSOpportunistic:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	case TLSNone:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	case TLSImplicit:
		// The dialer does the TLS handshake; WithSSL keeps go-mail from trying STARTTLS on top.
		opts = append(opts, gomail.WithSSL())
	}
	if cfg.Username != "" {
		opts = append(opts,
			gomail.WithOpportunisticSMTPAuth(gomail.SMTPAuthPlain, gomail.SMTPAuthLogin),
			gomail.WithUsername(cfg.Username),
			gomail.WithPassword(cfg.Password))
	}
	return opts
}

// connTracker remembers the raw connection of one message so that it can be closed when the
// message's context ends, and always when send returns.
type connTracker struct {
	mu     sync.Mutex
	conn   net.Conn
	closed bool
}

// dialer returns a go-mail DialContextFunc that dials TCP (plus a TLS handshake when implicit)
// and records the connection.
func (t *connTracker) dialer(implicit bool, tlsConfig *tls.Config) gomail.DialContextFunc {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		var conn net.Conn
		var err error
		if implicit {
			d := &tls.Dialer{Config: tlsConfig}
			conn, err = d.DialContext(ctx, network, address)
		} else {
			var d net.Dialer
			conn, err = d.DialContext(ctx, network, address)
		}
		if err != nil {
			return nil, err
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.closed {
			_ = conn.Close()
			return nil, net.ErrClosed
		}
		t.conn = conn
		return conn, nil
	}
}

// close closes the recorded connection, if any, and any connection dialed later.
func (t *connTracker) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	if t.conn != nil {
		_ = t.conn.Close()
	}
}
