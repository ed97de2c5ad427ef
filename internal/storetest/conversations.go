package storetest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

func newConversation(company, customer, mailbox int64) *parley.Conversation {
	return &parley.Conversation{CompanyID: company, Type: parley.ConversationType("email"), MailboxID: mailbox, FolderID: 4,
		Status: parley.StatusActive, State: parley.StatePublished, Subject: "Help", Assignee: &parley.Party{ID: 3, Type: parley.PartyUser},
		CreatedBy: parley.Party{ID: customer, Type: parley.PartyCustomer}, CreatedAt: clock, ClosedAt: ptr(at(3)), ClosedBy: 3,
		ModifiedAt: at(1), Source: parley.Source{Type: "email", Via: parley.PartyCustomer}, TagIDs: []int64{5, 6}, CC: []string{"cc@example.com"},
		CustomerID: customer, CustomFields: []parley.FieldValue{{ID: 1, Value: "x"}},
		Snooze:      &parley.Snooze{SnoozedBy: 3, SnoozedUntil: at(60), UnsnoozeOnCustomerReply: true},
		ThreadCount: 2, Preview: "preview", UserUpdatedAt: ptr(at(2)), ReplyUserIDs: []int64{3},
		NextEvent: &parley.NextEvent{Time: at(60), EventType: "snooze", UserID: 3}}
}

// testConversations: Put assigns an id and the company's next number;
// an imported id and number are kept and move both sequences past them;
// lookups by id (any company), number and Message-ID.
func testConversations(t *testing.T, b Backend) {
	first, second, elsewhere := newConversation(1, 7, 2), newConversation(1, 7, 2), newConversation(2, 8, 3)
	put(t, b, func(tx parley.Tx) error { return tx.PutConversation(first) }, func(tx parley.Tx) error { return tx.PutConversation(second) },
		func(tx parley.Tx) error { return tx.PutConversation(elsewhere) })
	require.NotZero(t, first.ID)
	assert.Greater(t, second.ID, first.ID)
	assert.Equal(t, []int64{1, 2, 1}, []int64{first.Number, second.Number, elsewhere.Number}, "numbers count per company")

	assert.Equal(t, first, get(t, b, func(tx parley.Tx) (*parley.Conversation, error) { return tx.Conversation(1, first.ID) }))
	notFound(t, b, "another company's conversation", func(tx parley.Tx) error { _, err := tx.Conversation(2, first.ID); return err })
	assert.Equal(t, elsewhere, get(t, b, func(tx parley.Tx) (*parley.Conversation, error) { return tx.ConversationByID(elsewhere.ID) }))
	notFound(t, b, "a missing conversation", func(tx parley.Tx) error { _, err := tx.ConversationByID(elsewhere.ID + 1); return err })
	view(t, b, func(tx parley.Tx) error {
		assert.True(t, tx.ConversationIDTaken(elsewhere.ID))
		assert.False(t, tx.ConversationIDTaken(elsewhere.ID+1))
		assert.True(t, tx.ConversationNumberTaken(1, 2))
		assert.False(t, tx.ConversationNumberTaken(2, 2))
		id, err := tx.ConversationIDByNumber(1, 2)
		require.NoError(t, err)
		assert.Equal(t, second.ID, id)
		_, err = tx.ConversationIDByNumber(2, 2)
		assert.True(t, parley.IsNotFound(err))
		return nil
	})

	imported := newConversation(1, 7, 2)
	imported.ID, imported.Number, imported.Imported = 500, 40, true
	next := newConversation(1, 7, 2)
	put(t, b, func(tx parley.Tx) error { return tx.PutConversation(imported) }, func(tx parley.Tx) error { return tx.PutConversation(next) })
	assert.Equal(t, []int64{500, 40}, []int64{imported.ID, imported.Number}, "an import keeps its id and number")
	assert.Greater(t, next.ID, int64(500))
	assert.Equal(t, int64(41), next.Number)
	number := first.Number
	first.Subject = "Changed"
	put(t, b, func(tx parley.Tx) error { return tx.PutConversation(first) })
	assert.Equal(t, number, first.Number, "a conversation keeps its number")
	assert.Equal(t, first, get(t, b, func(tx parley.Tx) (*parley.Conversation, error) { return tx.Conversation(1, first.ID) }))

	put(t, b, func(tx parley.Tx) error {
		return tx.PutThread(&parley.Thread{ConversationID: second.ID, CompanyID: 1, Type: parley.ThreadCustomer, MessageID: "m1@example.com"})
	})
	assert.Equal(t, second.ID, get(t, b, func(tx parley.Tx) (int64, error) { return tx.ConversationByMessageID(1, "m1@example.com") }))
	notFound(t, b, "another company's Message-ID", func(tx parley.Tx) error { _, err := tx.ConversationByMessageID(2, "m1@example.com"); return err })
}

// testConversationOutbox: each write touches the conversation, after its
// customer when the conversation is new, moves to another customer or
// mailbox, or is deleted (the customer's document holds its mailboxes).
func testConversationOutbox(t *testing.T, b Backend) {
	c := newConversation(1, 7, 2)
	put(t, b, func(tx parley.Tx) error { return tx.PutConversation(c) })
	assert.Equal(t, []parley.OutboxEntry{entry(parley.OutboxCustomer, 1, 7), entry(parley.OutboxConversation, 1, c.ID)}, drain(t, b), "new")

	c.Subject = "Edited"
	put(t, b, func(tx parley.Tx) error { return tx.PutConversation(c) })
	assert.Equal(t, []parley.OutboxEntry{entry(parley.OutboxConversation, 1, c.ID)}, drain(t, b), "edited")

	c.CustomerID = 8
	put(t, b, func(tx parley.Tx) error { return tx.PutConversation(c) })
	assert.Equal(t, []parley.OutboxEntry{entry(parley.OutboxCustomer, 1, 7), entry(parley.OutboxCustomer, 1, 8),
		entry(parley.OutboxConversation, 1, c.ID)}, drain(t, b), "moved to another customer")

	c.MailboxID = 3
	put(t, b, func(tx parley.Tx) error { return tx.PutConversation(c) })
	assert.Equal(t, []parley.OutboxEntry{entry(parley.OutboxCustomer, 1, 8), entry(parley.OutboxConversation, 1, c.ID)}, drain(t, b),
		"moved to another mailbox")

	c.State = parley.StateDeleted
	put(t, b, func(tx parley.Tx) error { return tx.PutConversation(c) })
	assert.Equal(t, []parley.OutboxEntry{entry(parley.OutboxCustomer, 1, 8), entry(parley.OutboxConversation, 1, c.ID)}, drain(t, b),
		"deleted")
}

// testTags: tags are found by normalized name; a rename or a delete moves
// the name key; the conversations carrying a tag (deleted ones left out).
func testTags(t *testing.T, b Backend) {
	vip := &parley.Tag{CompanyID: 1, Name: "vip", Slug: "vip", Color: "#f00", CreatedAt: clock, UpdatedAt: at(1)}
	spam := &parley.Tag{CompanyID: 1, Name: "spam", Slug: "spam", Color: "#0f0", CreatedAt: clock, UpdatedAt: clock}
	other := &parley.Tag{CompanyID: 2, Name: "vip", Slug: "vip", CreatedAt: clock, UpdatedAt: clock}
	put(t, b, func(tx parley.Tx) error { return tx.PutTag(vip) }, func(tx parley.Tx) error { return tx.PutTag(spam) },
		func(tx parley.Tx) error { return tx.PutTag(other) })
	require.NotZero(t, vip.ID)
	assert.Greater(t, spam.ID, vip.ID)
	assert.Equal(t, vip, get(t, b, func(tx parley.Tx) (*parley.Tag, error) { return tx.Tag(1, vip.ID) }))
	notFound(t, b, "another company's tag", func(tx parley.Tx) error { _, err := tx.Tag(2, vip.ID); return err })
	assert.Equal(t, vip, get(t, b, func(tx parley.Tx) (*parley.Tag, error) { return tx.TagByName(1, " VIP ") }))
	assert.Equal(t, other, get(t, b, func(tx parley.Tx) (*parley.Tag, error) { return tx.TagByName(2, "vip") }))
	assert.Equal(t, []parley.Tag{*vip, *spam}, get(t, b, func(tx parley.Tx) ([]parley.Tag, error) { return tx.Tags(1) }))

	vip.Name = "gold"
	put(t, b, func(tx parley.Tx) error { return tx.PutTag(vip) })
	notFound(t, b, "a renamed tag's old name", func(tx parley.Tx) error { _, err := tx.TagByName(1, "vip"); return err })
	assert.Equal(t, vip, get(t, b, func(tx parley.Tx) (*parley.Tag, error) { return tx.TagByName(1, "gold") }))
	put(t, b, func(tx parley.Tx) error { return tx.DeleteTag(spam) })
	notFound(t, b, "a deleted tag", func(tx parley.Tx) error { _, err := tx.Tag(1, spam.ID); return err })
	notFound(t, b, "a deleted tag's name", func(tx parley.Tx) error { _, err := tx.TagByName(1, "spam"); return err })
	assert.Equal(t, []parley.Tag{*vip}, get(t, b, func(tx parley.Tx) ([]parley.Tag, error) { return tx.Tags(1) }))

	tagged := func(company int64, state parley.State, tags ...int64) *parley.Conversation {
		c := newConversation(company, 7, 2)
		c.State, c.TagIDs = state, tags
		return c
	}
	a, bb, deleted, untagged, elsewhere := tagged(1, parley.StatePublished, vip.ID), tagged(1, parley.StateDraft, 99, vip.ID),
		tagged(1, parley.StateDeleted, vip.ID), tagged(1, parley.StatePublished), tagged(2, parley.StatePublished, vip.ID)
	put(t, b, func(tx parley.Tx) error {
		for _, c := range []*parley.Conversation{a, bb, deleted, untagged, elsewhere} {
			if err := tx.PutConversation(c); err != nil {
				return err
			}
		}
		return nil
	})
	assert.Equal(t, []int64{a.ID, bb.ID}, get(t, b, func(tx parley.Tx) ([]int64, error) { return tx.ConversationIDsWithTag(1, vip.ID) }))
	assert.Empty(t, get(t, b, func(tx parley.Tx) ([]int64, error) { return tx.ConversationIDsWithTag(1, spam.ID) }))
}

// testThreadsInOneWrite: a write that reads a conversation's threads,
// then adds, changes and deletes some, reads back exactly what it wrote
// (the embedded store keeps a write's decoded threads), and what a reader
// does to the threads it got changes nothing stored.
func testThreadsInOneWrite(t *testing.T, b Backend) {
	c := newConversation(1, 7, 2)
	one := &parley.Thread{ConversationID: c.ID, CompanyID: 1, Type: parley.ThreadNote, Body: "one", CreatedAt: clock}
	put(t, b, func(tx parley.Tx) error {
		if err := tx.PutConversation(c); err != nil {
			return err
		}
		one.ConversationID = c.ID
		return tx.PutThread(one)
	})
	var two, three parley.Thread
	put(t, b, func(tx parley.Tx) error {
		before, err := tx.Threads(1, c.ID)
		require.NoError(t, err)
		require.Len(t, before, 1)
		before[0].Body = "changed by a reader"
		two = parley.Thread{ConversationID: c.ID, CompanyID: 1, Type: parley.ThreadNote, Body: "two", CreatedAt: at(1)}
		three = parley.Thread{ConversationID: c.ID, CompanyID: 1, Type: parley.ThreadNote, Body: "three", CreatedAt: at(2)}
		require.NoError(t, tx.PutThread(&two))
		require.NoError(t, tx.PutThread(&three))
		one.Body = "one, edited"
		require.NoError(t, tx.PutThread(one))
		after, err := tx.Threads(1, c.ID)
		require.NoError(t, err)
		assert.Equal(t, []parley.Thread{*one, two, three}, after, "a write reads its own thread writes")
		require.NoError(t, tx.DeleteThread(1, c.ID, two.ID))
		after, err = tx.Threads(1, c.ID)
		require.NoError(t, err)
		assert.Equal(t, []parley.Thread{*one, three}, after, "and its deletes")
		return nil
	})
	assert.Equal(t, []parley.Thread{*one, three}, get(t, b, func(tx parley.Tx) ([]parley.Thread, error) { return tx.Threads(1, c.ID) }))
}

// testThreads: threads list oldest first under their conversation; a
// rating's address follows its thread; a delete (a merge) moves a thread;
// a thread's raw message is kept apart.
func testThreads(t *testing.T, b Backend) {
	c, d := newConversation(1, 7, 2), newConversation(1, 7, 2)
	put(t, b, func(tx parley.Tx) error { return tx.PutConversation(c) }, func(tx parley.Tx) error { return tx.PutConversation(d) })
	thread := func(conv int64, body string) *parley.Thread {
		return &parley.Thread{ConversationID: conv, CompanyID: 1, Type: parley.ThreadMessage, Status: parley.StatusActive, State: parley.ThreadPublished,
			Body: body, CustomerID: 7, CreatedBy: parley.Party{ID: 3, Type: parley.PartyUser}, To: []string{"to@example.com"},
			CreatedAt: clock, OpenedAt: ptr(at(1)), Attachments: []int64{4}, Action: &parley.Action{Type: "t", Text: "x"},
			Scheduled: &parley.Schedule{For: at(30), By: 3}, SavedReplyID: 2, MessageID: "msg-" + body}
	}
	one, two := thread(c.ID, "one"), thread(c.ID, "two")
	two.Rating = &parley.Rating{Rating: "great", Comments: "thanks", CustomerID: 7, CreatedAt: at(2)}
	put(t, b, func(tx parley.Tx) error { return tx.PutThread(one) }, func(tx parley.Tx) error { return tx.PutThread(two) })
	require.NotZero(t, one.ID)
	assert.Greater(t, two.ID, one.ID)
	require.NotZero(t, two.Rating.ID, "a rating gets an id")
	assert.Equal(t, []parley.Thread{*one, *two}, get(t, b, func(tx parley.Tx) ([]parley.Thread, error) { return tx.Threads(1, c.ID) }))
	assert.Empty(t, get(t, b, func(tx parley.Tx) ([]parley.Thread, error) { return tx.Threads(1, d.ID) }))

	view(t, b, func(tx parley.Tx) error {
		conv, th, err := tx.RatedThread(1, two.Rating.ID)
		require.NoError(t, err)
		assert.Equal(t, c, conv)
		assert.Equal(t, two, th)
		_, _, err = tx.RatedThread(2, two.Rating.ID)
		assert.True(t, parley.IsNotFound(err), "another company's rating")
		_, _, err = tx.RatedThread(1, two.Rating.ID+1)
		assert.True(t, parley.IsNotFound(err), "a missing rating")
		return nil
	})

	put(t, b, func(tx parley.Tx) error {
		if err := tx.DeleteThread(1, c.ID, two.ID); err != nil {
			return err
		}
		two.ConversationID = d.ID
		return tx.PutThread(two)
	})
	assert.Equal(t, []parley.Thread{*one}, get(t, b, func(tx parley.Tx) ([]parley.Thread, error) { return tx.Threads(1, c.ID) }))
	assert.Equal(t, []parley.Thread{*two}, get(t, b, func(tx parley.Tx) ([]parley.Thread, error) { return tx.Threads(1, d.ID) }))
	view(t, b, func(tx parley.Tx) error {
		conv, th, err := tx.RatedThread(1, two.Rating.ID)
		require.NoError(t, err)
		assert.Equal(t, d.ID, conv.ID, "the rating followed its thread")
		assert.Equal(t, two, th)
		return nil
	})
	d.State = parley.StateDeleted
	put(t, b, func(tx parley.Tx) error { return tx.PutConversation(d) })
	notFound(t, b, "a rating of a deleted conversation", func(tx parley.Tx) error { _, _, err := tx.RatedThread(1, two.Rating.ID); return err })

	notFound(t, b, "a thread without a source", func(tx parley.Tx) error { _, err := tx.ThreadSource(1, one.ID); return err })
	raw := []byte("From: a@example.com\r\n\r\nhello \x00 bytes \xff")
	put(t, b, func(tx parley.Tx) error { return tx.PutThreadSource(1, one.ID, raw) })
	assert.Equal(t, raw, get(t, b, func(tx parley.Tx) ([]byte, error) { return tx.ThreadSource(1, one.ID) }))
	put(t, b, func(tx parley.Tx) error { return tx.PutThreadSource(1, one.ID, []byte("again")) })
	assert.Equal(t, []byte("again"), get(t, b, func(tx parley.Tx) ([]byte, error) { return tx.ThreadSource(1, one.ID) }), "replaced")

	odd := thread(c.ID, "text with \x00 NUL, \uffff and \\u0000 kept as written")
	odd.MessageID = ""
	put(t, b, func(tx parley.Tx) error { return tx.PutThread(odd) })
	assert.Equal(t, []parley.Thread{*one, *odd}, get(t, b, func(tx parley.Tx) ([]parley.Thread, error) { return tx.Threads(1, c.ID) }),
		"any text survives")
}

// testAttachments: metadata and bytes apart; a write without bytes keeps
// those stored; attachments move to another conversation and are deleted.
func testAttachments(t *testing.T, b Backend) {
	file := &parley.Attachment{CompanyID: 1, ConversationID: 10, ThreadID: 11, FileName: "a.png", MimeType: "image/png", Size: 3,
		Width: 2, Height: 1, State: parley.AttachmentState("clean"), CreatedAt: clock}
	dropped := &parley.Attachment{CompanyID: 1, ConversationID: 10, ThreadID: 11, FileName: "virus.exe", CreatedAt: clock}
	put(t, b, func(tx parley.Tx) error { return tx.PutAttachment(file, []byte{1, 2, 3}) },
		func(tx parley.Tx) error { return tx.PutAttachment(dropped, nil) })
	require.NotZero(t, file.ID)
	assert.Greater(t, dropped.ID, file.ID)
	assert.Equal(t, file, get(t, b, func(tx parley.Tx) (*parley.Attachment, error) { return tx.Attachment(1, file.ID) }))
	notFound(t, b, "another company's attachment", func(tx parley.Tx) error { _, err := tx.Attachment(2, file.ID); return err })
	assert.Equal(t, []byte{1, 2, 3}, get(t, b, func(tx parley.Tx) ([]byte, error) { return tx.AttachmentData(1, file.ID) }))
	notFound(t, b, "bytes not kept", func(tx parley.Tx) error { _, err := tx.AttachmentData(1, dropped.ID); return err })

	put(t, b, func(tx parley.Tx) error { return tx.MoveAttachments(1, []int64{file.ID, dropped.ID + 100}, 20) })
	file.ConversationID = 20
	assert.Equal(t, file, get(t, b, func(tx parley.Tx) (*parley.Attachment, error) { return tx.Attachment(1, file.ID) }))
	assert.Equal(t, []byte{1, 2, 3}, get(t, b, func(tx parley.Tx) ([]byte, error) { return tx.AttachmentData(1, file.ID) }),
		"moving keeps the bytes")

	put(t, b, func(tx parley.Tx) error { return tx.DeleteAttachment(1, file.ID) })
	notFound(t, b, "a deleted attachment", func(tx parley.Tx) error { _, err := tx.Attachment(1, file.ID); return err })
	notFound(t, b, "a deleted attachment's bytes", func(tx parley.Tx) error { _, err := tx.AttachmentData(1, file.ID); return err })
}

// testMail: outgoing e-mail gets ids and is listed per conversation,
// oldest first, through its updates.
func testMail(t *testing.T, b Backend) {
	c, d := newConversation(1, 7, 2), newConversation(1, 7, 2)
	put(t, b, func(tx parley.Tx) error { return tx.PutConversation(c) }, func(tx parley.Tx) error { return tx.PutConversation(d) })
	mail := func(conv int64, subject string) *parley.Mail {
		return &parley.Mail{CompanyID: 1, MailboxID: 2, ConversationID: conv, ThreadID: 5, UserID: 3, Kind: parley.MailKind("reply"),
			MessageID: subject + "@example.com", Subject: subject, Text: "t", From: "f@example.com", Recipients: []string{"r@example.com"},
			Raw: []byte("raw"), Status: parley.MailStatus("queued"), CreatedAt: clock, NextAttemptAt: at(1)}
	}
	first, second, other := mail(c.ID, "first"), mail(c.ID, "second"), mail(d.ID, "other")
	put(t, b, func(tx parley.Tx) error { return tx.PutMail(first) }, func(tx parley.Tx) error { return tx.PutMail(second) },
		func(tx parley.Tx) error { return tx.PutMail(other) })
	require.NotZero(t, first.ID)
	assert.Greater(t, second.ID, first.ID)
	assert.Equal(t, []parley.Mail{*first, *second}, get(t, b, func(tx parley.Tx) ([]parley.Mail, error) { return tx.ConversationMail(1, c.ID) }))

	first.Status, first.Attempts, first.SentAt = parley.MailSent, 1, ptr(at(2))
	put(t, b, func(tx parley.Tx) error { return tx.PutMail(first) })
	assert.Equal(t, []parley.Mail{*first, *second}, get(t, b, func(tx parley.Tx) ([]parley.Mail, error) { return tx.ConversationMail(1, c.ID) }))
	assert.Empty(t, get(t, b, func(tx parley.Tx) ([]parley.Mail, error) { return tx.ConversationMail(1, d.ID+1) }))
}
