package index

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/parley/parley/query"
)

// How documents spell their values, shared by the document builders
// (package indexer), the engines and the readers of results (api,
// reports).

// Millis is how dates are stored in documents.
func Millis(t time.Time) float64 { return float64(t.UnixMilli()) }

// MillisBounds are a time range's bounds as document numbers; nil stays
// open.
func MillisBounds(r query.TimeRange) (from, to *float64) {
	if r.From != nil {
		v := Millis(*r.From)
		from = &v
	}
	if r.To != nil {
		v := Millis(*r.To)
		to = &v
	}
	return from, to
}

// MessageID is a message document's id: its conversation's and its
// thread's, so a list of messages loads its threads without another
// look-up.
func MessageID(conversationID, threadID int64) string {
	return FormatID(conversationID) + "-" + FormatID(threadID)
}

// ParseMessageID splits a message document's id.
func ParseMessageID(id string) (conversationID, threadID int64, err error) {
	conv, thread, ok := strings.Cut(id, "-")
	if ok {
		if conversationID, err = strconv.ParseInt(conv, 10, 64); err == nil {
			threadID, err = strconv.ParseInt(thread, 10, 64)
		}
	}
	if !ok || err != nil {
		return 0, 0, fmt.Errorf("index: %q is not a message id", id)
	}
	return conversationID, threadID, nil
}

// WeekHourKey is the createdWeekHour value of a day (1-7) and an hour.
func WeekHourKey(day, hour int) string { return fmt.Sprintf("%d-%d", day, hour) }

// RatingRanks orders the ratings for sorting: great first.
var RatingRanks = map[string]float64{"great": 1, "okay": 2, "not-good": 3}
