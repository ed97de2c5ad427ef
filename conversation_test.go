package parley

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func at(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }

func TestDerive(t *testing.T) {
	customer := Party{ID: 9, Type: PartyCustomer}
	agent := Party{ID: 3, Type: PartyUser}
	cases := []struct {
		name        string
		threads     []Thread
		count       int
		preview     string
		userUpdated *time.Time
		waiting     *time.Time
		replyUsers  []int64
	}{
		{"customer only: waiting since its message", []Thread{
			{Type: ThreadCustomer, State: ThreadPublished, Body: "Help", CreatedBy: customer, CreatedAt: at(0)},
		}, 1, "Help", Ptr(at(0)), Ptr(at(0)), nil},
		{"answered: no longer waiting", []Thread{
			{Type: ThreadCustomer, State: ThreadPublished, Body: "Help", CreatedBy: customer, CreatedAt: at(0)},
			{Type: ThreadMessage, State: ThreadPublished, Body: "<p>Done</p>", CreatedBy: agent, CreatedAt: at(5)},
		}, 2, "Done", Ptr(at(5)), nil, []int64{3}},
		{"customer follows up after the reply", []Thread{
			{Type: ThreadCustomer, State: ThreadPublished, Body: "Help", CreatedBy: customer, CreatedAt: at(0)},
			{Type: ThreadMessage, State: ThreadPublished, Body: "Done", CreatedBy: agent, CreatedAt: at(5)},
			{Type: ThreadCustomer, State: ThreadPublished, Body: "Still broken", CreatedBy: customer, CreatedAt: at(9)},
		}, 3, "Still broken", Ptr(at(9)), Ptr(at(9)), []int64{3}},
		{"notes, drafts and line items are not counted; a note previews only when alone", []Thread{
			{Type: ThreadCustomer, State: ThreadPublished, Body: "Help", CreatedBy: customer, CreatedAt: at(0)},
			{Type: ThreadNote, State: ThreadPublished, Body: "internal", CreatedBy: agent, CreatedAt: at(1)},
			{Type: ThreadMessage, State: ThreadDraft, Body: "draft", CreatedBy: agent, CreatedAt: at(2)},
			{Type: ThreadLineItem, State: ThreadPublished, CreatedBy: agent, CreatedAt: at(3)},
		}, 1, "Help", Ptr(at(1)), nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c Conversation
			c.Derive(tc.threads)
			assert.Equal(t, tc.count, c.ThreadCount)
			assert.Equal(t, tc.preview, c.Preview)
			assert.Equal(t, tc.userUpdated, c.UserUpdatedAt)
			assert.Equal(t, tc.waiting, c.CustomerWaitingSince)
			assert.Equal(t, tc.replyUsers, c.ReplyUserIDs)
		})
	}
}

func TestWaitingFriendly(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{30 * time.Second, "just now"}, {time.Minute, "1 min"}, {59 * time.Minute, "59 min"}, {time.Hour, "1 hour"},
		{5 * time.Hour, "5 hours"}, {49 * time.Hour, "2 days"}, {61 * 24 * time.Hour, "2 months"}, {800 * 24 * time.Hour, "2 years"},
	} {
		assert.Equal(t, tc.want, WaitingFriendly(t0, t0.Add(tc.d)), tc.d.String())
	}
}

func TestTagNames(t *testing.T) {
	assert.Equal(t, "needs review", NormalizeTagName("  Needs Review "))
	assert.Equal(t, "needs-review", TagSlug("Needs  Review"))
	assert.Equal(t, DefaultTagColor("vip"), DefaultTagColor("vip"))
}

func TestFolderTypeOf(t *testing.T) {
	for _, tc := range []struct {
		c    Conversation
		want FolderType
	}{
		{Conversation{State: StateDraft, Status: StatusClosed}, FolderDrafts},
		{Conversation{State: StatePublished, Status: StatusSpam}, FolderSpam},
		{Conversation{State: StatePublished, Status: StatusClosed, Assignee: &Party{ID: 1}}, FolderClosed},
		{Conversation{State: StatePublished, Status: StatusActive, Assignee: &Party{ID: 1}}, FolderAssigned},
		{Conversation{State: StatePublished, Status: StatusPending}, FolderUnassigned},
	} {
		assert.Equal(t, tc.want, tc.c.FolderTypeOf())
	}
}

func TestValidEmail(t *testing.T) {
	for email, ok := range map[string]bool{
		"a@b.com": true, "j.smith+billing@example.org": true, "x@localhost": false, "Name <a@b.com>": false, "": false, "a@@b.com": false,
	} {
		assert.Equal(t, ok, ValidEmail(email), email)
	}
}

func TestStatusFilter(t *testing.T) {
	cases := []struct {
		value    string
		statuses []Status
		all      bool
	}{
		{"active", []Status{StatusActive}, false},
		{"spam", []Status{StatusSpam}, false},
		{"open", []Status{StatusActive, StatusPending}, false},
		{"all", nil, true},
	}
	for _, tc := range cases {
		statuses, all := StatusFilter(tc.value)
		assert.Equal(t, tc.statuses, statuses, tc.value)
		assert.Equal(t, tc.all, all, tc.value)
	}
}
