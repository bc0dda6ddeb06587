package shacl

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/rdf"
)

// datatypeOK is sh:datatype (SHACL 4.1.2): x is a literal whose datatype is dt and, for the XSD
// datatypes below, whose lexical form is in the datatype's lexical space (XML Schema 1.1 Part 2,
// the "ill-formed" literals of SHACL's definition fail). rdf:langString needs a language tag;
// xsd:string is a literal with neither tag nor other datatype (rdf.Literal stores it as "").
func datatypeOK(x rdf.Term, dt string) bool {
	if !x.IsLiteral() {
		return false
	}
	switch dt {
	case rdf.RDFLangString:
		return x.Lang != ""
	case rdf.XSDString:
		return x.Lang == "" && x.Datatype == ""
	}
	if x.Datatype != dt {
		return false
	}
	check, ok := lexical[strings.TrimPrefix(dt, xsdNS)]
	if !ok || !strings.HasPrefix(dt, xsdNS) {
		return true
	}
	return check(x.Value)
}

var (
	reDate       = regexp.MustCompile(`^(-?\d{4,})-(\d{2})-(\d{2})(Z|[+-]\d{2}:\d{2})?$`)
	reDateTime   = regexp.MustCompile(`^(-?\d{4,})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})?$`)
	reDecimal    = regexp.MustCompile(`^[+-]?(\d+(\.\d*)?|\.\d+)$`)
	reInteger    = regexp.MustCompile(`^[+-]?\d+$`)
	reDuration   = regexp.MustCompile(`^-?P((\d+Y)?(\d+M)?(\d+D)?)(T(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$`)
	reHexBinary  = regexp.MustCompile(`^([0-9a-fA-F]{2})*$`)
	reGYear      = regexp.MustCompile(`^-?\d{4,}(Z|[+-]\d{2}:\d{2})?$`)
	reGYearMonth = regexp.MustCompile(`^(-?\d{4,})-(\d{2})(Z|[+-]\d{2}:\d{2})?$`)
	reBoolean    = regexp.MustCompile(`^(true|false|1|0)$`)
	reTimezone   = regexp.MustCompile(`([+-])(\d{2}):(\d{2})$`)
)

var lexical = map[string]func(string) bool{
	"date": func(s string) bool {
		m := reDate.FindStringSubmatch(s)
		return m != nil && validDate(m[1], m[2], m[3]) && validTZ(m[4])
	},
	"dateTime": validDateTime,
	"decimal":  reDecimal.MatchString,
	"integer":  reInteger.MatchString,
	"long":     intRange(-1<<63, 1<<63-1), "int": intRange(-1<<31, 1<<31-1),
	"short": intRange(-1<<15, 1<<15-1), "byte": intRange(-1<<7, 1<<7-1),
	"nonNegativeInteger": intSign(0), "positiveInteger": intSign(1),
	"nonPositiveInteger": intSign(-1), "negativeInteger": intSign(-2),
	"boolean": reBoolean.MatchString,
	"duration": func(s string) bool {
		return reDuration.MatchString(s) && !strings.HasSuffix(s, "P") && !strings.HasSuffix(s, "T")
	},
	"hexBinary": reHexBinary.MatchString,
	"gYear": func(s string) bool {
		m := reGYear.FindStringSubmatch(s)
		return m != nil && validTZ(m[1]) && !zeroYear(s)
	},
	"gYearMonth": func(s string) bool {
		m := reGYearMonth.FindStringSubmatch(s)
		return m != nil && validMonth(m[2]) && validTZ(m[3]) && !zeroYear(m[1])
	},
}

func zeroYear(y string) bool {
	y = strings.TrimLeft(strings.TrimPrefix(y, "-"), "0")
	return y == "" || y[0] < '0' || y[0] > '9'
}

func validMonth(m string) bool { n, _ := strconv.Atoi(m); return n >= 1 && n <= 12 }

func validDate(y, m, d string) bool {
	if zeroYear(y) || (len(strings.TrimPrefix(y, "-")) > 4 && strings.HasPrefix(strings.TrimPrefix(y, "-"), "0")) {
		return false
	}
	yn, err := strconv.Atoi(y)
	if err != nil {
		return false
	}
	mn, _ := strconv.Atoi(m)
	dn, _ := strconv.Atoi(d)
	if mn < 1 || mn > 12 || dn < 1 {
		return false
	}
	// days in month; year arithmetic on a leap-year-equivalent proleptic year
	py := yn % 400
	if py <= 0 {
		py += 400
	}
	return dn <= time.Date(py, time.Month(mn)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

func validTZ(tz string) bool {
	if tz == "" || tz == "Z" {
		return true
	}
	m := reTimezone.FindStringSubmatch(tz)
	if m == nil {
		return false
	}
	h, _ := strconv.Atoi(m[2])
	mi, _ := strconv.Atoi(m[3])
	return mi < 60 && (h < 14 || (h == 14 && mi == 0))
}

func validDateTime(s string) bool {
	m := reDateTime.FindStringSubmatch(s)
	if m == nil || !validDate(m[1], m[2], m[3]) || !validTZ(m[8]) {
		return false
	}
	h, _ := strconv.Atoi(m[4])
	mi, _ := strconv.Atoi(m[5])
	sec, _ := strconv.Atoi(m[6])
	if h == 24 { // 24:00:00 is end of day
		return mi == 0 && sec == 0 && strings.Trim(strings.TrimPrefix(m[7], "."), "0") == ""
	}
	return h < 24 && mi < 60 && sec < 60
}

func intRange(lo, hi int64) func(string) bool {
	return func(s string) bool {
		if !reInteger.MatchString(s) {
			return false
		}
		n, err := strconv.ParseInt(s, 10, 64)
		return err == nil && n >= lo && n <= hi
	}
}

// intSign: 0 non-negative, 1 positive, -1 non-positive, -2 negative.
func intSign(want int) func(string) bool {
	return func(s string) bool {
		if !reInteger.MatchString(s) {
			return false
		}
		neg := strings.HasPrefix(s, "-")
		zero := strings.Trim(strings.TrimLeft(s, "+-"), "0") == ""
		switch want {
		case 0:
			return !neg || zero
		case 1:
			return !neg && !zero
		case -1:
			return neg || zero
		}
		return neg && !zero
	}
}
