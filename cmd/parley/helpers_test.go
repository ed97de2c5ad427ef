package main

import (
	"io"
	"log/slog"
	"time"
)

// fixedClock pins the demo data's dates in tests.
type fixedClock struct{}

func (fixedClock) Now() time.Time { return time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC) }

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
