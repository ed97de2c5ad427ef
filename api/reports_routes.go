package api

import (
	"github.com/gin-gonic/gin"

	"github.com/parley/parley/reports"
)

// reportRoutes registers the reports computed from conversation and reply
// documents (README "Reports").
func (s *Server) reportRoutes(v2 *gin.RouterGroup) {
	v2.GET("/reports/happiness", reportOf(s, conversationReportParams, reports.Happiness))
	v2.GET("/reports/happiness/ratings", s.happinessRatings)
	v2.GET("/reports/conversations", s.conversationsReport)
	v2.GET("/reports/conversations/busy-times", reportOf(s, conversationReportParams, reports.BusyTimes)) // a bare array of the 168 hours
	v2.GET("/reports/conversations/new", seriesOf(s, seriesReportParams, reports.NewConversations))
	v2.GET("/reports/conversations/received-messages", seriesOf(s, seriesReportParams, reports.ReceivedMessages))
	v2.GET("/reports/conversations/volume-by-channel", seriesOf(s, seriesReportParams, reports.VolumeByChannel))
	v2.GET("/reports/conversations/drilldown", s.conversationsDrillDown(reports.TotalFilter))
	v2.GET("/reports/conversations/new-drilldown", s.conversationsDrillDown(reports.NewFilter))
	v2.GET("/reports/conversations/fields-drilldown", s.fieldsDrillDown)
	v2.GET("/reports/company", s.companyReport)
	v2.GET("/reports/company/customers-helped", seriesOf(s, seriesReportParams, reports.CustomersHelped))
	v2.GET("/reports/company/drilldown", s.companyDrillDown)
	v2.GET("/reports/email", reportOf(s, reportParams, reports.Email)) // the chat report's parameters
	v2.GET("/reports/productivity", reportOf(s, productivityParams, reports.Productivity))
	v2.GET("/reports/productivity/first-response-time", seriesOf(s, productivitySeriesParams, reports.FirstResponseTimes))
	v2.GET("/reports/productivity/replies-sent", seriesOf(s, productivitySeriesParams, reports.RepliesSent))
	v2.GET("/reports/productivity/resolution-time", seriesOf(s, productivitySeriesParams, reports.ResolutionTimes))
	v2.GET("/reports/productivity/resolved", seriesOf(s, productivitySeriesParams, reports.ResolvedSeries))
	v2.GET("/reports/productivity/response-time", seriesOf(s, productivitySeriesParams, reports.ResponseTimes))
}

// The parameters of the reports over conversations: the common ones and
// `types`; drill-downs and lists read the current period only.
var (
	conversationReportParams = []string{"start", "end", "previousStart", "previousEnd", "mailboxes", "tags", "types", "folders"}
	ratingsListParams        = []string{"start", "end", "mailboxes", "tags", "types", "folders", "page", "rows", "rating", "sortField", "sortFieldRatings", "sortOrder"}
)

// Parameters of the productivity reports: those of the conversations
// reports and officeHours.
var (
	productivityParams       = append([]string{"officeHours"}, conversationReportParams...)
	productivitySeriesParams = append([]string{"officeHours"}, seriesReportParams...)
)
