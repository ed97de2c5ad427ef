package storetest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

func testSavedViews(t *testing.T, b Backend) {
	box := &parley.Mailbox{CompanyID: 1, Name: "Support", Folders: []parley.Folder{{Name: "Closed", Type: parley.FolderClosed, UpdatedAt: clock}}}
	put(t, b, func(tx parley.Tx) error { return tx.PutMailbox(box) })
	view := func(company int64, name string) *parley.SavedView {
		return &parley.SavedView{CompanyID: company, OwnerID: 3, Name: name, Visibility: parley.ViewShared, MailboxID: box.ID,
			Query: "tag:vip", Filters: parley.ViewFilters{Status: "open", Tags: []string{"vip"}, AssignedTo: ptr(int64(3)), Mailboxes: []int64{box.ID}},
			SortField: "modifiedAt", SortOrder: "asc", CreatedAt: clock, ModifiedAt: at(1)}
	}
	first, second, other := view(1, "first"), view(1, "second"), view(2, "other")
	second.Visibility, second.MailboxID, second.Filters = parley.ViewPrivate, 0, parley.ViewFilters{}
	put(t, b, func(tx parley.Tx) error { return tx.PutSavedView(first) }, func(tx parley.Tx) error { return tx.PutSavedView(second) },
		func(tx parley.Tx) error { return tx.PutSavedView(other) })
	require.NotZero(t, first.ID)
	assert.Greater(t, second.ID, first.ID)
	assert.Greater(t, first.ID, box.Folders[0].ID, "views draw their ids after the folders'")
	more := &parley.Mailbox{CompanyID: 1, Name: "Billing", Folders: []parley.Folder{{Name: "Spam", Type: parley.FolderSpam, UpdatedAt: clock}}}
	put(t, b, func(tx parley.Tx) error { return tx.PutMailbox(more) })
	assert.Greater(t, more.Folders[0].ID, other.ID, "and folders theirs after the views': one sequence")

	assert.Equal(t, first, get(t, b, func(tx parley.Tx) (*parley.SavedView, error) { return tx.SavedView(1, first.ID) }))
	notFound(t, b, "another company's view", func(tx parley.Tx) error { _, err := tx.SavedView(2, first.ID); return err })
	assert.Equal(t, []parley.SavedView{*first, *second}, get(t, b, func(tx parley.Tx) ([]parley.SavedView, error) { return tx.SavedViews(1) }))

	first.Name = "renamed"
	put(t, b, func(tx parley.Tx) error { return tx.PutSavedView(first) })
	assert.Equal(t, "renamed", get(t, b, func(tx parley.Tx) (*parley.SavedView, error) { return tx.SavedView(1, first.ID) }).Name)

	put(t, b, func(tx parley.Tx) error { return tx.DeleteSavedView(first) })
	notFound(t, b, "a deleted view", func(tx parley.Tx) error { _, err := tx.SavedView(1, first.ID); return err })
	assert.Equal(t, []parley.SavedView{*second}, get(t, b, func(tx parley.Tx) ([]parley.SavedView, error) { return tx.SavedViews(1) }))
	assert.Equal(t, []parley.SavedView{*other}, get(t, b, func(tx parley.Tx) ([]parley.SavedView, error) { return tx.SavedViews(2) }))
}
