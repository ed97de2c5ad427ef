package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
	"github.com/parley/parley/reports"
)

// routes lists every route of the server, with the middleware each group
// passes through and the error format each group answers in.
func (s *Server) routes() {
	r := s.router
	r.Use(s.requestID, s.logRequests, s.handle(apiErrors, s.recoverPanic), s.handle(apiErrors, s.edge))
	r.NoRoute(s.handle(apiErrors, func(*gin.Context) error { return parley.NotFound("resource") }))
	r.NoMethod(s.handle(apiErrors, s.methodNotAllowed))

	root := s.group(r, apiErrors)
	root.GET("/", s.home)
	root.GET("/healthz", s.healthz)
	root.GET("/readyz", s.readyz)
	root.GET("/metrics", s.operator, s.metrics)
	root.GET("/v2/openapi.json", s.openAPI)
	root.GET("/docs", s.docs)
	root.GET("/docs/errors", s.errorReference)
	root.GET("/docs/redoc.standalone.js", s.docsRenderer)
	root.GET("/admin/backup", s.operatorOrUser, s.backup)

	// The admin API: the operator's admin token alone, acting on any company.
	admin := s.group(r.Group("/admin"), apiErrors, s.operator)
	admin.POST("/companies", s.adminCreateCompany)
	admin.POST("/companies/:companyId/mailboxes", s.adminCreateMailbox)
	admin.PATCH("/companies/:companyId/mailboxes/:mailboxId", s.adminUpdateMailbox)
	admin.POST("/companies/:companyId/mailboxes/:mailboxId/fields", s.adminAddField)
	admin.POST("/companies/:companyId/mailboxes/:mailboxId/widgets", s.adminAddWidget)

	s.group(r, oauthErrors).POST("/v2/oauth2/token", s.token)
	s.group(r, v1Errors).POST(s.cfg.TransitionPath, s.transition)

	// The HTML pages of the authorization-code flow.
	root.GET(authorizePath, s.authorizePage)
	root.POST(authorizePath, s.authorizeDecision)
	root.POST(loginPath, s.login)

	// The reports dashboard and the agents' inbox: their pages and files,
	// and their sign-in through the authorization page above. The inbox is
	// also the page of every conversation's web link (webLink).
	root.GET(reportsDashboard.path, s.dashboardPage)
	root.GET(agentsInbox.path, s.inboxPage)
	root.GET("/conversation/:conversationId/:number", s.inboxConversationPage)
	for _, a := range []webApp{reportsDashboard, agentsInbox} {
		root.GET(a.path+"/assets/:file", s.webAppAsset(a))
		root.GET(a.path+"/signin", s.webAppSignIn(a))
		root.GET(a.callbackPath(), s.webAppCallback(a))
	}

	// The public chat widget: the visitor's token, no bearer token.
	root.POST("/v2/widgets/:widgetId/chats", s.startChat)
	root.POST("/v2/widgets/:widgetId/chats/:chatId/messages", s.visitorMessage)
	root.POST("/v2/widgets/:widgetId/chats/:chatId/timeline", s.visitorPageView)
	root.GET("/v2/widgets/:widgetId/chats/:chatId/events", s.visitorEvents)

	v2 := s.group(r.Group("/v2"), apiErrors, s.authenticate)
	v2.GET("/conversations", s.listConversations)
	v2.POST("/conversations", s.createConversation)
	v2.GET("/conversations/:conversationId", s.getConversation)
	v2.PATCH("/conversations/:conversationId", s.patchConversation)
	v2.DELETE("/conversations/:conversationId", s.deleteConversation)
	v2.PUT("/conversations/:conversationId/tags", s.replaceTags)
	v2.PUT("/conversations/:conversationId/fields", s.replaceFields)
	v2.PUT("/conversations/:conversationId/snooze", s.snooze)
	v2.DELETE("/conversations/:conversationId/snooze", s.unsnooze)
	v2.POST("/conversations/:conversationId/merge", s.merge)
	v2.GET("/conversations/:conversationId/threads", s.listThreads)
	// v3 differs from v2 only in sending system users' real type; Parley
	// has no system users, so both answer the same threads.
	s.group(r.Group("/v3"), apiErrors, s.authenticate).GET("/conversations/:conversationId/threads", s.listThreads)
	v2.POST("/conversations/:conversationId/reply", s.addThread(parley.ThreadMessage))
	v2.POST("/conversations/:conversationId/notes", s.addThread(parley.ThreadNote))
	v2.POST("/conversations/:conversationId/customer", s.addThread(parley.ThreadCustomer))
	v2.POST("/conversations/:conversationId/phones", s.addThread(parley.ThreadPhone))
	v2.POST("/conversations/:conversationId/chats", s.addThread(parley.ThreadChat))
	v2.PATCH("/conversations/:conversationId/threads/:threadId", s.patchThread)
	v2.PUT("/conversations/:conversationId/threads/:threadId/schedule", s.scheduleThread)
	v2.PATCH("/conversations/:conversationId/threads/:threadId/schedule", s.publishSchedule)
	v2.PUT("/conversations/:conversationId/threads/:threadId/rating", s.rateThread)
	v2.GET("/conversations/:conversationId/threads/:threadId/original-source", s.threadSource)
	v2.DELETE("/conversations/:conversationId/threads/:threadId/schedule", s.unscheduleThread)
	v2.POST("/conversations/:conversationId/threads/:threadId/attachments", s.addAttachment)
	v2.GET("/conversations/:conversationId/attachments/:attachmentId/data", s.attachmentData)
	v2.GET("/conversations/:conversationId/attachments/:attachmentId/download", s.attachmentDownload)
	v2.DELETE("/conversations/:conversationId/attachments/:attachmentId", s.deleteAttachment)

	v2.GET("/reports/chat", s.chatReport)
	v2.GET("/reports/chat/drilldown", s.chatDrillDown)
	v2.GET("/reports/phone", s.phoneReport)
	// The reports computed from conversation and reply documents (docs/reports.md).
	v2.GET("/reports/happiness", reportOf(s, conversationReportParams, reports.Happiness))
	v2.GET("/reports/happiness/ratings", s.happinessRatings)
	v2.GET("/reports/conversations", s.conversationsReport)
	v2.GET("/reports/conversations/busy-times", reportOf(s, conversationViewParams, reports.BusyTimes)) // a bare array of the 168 hours
	v2.GET("/reports/conversations/new", seriesOf(s, conversationSeriesParams, reports.NewConversations))
	v2.GET("/reports/conversations/received-messages", seriesOf(s, seriesReportParams, reports.ReceivedMessages))
	v2.GET("/reports/conversations/volume-by-channel", seriesOf(s, conversationSeriesParams, reports.VolumeByChannel))
	v2.GET("/reports/conversations/drilldown", s.conversationsDrillDown(reports.TotalFilter))
	v2.GET("/reports/conversations/new-drilldown", s.conversationsDrillDown(reports.NewFilter))
	v2.GET("/reports/conversations/fields-drilldown", s.fieldsDrillDown)
	v2.GET("/reports/company", s.companyReport)
	v2.GET("/reports/company/customers-helped", seriesOf(s, seriesReportParams, reports.CustomersHelped))
	v2.GET("/reports/company/drilldown", s.companyDrillDown)
	v2.GET("/reports/email", reportOf(s, reportParams, withTags(s, reports.Email))) // the chat report's parameters
	v2.GET("/reports/productivity", reportOf(s, productivityParams, withTags(s, reports.Productivity)))
	v2.GET("/reports/productivity/first-response-time", seriesOf(s, productivitySeriesParams, reports.FirstResponseTimes))
	v2.GET("/reports/productivity/replies-sent", seriesOf(s, productivitySeriesParams, reports.RepliesSent))
	v2.GET("/reports/productivity/resolution-time", seriesOf(s, productivitySeriesParams, reports.ResolutionTimes))
	v2.GET("/reports/productivity/resolved", seriesOf(s, productivitySeriesParams, reports.ResolvedSeries))
	v2.GET("/reports/productivity/response-time", seriesOf(s, productivitySeriesParams, reports.ResponseTimes))
	// The user reports: `user` is a user or a team id (docs/reports.md, "User and team").
	v2.GET("/reports/user", s.userReport)
	v2.GET("/reports/user/customers-helped", userSeriesOf(s, reports.UserCustomersHelped))
	v2.GET("/reports/user/replies", userSeriesOf(s, reports.UserReplies))
	v2.GET("/reports/user/resolutions", userSeriesOf(s, reports.UserResolutions))
	v2.GET("/reports/user/conversation-history", s.userConversationHistory)
	v2.GET("/reports/user/drilldown", s.userDrillDown)
	v2.GET("/reports/user/happiness", userReportOf(s, userHappinessParams, withSubjectTags(s, reports.UserHappiness)))
	v2.GET("/reports/user/ratings", s.userRatings)
	v2.GET("/reports/user/chat", userReportOf(s, userChatParams, reports.UserChat))

	v2.GET("/chats/:chatId", s.getChat)
	v2.PUT("/chats/:chatId/messages/:messageId", s.addChatMessage)
	v2.PUT("/chats/:chatId/end", s.endChat)
	v2.PUT("/chats/:chatId/tags", s.updateChatTags)

	v2.GET("/customers", s.listCustomers)
	v2.POST("/customers", s.createCustomer)
	v2.GET("/customers/:customerId", s.getCustomer)
	v2.PUT("/customers/:customerId", s.overwriteCustomer)
	v2.PATCH("/customers/:customerId", s.patchCustomer)
	v2.DELETE("/customers/:customerId", s.deleteCustomer)
	for _, k := range parley.EntryKinds {
		v2.GET("/customers/:customerId/"+k.Segment, withEntryKind(k.Segment, s.listEntries))
		v2.POST("/customers/:customerId/"+k.Segment, withEntryKind(k.Segment, s.addEntry))
		v2.PUT("/customers/:customerId/"+k.Segment+"/:entryId", withEntryKind(k.Segment, s.replaceEntry))
		v2.DELETE("/customers/:customerId/"+k.Segment+"/:entryId", withEntryKind(k.Segment, s.deleteEntry))
	}
	v2.GET("/customers/:customerId/address", s.getAddress)
	v2.POST("/customers/:customerId/address", s.createAddress)
	v2.PUT("/customers/:customerId/address", s.putAddress)
	v2.DELETE("/customers/:customerId/address", s.deleteAddress)
	v2.PATCH("/customers/:customerId/properties", s.patchProperties)
	v2.GET("/customer-properties", s.listCustomerProperties)
	v2.POST("/customer-properties", s.createCustomerProperty)
	v2.GET("/customer-properties/:slug", s.getCustomerProperty)
	v2.DELETE("/customer-properties/:slug", s.deleteCustomerProperty)

	v2.GET("/organizations", s.listOrganizations)
	v2.POST("/organizations", s.createOrganization)
	v2.GET("/organizations/:organizationId", s.getOrganization)
	v2.PUT("/organizations/:organizationId", s.updateOrganization)
	v2.DELETE("/organizations/:organizationId", s.deleteOrganization)
	v2.GET("/organizations/:organizationId/customers", s.listOrganizationCustomers)
	v2.GET("/organizations/:organizationId/conversations", s.listOrganizationConversations)
	// Gin prefers the static segment, so /organizations/properties is
	// never read as an organization id.
	v2.GET("/organizations/properties", s.listOrganizationProperties)
	v2.POST("/organizations/properties", s.createOrganizationProperty)
	v2.GET("/organizations/properties/:slug", s.getOrganizationProperty)
	v2.PUT("/organizations/properties/:slug", s.updateOrganizationProperty)
	v2.DELETE("/organizations/properties/:slug", s.deleteOrganizationProperty)
	v2.PUT("/organizations/:organizationId/properties/:slug", s.setOrganizationProperty)
	v2.DELETE("/organizations/:organizationId/properties/:slug", s.removeOrganizationProperty)
	s.group(r.Group("/v3"), apiErrors, s.authenticate).GET("/customers", s.listCustomersV3)

	v2.GET("/webhooks", s.listWebhooks)
	v2.POST("/webhooks", s.createWebhook)
	v2.GET("/webhooks/:webhookId", s.getWebhook)
	v2.PUT("/webhooks/:webhookId", s.updateWebhook)
	v2.DELETE("/webhooks/:webhookId", s.deleteWebhook)
	v2.GET("/webhooks/:webhookId/deliveries", s.listDeliveries)
	v2.GET("/webhooks/:webhookId/deliveries/:deliveryId", s.getDelivery)
	v2.POST("/webhooks/:webhookId/deliveries/:deliveryId/retry", s.retryDelivery)

	v2.GET("/users", s.listUsers)
	v2.POST("/users", s.createUser)
	v2.GET("/users/status", s.listUserStatuses)
	v2.GET("/users/:userId", s.getUser)
	v2.GET("/users/:userId/status", s.getUserStatus)
	v2.PUT("/users/:userId/status", s.setUserStatus)
	v2.GET("/teams", s.listTeams)
	v2.GET("/teams/:teamId/members", s.listTeamMembers)
	v2.GET("/mailboxes", s.listMailboxes)
	v2.GET("/mailboxes/:mailboxId", s.getMailbox)
	v2.GET("/mailboxes/:mailboxId/fields", s.listMailboxFields)
	v2.GET("/mailboxes/:mailboxId/folders", s.listMailboxFolders)
	v2.GET("/mailboxes/:mailboxId/routing", s.getRouting)
	v2.PUT("/mailboxes/:mailboxId/routing", s.updateRouting)
	v2.GET("/mailboxes/:mailboxId/saved-replies", s.listSavedReplies)
	v2.POST("/mailboxes/:mailboxId/saved-replies", s.createSavedReply)
	v2.GET("/mailboxes/:mailboxId/saved-replies/:savedReplyId", s.getSavedReply)
	v2.PUT("/mailboxes/:mailboxId/saved-replies/:savedReplyId", s.updateSavedReply)
	v2.DELETE("/mailboxes/:mailboxId/saved-replies/:savedReplyId", s.deleteSavedReply)
	v2.GET("/workflows", s.listWorkflows)
	v2.POST("/workflows", s.createWorkflow)
	v2.GET("/workflows/:workflowId", s.getWorkflow)
	v2.PUT("/workflows/:workflowId", s.updateWorkflow)
	v2.PATCH("/workflows/:workflowId", s.patchWorkflow)
	v2.DELETE("/workflows/:workflowId", s.deleteWorkflow)
	v2.POST("/workflows/:workflowId/run", s.runWorkflow)
	v2.GET("/workflows/:workflowId/runs", s.listWorkflowRuns)
	// Saved views (Parley's own): named saved searches, listed as folders.
	v2.GET("/views", s.listSavedViews)
	v2.POST("/views", s.createSavedView)
	v2.GET("/views/:viewId", s.getSavedView)
	v2.PUT("/views/:viewId", s.updateSavedView)
	v2.DELETE("/views/:viewId", s.deleteSavedView)
	v2.GET("/ratings/:ratingId", s.getRating)
	v2.GET("/tags", s.listTags)
	v2.GET("/tags/:tagId", s.getTag)
	v2.PUT("/tags/:tagId", s.updateTag)
	v2.DELETE("/tags/:tagId", s.deleteTag)
}

// routeGroup registers handlers on a gin router, each behind the one
// adapter with the group's error format, after the group's middleware.
type routeGroup struct {
	s          *Server
	r          gin.IRoutes
	format     errorFormat
	middleware []handler
}

func (s *Server) group(r gin.IRoutes, format errorFormat, middleware ...handler) routeGroup {
	return routeGroup{s: s, r: r, format: format, middleware: middleware}
}

func (g routeGroup) add(method, path string, hs ...handler) {
	chain := make([]gin.HandlerFunc, 0, len(g.middleware)+len(hs))
	for _, h := range append(append([]handler(nil), g.middleware...), hs...) {
		chain = append(chain, g.s.handle(g.format, h))
	}
	g.r.Handle(method, path, chain...)
}

func (g routeGroup) GET(path string, hs ...handler)    { g.add(http.MethodGet, path, hs...) }
func (g routeGroup) POST(path string, hs ...handler)   { g.add(http.MethodPost, path, hs...) }
func (g routeGroup) PUT(path string, hs ...handler)    { g.add(http.MethodPut, path, hs...) }
func (g routeGroup) PATCH(path string, hs ...handler)  { g.add(http.MethodPatch, path, hs...) }
func (g routeGroup) DELETE(path string, hs ...handler) { g.add(http.MethodDelete, path, hs...) }
