package harvest

import (
	"fmt"
	"strings"
	"time"
	_ "time/tzdata" // zone names validate and resolve the same on every host, with or without /usr/share/zoneinfo
)

// ParseWAFTimeZone returns the time zone of a harvest source's WAF listing dates: name is an
// IANA time zone name ("America/New_York", "Europe/Paris", "UTC"), as time.LoadLocation reads
// it from the zone database built into the binary; "" is UTC. "Local" (whatever zone the
// harvester's host is in) and names that are not zones are an error that says what to give.
func ParseWAFTimeZone(name string) (*time.Location, error) {
	if name == "" {
		return time.UTC, nil
	}
	if name != strings.TrimSpace(name) || name == "Local" {
		return nil, fmt.Errorf("unknown time zone %q: want an IANA time zone name such as \"America/New_York\" or \"UTC\"", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone %q: want an IANA time zone name such as \"America/New_York\" or \"UTC\"", name)
	}
	return loc, nil
}
