package fgdc

import (
	"fmt"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/dcatus"
)

// precision of a CSDGM date: how much of it the record gives.
type precision int

const (
	year precision = iota + 1
	month
	day
	clock
)

// date is a CSDGM calendar date (with its time of day when given), kept at its precision.
type date struct {
	t    time.Time
	prec precision
	zone bool // the time is universal (UTC)
}

// String writes the date as ISO 8601 at its precision: "2017", "2017-04", "2017-04-01",
// "2017-04-01T10:30:00Z" (no zone when the record keeps local time).
func (d date) String() string {
	switch d.prec {
	case year:
		return d.t.Format("2006")
	case month:
		return d.t.Format("2006-01")
	case day:
		return d.t.Format("2006-01-02")
	}
	if d.zone {
		return d.t.Format("2006-01-02T15:04:05Z")
	}
	return d.t.Format("2006-01-02T15:04:05")
}

// parseDate reads a CSDGM calendar date (YYYY, YYYYMM or YYYYMMDD, as the standard writes
// them; YYYY-MM and YYYY-MM-DD as records also do) and, for a whole date, a time of day
// (hhmm, hhmmss or hh:mm:ss, optionally with a fraction, "Z" or an offset that is dropped).
// The standard's words ("Unknown", "Present", "Unpublished material") are not dates.
func parseDate(caldate, tod string, universal bool) (date, bool) {
	s := strings.ReplaceAll(strings.TrimSpace(caldate), "-", "")
	layouts := map[int]struct {
		layout string
		prec   precision
	}{4: {"2006", year}, 6: {"200601", month}, 8: {"20060102", day}}
	l, ok := layouts[len(s)]
	if !ok || strings.Trim(s, "0123456789") != "" {
		return date{}, false
	}
	t, err := time.Parse(l.layout, s)
	if err != nil || t.Year() < 1 {
		return date{}, false
	}
	d := date{t: t, prec: l.prec, zone: universal}
	if l.prec != day {
		return d, true
	}
	if hms, ok := parseTime(tod); ok {
		d.t = d.t.Add(hms)
		d.prec = clock
	}
	return d, true
}

// parseTime reads a CSDGM time of day; the zone suffix, a fraction of a second and anything
// unreadable are dropped.
func parseTime(s string) (time.Duration, bool) {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "Z+-.,"); i >= 0 {
		s = s[:i]
	}
	s = strings.ReplaceAll(s, ":", "")
	if (len(s) != 4 && len(s) != 6) || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	if len(s) == 4 {
		s += "00"
	}
	t, err := time.Parse("150405", s)
	if err != nil {
		return 0, false
	}
	return time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute + time.Duration(t.Second())*time.Second, true
}

// universal reports whether the record's times are universal time: metainfo/mettc says
// "local time" or not (universal is the default, as in MDTranslator).
func (m *mapper) universal() bool {
	return !strings.EqualFold(value(at(m.root, "metainfo", "mettc")), "local time")
}

// dates sets modified and issued from the publication date (citeinfo/pubdate and pubtime),
// the one date of a CSDGM citation: MDTranslator's DCAT-US writer takes the citation's
// newest date. A record with none ("Unpublished material", "Unknown") has modified from its
// metadata date (metainfo/metd), else the time of transformation, with a warning.
func (m *mapper) dates(ds *dcatus.Dataset, cit *node) {
	utc := m.universal()
	raw := value(child(cit, "pubdate"))
	if d, ok := parseDate(raw, value(child(cit, "pubtime")), utc); ok {
		ds.Modified, ds.Issued = d.String(), d.String()
		return
	}
	metd := value(at(m.root, "metainfo", "metd"))
	if d, ok := parseDate(metd, "", utc); ok {
		ds.Modified = d.String()
		if raw != "" {
			m.Warn("modified", "publication date %q is not a date; used the metadata date %s", short(raw), ds.Modified)
		}
		return
	}
	ds.Modified = time.Now().UTC().Format("2006-01-02T15:04:05Z")
	m.Warn("modified", "the record has no usable publication date or metadata date (%s, %s); used the time of transformation", quoted(raw), quoted(metd))
}

// temporal sets temporal ("start/end") from the time period of content (idinfo/timeperd/
// timeinfo): a single date is a one-date interval; multiple dates span the earliest to the
// latest; a range keeps its ends, "Present" as an end being today. Each end keeps its
// precision, but the times of day go when only one end has one.
func (m *mapper) temporal(ds *dcatus.Dataset) {
	info := at(m.idinfo, "timeperd", "timeinfo")
	if info == nil {
		return
	}
	utc := m.universal()
	var begin, end date
	var ok bool
	switch {
	case child(info, "sngdate") != nil:
		s := child(info, "sngdate")
		begin, ok = parseDate(value(child(s, "caldate")), value(child(s, "time")), utc)
		end = begin
	case child(info, "mdattim") != nil:
		begin, end, ok = m.span(path([]*node{info}, "mdattim", "sngdate"), utc)
	case child(info, "rngdates") != nil:
		r := child(info, "rngdates")
		var okb, oke bool
		begin, okb = parseDate(value(child(r, "begdate")), value(child(r, "begtime")), utc)
		end, oke = parseDate(value(child(r, "enddate")), value(child(r, "endtime")), utc)
		if e := strings.ToLower(value(child(r, "enddate"))); !oke && (e == "present" || e == "now") {
			end, oke = date{t: time.Now().UTC(), prec: day}, true
		}
		ok = okb && oke
	}
	if !ok {
		m.Warn("temporal", "time period of content %s is not a calendar date or range of dates; dropped", quoted(texts(info)))
		return
	}
	if begin.t.After(end.t) {
		m.Warn("temporal", "time period of content begins (%s) after it ends (%s); dropped", begin, end)
		return
	}
	ds.Temporal = interval(begin, end)
}

// interval writes "begin/end" in a form the DCAT-US 1.1 isoDateInterval pattern accepts. That
// pattern reuses the begin's separators in the end, so an end with a day needs a begin with a
// month, and an end with a time a begin with one. So, keeping what the record says: when only
// one end has a time of day, the time goes; a year-only begin before an end with a day is
// widened to the first day of its year ("1990" + "Present" → "1990-01-01/2026-12-03"),
// which says the same of the period and keeps the end's day.
func interval(begin, end date) string {
	if (begin.prec == clock) != (end.prec == clock) {
		begin.prec, end.prec = min(begin.prec, day), min(end.prec, day)
	}
	if begin.prec == year && end.prec >= day {
		begin.prec = day // begin.t is already January 1st
	}
	return fmt.Sprintf("%s/%s", begin, end)
}

// span returns the earliest and latest of multiple dates/times; ok is false when one is not
// a date.
func (m *mapper) span(dates []*node, utc bool) (begin, end date, ok bool) {
	for i, s := range dates {
		d, good := parseDate(value(child(s, "caldate")), value(child(s, "time")), utc)
		if !good {
			return date{}, date{}, false
		}
		if i == 0 || d.t.Before(begin.t) {
			begin = d
		}
		if i == 0 || d.t.After(end.t) {
			end = d
		}
	}
	return begin, end, len(dates) > 0
}
