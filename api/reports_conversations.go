package api

import (
	"context"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
	"github.com/parley/parley/query"
	"github.com/parley/parley/reports"
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
		err = s.store.View(func(tx parley.Tx) (err error) {
			tags, err = tx.Tags(r.Company)
			return err
		})
	}
	var rep *reports.ConversationsReport
	if err == nil {
		rep, err = reports.Conversations(c.Request.Context(), e, r, tags, func(ids []int64) (map[int64]string, error) {
			names := map[int64]string{}
			return names, s.store.View(func(tx parley.Tx) error {
				for _, id := range ids {
					if cu, err := tx.Customer(r.Company, id); err == nil {
						names[id] = customerName(cu)
					}
				}
				return nil
			})
		})
	}
	if err != nil {
		return err
	}
	render(c, http.StatusOK, rep)
	return nil
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
// the conversations worked on in the period whose custom field `field`
// has the dropdown option `fieldid`.
func (s *Server) fieldsDrillDown(c *gin.Context) error {
	p := readParams(c, fieldDrillParams...)
	field, option := p.id("field"), p.id("fieldid")
	for name, v := range map[string]*int64{"field": field, "fieldid": option} {
		if _, given := p.raw(name); !given && v == nil {
			p.problems.Add(name, parley.CodeMissingParameter, name+" is required", nil)
		}
	}
	return s.drillDown(c, p, func(r reports.Request) (query.Node, error) {
		return reports.FieldFilter(r, *field, strconv.FormatInt(*option, 10)), nil
	})
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
	res, err := reports.ConversationList(c.Request.Context(), e, r, f, (number-1)*size, size)
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
	err := s.store.View(func(tx parley.Tx) error {
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
}

// drillRow is a drill-down's abbreviated conversation.
func (r *renderer) drillRow(conv *parley.Conversation) (drillRowView, error) {
	row := drillRowView{ID: conv.ID, Number: conv.Number, Type: conv.Type, MailboxID: conv.MailboxID,
		Attachments: conv.HasAttachments, Subject: conv.Subject, Status: conv.Status, ThreadCount: conv.ThreadCount,
		Preview: conv.Preview, CustomerIDs: []int64{},
		CreatedAt: parley.FormatTime(conv.CreatedAt), ModifiedAt: parley.FormatTime(conv.ModifiedAt)}
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
