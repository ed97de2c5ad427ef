package scan

import (
	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// Match evaluates checked query nodes against one document, exactly as
// Search evaluates them over every document: all nodes must hold. It lets
// workflows test one conversation without an engine, with the oracle's
// semantics, so a condition matches what the same search finds.
func Match(d index.Document, nodes ...query.Node) (bool, error) {
	doc := analyse(d)
	for _, n := range nodes {
		if ok, err := eval(n, doc); err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}
