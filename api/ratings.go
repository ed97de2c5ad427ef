package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// getRating handles GET /v2/ratings/{ratingId}: a customer's rating of a
// reply, with the conversation's number, the rated user and the customer.
func (s *Server) getRating(c *gin.Context) error {
	id, err := pathID(c, "ratingId")
	if err == nil {
		err = readParams(c).err()
	}
	var body *ratingResource
	if err == nil {
		err = s.store.View(c.Request.Context(), func(tx parley.Tx) error {
			conv, t, err := parley.LoadRating(tx, caller(c), id)
			if err == nil {
				body, err = newRenderer(s, c, tx).rating(conv, t)
			}
			return err
		})
	}
	if err != nil {
		return err
	}
	render(c, http.StatusOK, body)
	return nil
}

// rating renders a rating as the real API's Get Rating does. The rated
// user is the reply's author; `modifiedAt` is when the current rating was
// given (a new rating of the same reply replaces it and keeps its id).
func (r *renderer) rating(conv *parley.Conversation, t *parley.Thread) (*ratingResource, error) {
	s, c, rt := r.s, r.c, t.Rating
	customer, err := r.ratingCustomer(rt.CustomerID)
	if err != nil {
		return nil, err
	}
	user, err := r.ratedUser(t.CreatedBy.ID)
	if err != nil {
		return nil, err
	}
	return &ratingResource{
		ID: rt.ID, Rating: rt.Rating, Comments: rt.Comments,
		ThreadID: t.ID, ConversationID: conv.ID, ConversationNumber: conv.Number, MailboxID: conv.MailboxID,
		Customer: customer, User: user,
		CreatedAt: parley.FormatTime(rt.CreatedAt), ModifiedAt: parley.FormatTime(rt.CreatedAt),
		Links: ratingLinks{
			Self:         link(s.url(c, "v2", "ratings", rt.ID)),
			Conversation: link(s.url(c, "v2", "conversations", conv.ID)),
			Mailbox:      link(s.url(c, "v2", "mailboxes", conv.MailboxID)),
			Customer:     link(s.url(c, "v2", "customers", rt.CustomerID)),
			User:         link(s.url(c, "v2", "users", t.CreatedBy.ID)),
		},
	}, nil
}

// ratingResource is the real API's Rating.
type ratingResource struct {
	Links              ratingLinks        `json:"_links"`
	Comments           string             `json:"comments"`
	ConversationID     int64              `json:"conversationId"`
	ConversationNumber int64              `json:"conversationNumber"`
	CreatedAt          string             `json:"createdAt"`
	Customer           ratingCustomerView `json:"customer"`
	ID                 int64              `json:"id"`
	MailboxID          int64              `json:"mailboxId"`
	ModifiedAt         string             `json:"modifiedAt"`
	Rating             string             `json:"rating"`
	ThreadID           int64              `json:"threadId"`
	User               ratedUserView      `json:"user"`
}

type ratingLinks struct {
	Conversation halLink `json:"conversation"`
	Customer     halLink `json:"customer"`
	Mailbox      halLink `json:"mailbox"`
	Self         halLink `json:"self"`
	User         halLink `json:"user"`
}

// ratingCustomerView is the customer who rated, blank when deleted since.
type ratingCustomerView struct {
	Email     string `json:"email"`
	FirstName string `json:"firstName"`
	ID        int64  `json:"id"`
	LastName  string `json:"lastName"`
	PhotoURL  string `json:"photoUrl"`
}

func (r *renderer) ratingCustomer(id int64) (ratingCustomerView, error) {
	out := ratingCustomerView{ID: id}
	cu, err := r.customers.get(id)
	if cu != nil {
		out.Email, out.FirstName, out.LastName, out.PhotoURL = cu.PrimaryEmail(), cu.FirstName, cu.LastName, cu.PhotoURL
	}
	return out, err
}

// ratedUserView is the user whose reply was rated, blank when deleted since.
type ratedUserView struct {
	Email     string `json:"email"`
	FirstName string `json:"firstName"`
	ID        int64  `json:"id"`
	LastName  string `json:"lastName"`
}

func (r *renderer) ratedUser(id int64) (ratedUserView, error) {
	out := ratedUserView{ID: id}
	u, err := r.users.get(id)
	if u != nil {
		out.Email, out.FirstName, out.LastName = u.Email, u.FirstName, u.LastName
	}
	return out, err
}

// surveyResponseView is the payload of message.survey.response.received:
// Help Scout's Survey Response object, made of a rating. The survey
// (`message`) is the satisfaction rating of the conversation's mailbox; the
// answer's value is the rating and its category the one the rating stands
// for. Parley has no survey dashboard or customer profile page, so the
// links are to the API's rating, conversation and customer.
type surveyResponseView struct {
	Embedded surveyEmbedded    `json:"_embedded"`
	Links    surveyLinks       `json:"_links"`
	Message  surveyMessageView `json:"message"`
	Response surveyAnswerView  `json:"response"`
}

type surveyEmbedded struct {
	Customer *customerResource `json:"customer"`
}

type surveyLinks struct {
	Conversation halLink `json:"conversation"`
	Customer     halLink `json:"customer"`
	Self         halLink `json:"self"`
}

type surveyMessageView struct {
	Name string `json:"name"`
}

type surveyAnswerView struct {
	Category  string `json:"category"`
	Comment   string `json:"comment"`
	Timestamp string `json:"timestamp"`
	Value     string `json:"value"`
}

// surveyResponse renders a rating as a survey response. The customer who
// rated must still exist (deleting a customer deletes their conversations,
// ratings included).
func (r *renderer) surveyResponse(conv *parley.Conversation, t *parley.Thread) (*surveyResponseView, error) {
	s, c, rt := r.s, r.c, t.Rating
	m, err := r.tx.Mailbox(conv.CompanyID, conv.MailboxID)
	if err != nil {
		return nil, err
	}
	cu, err := r.tx.Customer(conv.CompanyID, rt.CustomerID)
	if err != nil {
		return nil, err
	}
	customer, err := s.newCustomerView(c, r.tx, conv.CompanyID).resource(cu, true)
	if err != nil {
		return nil, err
	}
	return &surveyResponseView{
		Message: surveyMessageView{Name: "Satisfaction ratings: " + m.Name},
		Response: surveyAnswerView{Value: rt.Rating, Category: parley.RatingCategory(rt.Rating), Comment: rt.Comments,
			Timestamp: parley.FormatTime(rt.CreatedAt)},
		Embedded: surveyEmbedded{Customer: customer},
		Links: surveyLinks{
			Self:         link(s.url(c, "v2", "ratings", rt.ID)),
			Conversation: link(s.url(c, "v2", "conversations", conv.ID)),
			Customer:     link(s.url(c, "v2", "customers", rt.CustomerID)),
		},
	}, nil
}
