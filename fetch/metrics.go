package fetch

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics counts a fetch client's GET attempts for Prometheus (Config.Metrics; nil counts
// nothing). Every attempt, retries included, is counted once by its outcome:
//
//	harvester_fetch_attempts_total{code}            code: 2xx, 304, 3xx, 4xx, 429, 5xx, or error
//	                                                 (no response: network, timeout, refused address)
//	harvester_fetch_attempt_duration_seconds         headers and body of one attempt
//	harvester_fetch_body_bytes_total                 bytes of 2xx bodies, after decompression
type Metrics struct {
	attempts *prometheus.CounterVec
	duration prometheus.Histogram
	bytes    prometheus.Counter
}

// NewMetrics registers the fetch metrics on reg; a second call on the same reg returns
// collectors already registered, so several clients of one process share them.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "harvester_fetch_attempts_total",
			Help: "HTTP GET attempts of harvest sources (retries included), by response status class or error."}, []string{"code"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "harvester_fetch_attempt_duration_seconds",
			Help: "Time one GET attempt took, body included.", Buckets: prometheus.ExponentialBuckets(0.01, 4, 10)}),
		bytes: prometheus.NewCounter(prometheus.CounterOpts{Name: "harvester_fetch_body_bytes_total",
			Help: "Bytes of successful response bodies downloaded, after decompression."}),
	}
	var err error
	if m.attempts, err = register(reg, m.attempts); err != nil {
		return nil, err
	}
	if m.duration, err = register(reg, m.duration); err != nil {
		return nil, err
	}
	if m.bytes, err = register(reg, m.bytes); err != nil {
		return nil, err
	}
	for _, code := range []string{"2xx", "304", "3xx", "4xx", "429", "5xx", "error"} {
		m.attempts.WithLabelValues(code) // every series exists from the start, at 0
	}
	return m, nil
}

// register registers c on reg, or returns the collector already registered in its place.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	err := reg.Register(c)
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		if existing, ok := are.ExistingCollector.(C); ok {
			return existing, nil
		}
	}
	return c, err
}

// observe counts one attempt that got status (0: no response) and body bytes, begun at start.
func (m *Metrics) observe(start time.Time, status int, body int64) {
	if m == nil {
		return
	}
	m.duration.Observe(time.Since(start).Seconds())
	m.attempts.WithLabelValues(codeClass(status)).Inc()
	if body > 0 {
		m.bytes.Add(float64(body))
	}
}

// codeClass is the code label of a status.
func codeClass(status int) string {
	switch {
	case status == 0:
		return "error"
	case status == http.StatusNotModified, status == http.StatusTooManyRequests:
		return strconv.Itoa(status)
	default:
		return strconv.Itoa(status/100) + "xx"
	}
}
