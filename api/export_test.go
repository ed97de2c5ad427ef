package api

// MatchPath exposes matchPath to the external tests.
var MatchPath = matchPath

// OnChatPark calls f each time a visitor's long-poll starts waiting; set it
// before the first request.
func OnChatPark(s *Server, f func(chatID string)) { s.chats.parked = f }
