package parley

import (
	"fmt"
	"time"
	_ "time/tzdata" // office hours name IANA zones; do not depend on the host's zoneinfo
)

// OfficeHours is a company's weekly schedule. With it enabled, reports
// asked for office hours count time only inside the schedule: a chat that
// waits overnight waits only its office minutes.
type OfficeHours struct {
	Enabled  bool   `json:"enabled"`
	TimeZone string `json:"timeZone"` // IANA name, e.g. Europe/Paris
	// Week holds the open intervals of each day, indexed by time.Weekday.
	Week [7][]Interval `json:"week"`
}

// Interval is an open period of a day, in minutes since local midnight.
type Interval struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Weekdays builds a schedule open the same hours Monday to Friday.
func Weekdays(zone string, startMinute, endMinute int) OfficeHours {
	o := OfficeHours{Enabled: true, TimeZone: zone}
	for d := time.Monday; d <= time.Friday; d++ {
		o.Week[d] = []Interval{{Start: startMinute, End: endMinute}}
	}
	return o
}

// Validate checks the zone and the intervals.
func (o *OfficeHours) Validate() error {
	if _, err := time.LoadLocation(o.TimeZone); err != nil {
		return fmt.Errorf("office hours: unknown time zone %q", o.TimeZone)
	}
	for d, day := range o.Week {
		for _, iv := range day {
			if iv.Start < 0 || iv.End > 24*60 || iv.Start >= iv.End {
				return fmt.Errorf("office hours: bad interval %d-%d on %s", iv.Start, iv.End, time.Weekday(d))
			}
		}
	}
	return nil
}

// Duration is the office time between from and to.
func (o *OfficeHours) Duration(from, to time.Time) time.Duration {
	return o.DurationIn(o.Location(), from, to)
}

// Location is the schedule's time zone, nil when it cannot be loaded.
// Callers measuring many durations load it once (loading parses tzdata).
func (o *OfficeHours) Location() *time.Location {
	loc, err := time.LoadLocation(o.TimeZone)
	if err != nil {
		return nil
	}
	return loc
}

// DurationIn is Duration with the schedule's zone already loaded; with no
// zone every moment counts.
func (o *OfficeHours) DurationIn(loc *time.Location, from, to time.Time) time.Duration {
	if !to.After(from) {
		return 0
	}
	if loc == nil {
		return to.Sub(from)
	}
	var total time.Duration
	from, to = from.In(loc), to.In(loc)
	day := time.Date(from.Year(), from.Month(), from.Day(), 0, 0, 0, 0, loc)
	for !day.After(to) {
		for _, iv := range o.Week[day.Weekday()] {
			open := day.Add(time.Duration(iv.Start) * time.Minute)
			shut := day.Add(time.Duration(iv.End) * time.Minute)
			start, end := later(open, from), earlier(shut, to)
			if end.After(start) {
				total += end.Sub(start)
			}
		}
		day = time.Date(day.Year(), day.Month(), day.Day()+1, 0, 0, 0, 0, loc) // DST-safe next midnight
	}
	return total
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
