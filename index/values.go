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

// ConversationValues spells the numbers of one conversation as one keyword
// value, "<conversation id> <v1> <v2> ...", "-" for a number it lacks: a
// reply document carries its conversation's figures so that a Values
// facet over one user's replies yields each conversation's figures and
// counts together (facets count values one field at a time).
func ConversationValues(conversationID int64, values ...*float64) string {
	parts := []string{FormatID(conversationID)}
	for _, v := range values {
		if v == nil {
			parts = append(parts, "-")
			continue
		}
		parts = append(parts, ValueKey(*v))
	}
	return strings.Join(parts, " ")
}

// ParseConversationValues reads a ConversationValues value; want is the
// number of values it must hold.
func ParseConversationValues(s string, want int) (conversationID int64, values []*float64, err error) {
	parts := strings.Fields(s)
	if len(parts) != want+1 {
		return 0, nil, fmt.Errorf("index: %q does not hold a conversation and %d values", s, want)
	}
	if conversationID, err = strconv.ParseInt(parts[0], 10, 64); err != nil {
		return 0, nil, fmt.Errorf("index: %q: %w", s, err)
	}
	for _, p := range parts[1:] {
		if p == "-" {
			values = append(values, nil)
			continue
		}
		v, err := strconv.ParseFloat(p, 64)
		if err != nil {
			return 0, nil, fmt.Errorf("index: %q: %w", s, err)
		}
		values = append(values, &v)
	}
	return conversationID, values, nil
}
