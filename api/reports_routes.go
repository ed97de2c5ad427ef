package api

import "github.com/gin-gonic/gin"

// reportRoutes registers the reports computed from conversation and reply
// documents (README "Reports").
func (s *Server) reportRoutes(v2 *gin.RouterGroup) {
	v2.GET("/reports/happiness", s.happinessReport)
	v2.GET("/reports/happiness/ratings", s.happinessRatings)
}

// The parameters of the reports over conversations: the common ones and
// `types`; drill-downs and lists read the current period only.
var (
	conversationReportParams = []string{"start", "end", "previousStart", "previousEnd", "mailboxes", "tags", "types", "folders"}
	ratingsListParams        = []string{"start", "end", "mailboxes", "tags", "types", "folders", "page", "rows", "rating", "sortField", "sortFieldRatings", "sortOrder"}
)
