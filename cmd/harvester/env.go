package main

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"
)

// The env* methods read the environment variable of a flagTable row, which gives its flag its
// default: unset or empty gives the row's default; a value that does not parse gives it too,
// and is kept as an error naming the variable and the value (`HARVESTER_JOB_WINDOW="abc": not
// a whole number`), which envErr returns before the command runs (exit status 2), so a typo
// never runs on the default.

func (e *flagEnv) envString(id string) string {
	s := spec(id)
	return cmp.Or(getenv(s.env), s.def.(string))
}

func (e *flagEnv) envInt(id string) int {
	s := spec(id)
	return envValue(e, s.env, s.def.(int), strconv.Atoi, "not a whole number")
}

func (e *flagEnv) envInt64(id string) int64 {
	s := spec(id)
	return envValue(e, s.env, s.def.(int64), func(v string) (int64, error) { return strconv.ParseInt(v, 10, 64) },
		"not a whole number")
}

// envDuration reads a Go duration such as "90s" or "10m" (time.ParseDuration).
func (e *flagEnv) envDuration(id string) time.Duration {
	s := spec(id)
	return envValue(e, s.env, s.def.(time.Duration), time.ParseDuration, "not a duration such as 90s or 10m")
}

func (e *flagEnv) envFloat(id string) float64 {
	s := spec(id)
	return envValue(e, s.env, s.def.(float64), func(v string) (float64, error) { return strconv.ParseFloat(v, 64) },
		"not a number")
}

// envBool reads what strconv.ParseBool does: 1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False.
func (e *flagEnv) envBool(id string) bool {
	s := spec(id)
	return envValue(e, s.env, s.def.(bool), strconv.ParseBool, "not true or false (1, 0, true, false)")
}

// getenv is the variable's value; "" for no variable.
func getenv(name string) string {
	if name == "" {
		return ""
	}
	return os.Getenv(name)
}

func envValue[T any](e *flagEnv, name string, def T, parse func(string) (T, error), want string) T {
	raw := getenv(name)
	if raw == "" {
		return def
	}
	v, err := parse(raw)
	if errors.Is(err, strconv.ErrRange) {
		want = "out of range"
	}
	if err != nil {
		e.envErrs = append(e.envErrs, fmt.Errorf("%s=%q: %s", name, raw, want))
		return def
	}
	return v
}

// envErr is every unreadable environment value the flags' defaults met, as a usage error; nil
// when there was none.
func (e *flagEnv) envErr() error {
	if err := errors.Join(e.envErrs...); err != nil {
		return usageError{err}
	}
	return nil
}
