package search_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/fixtures"
	"github.com/parley/parley/index/scan"
	"github.com/parley/parley/indexer"
	"github.com/parley/parley/search"
	"github.com/parley/parley/storage"
	"github.com/parley/parley/workflow"
)

var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// countingStore counts the read transactions a search opens.
type countingStore struct {
	parley.Store
	views atomic.Int32
}

func (s *countingStore) View(ctx context.Context, fn func(parley.Tx) error) error {
	s.views.Add(1)
	return s.Store.View(ctx, fn)
}

// demo is the demo data in bbolt, searched by the scan engine, with the
// owner of company 1, a custom field of its support mailbox, and one of
// its saved views.
type demo struct {
	store  *countingStore
	deps   search.Deps
	owner  parley.Caller
	box    parley.Mailbox
	fields map[string]int64 // custom field ids by name
	view   parley.SavedView
}

func newDemo(t *testing.T) *demo {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "parley.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	require.NoError(t, fixtures.Load(db.Store(), now))
	engine := scan.New()
	require.NoError(t, indexer.NewSyncer(db, engine, slog.New(slog.NewTextHandler(io.Discard, nil))).Rebuild(context.Background(), nil))
	d := &demo{store: &countingStore{Store: db.Store()}, fields: map[string]int64{}}
	d.deps = search.Deps{Store: d.store, Engine: engine, Now: now}
	require.NoError(t, db.Store().View(context.Background(), func(tx parley.Tx) error {
		company, err := tx.Company(1)
		if err != nil {
			return err
		}
		users, err := tx.Users(1)
		if err != nil {
			return err
		}
		for i := range users {
			if users[i].Role == parley.RoleOwner {
				d.owner = parley.Caller{Company: company, User: &users[i]}
			}
		}
		boxes, err := tx.Mailboxes(1)
		if err != nil {
			return err
		}
		for _, m := range boxes {
			if len(m.Fields) > 0 {
				d.box = m
				for _, f := range m.Fields {
					d.fields[f.Name] = f.ID
				}
				break
			}
		}
		views, err := tx.SavedViews(1)
		if err == nil && len(views) > 0 {
			d.view = views[0]
		}
		return err
	}))
	require.NotNil(t, d.owner.User)
	require.NotEmpty(t, d.fields)
	require.NotZero(t, d.view.ID)
	return d
}

func ptr[T any](v T) *T { return &v }

// TestListConversationsReadsWhatItNeeds: a list reads the company's
// mailboxes only when it needs them (custom-field filters, a query
// naming a custom field, a saved view), and a folder's saved view only
// when one folder is named.
func TestListConversationsReadsWhatItNeeds(t *testing.T) {
	d := newDemo(t)
	priority := fmt.Sprintf("cf%d", d.fields["Priority"])
	for _, tc := range []struct {
		name  string
		req   search.Conversations
		views int32
	}{
		{"a plain list", search.Conversations{}, 0},
		{"a query of built-in fields", search.Conversations{Query: ptr("subject:refund")}, 0},
		{"a query naming a custom field", search.Conversations{Query: ptr(priority + ":*")}, 1},
		{"a custom field filter", search.Conversations{Filter: parley.ConversationFilter{MailboxIDs: []int64{d.box.ID}},
			CustomFields: []string{fmt.Sprintf("%d:Order", d.fields["Order number"])}}, 1},
		{"a folder that is no view", search.Conversations{Filter: parley.ConversationFilter{FolderIDs: []int64{1 << 40}}}, 1},
		{"a folder that is a view", search.Conversations{Filter: parley.ConversationFilter{FolderIDs: []int64{d.view.ID}}}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Caller, tc.req.Limit = d.owner, 25
			d.store.views.Store(0)
			_, err := search.ListConversations(context.Background(), d.deps, tc.req)
			require.NoError(t, err)
			assert.Equal(t, tc.views, d.store.views.Load())
		})
	}
}

// TestListConversationsProblems: what the caller found wrong, the
// custom-field pairs and the facet names are answered as one validation
// error, in that order, before anything is searched.
func TestListConversationsProblems(t *testing.T) {
	d := newDemo(t)
	problems := parley.Problems{Source: "query"}
	problems.Add("status", parley.CodeEnumValue, "must be one of: active", "done")
	notes := fmt.Sprintf("%d:x", d.fields["Internal notes"])
	_, err := search.ListConversations(context.Background(), d.deps, search.Conversations{Caller: d.owner,
		Filter: parley.ConversationFilter{MailboxIDs: []int64{d.box.ID}}, CustomFields: []string{"oops", "999:1", notes},
		Facets: []string{"status", "colour"}, Problems: problems, Limit: 25})
	var e *parley.Error
	require.True(t, errors.As(err, &e), "%v", err)
	var got []string
	for _, f := range e.Errors {
		got = append(got, f.Path+": "+f.Code)
	}
	assert.Equal(t, []string{"status: " + parley.CodeEnumValue, "customFieldsByIds: " + parley.CodeValueNotSupported,
		"customFieldsByIds: " + parley.CodeInvalidID, "customFieldsByIds: " + parley.CodeValueNotSupported,
		"facets: " + parley.CodeListOfEnumValues}, got)
}

// TestListConversationsSavedView: a folder naming a saved view lists what
// the view selects for the caller, in every status unless one is given.
func TestListConversationsSavedView(t *testing.T) {
	d := newDemo(t)
	all := func(r search.Conversations) []int64 {
		r.Caller, r.Limit = d.owner, 1000
		page, err := search.ListConversations(context.Background(), d.deps, r)
		require.NoError(t, err)
		assert.Len(t, page.IDs, page.Total)
		return page.IDs
	}
	viewed := all(search.Conversations{Filter: parley.ConversationFilter{FolderIDs: []int64{d.view.ID}}})
	var want []int64
	var matched int
	require.NoError(t, d.store.View(context.Background(), func(tx parley.Tx) error {
		for _, id := range all(search.Conversations{Status: "all"}) {
			in, err := workflow.MatchesView(tx, &d.view, id, now)
			if err != nil {
				return err
			}
			if in {
				want = append(want, id)
				matched++
			}
		}
		return nil
	}))
	require.NotZero(t, matched, "the demo view selects some conversations")
	assert.ElementsMatch(t, want, viewed)
	active := all(search.Conversations{Filter: parley.ConversationFilter{FolderIDs: []int64{d.view.ID}}, Status: "active"})
	assert.Subset(t, viewed, active)
}
