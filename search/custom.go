package search

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// customFieldFilters reads customFieldsByIds: `<fieldId>:<value>` pairs,
// ANDed; the fields must belong to one of the listed mailboxes, so
// `mailbox` is required. What is wrong with a pair is added to problems;
// the error is the store's.
func customFieldFilters(pairs []string, mailboxIDs []int64, boxes *mailboxes, problems *parley.Problems) ([]query.Node, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	if len(mailboxIDs) == 0 {
		problems.Add("mailbox", parley.CodeMissingParameter, "customFieldsByIds requires the mailbox parameter", nil)
		return nil, nil
	}
	all, err := boxes.get()
	if err != nil {
		return nil, err
	}
	defs := map[int64]parley.FieldDef{}
	for _, m := range all {
		if slices.Contains(mailboxIDs, m.ID) {
			for _, f := range m.Fields {
				defs[f.ID] = f
			}
		}
	}
	var nodes []query.Node
	for _, pair := range pairs {
		idText, value, found := strings.Cut(pair, ":")
		id, err := strconv.ParseInt(strings.TrimSpace(idText), 10, 64)
		if !found || err != nil || id <= 0 || strings.TrimSpace(value) == "" {
			problems.Add("customFieldsByIds", parley.CodeValueNotSupported, "must be <fieldId>:<value> pairs", pair)
			continue
		}
		def, ok := defs[id]
		if !ok {
			problems.Add("customFieldsByIds", parley.CodeInvalidID, "no such custom field in the given mailboxes", pair)
			continue
		}
		node, err := index.CustomFieldFilter(def, strings.TrimSpace(value))
		var e *parley.Error
		if errors.As(err, &e) {
			for _, item := range e.Errors {
				problems.Add(item.Path, item.Code, item.Message, item.RejectedValue)
			}
			continue
		}
		nodes = append(nodes, node)
	}
	return nodes, nil
}
