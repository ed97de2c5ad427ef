package api

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
	"github.com/parley/parley/reports"
	"github.com/parley/parley/search"
)

var (
	reportParams    = []string{"start", "end", "previousStart", "previousEnd", "mailboxes", "tags", "folders", "officeHours"}
	drillDownParams = append([]string{"range", "rangeId", "page"}, reportParams...)
)

// reportEngine is the engine as reports need it.
func (s *Server) reportEngine() (reports.Engine, error) {
	e, ok := s.cfg.Engine.(reports.Engine)
	if !ok {
		return nil, errors.New("api: the search engine cannot compute facets")
	}
	return e, nil
}

// reportRequest reads the parameters shared by the report endpoints.
func (s *Server) reportRequest(c *gin.Context, p *params) (reports.Request, error) {
	who := caller(c)
	if err := who.Company.CanUseReports(); err != nil {
		return reports.Request{}, err
	}
	// Every report keeps to the caller's mailboxes, as the lists do.
	r := reports.Request{Company: who.Company.ID, Filter: reports.Filter{Visible: parley.ConversationFilter{}.VisibleTo(who).Visible}}
	period := func(startName, endName string, required bool) *reports.Period {
		_, hasStart := p.raw(startName)
		_, hasEnd := p.raw(endName)
		if !required && !hasStart && !hasEnd {
			return nil
		}
		start, end := p.time(startName), p.time(endName)
		for name, given := range map[string]bool{startName: hasStart, endName: hasEnd} {
			if !given {
				p.problems.Add(name, parley.CodeMissingParameter, name+" is required with "+startName+" and "+endName, nil)
			}
		}
		if start == nil || end == nil {
			return nil
		}
		if end.Before(*start) {
			p.problems.Add(endName, parley.CodeValueNotSupported, endName+" must not be before "+startName, parley.FormatTime(*end))
			return nil
		}
		return &reports.Period{Start: *start, End: *end}
	}
	if cur := period("start", "end", true); cur != nil {
		r.Current = *cur
	}
	r.Previous = period("previousStart", "previousEnd", false)
	r.Filter.Mailboxes = p.numbers("mailboxes")
	tagIDs := p.numbers("tags")
	r.Filter.Folders = p.numbers("folders")
	switch v, _ := p.raw("officeHours"); {
	case !p.reads("officeHours"), v == "", v == "false":
	case v == "true":
		r.Filter.OfficeHours = who.Company.CountsOfficeHours(true)
	default:
		p.problems.Add("officeHours", parley.CodeEnumValue, "must be one of: true, false", v)
	}
	if p.reads("types") {
		for _, t := range p.list("types") {
			if !slices.Contains(parley.ConversationTypes, t) {
				p.problems.Add("types", parley.CodeListOfEnumValues, "must be comma-separated values of: "+strings.Join(parley.ConversationTypes, ", "), t)
				continue
			}
			r.Filter.Types = append(r.Filter.Types, t)
		}
	}
	var viewID *int64
	if p.reads("view") {
		viewID = p.id("view")
	}
	if err := p.err(); err != nil {
		return r, err
	}
	err := s.store.View(c.Request.Context(), func(tx parley.Tx) error {
		if viewID != nil {
			if err := s.reportView(tx, who, *viewID, &r.Filter); err != nil {
				return err
			}
		}
		for _, id := range tagIDs {
			t, err := tx.Tag(who.Company.ID, id)
			if err != nil {
				return parley.Invalid("query", "tags", parley.CodeInvalidID, "no tag with this id", id)
			}
			r.Filter.Tags = append(r.Filter.Tags, *t)
		}
		return nil
	})
	return r, err
}

// reportView narrows a report's filter to a saved view the caller sees
// (`view`, on the reports over conversation documents).
func (s *Server) reportView(tx parley.Tx, who parley.Caller, id int64, f *reports.Filter) error {
	v, err := parley.LoadSavedView(tx, who, id)
	if parley.IsNotFound(err) {
		return parley.Invalid("query", "view", parley.CodeInvalidID, "no view with this id", id)
	}
	if err != nil {
		return err
	}
	f.View, err = search.SavedViewNode(tx, v, s.now())
	return err
}

// numbers reads comma-separated ids of a report filter; a bad item is
// `Invalid number`.
func (p *params) numbers(name string) []int64 {
	var out []int64
	for _, s := range p.list(name) {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || n <= 0 {
			p.problems.Add(name, parley.CodeInvalidNumber, "must be comma-separated positive integers", s)
			continue
		}
		out = append(out, n)
	}
	return out
}

// chatReport handles GET /v2/reports/chat.
func (s *Server) chatReport(c *gin.Context) error {
	r, err := s.reportRequest(c, readParams(c, reportParams...))
	var e reports.Engine
	if err == nil {
		e, err = s.reportEngine()
	}
	var rep *reports.ChatReport
	if err == nil {
		rep, err = reports.Chat(c.Request.Context(), e, r)
	}
	if err != nil {
		return err
	}
	render(c, http.StatusOK, rep)
	return nil
}

// phoneReport handles GET /v2/reports/phone.
func (s *Server) phoneReport(c *gin.Context) error {
	r, err := s.reportRequest(c, readParams(c, reportParams...))
	var e reports.Engine
	if err == nil {
		e, err = s.reportEngine()
	}
	var users []parley.User
	if err == nil {
		err = s.store.View(c.Request.Context(), func(tx parley.Tx) (err error) {
			users, err = tx.Users(caller(c).Company.ID)
			return err
		})
	}
	var rep *reports.PhoneReport
	if err == nil {
		rep, err = reports.Phone(c.Request.Context(), e, r, users)
	}
	if err != nil {
		return err
	}
	render(c, http.StatusOK, rep)
	return nil
}

// chatDrillDown handles GET /v2/reports/chat/drilldown: the chats counted
// in one range of a distribution (`range`, `rangeId` 1-5), 25 a page.
func (s *Server) chatDrillDown(c *gin.Context) error {
	p := readParams(c, drillDownParams...)
	distribution := p.enum("range", "", reports.Distributions)
	if _, ok := p.raw("range"); !ok {
		p.problems.Add("range", parley.CodeMissingParameter, "range is required", nil)
	}
	rangeID := 0
	if v, ok := p.raw("rangeId"); !ok {
		p.problems.Add("rangeId", parley.CodeMissingParameter, "rangeId is required", nil)
	} else if n, err := strconv.Atoi(v); err != nil || n < 1 || n > 5 {
		p.problems.Add("rangeId", parley.CodeInvalidNumber, "must be an integer from 1 to 5", v)
	} else {
		rangeID = n
	}
	pg := page{size: ConversationPageSize, number: p.page()}
	r, err := s.reportRequest(c, p)
	var e reports.Engine
	if err == nil {
		e, err = s.reportEngine()
	}
	if err != nil {
		return err
	}
	res, err := reports.DrillDown(c.Request.Context(), e, r, distribution, rangeID, search.Paging{Number: pg.number, Size: pg.size})
	if err != nil {
		return err
	}
	pg.total = res.Total
	var items []*chatView
	err = s.store.View(c.Request.Context(), func(tx parley.Tx) error {
		for _, id := range res.IDs {
			chat, err := tx.Chat(r.Company, id)
			if parley.IsNotFound(err) {
				continue // deleted since it was counted
			}
			if err != nil {
				return err
			}
			item, err := s.chatResource(c, tx, chat)
			if err != nil {
				return err
			}
			items = append(items, item)
		}
		return nil
	})
	if err != nil {
		return err
	}
	renderPage(s, c, "chats", items, pg)
	return nil
}
