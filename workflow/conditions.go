package workflow

import (
	"errors"
	"sync"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// conditions holds, for one run of the workflows on a conversation, what
// trying them needs again and again: each mailbox's conversation schema
// (one read of the mailbox) and each workflow's conditions, parsed once.
// A run tries every automatic workflow, again after each one acts, and
// again to find when a time condition will hold: before this, each try
// read the mailbox and parsed every condition anew, a third of what
// automatic workflows added to a write.
type conditions struct {
	tx      parley.Tx
	schemas map[int64]query.Schema // by mailbox id
	parsed  map[int64][]query.Node // by workflow id; nil: a condition no longer parses
}

func newConditions(tx parley.Tx) *conditions {
	return &conditions{tx: tx, schemas: map[int64]query.Schema{}, parsed: map[int64][]query.Node{}}
}

// of returns the schema of w's mailbox and w's conditions, parsed; ok is
// false when a condition no longer parses, and then w matches nothing.
func (cs *conditions) of(w *parley.Workflow) (schema query.Schema, syntax []query.Node, ok bool, err error) {
	schema, known := cs.schemas[w.MailboxID]
	if !known {
		m, err := cs.tx.Mailbox(w.CompanyID, w.MailboxID)
		if err != nil {
			return nil, nil, false, err
		}
		schema = index.ConversationSchemaFor([]parley.Mailbox{*m})
		cs.schemas[w.MailboxID] = schema
	}
	syntax, known = cs.parsed[w.ID]
	if !known {
		syntax = make([]query.Node, 0, len(w.Conditions))
		for _, cond := range w.Conditions {
			n, err := parse(cond)
			if err != nil {
				syntax = nil
				break
			}
			syntax = append(syntax, n)
		}
		cs.parsed[w.ID] = syntax
	}
	return schema, syntax, syntax != nil, nil
}

// checked resolves conditions parsed by of at a time: ok is false when one
// no longer checks (a custom field removed from the mailbox), and then the
// workflow matches nothing.
func checked(schema query.Schema, syntax []query.Node, at time.Time) (nodes []query.Node, ok bool, err error) {
	nodes = make([]query.Node, len(syntax))
	for i, n := range syntax {
		q, err := query.Check(n, schema, at)
		var qe *query.Error
		if errors.As(err, &qe) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		nodes[i] = q
	}
	return nodes, true, nil
}

// parsedConditions keeps, for the whole process, the syntax of every
// condition parsed: a write's automatic run parses each workflow's
// conditions, and parsing was a fifth of what workflows added to it. A
// condition's syntax depends on its text alone (checking it against a
// mailbox's schema, and resolving NOW, happen on every try), and nodes are
// values nothing mutates, so runs may share them. Workflows are few; the
// map is emptied if edits ever fill it.
var parsedConditions struct {
	sync.Mutex
	syntax map[string]parsedCondition
}

type parsedCondition struct {
	node query.Node
	err  error
}

// maxParsedConditions bounds parsedConditions.
const maxParsedConditions = 4096

// parse is query.Parse, remembered.
func parse(condition string) (query.Node, error) {
	parsedConditions.Lock()
	p, ok := parsedConditions.syntax[condition]
	parsedConditions.Unlock()
	if ok {
		return p.node, p.err
	}
	p.node, p.err = query.Parse(condition)
	parsedConditions.Lock()
	if parsedConditions.syntax == nil || len(parsedConditions.syntax) >= maxParsedConditions {
		parsedConditions.syntax = map[string]parsedCondition{}
	}
	parsedConditions.syntax[condition] = p
	parsedConditions.Unlock()
	return p.node, p.err
}
