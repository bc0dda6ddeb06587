package pipeline

import (
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/harvester-dev/harvester/api"
)

// clientListener caps the connections one client holds open at once, so that one client
// cannot take every place of HTTPConfig.MaxConns (slow bodies, idle keep-alives): a connection
// past the cap is answered 429 and closed at once, and the next is accepted. A client is
// api.ClientKey of the TCP peer; connections from a trusted proxy are not capped (the proxy
// carries many clients, and it is where they are capped). Safe for concurrent use.
type clientListener struct {
	net.Listener
	max      int
	trusted  []netip.Prefix
	refused  prometheus.Counter
	mu       sync.Mutex
	open     map[netip.Prefix]int // held connections by client; a client with none is absent
	deadline time.Duration        // for writing the 429
}

func newClientListener(ln net.Listener, max int, trusted []netip.Prefix, refused prometheus.Counter) *clientListener {
	return &clientListener{Listener: ln, max: max, trusted: trusted, refused: refused,
		open: map[netip.Prefix]int{}, deadline: time.Second}
}

// Accept returns the next connection whose client is under the cap, refusing the others.
func (l *clientListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ap, err := netip.ParseAddrPort(c.RemoteAddr().String())
		if err != nil || api.Trusted(l.trusted, ap.Addr()) {
			return c, nil
		}
		client := api.ClientKey(ap.Addr())
		if l.take(client) {
			return &clientConn{Conn: c, release: func() { l.release(client) }}, nil
		}
		l.refused.Inc()
		l.refuse(c)
	}
}

func (l *clientListener) take(client netip.Prefix) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[client] >= l.max {
		return false
	}
	l.open[client]++
	return true
}

func (l *clientListener) release(client netip.Prefix) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[client]--; l.open[client] <= 0 {
		delete(l.open, client)
	}
}

// tooManyConns is the answer to a connection past the cap, written before the request is read.
var tooManyConns = func() []byte {
	const body = "too many connections from your address: close some first\n"
	return fmt.Appendf(nil, "HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain; charset=utf-8\r\n"+
		"Retry-After: 1\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
}()

// refuse answers c 429 and closes it. The write goes to an empty socket buffer, so it does not
// wait; the deadline is a guard.
func (l *clientListener) refuse(c net.Conn) {
	_ = c.SetWriteDeadline(time.Now().Add(l.deadline))
	_, _ = c.Write(tooManyConns)
	_ = c.Close()
}

// clientConn gives its client's place back once, on its first Close.
type clientConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *clientConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
