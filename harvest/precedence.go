package harvest

import (
	"fmt"
	"strconv"
	"strings"
)

// A source's precedence decides which of two sources keeps the live dataset when both publish
// the same dataset (a cross-source duplicate): the higher one wins; on a tie the source that
// published it first keeps it. It is a field of every source type (not an option), 0 by
// default, from MinPrecedence to MaxPrecedence. An organization's own source is usually given a
// higher precedence than an aggregator that copies its datasets.
const (
	MinPrecedence = -1000
	MaxPrecedence = 1000
)

// CheckPrecedence says what is wrong with precedence n, or "": it must be in
// MinPrecedence..MaxPrecedence. SourceFields.Check reports it as field "precedence".
func CheckPrecedence(n int) string {
	if n < MinPrecedence || n > MaxPrecedence {
		return fmt.Sprintf("%d is out of range: want a whole number from %d to %d (higher wins a cross-source duplicate)",
			n, MinPrecedence, MaxPrecedence)
	}
	return ""
}

// ParsePrecedence reads a precedence as a form, a flag or the API gives it: a whole number as
// JSON writes one, decimal digits with an optional leading "-" (no spaces, no "+", no
// fraction or exponent); "" is 0, the default. A value that is not such a number is an error
// saying what is wanted; a whole number too long for an int is out of range, with
// CheckPrecedence's message. The range is otherwise CheckPrecedence's (SourceFields.Check), not
// checked here, so that an out-of-range value gets the one message wherever it comes from.
func ParsePrecedence(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not a whole number: want one from %d to %d (higher wins a cross-source duplicate)",
			s, MinPrecedence, MaxPrecedence)
	}
	n, err := strconv.Atoi(s)
	if err != nil { // only a value too long for an int is left
		return 0, fmt.Errorf("%s is out of range: want a whole number from %d to %d (higher wins a cross-source duplicate)",
			s, MinPrecedence, MaxPrecedence)
	}
	return n, nil
}
