package index_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
	"github.com/parley/parley/storage"
	"github.com/parley/parley/workflow"
)

// TestWorkflowMatchesAgreeWithSearch holds the workflow matcher to the
// search oracle: for generated conditions (the generator of
// TestRandomQueriesAgree), a workflow of a mailbox matches exactly the
// conversations the same query finds, over every conversation of the
// company.
func TestWorkflowMatchesAgreeWithSearch(t *testing.T) {
	e := loadEngines(t)
	g := newQueryGen(t, e.db)
	var convs []*parley.Conversation
	require.NoError(t, e.db.View(func(tx *storage.Tx) error {
		return tx.EachConversation(func(c *parley.Conversation) error { convs = append(convs, c); return nil })
	}))
	n := *randomCount / 40
	checked, hits := 0, 0
	for i := 0; i < n; i++ {
		text := g.expr(0)
		company := int64(1 + i%2)
		boxes := e.mailboxes[company]
		m := boxes[i%len(boxes)]
		syntax, err := query.Parse(text)
		require.NoError(t, err, text)
		node, err := query.Check(syntax, index.ConversationSchemaFor([]parley.Mailbox{m}), fixtureNow)
		var qe *query.Error
		if errors.As(err, &qe) {
			continue // names another mailbox's custom field: no workflow of m can hold it
		}
		require.NoError(t, err)
		want, err := e.oracle.Search(context.Background(), index.Request{Kind: index.Conversations, Company: company, Query: node, Limit: len(convs)})
		require.NoError(t, err)
		w := &parley.Workflow{ID: 1, CompanyID: company, MailboxID: m.ID, Conditions: []string{text}}
		got := []int64{}
		require.NoError(t, e.db.View(func(tx *storage.Tx) error {
			for _, c := range convs {
				ok, err := workflow.Matches(tx, w, c.ID, fixtureNow)
				if err != nil {
					return err
				}
				if ok {
					got = append(got, c.ID)
				}
			}
			return nil
		}))
		wantIDs := append([]int64{}, index.ParseIDs(want.IDs)...)
		slices.Sort(wantIDs)
		checked++
		if len(wantIDs) > 0 {
			hits++
		}
		if !assert.Equal(t, wantIDs, got, "condition %q (mailbox %d)", text, m.ID) {
			t.FailNow()
		}
	}
	assert.Greater(t, checked, n/2, "too few generated conditions check")
	assert.Greater(t, hits, checked/3, "too few generated conditions match anything")
}
