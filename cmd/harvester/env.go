package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"
)

// The env* methods read an environment variable that gives a flag its default: unset or empty
// gives def; a value that does not parse gives def too, and is kept as an error naming the
// variable and the value (`HARVESTER_JOB_WINDOW="abc": not a whole number`), which envErr
// returns before the command runs (exit status 2), so a typo never runs on the default.

func (f *serviceFlags) envInt(name string, def int) int {
	return envValue(f, name, def, strconv.Atoi, "not a whole number")
}

func (f *serviceFlags) envInt64(name string, def int64) int64 {
	return envValue(f, name, def, func(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) }, "not a whole number")
}

// envDuration reads a Go duration such as "90s" or "10m" (time.ParseDuration).
func (f *serviceFlags) envDuration(name string, def time.Duration) time.Duration {
	return envValue(f, name, def, time.ParseDuration, "not a duration such as 90s or 10m")
}

func (f *serviceFlags) envFloat(name string, def float64) float64 {
	return envValue(f, name, def, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }, "not a number")
}

// envBool reads what strconv.ParseBool does: 1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False.
func (f *serviceFlags) envBool(name string) bool {
	return envValue(f, name, false, strconv.ParseBool, "not true or false (1, 0, true, false)")
}

func envValue[T any](f *serviceFlags, name string, def T, parse func(string) (T, error), want string) T {
	raw := os.Getenv(name)
	if raw == "" {
		return def
	}
	v, err := parse(raw)
	if errors.Is(err, strconv.ErrRange) {
		want = "out of range"
	}
	if err != nil {
		f.envErrs = append(f.envErrs, fmt.Errorf("%s=%q: %s", name, raw, want))
		return def
	}
	return v
}

// envErr is every unreadable environment value the flags' defaults met, as a usage error; nil
// when there was none.
func (f *serviceFlags) envErr() error {
	if err := errors.Join(f.envErrs...); err != nil {
		return usageError{err}
	}
	return nil
}
