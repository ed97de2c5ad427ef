package api

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
	"github.com/parley/parley/query"
	"github.com/parley/parley/reports"
	"github.com/parley/parley/search"
)

// Parameters of the series reports and of the conversation drill-downs.
var (
	seriesReportParams       = append([]string{"viewBy"}, conversationReportParams...)
	conversationSeriesParams = append([]string{"view"}, seriesReportParams...)
	drillParams              = []string{"start", "end", "mailboxes", "tags", "types", "folders", "page", "rows"}
	conversationDrillParams  = append([]string{"view"}, drillParams...)
	fieldDrillParams         = append([]string{"field", "fieldid"}, conversationDrillParams...)
)

// drillPageSize is a drill-down page's default size.
const drillPageSize = 25

// reportWith reads a report request and the engine; every report over
// conversations starts so.
func (s *Server) reportWith(c *gin.Context, p *params) (reports.Request, reports.Engine, error) {
	r, err := s.reportRequest(c, p)
	if err != nil {
		return r, nil, err
	}
	e, err := s.reportEngine()
	return r, e, err
}

// conversationsReport handles GET /v2/reports/conversations.
func (s *Server) conversationsReport(c *gin.Context) error {
	r, e, err := s.reportWith(c, readParams(c, conversationViewParams...))
	var tags []parley.Tag
	if err == nil {
		tags, err = s.companyTags(c.Request.Context(), r.Company)
	}
	var mailboxes []parley.Mailbox
	if err == nil {
		err = s.store.View(c.Request.Context(), func(tx parley.Tx) (err error) {
			mailboxes, err = tx.Mailboxes(r.Company)
			return err
		})
	}
	var rep *reports.ConversationsReport
	if err == nil {
		rep, err = reports.Conversations(c.Request.Context(), e, r, tags, reports.TopNames{
			Customers: s.topNames(c.Request.Context(), r.Company, func(tx parley.Tx, id int64) (reports.TopName, error) {
				cu, err := tx.Customer(r.Company, id)
				if err != nil {
					return reports.TopName{}, err
				}
				return reports.TopName{Name: customerName(cu)}, nil
			}),
			SavedReplies: s.topNames(c.Request.Context(), r.Company, func(tx parley.Tx, id int64) (reports.TopName, error) {
				reply, err := findSavedReply(tx, r.Company, id)
				if err != nil {
					return reports.TopName{}, err
				}
				return reports.TopName{Name: reply.Name, MailboxID: &reply.MailboxID}, nil
			}),
			Workflows: s.topNames(c.Request.Context(), r.Company, func(tx parley.Tx, id int64) (reports.TopName, error) {
				wf, err := tx.Workflow(r.Company, id)
				if err != nil {
					return reports.TopName{}, err
				}
				return reports.TopName{Name: wf.Name}, nil
			}),
		}, mailboxes)
	}
	if err != nil {
		return err
	}
	render(c, http.StatusOK, rep)
	return nil
}

// topNames names the values of a conversations report's top by id, in one
// read; a value deleted since keeps no name.
func (s *Server) topNames(ctx context.Context, company int64, lookup func(tx parley.Tx, id int64) (reports.TopName, error)) func([]int64) (map[int64]reports.TopName, error) {
	return func(ids []int64) (map[int64]reports.TopName, error) {
		names := map[int64]reports.TopName{}
		return names, s.store.View(ctx, func(tx parley.Tx) error {
			for _, id := range ids {
				name, err := lookup(tx, id)
				if parley.IsNotFound(err) {
					continue
				}
				if err != nil {
					return err
				}
				names[id] = name
			}
			return nil
		})
	}
}

// seriesOf handles a report over time (`viewBy`): GET
// /v2/reports/conversations/new, .../received-messages,
// .../volume-by-channel, /v2/reports/company/customers-helped and the
// productivity series.
func seriesOf[T any](s *Server, known []string, compute func(context.Context, reports.Engine, reports.Request, string) (T, error)) handler {
	return func(c *gin.Context) error {
		p := readParams(c, known...)
		requested := p.enum("viewBy", "", reports.ViewBys)
		r, e, err := s.reportWith(c, p)
		var viewBy string
		if err == nil {
			viewBy, err = reports.ViewBy(r, requested)
		}
		var out T
		if err == nil {
			out, err = compute(c.Request.Context(), e, r, viewBy)
		}
		if err != nil {
			return err
		}
		render(c, http.StatusOK, out)
		return nil
	}
}

// conversationsDrillDown handles GET /v2/reports/conversations/drilldown
// (the conversations worked on in the period) and .../new-drilldown (those
// created in it).
func (s *Server) conversationsDrillDown(filter func(reports.Period, reports.Filter) query.Node) handler {
	return func(c *gin.Context) error {
		p := readParams(c, conversationDrillParams...)
		return s.drillDown(c, p, func(r reports.Request) (query.Node, error) { return filter(r.Current, r.Filter), nil })
	}
}

// fieldsDrillDown handles GET /v2/reports/conversations/fields-drilldown:
// the conversations worked on in the period that carry the tag `fieldid`
// (`field` tagid), have a thread written from that saved reply (replyid),
// were touched by that workflow (workflowid) or belong to that customer
// (customerid).
func (s *Server) fieldsDrillDown(c *gin.Context) error {
	p := readParams(c, fieldDrillParams...)
	field, id := p.enum("field", "", reports.DrillFields), p.id("fieldid")
	for _, name := range []string{"field", "fieldid"} {
		if _, given := p.raw(name); !given {
			p.problems.Add(name, parley.CodeMissingParameter, name+" is required", nil)
		}
	}
	return s.drillDown(c, p, func(r reports.Request) (query.Node, error) {
		tag, err := s.drillTarget(c.Request.Context(), r.Company, field, *id)
		if err != nil {
			return nil, err
		}
		return reports.FieldFilter(r, field, *id, tag), nil
	})
}

// drillTarget checks that the fields drill-down's `fieldid` is a tag, a
// saved reply, a workflow or a customer of the company, as `field` says
// (another id is `Invalid identifier`, as an unknown tag of a report
// filter); it answers the tag of tagid.
func (s *Server) drillTarget(ctx context.Context, company int64, field string, id int64) (parley.Tag, error) {
	var tag parley.Tag
	err := s.store.View(ctx, func(tx parley.Tx) error {
		var err error
		switch field {
		case "tagid":
			var t *parley.Tag
			if t, err = tx.Tag(company, id); err == nil {
				tag = *t
			}
		case "replyid":
			_, err = findSavedReply(tx, company, id)
		case "workflowid":
			_, err = tx.Workflow(company, id)
		case "customerid":
			_, err = tx.Customer(company, id)
		}
		if parley.IsNotFound(err) {
			return parley.Invalid("query", "fieldid", parley.CodeInvalidID, "no "+drillTargets[field]+" with this id", id)
		}
		return err
	})
	return tag, err
}

// drillTargets names what a fields drill-down's `fieldid` is, by `field`.
var drillTargets = map[string]string{"tagid": "tag", "replyid": "saved reply", "workflowid": "workflow", "customerid": "customer"}

// findSavedReply finds a saved reply in any mailbox of the company.
func findSavedReply(tx parley.Tx, company, id int64) (*parley.SavedReply, error) {
	mailboxes, err := tx.Mailboxes(company)
	if err != nil {
		return nil, err
	}
	for _, m := range mailboxes {
		if reply, err := tx.SavedReply(company, m.ID, id); !parley.IsNotFound(err) {
			return reply, err
		}
	}
	return nil, parley.NotFound("saved reply")
}

// drillDown answers a page of the conversations a filter selects, as
// {conversations: {pages, page, count, results}}.
func (s *Server) drillDown(c *gin.Context, p *params, filter func(reports.Request) (query.Node, error)) error {
	number, size := p.page(), p.rows(drillPageSize)
	r, e, err := s.reportWith(c, p)
	var f query.Node
	if err == nil {
		f, err = filter(r)
	}
	if err != nil {
		return err
	}
	res, err := reports.ConversationList(c.Request.Context(), e, r, f, search.Paging{Number: number, Size: size})
	if err != nil {
		return err
	}
	ids := make([]int64, len(res.IDs))
	for i, id := range res.IDs {
		if ids[i], err = strconv.ParseInt(id, 10, 64); err != nil {
			return err
		}
	}
	return s.drillPage(c, r.Company, ids, newReportPage(number, size, res.Total))
}

// drillPage renders a drill-down page of conversations, loading only them.
func (s *Server) drillPage(c *gin.Context, company int64, ids []int64, pg reportPage) error {
	rows := []drillRowView{}
	err := s.store.View(c.Request.Context(), func(tx parley.Tx) error {
		rr := newRenderer(s, c, tx)
		for _, id := range ids {
			conv, err := tx.Conversation(company, id)
			if parley.IsNotFound(err) {
				continue // deleted since it was counted
			}
			if err != nil {
				return err
			}
			row, err := rr.drillRow(conv)
			if err != nil {
				return err
			}
			rows = append(rows, row)
		}
		return nil
	})
	if err != nil {
		return err
	}
	var body struct {
		Conversations struct {
			reportPage
			Results []drillRowView `json:"results"`
		} `json:"conversations"`
	}
	body.Conversations.reportPage, body.Conversations.Results = pg, rows
	render(c, http.StatusOK, body)
	return nil
}

// drillRowView is a drill-down's abbreviated conversation.
type drillRowView struct {
	Attachments   bool                    `json:"attachments"`
	CreatedAt     string                  `json:"createdAt"`
	CustomerEmail string                  `json:"customerEmail"`
	CustomerIDs   []int64                 `json:"customerIds"`
	CustomerName  string                  `json:"customerName"`
	ID            int64                   `json:"id"`
	MailboxID     int64                   `json:"mailboxid"`
	ModifiedAt    string                  `json:"modifiedAt"`
	Number        int64                   `json:"number"`
	Preview       string                  `json:"preview"`
	Status        parley.Status           `json:"status"`
	Subject       string                  `json:"subject"`
	ThreadCount   int                     `json:"threadCount"`
	Type          parley.ConversationType `json:"type"`
	Tags          []drillTagView          `json:"tags"`
	AssignedID    *int64                  `json:"assignedid"`
	AssignedName  *string                 `json:"assignedName"`
	// WaitingSince is the conversation's customerWaitingSince time.
	WaitingSince string `json:"waitingSince"`
}

// drillTagView is a tag of a drill-down's conversation.
type drillTagView struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Color string `json:"color"`
}

// drillRow is a drill-down's abbreviated conversation.
func (r *renderer) drillRow(conv *parley.Conversation) (drillRowView, error) {
	row := drillRowView{ID: conv.ID, Number: conv.Number, Type: conv.Type, MailboxID: conv.MailboxID,
		Attachments: conv.HasAttachments, Subject: conv.Subject, Status: conv.Status, ThreadCount: conv.ThreadCount,
		Preview: conv.Preview, CustomerIDs: []int64{},
		CreatedAt: parley.FormatTime(conv.CreatedAt), ModifiedAt: parley.FormatTime(conv.ModifiedAt), Tags: []drillTagView{},
		WaitingSince: waitingSince(conv, r.s.now()).Time}
	for _, id := range conv.TagIDs {
		t, err := r.tags.get(id)
		if err != nil {
			return row, err
		}
		if t != nil { // a tag deleted since is left out
			row.Tags = append(row.Tags, drillTagView{ID: t.ID, Name: t.Name, Color: t.Color})
		}
	}
	if a := conv.Assignee; a != nil {
		who, err := r.person(*a)
		if err != nil {
			return row, err
		}
		name := strings.TrimSpace(who.First + " " + who.Last)
		row.AssignedID, row.AssignedName = &a.ID, &name
	}
	if conv.CustomerID != 0 {
		row.CustomerIDs = []int64{conv.CustomerID}
		cu, err := r.customers.get(conv.CustomerID)
		if err != nil {
			return row, err
		}
		if cu != nil {
			row.CustomerName, row.CustomerEmail = cu.Name(), cu.PrimaryEmail()
		}
	}
	return row, nil
}
