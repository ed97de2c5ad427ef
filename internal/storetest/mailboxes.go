package storetest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

func newMailbox(company int64, name string, widgets ...string) *parley.Mailbox {
	return &parley.Mailbox{CompanyID: company, Name: name, Slug: name, Email: name + "@example.com",
		Folders: []parley.Folder{{Name: "Unassigned", Type: parley.FolderUnassigned, UpdatedAt: clock}, {Name: "Mine", Type: parley.FolderAssigned, UserID: 3}},
		Fields: []parley.FieldDef{{Name: "Plan", Type: "dropdown", Required: true, Order: 1,
			Options: []parley.FieldOption{{Order: 1, Label: "Free"}, {Order: 2, Label: "Paid"}}}},
		DefaultStatus: parley.StatusPending, DefaultAssigneeID: 3,
		Routing:   &parley.Routing{State: "enabled", AssignmentMethod: "balanced", AssignmentLimit: 4, UserIDs: []int64{3, 4}},
		Widgets:   widgets,
		CreatedAt: clock, UpdatedAt: at(1)}
}

// testMailboxes: Put assigns ids to the mailbox and its new folders,
// fields and options; a widget id names one mailbox.
func testMailboxes(t *testing.T, b Backend) {
	support, sales := newMailbox(1, "support", "widget-1"), newMailbox(1, "sales")
	put(t, b, func(tx parley.Tx) error { return tx.PutMailbox(support) }, func(tx parley.Tx) error { return tx.PutMailbox(sales) })
	require.NotZero(t, support.ID)
	assert.Greater(t, sales.ID, support.ID)
	items := map[int64]bool{}
	for _, id := range []int64{support.Folders[0].ID, support.Folders[1].ID, support.Fields[0].ID,
		support.Fields[0].Options[0].ID, support.Fields[0].Options[1].ID, sales.Folders[0].ID} {
		assert.NotZero(t, id, "folders, fields and options get ids")
		items[id] = true
	}
	assert.Len(t, items, 6, "from one sequence")

	assert.Equal(t, support, get(t, b, func(tx parley.Tx) (*parley.Mailbox, error) { return tx.Mailbox(1, support.ID) }))
	notFound(t, b, "another company's mailbox", func(tx parley.Tx) error { _, err := tx.Mailbox(2, support.ID); return err })
	assert.Equal(t, []parley.Mailbox{*support, *sales}, get(t, b, func(tx parley.Tx) ([]parley.Mailbox, error) { return tx.Mailboxes(1) }))
	assert.Empty(t, get(t, b, func(tx parley.Tx) ([]parley.Mailbox, error) { return tx.Mailboxes(2) }))

	assert.Equal(t, support, get(t, b, func(tx parley.Tx) (*parley.Mailbox, error) { return tx.MailboxByWidget("widget-1") }))
	notFound(t, b, "an unknown widget", func(tx parley.Tx) error { _, err := tx.MailboxByWidget("widget-2"); return err })
	sales.Widgets = []string{"widget-1"}
	failure(t, b, func(tx parley.Tx) error { return tx.PutMailbox(sales) })

	folder := support.Folders[0].ID
	support.Folders = append(support.Folders, parley.Folder{Name: "Closed", Type: parley.FolderClosed})
	support.Widgets = append(support.Widgets, "widget-2")
	put(t, b, func(tx parley.Tx) error { return tx.PutMailbox(support) })
	assert.Equal(t, folder, support.Folders[0].ID, "existing ids are kept")
	assert.NotZero(t, support.Folders[2].ID)
	assert.Equal(t, support, get(t, b, func(tx parley.Tx) (*parley.Mailbox, error) { return tx.MailboxByWidget("widget-2") }))
}

// testMailboxByEmail: incoming mail finds its mailbox by address, in any
// company, compared normalized; of two with one address, the oldest; an
// address changed is found under its new value only.
func testMailboxByEmail(t *testing.T, b Backend) {
	support, elsewhere, twin := newMailbox(1, "support"), newMailbox(2, "help"), newMailbox(2, "support")
	put(t, b, func(tx parley.Tx) error { return tx.PutMailbox(support) }, func(tx parley.Tx) error { return tx.PutMailbox(elsewhere) },
		func(tx parley.Tx) error { return tx.PutMailbox(twin) })
	byEmail := func(address string) *parley.Mailbox {
		return get(t, b, func(tx parley.Tx) (*parley.Mailbox, error) { return tx.MailboxByEmail(address) })
	}
	assert.Equal(t, elsewhere, byEmail("help@example.com"), "another company's mailbox")
	assert.Equal(t, support, byEmail(" Support@Example.COM "), "normalized; the oldest of two")
	notFound(t, b, "an address no mailbox has", func(tx parley.Tx) error { _, err := tx.MailboxByEmail("nobody@example.com"); return err })

	support.Email = "Desk@example.com"
	put(t, b, func(tx parley.Tx) error { return tx.PutMailbox(support) })
	assert.Equal(t, support, byEmail("desk@example.com"))
	assert.Equal(t, twin, byEmail("support@example.com"), "the old address is the other mailbox's alone")
}

func testSavedReplies(t *testing.T, b Backend) {
	hello := &parley.SavedReply{CompanyID: 1, MailboxID: 5, Name: "Hello", Text: "Hi!", ChatText: "Hi", CreatedAt: clock, UpdatedAt: at(1)}
	bye := &parley.SavedReply{CompanyID: 1, MailboxID: 5, Name: "Bye", Text: "Bye!", CreatedAt: clock, UpdatedAt: clock}
	elsewhere := &parley.SavedReply{CompanyID: 1, MailboxID: 6, Name: "Other", ChatText: "x", CreatedAt: clock, UpdatedAt: clock}
	put(t, b, func(tx parley.Tx) error { return tx.PutSavedReply(hello) }, func(tx parley.Tx) error { return tx.PutSavedReply(bye) },
		func(tx parley.Tx) error { return tx.PutSavedReply(elsewhere) })
	require.NotZero(t, hello.ID)
	assert.Greater(t, bye.ID, hello.ID)
	assert.Equal(t, hello, get(t, b, func(tx parley.Tx) (*parley.SavedReply, error) { return tx.SavedReply(1, 5, hello.ID) }))
	notFound(t, b, "another company's reply", func(tx parley.Tx) error { _, err := tx.SavedReply(2, 5, hello.ID); return err })
	notFound(t, b, "another mailbox's reply", func(tx parley.Tx) error { _, err := tx.SavedReply(1, 6, hello.ID); return err })
	assert.Equal(t, []parley.SavedReply{*hello, *bye}, get(t, b, func(tx parley.Tx) ([]parley.SavedReply, error) { return tx.SavedReplies(1, 5) }))
	assert.Empty(t, get(t, b, func(tx parley.Tx) ([]parley.SavedReply, error) { return tx.SavedReplies(2, 5) }))

	put(t, b, func(tx parley.Tx) error { return tx.DeleteSavedReply(hello) })
	notFound(t, b, "a deleted reply", func(tx parley.Tx) error { _, err := tx.SavedReply(1, 5, hello.ID); return err })
	assert.Equal(t, []parley.SavedReply{*bye}, get(t, b, func(tx parley.Tx) ([]parley.SavedReply, error) { return tx.SavedReplies(1, 5) }))
}

// testOpenAssigned: a mailbox counts, per user, its published active or
// pending conversations assigned to that user, following each change.
func testOpenAssigned(t *testing.T, b Backend) {
	mb := newMailbox(1, "support")
	other := newMailbox(1, "sales")
	put(t, b, func(tx parley.Tx) error { return tx.PutMailbox(mb) }, func(tx parley.Tx) error { return tx.PutMailbox(other) })
	conv := func(status parley.Status, state parley.State, assignee *parley.Party, mailbox int64) *parley.Conversation {
		return &parley.Conversation{CompanyID: 1, MailboxID: mailbox, CustomerID: 9, Status: status, State: state, Assignee: assignee}
	}
	user := func(id int64) *parley.Party { return &parley.Party{ID: id, Type: parley.PartyUser} }
	open := conv(parley.StatusActive, parley.StatePublished, user(3), mb.ID)
	convs := []*parley.Conversation{
		open,
		conv(parley.StatusPending, parley.StatePublished, user(3), mb.ID),
		conv(parley.StatusClosed, parley.StatePublished, user(3), mb.ID),
		conv(parley.StatusActive, parley.StateDraft, user(3), mb.ID),
		conv(parley.StatusActive, parley.StatePublished, &parley.Party{ID: 3, Type: parley.PartyTeam}, mb.ID),
		conv(parley.StatusActive, parley.StatePublished, user(4), mb.ID),
		conv(parley.StatusActive, parley.StatePublished, user(3), other.ID),
		conv(parley.StatusActive, parley.StatePublished, nil, mb.ID),
	}
	put(t, b, func(tx parley.Tx) error {
		for _, c := range convs {
			if err := tx.PutConversation(c); err != nil {
				return err
			}
		}
		return nil
	})
	count := func(mailbox, user int64) int {
		return get(t, b, func(tx parley.Tx) (int, error) { return tx.OpenAssigned(1, mailbox, user), nil })
	}
	assert.Equal(t, 2, count(mb.ID, 3))
	assert.Equal(t, 1, count(mb.ID, 4))
	assert.Equal(t, 1, count(other.ID, 3))
	assert.Equal(t, 0, count(mb.ID, 5))

	open.Assignee = user(4)
	put(t, b, func(tx parley.Tx) error { return tx.PutConversation(open) })
	assert.Equal(t, 1, count(mb.ID, 3), "a reassignment moves the count")
	assert.Equal(t, 2, count(mb.ID, 4))
	open.Status = parley.StatusClosed
	put(t, b, func(tx parley.Tx) error { return tx.PutConversation(open) })
	assert.Equal(t, 1, count(mb.ID, 4), "closing leaves the count")
}
