package dcatap

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/rdf"
)

// xsdPatterns are the lexical forms of the date types DCAT-AP allows (xsd:date,
// xsd:dateTime, xsd:gYear, xsd:gYearMonth), time zones optional.
var (
	reDateTime = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(:\d{2}(\.\d+)?)?)(Z|[+-]\d{2}:?\d{2})?$`)
	reDate     = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})(Z|[+-]\d{2}:\d{2})?$`)
	reYearMon  = regexp.MustCompile(`^(\d{4}-\d{2})(Z|[+-]\d{2}:\d{2})?$`)
	reYear     = regexp.MustCompile(`^(\d{4})(Z|[+-]\d{2}:\d{2})?$`)
)

// isoDate returns the ISO 8601 form of a date literal: an xsd:date loses its time zone
// (ISO 8601 has no zoned calendar date), an xsd:dateTime keeps it ("T" put in place of a
// space), a gYear or gYearMonth is the year or year-month. ok is false for anything else.
func isoDate(v string) (string, bool) {
	v = strings.TrimSpace(v)
	if g := reDateTime.FindStringSubmatch(v); g != nil && validYMD(g[1]) {
		return g[1] + "T" + g[2] + g[5], true
	}
	if g := reDate.FindStringSubmatch(v); g != nil && validYMD(g[1]) {
		return g[1], true
	}
	if g := reYearMon.FindStringSubmatch(v); g != nil && validYMD(g[1]+"-01") {
		return g[1], true
	}
	if g := reYear.FindStringSubmatch(v); g != nil {
		return g[1], true
	}
	return "", false
}

func validYMD(s string) bool {
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

// date returns the first date of ts (in sorted order) in ISO 8601, warning for each literal
// that is not a date and when several dates are given.
func (m *mapper) date(field string, ts []rdf.Term) string {
	var dates []string
	for _, t := range ts {
		if !t.IsLiteral() {
			continue
		}
		if v, ok := isoDate(t.Value); ok {
			dates = append(dates, v)
		} else {
			m.warn(field, "%s is not a date (xsd:date, xsd:dateTime, xsd:gYear or xsd:gYearMonth); dropped", t.NTriples())
		}
	}
	if len(dates) == 0 {
		return ""
	}
	if len(dates) > 1 {
		m.warn(field, "%d dates; %s kept, the others dropped", len(dates), dates[0])
	}
	return dates[0]
}

// periodDate reads the start or end of a period: a literal, or a time:Instant node's
// time:inXSDDate / inXSDDateTime / inXSDDateTimeStamp.
func (m *mapper) periodDate(field string, period rdf.Term, props []string, instant string) string {
	var ts []rdf.Term
	for _, p := range props {
		ts = append(ts, m.objects(period, p)...)
	}
	for _, i := range m.objects(period, instant) {
		for _, p := range []string{timeInXSDDate, timeInXSDDateTime, timeInXSDDateTimeS} {
			ts = append(ts, m.objects(i, p)...)
		}
	}
	return m.date(field, ts)
}

// intervalSpaces is the white space around an interval's "/".
var intervalSpaces = regexp.MustCompile(`\s*/\s*`)

func (m *mapper) temporal(s rdf.Term) string {
	periods := m.objects(s, dctTemporal)
	var values []string
	for _, p := range periods {
		if p.IsLiteral() {
			// GeoNetwork writes "start\n   /\n   end": an ISO 8601 interval has no spaces.
			if v := intervalSpaces.ReplaceAllString(strings.TrimSpace(p.Value), "/"); v != "" {
				values = append(values, v)
			}
			continue
		}
		start := m.periodDate("temporal", p, []string{dcatStartDate, schemaStartDate}, timeHasBeginning)
		end := m.periodDate("temporal", p, []string{dcatEndDate, schemaEndDate}, timeHasEnd)
		switch {
		case start != "" && end != "":
			start, end = samePrecision(start, end)
			values = append(values, start+"/"+end)
		case start != "" || end != "":
			m.warn("temporal", "period %s has only a %s; DCAT-US has no open intervals, dropped", p.NTriples(),
				map[bool]string{true: "start (" + start + ")", false: "end (" + end + ")"}[start != ""])
		}
	}
	if len(values) == 0 {
		return ""
	}
	if len(values) > 1 {
		m.warn("temporal", "%d periods; %s kept, the others dropped", len(values), values[0])
	}
	return values[0]
}

// samePrecision widens a year or year-month end of an interval to a date when the other end
// is more precise ("1951/2023-12-31" → "1951-01-01/2023-12-31"): DCAT-US's interval pattern
// wants both ends written alike.
func samePrecision(start, end string) (string, string) {
	if len(start) == len(end) || len(start) > 7 && len(end) > 7 { // same precision, or both dates
		return start, end
	}
	widen := func(v string, last bool) string {
		switch len(v) {
		case 4:
			if last {
				return v + "-12-31"
			}
			return v + "-01-01"
		case 7:
			if !last {
				return v + "-01"
			}
			for d := 31; d >= 28; d-- {
				if validYMD(fmt.Sprintf("%s-%02d", v, d)) {
					return fmt.Sprintf("%s-%02d", v, d)
				}
			}
		}
		return v
	}
	return widen(start, false), widen(end, true)
}
