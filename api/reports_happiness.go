package api

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/reports"
	"github.com/parley/parley/search"
)

// Drill-down and report list pages: `rows` per page, at most maxRows.
const (
	ratingsPageSize = 10 // the real API's ratings pages hold ten
	maxRows         = 50
)

// reportOf handles a report that needs nothing but its request: GET
// /v2/reports/happiness, .../conversations/busy-times, .../productivity
// and .../email.
func reportOf[T any](s *Server, known []string, compute func(context.Context, reports.Engine, reports.Request) (T, error)) handler {
	return func(c *gin.Context) error {
		r, e, err := s.reportWith(c, readParams(c, known...))
		var rep T
		if err == nil {
			rep, err = compute(c.Request.Context(), e, r)
		}
		if err != nil {
			return err
		}
		render(c, http.StatusOK, rep)
		return nil
	}
}

// ratingValues are the `rating` filter of the ratings lists: the real API
// says `ok` for okay; `okay` is accepted too.
var ratingValues = map[string]string{"all": "", "great": "great", "ok": "okay", "okay": "okay", "not-good": "not-good"}

// rows reads the page size of a report list (1 to maxRows).
func (p *params) rows(def int) int {
	v, ok := p.raw("rows")
	if !ok {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 || n > maxRows {
		p.problems.Add("rows", parley.CodeInvalidNumber, "must be an integer from 1 to 50", v)
		return def
	}
	return n
}

// reportPage is the paging of report lists and drill-downs.
type reportPage struct {
	Pages int `json:"pages"`
	Page  int `json:"page"`
	Count int `json:"count"`
}

func newReportPage(number, size, total int) reportPage {
	return reportPage{Pages: int(math.Ceil(float64(total) / float64(size))), Page: number, Count: total}
}

// ratingRow is one rating of a ratings list.
type ratingRow struct {
	Number             int64  `json:"number"`
	ThreadID           int64  `json:"threadid"`
	ThreadCreatedAt    string `json:"threadCreatedAt"`
	ID                 int64  `json:"id"`
	Type               string `json:"type"`
	RatingID           int64  `json:"ratingId"`
	Rating             string `json:"rating"`
	RatingCustomerID   int64  `json:"ratingCustomerId"`
	RatingComments     string `json:"ratingComments"`
	RatingCreatedAt    string `json:"ratingCreatedAt"`
	RatingCustomerName string `json:"ratingCustomerName"`
	RatingUserID       int64  `json:"ratingUserId"`
	RatingUserName     string `json:"ratingUserName"`
}

// happinessRatings handles GET /v2/reports/happiness/ratings: the ratings
// of the period, `rating` (great, ok, not-good, all), sorted by
// `sortField` (or `sortFieldRatings`: number, modifiedAt, rating) and
// `sortOrder` (ASC, DESC; default modifiedAt DESC), ten a page.
func (s *Server) happinessRatings(c *gin.Context) error {
	return s.ratingsList(c, readParams(c, ratingsListParams...), func(r reports.Request) (ratingsLister, error) {
		return func(ctx context.Context, e reports.Engine, rating, sortField string, desc bool, page search.Paging) (search.Keys, error) {
			return reports.RatingsList(ctx, e, r, rating, sortField, desc, page)
		}, nil
	})
}

// ratingsLister lists a page of the ratings of one report's request.
type ratingsLister func(ctx context.Context, e reports.Engine, rating, sortField string, desc bool, page search.Paging) (search.Keys, error)

// ratingsList answers a ratings list (the happiness and the user ones): it
// reads the list's parameters, then lists with what lister makes of the
// request.
func (s *Server) ratingsList(c *gin.Context, p *params, lister func(reports.Request) (ratingsLister, error)) error {
	rating := ratingValues[p.enum("rating", "all", []string{"all", "great", "ok", "okay", "not-good"})]
	sortName := "sortField"
	if _, ok := p.raw("sortFieldRatings"); ok {
		sortName = "sortFieldRatings"
	}
	sortField := p.enum(sortName, "modifiedAt", []string{"number", "modifiedAt", "rating"})
	desc := p.enum("sortOrder", "DESC", []string{"ASC", "DESC", "asc", "desc"})
	number, size := p.page(), p.rows(ratingsPageSize)
	r, e, err := s.reportWith(c, p)
	var list ratingsLister
	if err == nil {
		list, err = lister(r)
	}
	if err != nil {
		return err
	}
	res, err := list(c.Request.Context(), e, rating, sortField, strings.EqualFold(desc, "DESC"), search.Paging{Number: number, Size: size})
	if err != nil {
		return err
	}
	rows := []ratingRow{}
	err = s.store.View(c.Request.Context(), func(tx parley.Tx) error {
		rr := newRenderer(s, c, tx)
		for _, id := range res.IDs {
			conv, t, err := ratedReply(tx, r.Company, id)
			if err != nil {
				return err
			}
			if t == nil {
				continue // deleted or unrated since it was counted
			}
			rt := t.Rating
			row := ratingRow{Number: conv.Number, ThreadID: t.ID, ThreadCreatedAt: parley.FormatTime(t.CreatedAt), ID: conv.ID,
				Type: string(conv.Type), RatingID: rt.ID, Rating: rt.Rating, RatingCustomerID: rt.CustomerID, RatingComments: rt.Comments,
				RatingCreatedAt: parley.FormatTime(rt.CreatedAt), RatingUserID: t.CreatedBy.ID}
			cu, err := rr.customers.get(rt.CustomerID)
			if err != nil {
				return err
			}
			if cu != nil {
				row.RatingCustomerName = customerName(cu)
			}
			u, err := rr.users.get(t.CreatedBy.ID)
			if err != nil {
				return err
			}
			if u != nil {
				row.RatingUserName = u.Name()
			}
			rows = append(rows, row)
		}
		return nil
	})
	if err != nil {
		return err
	}
	render(c, http.StatusOK, struct {
		Results []ratingRow `json:"results"`
		reportPage
	}{rows, newReportPage(number, size, res.Total)})
	return nil
}

// ratedReply loads the conversation and the rated reply of a reply
// document; the thread is nil when it is gone or no longer rated.
func ratedReply(tx parley.Tx, company int64, docID string) (*parley.Conversation, *parley.Thread, error) {
	convID, threadID, err := index.ParseMessageID(docID)
	if err != nil {
		return nil, nil, err
	}
	conv, err := tx.Conversation(company, convID)
	if parley.IsNotFound(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	threads, err := tx.Threads(company, convID)
	if err != nil {
		return nil, nil, err
	}
	for i := range threads {
		if threads[i].ID == threadID && threads[i].Rating != nil {
			return conv, &threads[i], nil
		}
	}
	return conv, nil, nil
}

// customerName names a customer in a report: its name, else its e-mail.
func customerName(cu *parley.Customer) string {
	if name := cu.Name(); name != "" {
		return name
	}
	return cu.PrimaryEmail()
}
