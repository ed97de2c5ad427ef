package api

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
	"github.com/parley/parley/query"
	"github.com/parley/parley/reports"
)

// companyDrillParams are the company drill-down's parameters.
var companyDrillParams = append([]string{"range", "rangeId", "officeHours"}, drillParams...)

// companyReport handles GET /v2/reports/company.
func (s *Server) companyReport(c *gin.Context) error {
	r, e, err := s.reportWith(c, readParams(c, conversationReportParams...))
	var users []parley.User
	if err == nil {
		err = s.store.View(c.Request.Context(), func(tx parley.Tx) (err error) {
			users, err = tx.Users(r.Company)
			return err
		})
	}
	var tags []parley.Tag
	if err == nil {
		tags, err = s.companyTags(c.Request.Context(), r.Company)
	}
	var rep *reports.CompanyReport
	if err == nil {
		rep, err = reports.Company(c.Request.Context(), e, r, users, tags)
	}
	if err != nil {
		return err
	}
	render(c, http.StatusOK, rep)
	return nil
}

// companyDrillDown handles GET /v2/reports/company/drilldown: the
// conversations behind one figure (`range`, and `rangeId` for the ranges
// that have buckets).
func (s *Server) companyDrillDown(c *gin.Context) error {
	p := readParams(c, companyDrillParams...)
	name := p.enum("range", "", reports.CompanyRanges)
	if _, ok := p.raw("range"); !ok {
		p.problems.Add("range", parley.CodeMissingParameter, "range is required", nil)
	}
	rangeID := 0
	if ids := reports.CompanyRangeIDs[name]; ids > 0 {
		if v, ok := p.raw("rangeId"); !ok {
			p.problems.Add("rangeId", parley.CodeMissingParameter, "rangeId is required with range "+name, nil)
		} else if n, err := strconv.Atoi(v); err != nil || n < 1 || n > ids {
			p.problems.Add("rangeId", parley.CodeInvalidNumber, "must be an integer from 1 to "+strconv.Itoa(ids), v)
		} else {
			rangeID = n
		}
	}
	return s.drillDown(c, p, func(r reports.Request) (query.Node, error) { return reports.CompanyDrillFilter(r, name, rangeID) })
}
