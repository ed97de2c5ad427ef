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
	var body gin.H
	if err == nil {
		err = s.store.View(func(tx parley.Tx) error {
			conv, t, err := parley.LoadRating(tx, caller(c), id)
			if err == nil {
				body = newRenderer(s, c, tx).rating(conv, t)
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
func (r *renderer) rating(conv *parley.Conversation, t *parley.Thread) gin.H {
	s, c, rt := r.s, r.c, t.Rating
	customer := gin.H{"id": rt.CustomerID, "email": "", "firstName": "", "lastName": "", "photoUrl": ""}
	if cu := r.customer(rt.CustomerID); cu != nil {
		customer["email"], customer["firstName"], customer["lastName"], customer["photoUrl"] = cu.PrimaryEmail(), cu.FirstName, cu.LastName, cu.PhotoURL
	}
	user := gin.H{"id": t.CreatedBy.ID, "email": "", "firstName": "", "lastName": ""}
	if u := r.user(t.CreatedBy.ID); u != nil {
		user["email"], user["firstName"], user["lastName"] = u.Email, u.FirstName, u.LastName
	}
	return gin.H{
		"id": rt.ID, "rating": rt.Rating, "comments": rt.Comments,
		"threadId": t.ID, "conversationId": conv.ID, "conversationNumber": conv.Number, "mailboxId": conv.MailboxID,
		"customer": customer, "user": user,
		"createdAt": parley.FormatTime(rt.CreatedAt), "modifiedAt": parley.FormatTime(rt.CreatedAt),
		"_links": gin.H{
			"self":         link(s.url(c, "v2", "ratings", rt.ID)),
			"conversation": link(s.url(c, "v2", "conversations", conv.ID)),
			"mailbox":      link(s.url(c, "v2", "mailboxes", conv.MailboxID)),
			"customer":     link(s.url(c, "v2", "customers", rt.CustomerID)),
			"user":         link(s.url(c, "v2", "users", t.CreatedBy.ID)),
		},
	}
}
