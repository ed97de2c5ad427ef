package api

import (
	"context"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
	"github.com/parley/parley/reports"
	"github.com/parley/parley/search"
)

// Parameters of the user reports: those of the company-wide report of the
// same kind, and `user` (a user or a team id).
var (
	userReportParams    = append([]string{"user", "officeHours"}, conversationReportParams...)
	userSeriesParams    = append([]string{"user"}, seriesReportParams...)
	userHappinessParams = append([]string{"user"}, conversationReportParams...)
	userChatParams      = append([]string{"user"}, reportParams...)
	userRatingsParams   = append([]string{"user"}, ratingsListParams...)
	userDrillParams     = append([]string{"user"}, drillParams...)
	userHistoryParams   = append([]string{"user", "status", "officeHours", "sortField", "sortOrder"}, drillParams...)
)

// historyStatuses are the conversation history's `status` values.
var historyStatuses = []string{string(parley.StatusActive), string(parley.StatusPending), string(parley.StatusClosed)}

// userParam reads `user`, which every user report requires.
func userParam(p *params) int64 {
	if _, given := p.raw("user"); !given {
		p.problems.Add("user", parley.CodeMissingParameter, "user is required: a user or a team id", nil)
		return 0
	}
	if id := p.id("user"); id != nil {
		return *id
	}
	return 0
}

// userReportWith reads a user report's request, its engine and its
// subject (see subject).
func (s *Server) userReportWith(c *gin.Context, p *params) (reports.Request, reports.Engine, reports.Subject, error) {
	id := userParam(p)
	r, e, err := s.reportWith(c, p)
	if err != nil {
		return r, nil, reports.Subject{}, err
	}
	subject, err := s.subject(c.Request.Context(), r.Company, id)
	return r, e, subject, err
}

// subject loads whom a user report is about: the user, or the team, with
// the id `user` in the company (another id is `Invalid identifier`, as an
// unknown tag of a report filter).
func (s *Server) subject(ctx context.Context, company, id int64) (reports.Subject, error) {
	var subject reports.Subject
	err := s.store.View(ctx, func(tx parley.Tx) error {
		u, err := tx.User(company, id)
		if err == nil {
			subject = reports.UserSubject(u)
			return nil
		}
		if !parley.IsNotFound(err) {
			return err
		}
		t, err := tx.Team(company, id)
		if parley.IsNotFound(err) {
			return parley.Invalid("query", "user", parley.CodeInvalidID, "no user or team with this id", id)
		}
		if err == nil {
			subject = reports.TeamSubject(t)
		}
		return err
	})
	return subject, err
}

// userReportOf handles a user report that needs its request and subject:
// GET /v2/reports/user/happiness and .../chat.
func userReportOf[T any](s *Server, known []string, compute func(context.Context, reports.Engine, reports.Request, reports.Subject) (T, error)) handler {
	return func(c *gin.Context) error {
		r, e, subject, err := s.userReportWith(c, readParams(c, known...))
		var rep T
		if err == nil {
			rep, err = compute(c.Request.Context(), e, r, subject)
		}
		if err != nil {
			return err
		}
		render(c, http.StatusOK, rep)
		return nil
	}
}

// userSeriesOf handles a user report over time (`viewBy`): GET
// /v2/reports/user/customers-helped, .../replies and .../resolutions.
func userSeriesOf[T any](s *Server, compute func(context.Context, reports.Engine, reports.Request, reports.Subject, string) (T, error)) handler {
	return func(c *gin.Context) error {
		p := readParams(c, userSeriesParams...)
		requested := p.enum("viewBy", "", reports.ViewBys)
		r, e, subject, err := s.userReportWith(c, p)
		var viewBy string
		if err == nil {
			viewBy, err = reports.ViewBy(r, requested)
		}
		var out T
		if err == nil {
			out, err = compute(c.Request.Context(), e, r, subject, viewBy)
		}
		if err != nil {
			return err
		}
		render(c, http.StatusOK, out)
		return nil
	}
}

// userReport handles GET /v2/reports/user.
func (s *Server) userReport(c *gin.Context) error {
	r, e, subject, err := s.userReportWith(c, readParams(c, userReportParams...))
	var tags []parley.Tag
	if err == nil {
		tags, err = s.companyTags(c.Request.Context(), r.Company)
	}
	var rep *reports.UserReport
	if err == nil {
		rep, err = reports.User(c.Request.Context(), e, r, subject, tags)
	}
	if err != nil {
		return err
	}
	render(c, http.StatusOK, rep)
	return nil
}

// userRatings handles GET /v2/reports/user/ratings: the happiness ratings
// list, of the ratings of the user's (or the team's) replies.
func (s *Server) userRatings(c *gin.Context) error {
	p := readParams(c, userRatingsParams...)
	id := userParam(p)
	return s.ratingsList(c, p, func(r reports.Request) (ratingsLister, error) {
		subject, err := s.subject(c.Request.Context(), r.Company, id)
		return func(ctx context.Context, e reports.Engine, rating, sortField string, desc bool, page search.Paging) (search.Keys, error) {
			return reports.UserRatingsList(ctx, e, r, subject, rating, sortField, desc, page)
		}, err
	})
}

// userDrillDown handles GET /v2/reports/user/drilldown: the conversations
// the user (or a member of the team) replied to in the period, newest
// first.
func (s *Server) userDrillDown(c *gin.Context) error {
	p := readParams(c, userDrillParams...)
	number, size := p.page(), p.rows(drillPageSize)
	r, e, subject, err := s.userReportWith(c, p)
	if err != nil {
		return err
	}
	ids, total, err := reports.UserDrillDown(c.Request.Context(), e, r, subject, (number-1)*size, size)
	if err != nil {
		return err
	}
	return s.drillPage(c, r.Company, ids, newReportPage(number, size, total))
}

// historyRowView is one conversation of the conversation history.
type historyRowView struct {
	ID                int64              `json:"id"`
	Number            int64              `json:"number"`
	Status            parley.Status      `json:"status"`
	Customers         []historyPersonRef `json:"customers"`
	RepliesSent       int                `json:"repliesSent"`
	ResponseTime      *float64           `json:"responseTime"`
	AvgHandleTime     *float64           `json:"avgHandleTime"`
	FirstResponseTime *float64           `json:"firstResponseTime"`
	ResolveTime       *float64           `json:"resolveTime"`
}

// historyPersonRef names a conversation's customer.
type historyPersonRef struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// userConversationHistory handles GET
// /v2/reports/user/conversation-history: the conversations the user (or a
// member of the team) replied to in the period, with the figures of those
// replies, `status` (active, pending, closed) of the conversations now,
// sorted by `sortField` (number, repliesSent, responseTime, resolveTime)
// and `sortOrder` (default number DESC), `rows` (default 25) a page.
func (s *Server) userConversationHistory(c *gin.Context) error {
	p := readParams(c, userHistoryParams...)
	status := p.enum("status", "", historyStatuses)
	sortField := p.enum("sortField", "number", reports.HistorySorts)
	desc := p.enum("sortOrder", "DESC", []string{"ASC", "DESC", "asc", "desc"})
	number, size := p.page(), p.rows(drillPageSize)
	r, e, subject, err := s.userReportWith(c, p)
	if err != nil {
		return err
	}
	page, total, err := reports.ConversationHistory(c.Request.Context(), e, r, subject, status, sortField, strings.EqualFold(desc, "DESC"), (number-1)*size, size)
	if err != nil {
		return err
	}
	rows := []historyRowView{}
	err = s.store.View(c.Request.Context(), func(tx parley.Tx) error {
		rr := newRenderer(s, c, tx)
		for _, row := range page {
			conv, err := tx.Conversation(r.Company, row.ID)
			if parley.IsNotFound(err) {
				continue // deleted since it was counted
			}
			if err != nil {
				return err
			}
			view := historyRowView{ID: row.ID, Number: row.Number, Status: conv.Status, Customers: []historyPersonRef{}, RepliesSent: row.RepliesSent,
				ResponseTime: row.ResponseTime, AvgHandleTime: row.AvgHandleTime, FirstResponseTime: row.FirstResponseTime, ResolveTime: row.ResolveTime}
			if conv.CustomerID != 0 {
				cu, err := rr.customers.get(conv.CustomerID)
				if err != nil {
					return err
				}
				if cu != nil {
					view.Customers = append(view.Customers, historyPersonRef{ID: cu.ID, Name: customerName(cu)})
				}
			}
			rows = append(rows, view)
		}
		return nil
	})
	if err != nil {
		return err
	}
	render(c, http.StatusOK, struct {
		Results []historyRowView `json:"results"`
		reportPage
	}{rows, newReportPage(number, size, total)})
	return nil
}
