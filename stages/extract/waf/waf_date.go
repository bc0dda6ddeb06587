package waf

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// listingDate is a date read from a WAF listing: the span [start, start+precision) in which
// the file last changed.
type listingDate struct {
	start     time.Time // UTC
	precision time.Duration
}

var (
	monthNames = "January|February|March|April|May|June|July|August|September|October|November|December"
	// listingZone is a zone named after a listing's time: a numeric offset, UTC, or a US zone
	// abbreviation (the only abbreviations read: every one of them is behind UTC, so taking
	// another country's same-named zone for it makes a date later, never earlier, and a file
	// is downloaded rather than skipped).
	listingZone = `(?:[ \t]*(UTC|GMT|Z|[+-]\d{2}:?\d{2}|[ECMP][SD]T|AK[SD]T|HST)\b)?`
	// Apache: 2026-07-12 02:23 (optionally :SS).
	reApacheDate = regexp.MustCompile(`(?i)\b(\d{4})-(\d{2})-(\d{2})[ \t]+(\d{2}):(\d{2})(?::(\d{2}))?\b` + listingZone)
	// nginx (and Apache 2.2): 02-Oct-2025 11:47 (optionally :SS).
	reNginxDate = regexp.MustCompile(`(?i)\b(\d{1,2})-(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-(\d{4})[ \t]+(\d{2}):(\d{2})(?::(\d{2}))?\b` + listingZone)
	// IIS: 6/17/2021 12:20 PM.
	reIISDate = regexp.MustCompile(`(?i)\b(\d{1,2})/(\d{1,2})/(\d{4})[ \t]+(\d{1,2}):(\d{2})(?::(\d{2}))?[ \t]*([AP]M)\b` + listingZone)
	// IIS long: Friday, July 31, 2026  4:53 PM.
	reIISLongDate = regexp.MustCompile(`(?i)\b(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday),[ \t]+(` +
		monthNames + `)[ \t]+(\d{1,2}),[ \t]+(\d{4})[ \t]+(\d{1,2}):(\d{2})(?::(\d{2}))?[ \t]*([AP]M)\b` + listingZone)
	// A date alone, 2026-07-12 or 12-Jul-2026; the last group catches a time after it, which
	// makes the match one of the formats above (a bad one, when they did not take it).
	reISODay   = regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})\b([ \t]+\d{1,2}:\d)?`)
	reNginxDay = regexp.MustCompile(`(?i)\b(\d{1,2})-(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-(\d{4})\b([ \t]+\d{1,2}:\d)?`)
)

// usZones are the US zone abbreviations a listing may name, as offsets east of UTC in hours.
var usZones = map[string]int{
	"EST": -5, "EDT": -4, "CST": -6, "CDT": -5, "MST": -7, "MDT": -6, "PST": -8, "PDT": -7,
	"AKST": -9, "AKDT": -8, "HST": -10,
}

// parseListingDate finds the first listing date in s, trying the formats in order (Apache,
// nginx, IIS, IIS long, then a date alone; the first valid match wins). A date is read in the
// zone named after it, else in loc.
func parseListingDate(s string, loc *time.Location) (listingDate, bool) {
	if s == "" {
		return listingDate{}, false
	}
	s = strings.ReplaceAll(s, "\u00a0", " ")
	for _, m := range reApacheDate.FindAllStringSubmatch(s, 4) {
		if d, ok := makeDate(m[1], m[2], m[3], m[4], m[5], m[6], "", m[7], loc); ok {
			return d, true
		}
	}
	for _, m := range reNginxDate.FindAllStringSubmatch(s, 4) {
		if d, ok := makeDate(m[3], monthNumber(m[2]), m[1], m[4], m[5], m[6], "", m[7], loc); ok {
			return d, true
		}
	}
	for _, m := range reIISDate.FindAllStringSubmatch(s, 4) {
		if d, ok := makeDate(m[3], m[1], m[2], m[4], m[5], m[6], m[7], m[8], loc); ok {
			return d, true
		}
	}
	for _, m := range reIISLongDate.FindAllStringSubmatch(s, 4) {
		if d, ok := makeDate(m[3], monthNumber(m[1]), m[2], m[4], m[5], m[6], m[7], m[8], loc); ok {
			return d, true
		}
	}
	for _, m := range reISODay.FindAllStringSubmatch(s, 4) {
		if m[4] != "" {
			continue
		}
		if d, ok := makeDate(m[1], m[2], m[3], "", "", "", "", "", loc); ok {
			return d, true
		}
	}
	for _, m := range reNginxDay.FindAllStringSubmatch(s, 4) {
		if m[4] != "" {
			continue
		}
		if d, ok := makeDate(m[3], monthNumber(m[2]), m[1], "", "", "", "", "", loc); ok {
			return d, true
		}
	}
	return listingDate{}, false
}

// monthNumber is the month number of an English month name or its three-letter abbreviation.
func monthNumber(name string) string {
	if len(name) < 3 {
		return ""
	}
	i := strings.Index(strings.ToLower(monthNames), strings.ToLower(name[:3]))
	if i < 0 {
		return ""
	}
	return strconv.Itoa(strings.Count(monthNames[:i], "|") + 1)
}

// makeDate builds a valid date from its decimal fields: ampm "AM"/"PM" for a 12-hour clock,
// hour "" for a date alone, zone as listingZone matched it ("" to read the date in loc).
func makeDate(year, month, day, hour, minute, second, ampm, zone string, loc *time.Location) (listingDate, bool) {
	num := func(s string) int {
		n, err := strconv.Atoi(s)
		if err != nil {
			return -1
		}
		return n
	}
	y, mo, d := num(year), num(month), num(day)
	if y < 1 || mo < 1 || mo > 12 || d < 1 || d > 31 ||
		time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC).Day() != d { // 31 June, 29 February of a common year
		return listingDate{}, false
	}
	if zone != "" {
		z, ok := zoneOf(zone)
		if !ok {
			return listingDate{}, false
		}
		loc = z
	}
	if hour == "" {
		start, _ := wallTime(y, time.Month(mo), d, 0, 0, 0, loc)
		next, repeated := wallTime(y, time.Month(mo), d+1, 0, 0, 0, loc)
		return listingDate{start: start, precision: next.Add(repeated).Sub(start)}, true
	}
	h, mi, sec, precision := num(hour), num(minute), 0, time.Minute
	if second != "" {
		sec, precision = num(second), time.Second
	}
	if mi < 0 || mi > 59 || sec < 0 || sec > 59 {
		return listingDate{}, false
	}
	if ampm == "" {
		if h < 0 || h > 23 {
			return listingDate{}, false
		}
	} else {
		if h < 1 || h > 12 {
			return listingDate{}, false
		}
		h %= 12
		if strings.EqualFold(ampm, "PM") {
			h += 12
		}
	}
	start, repeated := wallTime(y, time.Month(mo), d, h, mi, sec, loc)
	return listingDate{start: start, precision: precision + repeated}, true
}

// zoneOf reads a zone listingZone matched.
func zoneOf(z string) (*time.Location, bool) {
	switch u := strings.ToUpper(z); {
	case u == "UTC" || u == "GMT" || u == "Z":
		return time.UTC, true
	case usZones[u] != 0:
		return time.FixedZone(u, usZones[u]*3600), true
	}
	digits := strings.ReplaceAll(z[1:], ":", "")
	h, errH := strconv.Atoi(digits[:2])
	m, errM := strconv.Atoi(digits[2:])
	if errH != nil || errM != nil || h > 14 || m > 59 {
		return nil, false
	}
	off := h*3600 + m*60
	if z[0] == '-' {
		off = -off
	}
	return time.FixedZone(z, off), true
}

// wallTime returns, in UTC, the first instant at which clocks in loc show the given wall time,
// and how much later the last such instant is: zero, but for a time in an hour that a clock
// change repeats (then the listing cannot say which of the two it means). A time that a clock
// change skips is read as time.Date reads it.
func wallTime(y int, mo time.Month, d, h, mi, s int, loc *time.Location) (time.Time, time.Duration) {
	t := time.Date(y, mo, d, h, mi, s, 0, loc)
	naive := time.Date(y, mo, d, h, mi, s, 0, time.UTC)
	var first, last time.Time
	for _, probe := range []time.Time{t.Add(-24 * time.Hour), t, t.Add(24 * time.Hour)} {
		_, off := probe.Zone()
		c := naive.Add(-time.Duration(off) * time.Second)
		if _, o := c.In(loc).Zone(); o != off {
			continue // loc's clocks do not show this wall time at that offset
		}
		if first.IsZero() || c.Before(first) {
			first = c
		}
		if c.After(last) {
			last = c
		}
	}
	if first.IsZero() {
		return t.UTC(), 0
	}
	return first, last.Sub(first)
}
