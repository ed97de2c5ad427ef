package api

import (
	"github.com/gin-gonic/gin"

	"github.com/parley/parley/reports"
)

// Parameters of the productivity reports: those of the conversations
// reports and officeHours.
var (
	productivityParams       = append([]string{"officeHours"}, conversationReportParams...)
	productivitySeriesParams = append([]string{"officeHours"}, seriesReportParams...)
)

// productivitySeries handles the productivity reports over time: GET
// /v2/reports/productivity/first-response-time, .../replies-sent,
// .../resolution-time, .../resolved and .../response-time.
func (s *Server) productivitySeries(compute func(*gin.Context, reports.Engine, reports.Request, string) (any, error)) gin.HandlerFunc {
	return s.seriesWith(productivitySeriesParams, compute)
}

func firstResponseSeries(c *gin.Context, e reports.Engine, r reports.Request, viewBy string) (any, error) {
	return reports.FirstResponseTimes(c.Request.Context(), e, r, viewBy)
}

func responseTimeSeries(c *gin.Context, e reports.Engine, r reports.Request, viewBy string) (any, error) {
	return reports.ResponseTimes(c.Request.Context(), e, r, viewBy)
}

func resolutionTimeSeries(c *gin.Context, e reports.Engine, r reports.Request, viewBy string) (any, error) {
	return reports.ResolutionTimes(c.Request.Context(), e, r, viewBy)
}

func repliesSentSeries(c *gin.Context, e reports.Engine, r reports.Request, viewBy string) (any, error) {
	return reports.RepliesSent(c.Request.Context(), e, r, viewBy)
}

func resolvedSeries(c *gin.Context, e reports.Engine, r reports.Request, viewBy string) (any, error) {
	return reports.ResolvedSeries(c.Request.Context(), e, r, viewBy)
}
