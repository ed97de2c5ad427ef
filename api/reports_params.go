package api

// The parameters of the reports over conversations: the common ones and
// `types`; drill-downs and lists read the current period only.
var (
	conversationReportParams = []string{"start", "end", "previousStart", "previousEnd", "mailboxes", "tags", "types", "folders"}
	// The reports over conversation documents alone also read `view`.
	conversationViewParams = append([]string{"view"}, conversationReportParams...)
	ratingsListParams      = []string{"start", "end", "mailboxes", "tags", "types", "folders", "page", "rows", "rating", "sortField", "sortFieldRatings", "sortOrder"}
)

// Parameters of the productivity reports: those of the conversations
// reports and officeHours.
var (
	productivityParams       = append([]string{"officeHours"}, conversationReportParams...)
	productivitySeriesParams = append([]string{"officeHours"}, seriesReportParams...)
)
