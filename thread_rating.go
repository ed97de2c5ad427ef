package parley

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Satisfaction ratings a customer gives an agent's reply.
var Ratings = []string{"great", "okay", "not-good"}

// RatingCategory is the survey category a rating stands for, in the terms
// of Help Scout's survey responses (promoter, passive, detractor), so a
// client written for message.survey.response.received sorts ratings the
// way it sorts survey answers.
func RatingCategory(rating string) string {
	switch rating {
	case "great":
		return "promoter"
	case "okay":
		return "passive"
	}
	return "detractor"
}

// Rating is a customer's satisfaction rating of a reply.
type Rating struct {
	// ID addresses the rating (GET /v2/ratings/{id}); storage assigns it,
	// and a new rating of the same reply keeps it.
	ID         int64     `json:"id,omitempty"`
	Rating     string    `json:"rating"`
	Comments   string    `json:"comments,omitempty"`
	CustomerID int64     `json:"customerId"`
	CreatedAt  time.Time `json:"createdAt"`
}

// LoadRating finds a rating the caller may read: its conversation must be
// in one of the caller's mailboxes.
func LoadRating(tx Tx, caller Caller, id int64) (*Conversation, *Thread, error) {
	c, t, err := tx.RatedThread(caller.Company.ID, id)
	if err == nil && !caller.User.CanAccessMailbox(c.MailboxID) {
		err = NotFound("rating")
	}
	if err != nil {
		return nil, nil, err
	}
	return c, t, nil
}

// RatingInput is the body of PUT .../threads/{threadId}/rating.
type RatingInput struct {
	Rating   *string `json:"rating"`
	Comments *string `json:"comments"`
}

// MaxRatingComments bounds a rating's comments.
const MaxRatingComments = 2000

// RateThread records the customer's rating of a published agent reply
// (as relayed by an integration: a survey, an e-mail link). A new rating
// replaces the previous one. Records satisfaction.ratings (about the
// conversation) and message.survey.response.received (about the rating).
func RateThread(tx Tx, caller Caller, convID, threadID int64, in *RatingInput, now time.Time) error {
	p := &Problems{}
	if in.Rating == nil || !slices.Contains(Ratings, *in.Rating) {
		p.Add("rating", CodeEnumValue, "must be one of: "+strings.Join(Ratings, ", "), in.Rating)
	}
	if in.Comments != nil && len([]rune(*in.Comments)) > MaxRatingComments {
		p.Add("comments", CodeSize, sizeMessage(0, MaxRatingComments), nil)
	}
	if err := p.Err(); err != nil {
		return err
	}
	c, t, err := loadThread(tx, caller, convID, threadID, now)
	if err != nil {
		return err
	}
	if t.Type != ThreadMessage || t.State != ThreadPublished {
		return InvalidID("threadId", CodeValueNotSupported, fmt.Sprintf("only a published reply can be rated (thread %d is a %s)", t.ID, t.Type), threadID)
	}
	r := &Rating{Rating: *in.Rating, CustomerID: c.CustomerID, CreatedAt: now}
	if in.Comments != nil {
		r.Comments = strings.TrimSpace(*in.Comments)
	}
	if t.Rating != nil {
		r.ID = t.Rating.ID
	}
	t.Rating = r
	if err := tx.PutThread(t); err != nil {
		return err
	}
	if err := saveConversation(tx, c, now); err != nil {
		return err
	}
	if err := emit(tx, EventSatisfactionRatings, c.CompanyID, c.ID, now); err != nil {
		return err
	}
	return emit(tx, EventSurveyResponse, c.CompanyID, r.ID, now)
}
