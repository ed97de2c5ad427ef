package main

import (
	"flag"
	"io"
	"log/slog"
	"strings"
	"time"
)

// fixedClock pins the demo data's dates in tests.
type fixedClock struct{}

func (fixedClock) Now() time.Time { return time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC) }

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func stringsReader(s string) io.Reader { return strings.NewReader(s) }

// newTestFlags is a flag set with a string and an int flag.
func newTestFlags() *flag.FlagSet {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.String("token", "", "a token")
	fs.Int("rate-limit-pro", 0, "a limit")
	return fs
}
