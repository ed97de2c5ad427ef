package api

// MatchPath exposes matchPath to the external tests.
var MatchPath = matchPath
