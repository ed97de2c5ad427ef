package query

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A date value is an anchor (NOW, a timestamp, or a date as short as a year)
// followed by date math operations applied left to right: `+2DAYS`, `-1HOUR`
// (shift) and `/DAY` (round down to the start of the unit).
//
// Some values name a whole period rather than an instant: a partial date
// (2000-11 is all of November) or a value whose last operation rounds
// (NOW/DAY is all of today). The unit of that period is kept so that the
// checker can turn the value into a range covering it.

// dateValue is a resolved date value. unit is "" for an instant, otherwise
// t is the start of a period of that unit.
type dateValue struct {
	t    time.Time
	unit string
}

// end is the first instant after the period (t itself for an instant).
func (d dateValue) end() time.Time {
	switch d.unit {
	case "year":
		return d.t.AddDate(1, 0, 0)
	case "month":
		return d.t.AddDate(0, 1, 0)
	case "week":
		return d.t.AddDate(0, 0, 7)
	case "day":
		return d.t.AddDate(0, 0, 1)
	case "hour":
		return d.t.Add(time.Hour)
	case "minute":
		return d.t.Add(time.Minute)
	case "second":
		return d.t.Add(time.Second)
	}
	return d.t
}

var (
	// dateAnchor captures the date or timestamp a value starts with; the
	// groups tell how much of it was written.
	dateAnchor = regexp.MustCompile(`^\d{4}(-\d{2}(-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?)?)?`)
	// dateOp is one date math operation.
	dateOp = regexp.MustCompile(`^(?:([+-])(\d+)|/)([A-Za-z]+)`)

	errInvalidDate = errors.New("invalid date")
)

// unitError is date math with a unit we do not know.
type unitError struct{ unit string }

func (e *unitError) Error() string { return "unknown date math unit " + strconv.Quote(e.unit) }

// maxAmount bounds the number in a date math shift; it is far beyond any
// useful shift and keeps the arithmetic below from overflowing.
const maxAmount = 1_000_000_000

// parseDate resolves a date value against now (UTC). It returns
// errInvalidDate or a *unitError.
func parseDate(s string, now time.Time) (dateValue, error) {
	d, rest, err := parseAnchor(s, now)
	if err != nil {
		return dateValue{}, err
	}
	for rest != "" {
		m := dateOp.FindStringSubmatch(rest)
		if m == nil {
			return dateValue{}, errInvalidDate
		}
		rest = rest[len(m[0]):]
		unit, ok := dateUnit(m[3])
		if !ok {
			return dateValue{}, &unitError{unit: m[3]}
		}
		if m[1] == "" {
			d = dateValue{t: floor(d.t, unit), unit: unit}
			continue
		}
		n, err := strconv.Atoi(m[2])
		if err != nil || n > maxAmount {
			return dateValue{}, errInvalidDate
		}
		if m[1] == "-" {
			n = -n
		}
		// A shifted period is no longer a calendar period (2013-01-01+2HOURS
		// starts mid-day), so a shift always yields an instant.
		d = dateValue{t: shift(d.t, n, unit)}
		if y := d.t.Year(); y < 1 || y > 9999 {
			return dateValue{}, errInvalidDate
		}
	}
	return d, nil
}

// parseAnchor reads NOW or a (partial) date at the start of s and returns
// the rest of s.
func parseAnchor(s string, now time.Time) (dateValue, string, error) {
	if len(s) >= 3 && strings.EqualFold(s[:3], "now") {
		return dateValue{t: now.UTC()}, s[3:], nil
	}
	m := dateAnchor.FindStringSubmatch(s)
	if m == nil {
		return dateValue{}, "", errInvalidDate
	}
	var layout, unit string
	switch {
	case m[3] != "":
		// A timestamp; seconds and zone may be left out, and no zone means UTC.
		layout = "2006-01-02T15:04"
		if m[4] != "" {
			layout += ":05"
		}
		if m[6] != "" {
			layout += "Z07:00"
		}
	case m[2] != "":
		layout, unit = "2006-01-02", "day"
	case m[1] != "":
		layout, unit = "2006-01", "month"
	default:
		layout, unit = "2006", "year"
	}
	// time.Parse validates the ranges (month 13, February 30, hour 24...).
	t, err := time.Parse(layout, m[0])
	if err != nil {
		return dateValue{}, "", errInvalidDate
	}
	return dateValue{t: t.UTC(), unit: unit}, s[len(m[0]):], nil
}

// dateUnit normalises a unit name: singular or plural, any case.
func dateUnit(s string) (string, bool) {
	u := strings.TrimSuffix(strings.ToLower(s), "s")
	switch u {
	case "year", "month", "week", "day", "hour", "minute", "second":
		return u, true
	}
	return "", false
}

// floor rounds t (UTC) down to the start of its unit; weeks start on Monday.
func floor(t time.Time, unit string) time.Time {
	y, m, d := t.Date()
	switch unit {
	case "year":
		return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
	case "month":
		return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	case "week":
		return time.Date(y, m, d-(int(t.Weekday())+6)%7, 0, 0, 0, 0, time.UTC)
	case "day":
		return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	case "hour":
		return time.Date(y, m, d, t.Hour(), 0, 0, 0, time.UTC)
	case "minute":
		return time.Date(y, m, d, t.Hour(), t.Minute(), 0, 0, time.UTC)
	default:
		return time.Date(y, m, d, t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
	}
}

// shift adds n units to t. Months and years keep the day of the month when
// it exists and otherwise clamp to the month's last day (Jan 31 + 1 month is
// Feb 28), as users expect and as Elasticsearch does. Shorter units go
// through whole days first so that large amounts cannot overflow a Duration.
func shift(t time.Time, n int, unit string) time.Time {
	switch unit {
	case "year":
		return addMonths(t, 12*n)
	case "month":
		return addMonths(t, n)
	case "week":
		return t.AddDate(0, 0, 7*n)
	case "day":
		return t.AddDate(0, 0, n)
	case "hour":
		return t.AddDate(0, 0, n/24).Add(time.Duration(n%24) * time.Hour)
	case "minute":
		return t.AddDate(0, 0, n/1440).Add(time.Duration(n%1440) * time.Minute)
	default:
		return t.AddDate(0, 0, n/86400).Add(time.Duration(n%86400) * time.Second)
	}
}

func addMonths(t time.Time, n int) time.Time {
	y, m, d := t.Date()
	first := time.Date(y, m+time.Month(n), 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
	// Day 0 of the following month is the last day of this one.
	last := time.Date(first.Year(), first.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day()
	return first.AddDate(0, 0, min(d, last)-1)
}
