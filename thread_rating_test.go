package parley_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

func TestRatings(t *testing.T) {
	w, id := oneConversation(t, "active")
	var reply, note *parley.Thread
	require.NoError(t, w.write(func(tx parley.Tx) (err error) {
		if reply, err = parley.AddThread(tx, w.caller, id, parley.ThreadMessage, &parley.ThreadRequest{Text: parley.Ptr("Done")}, parley.EICARScanner{}, ruleNow); err != nil {
			return err
		}
		note, err = parley.AddThread(tx, w.caller, id, parley.ThreadNote, &parley.ThreadRequest{Text: parley.Ptr("Note")}, parley.EICARScanner{}, ruleNow)
		return err
	}))
	rate := func(threadID int64, in parley.RatingInput, at time.Time) error {
		return w.write(func(tx parley.Tx) error { return parley.RateThread(tx, w.caller, id, threadID, &in, at) })
	}
	assert.Equal(t, parley.CodeEnumValue, code(t, rate(reply.ID, parley.RatingInput{}, ruleNow)), "no rating")
	assert.Equal(t, parley.CodeEnumValue, code(t, rate(reply.ID, parley.RatingInput{Rating: parley.Ptr("meh")}, ruleNow)))
	assert.Equal(t, parley.CodeSize, code(t, rate(reply.ID, parley.RatingInput{Rating: parley.Ptr("great"), Comments: parley.Ptr(strings.Repeat("x", parley.MaxRatingComments+1))}, ruleNow)))
	assert.Equal(t, parley.CodeValueNotSupported, code(t, rate(note.ID, parley.RatingInput{Rating: parley.Ptr("great")}, ruleNow)), "only a published reply")

	require.NoError(t, rate(reply.ID, parley.RatingInput{Rating: parley.Ptr("okay"), Comments: parley.Ptr(" Slow ")}, ruleNow))
	_, threads := w.load(t, id)
	var rating *parley.Rating
	for _, th := range threads {
		if th.ID == reply.ID {
			rating = th.Rating
		}
	}
	require.NotNil(t, rating)
	assert.Equal(t, []any{"okay", "Slow", w.customer}, []any{rating.Rating, rating.Comments, rating.CustomerID})
	assert.Contains(t, w.events(t), parley.EventSatisfactionRatings)

	later := ruleNow.Add(time.Hour)
	require.NoError(t, rate(reply.ID, parley.RatingInput{Rating: parley.Ptr("great")}, later))
	plain := w.plainUser(t)
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
		c, th, err := parley.LoadRating(tx, w.caller, rating.ID)
		require.NoError(t, err)
		assert.Equal(t, []any{id, reply.ID, "great", "", later}, []any{c.ID, th.ID, th.Rating.Rating, th.Rating.Comments, th.Rating.CreatedAt},
			"a new rating replaces the old and keeps its id")
		_, _, err = parley.LoadRating(tx, plain, rating.ID)
		assert.True(t, parley.IsNotFound(err), "not for a user without the mailbox")
		_, _, err = parley.LoadRating(tx, w.caller, rating.ID+1000)
		assert.True(t, parley.IsNotFound(err))
		return nil
	}))
}
