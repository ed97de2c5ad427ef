package parley

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestOfficeHoursDuration(t *testing.T) {
	paris := Weekdays("Europe/Paris", 9*60, 17*60) // 09:00-17:00, Monday to Friday
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	cases := []struct {
		name     string
		from, to string
		want     time.Duration
	}{
		{"inside one day", "2026-11-18T09:00:00+01:00", "2026-11-18T09:30:00+01:00", 30 * time.Minute},
		{"starts before opening", "2026-11-18T08:00:00+01:00", "2026-11-18T09:10:00+01:00", 10 * time.Minute},
		{"waits overnight", "2026-11-18T16:50:00+01:00", "2026-11-19T09:05:00+01:00", 15 * time.Minute},
		{"across a weekend", "2026-11-20T16:00:00+01:00", "2026-11-23T10:00:00+01:00", 2 * time.Hour},
		{"entirely on a weekend", "2026-11-21T10:00:00+01:00", "2026-11-22T18:00:00+01:00", 0},
		{"a whole week", "2026-11-16T00:00:00+01:00", "2026-11-23T00:00:00+01:00", 40 * time.Hour},
		{"given in UTC", "2026-11-18T08:00:00Z", "2026-11-18T08:30:00Z", 30 * time.Minute},
		{"reversed", "2026-11-18T10:00:00+01:00", "2026-11-18T09:00:00+01:00", 0},
		{"across the DST change", "2026-03-27T16:00:00+01:00", "2026-03-30T10:00:00+02:00", 2 * time.Hour},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, paris.Duration(at(tc.from), at(tc.to)))
		})
	}
	assert.NoError(t, paris.Validate())
	bad := paris
	bad.TimeZone = "Mars/Olympus"
	assert.Error(t, bad.Validate())
}
