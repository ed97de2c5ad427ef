package workflow_test

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/index/scan"
	"github.com/parley/parley/indexer"
	"github.com/parley/parley/search"
	"github.com/parley/parley/storage"
	"github.com/parley/parley/workflow"
)

// TestDemoViewsMatchTheirSearch: on the demo data, each demo view selects
// some conversations, and matching the view against one conversation (the
// webhook filter) agrees with searching the view (lists, counts, reports)
// for every conversation of the company.
func TestDemoViewsMatchTheirSearch(t *testing.T) {
	db, _ := setup(t)
	engine := scan.New()
	require.NoError(t, indexer.NewSyncer(db, engine, slog.New(slog.NewTextHandler(io.Discard, nil))).Rebuild(context.Background(), nil))
	var views []parley.SavedView
	var mailboxes []parley.Mailbox
	var convIDs []int64
	require.NoError(t, db.View(func(tx *storage.Tx) (err error) {
		if views, err = tx.SavedViews(1); err != nil {
			return err
		}
		if mailboxes, err = tx.Mailboxes(1); err != nil {
			return err
		}
		return tx.EachConversation(func(c *parley.Conversation) error {
			if c.CompanyID == 1 {
				convIDs = append(convIDs, c.ID)
			}
			return nil
		})
	}))
	require.Len(t, views, 4)
	for _, v := range views {
		t.Run(v.Name, func(t *testing.T) {
			n, err := search.ViewNode(&v, mailboxes, now)
			require.NoError(t, err)
			res, err := engine.Search(context.Background(), index.Request{Kind: index.Conversations, Company: 1, Filter: n, Limit: len(convIDs)})
			require.NoError(t, err)
			found := index.ParseIDs(res.IDs)
			require.NotEmpty(t, found)
			var matched []int64
			require.NoError(t, db.View(func(tx *storage.Tx) error {
				for _, id := range convIDs {
					ok, err := workflow.MatchesView(tx, &v, id, now)
					if err != nil {
						return err
					}
					if ok {
						matched = append(matched, id)
					}
				}
				return nil
			}))
			slices.Sort(found)
			assert.Equal(t, found, matched)
		})
	}
}
