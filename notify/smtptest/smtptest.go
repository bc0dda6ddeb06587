// Package smtptest runs a real SMTP server (github.com/emersion/go-smtp) on 127.0.0.1 inside a
// test, recording every message it accepts, for tests of the job report email.
package smtptest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"log"
	"math/big"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/require"
)

// Received is one message accepted by the test server.
type Received struct {
	From string   // MAIL FROM
	To   []string // RCPT TO, in order
	Data []byte   // the DATA, as sent
	TLS  bool     // the connection was encrypted
	User string   // the AUTH PLAIN user, if any
}

// Parse parses the message and returns its header plus the decoded (quoted-printable) body.
func (r Received) Parse(t *testing.T) (mail.Header, string) {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(r.Data))
	require.NoError(t, err)
	var body io.Reader = msg.Body
	if strings.EqualFold(msg.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
		body = quotedprintable.NewReader(msg.Body)
	}
	b, err := io.ReadAll(body)
	require.NoError(t, err)
	return msg.Header, strings.ReplaceAll(string(b), "\r\n", "\n")
}

// SubjectOf returns the decoded Subject header.
func SubjectOf(t *testing.T, h mail.Header) string {
	t.Helper()
	s, err := new(mime.WordDecoder).DecodeHeader(h.Get("Subject"))
	require.NoError(t, err)
	return s
}

// Server is a real SMTP server (github.com/emersion/go-smtp) on 127.0.0.1 that records
// every message it accepts.
type Server struct {
	Host string
	Port int

	mu       sync.Mutex
	msgs     []Received
	sessions int
	refuse   map[string]bool // RCPT TO addresses answered with 550
	user     string          // when set, AUTH PLAIN must match user/pass
	pass     string
}

// Options tune New.
type Options struct {
	Refuse     []string    // RCPT TO addresses answered with 550
	User, Pass string      // when set, AUTH PLAIN must match
	TLSConfig  *tls.Config // offers STARTTLS when set
	Implicit   bool        // TLS from the first byte (requires TLSConfig)
}

// New starts a server that is closed when the test ends.
func New(t *testing.T, o Options) *Server {
	t.Helper()
	ts := &Server{refuse: map[string]bool{}, user: o.User, pass: o.Pass}
	for _, r := range o.Refuse {
		ts.refuse[strings.ToLower(r)] = true
	}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		ts.mu.Lock()
		ts.sessions++
		ts.mu.Unlock()
		return &testSession{ts: ts, conn: c}, nil
	}))
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	srv.ReadTimeout = 10 * time.Second
	srv.WriteTimeout = 10 * time.Second
	srv.ErrorLog = log.New(io.Discard, "", 0)
	var ln net.Listener
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	if o.TLSConfig != nil {
		if o.Implicit {
			ln = tls.NewListener(ln, o.TLSConfig)
		} else {
			srv.TLSConfig = o.TLSConfig
		}
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	host, port, err := net.SplitHostPort(ln.Addr().String())
	require.NoError(t, err)
	ts.Host = host
	ts.Port, err = strconv.Atoi(port)
	require.NoError(t, err)
	return ts
}

// Messages returns a copy of the accepted messages.
func (ts *Server) Messages() []Received {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]Received(nil), ts.msgs...)
}

// SessionCount returns how many connections reached the backend.
func (ts *Server) SessionCount() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.sessions
}

type testSession struct {
	ts   *Server
	conn *smtp.Conn
	cur  Received
}

func (s *testSession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *testSession) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != s.ts.user || pass != s.ts.pass {
			return smtp.ErrAuthFailed
		}
		s.cur.User = user
		return nil
	}), nil
}

func (s *testSession) Mail(from string, _ *smtp.MailOptions) error {
	if s.ts.user != "" && s.cur.User == "" {
		return smtp.ErrAuthRequired
	}
	s.cur.From = from
	return nil
}

func (s *testSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if s.ts.refuse[strings.ToLower(to)] {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such mailbox"}
	}
	s.cur.To = append(s.cur.To, to)
	return nil
}

func (s *testSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	_, isTLS := s.conn.TLSConnectionState()
	msg := s.cur
	msg.To = append([]string(nil), s.cur.To...)
	msg.Data, msg.TLS = b, isTLS
	s.ts.mu.Lock()
	s.ts.msgs = append(s.ts.msgs, msg)
	s.ts.mu.Unlock()
	return nil
}

func (s *testSession) Reset() { s.cur = Received{User: s.cur.User} }

func (s *testSession) Logout() error { return nil }

// SelfSigned returns a server certificate for 127.0.0.1 and a pool that trusts it.
func SelfSigned(t *testing.T) (*tls.Config, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "notify test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}},
		MinVersion:   tls.VersionTLS12,
	}, pool
}
