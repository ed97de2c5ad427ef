package api

import (
	"github.com/gin-gonic/gin"

	"github.com/parley/parley/inbox"
)

// inboxPage handles GET /inbox: the agents' inbox, its mailboxes, views
// and search.
func (s *Server) inboxPage(c *gin.Context) error {
	webAppPage(c, inbox.Page(0))
	return nil
}

// inboxConversationPage handles GET /conversation/{id}/{number}, the web
// link of a conversation: the inbox opened on it. The page is the same
// whatever the id, and whether the conversation exists or not: its script
// asks the API as the agent, which answers the same 404 for one that does
// not exist and for one the agent may not see, so the page reveals
// nothing a direct API call would not.
func (s *Server) inboxConversationPage(c *gin.Context) error {
	webAppPage(c, inbox.Page(2))
	return nil
}
