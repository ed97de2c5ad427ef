package query

// Constructors of the query nodes that programmatic filters (list
// parameters, report filters, views, custom fields) build most, so that a
// node such as "number equals" is written once, with its edge cases.

// Equal matches documents whose number or date field (dates in Unix
// milliseconds) holds exactly v.
func Equal(field string, v float64) Node {
	return NumberRange{Field: field, Min: &v, Max: &v, MinInclusive: true, MaxInclusive: true}
}

// EqualID matches documents whose numeric id field holds id.
func EqualID(field string, id int64) Node { return Equal(field, float64(id)) }

// AnyOf matches documents matched by any of nodes. One node is itself; none
// matches nothing (an empty list of allowed values allows nothing).
func AnyOf(nodes ...Node) Node {
	switch len(nodes) {
	case 0:
		return Not{Node: All{}}
	case 1:
		return nodes[0]
	}
	return Or{Nodes: nodes}
}

// AllOf matches documents matched by every node, with nested
// conjunctions spread into it and nil nodes left out (they restrict
// nothing). One node is itself; none matches everything.
func AllOf(nodes ...Node) Node {
	flat := make([]Node, 0, len(nodes))
	for _, n := range nodes {
		switch n := n.(type) {
		case nil:
		case And:
			flat = append(flat, n.Nodes...)
		default:
			flat = append(flat, n)
		}
	}
	switch len(flat) {
	case 0:
		return All{}
	case 1:
		return flat[0]
	}
	return And{Nodes: flat}
}

// AnyID matches documents whose numeric id field holds one of ids; no ids
// matches nothing.
func AnyID(field string, ids []int64) Node {
	nodes := make([]Node, len(ids))
	for i, id := range ids {
		nodes[i] = EqualID(field, id)
	}
	return AnyOf(nodes...)
}

// AnyKeyword matches documents whose keyword field holds one of values
// (already normalised as the field stores them); no values matches nothing.
func AnyKeyword(field string, values []string) Node {
	nodes := make([]Node, len(values))
	for i, v := range values {
		nodes[i] = Keyword{Field: field, Value: v}
	}
	return AnyOf(nodes...)
}
