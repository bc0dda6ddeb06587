package notify

import (
	"time"

	"github.com/harvester-dev/harvester/notify/smtptest"
)

// configFor returns a Config pointing at ts without TLS.
func configFor(ts *smtptest.Server) Config {
	return Config{
		Host: ts.Host, Port: ts.Port, TLS: TLSNone, Timeout: 10 * time.Second,
		From: "Harvester <harvester@example.gov>", BaseURL: "https://harvest.example.gov/",
	}
}
