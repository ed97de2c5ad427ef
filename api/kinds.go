package api

import parley "github.com/parley/parley"

// Error kinds only HTTP can cause. The domain never creates them, so they
// live here, numbered from parley.KindTransport; statusOf maps them.
const (
	kindMethod         = parley.KindTransport + iota // 405: the route does not take the method
	kindTooLarge                                     // 413: the body is over the endpoint's limit
	kindMediaType                                    // 415: the body is not JSON
	kindTimeout                                      // 504: the request ran past its deadline
	kindRequestTimeout                               // 408: the client sent its body too slowly
)
