package query

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNowBounds(t *testing.T) {
	n, err := Parse(`status:pending AND (modifiedAt:[* TO NOW-30DAYS] OR NOT createdAt:NOW/DAY) AND waitingSince:{NOW-1HOUR TO 2030-01-01}`)
	require.NoError(t, err)
	assert.Equal(t, []NowBound{{"modifiedAt", "NOW-30DAYS"}, {"createdAt", "NOW/DAY"}, {"waitingSince", "NOW-1HOUR"}}, NowBounds(n))
}

// TestCrossings checks each crossing against the resolution itself: the
// value resolved at the instant reaches its target, and a nanosecond
// before it does not.
func TestCrossings(t *testing.T) {
	at := func(s string) time.Time { v, err := time.Parse(time.RFC3339Nano, s); require.NoError(t, err); return v }
	for _, tc := range []struct {
		value, date string
		want        []string
	}{
		{"NOW-30DAYS", "2026-01-01T10:00:00Z", []string{"2026-01-31T10:00:00Z", "2026-01-31T10:00:00.000000001Z"}},
		{"NOW+2HOURS", "2026-01-01T10:00:00Z", []string{"2026-01-01T08:00:00Z", "2026-01-01T08:00:00.000000001Z"}},
		{"NOW-30DAYS/DAY", "2026-01-01T10:00:00Z", []string{"2026-02-01T00:00:00Z", "2026-01-31T00:00:00Z"}},
		{"NOW/DAY-30DAYS", "2026-01-01T10:00:00Z", []string{"2026-02-01T00:00:00Z", "2026-01-31T00:00:00Z"}},
		// Clamping: NOW-1MONTH first reaches March 31 on May 1st (April 30
		// minus a month is March 30).
		{"NOW-1MONTH", "2026-03-31T10:00:00Z", []string{"2026-05-01T00:00:00Z"}},
		{"NOW", "2026-03-31T10:00:00Z", []string{"2026-03-31T10:00:00Z", "2026-03-31T10:00:00.000000001Z"}},
		{"2026-01-01", "2026-03-31T10:00:00Z", nil},
		{"NOW-3PARSECS", "2026-03-31T10:00:00Z", nil},
	} {
		t.Run(tc.value, func(t *testing.T) {
			var got []string
			for _, c := range Crossings(tc.value, at(tc.date)) {
				got = append(got, c.Format(time.RFC3339Nano))
			}
			assert.Equal(t, tc.want, got)
		})
	}
}
