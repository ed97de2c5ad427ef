package parley

import "time"

// Clock tells the time; it is injected everywhere so tests fix it.
type Clock interface{ Now() time.Time }

// ClockFunc adapts a function to Clock.
type ClockFunc func() time.Time

// Now calls f.
func (f ClockFunc) Now() time.Time { return f() }

// SystemClock is the real clock, in UTC, to the millisecond: chat
// timestamps carry fractions; other timestamps render to the second.
var SystemClock Clock = ClockFunc(func() time.Time { return time.Now().UTC().Truncate(time.Millisecond) })
