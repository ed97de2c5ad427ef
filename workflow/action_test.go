package workflow_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/storage"
	"github.com/parley/parley/workflow"
)

// mailboxConversations returns up to n published conversations of a
// mailbox of company 1, in id order.
func mailboxConversations(t *testing.T, db *storage.DB, mailboxID int64, n int) []int64 {
	var ids []int64
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		return tx.EachConversation(func(c *parley.Conversation) error {
			if len(ids) < n && c.CompanyID == 1 && c.MailboxID == mailboxID && c.State == parley.StatePublished {
				ids = append(ids, c.ID)
			}
			return nil
		})
	}))
	require.Len(t, ids, n)
	return ids
}

// runOn runs w on conversations, as POST /v2/workflows/{id}/run does.
func runOn(t *testing.T, db *storage.DB, caller parley.Caller, w *parley.Workflow, ids ...int64) {
	t.Helper()
	_, err := db.Store().Update(context.Background(), func(tx parley.Tx) error { return workflow.Run(tx, caller, w, ids, now) })
	require.NoError(t, err)
}

func assigneeOf(t *testing.T, db *storage.DB, id int64) int64 {
	var out int64
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		c, err := tx.Conversation(1, id)
		if err == nil && c.Assignee != nil {
			out = c.Assignee.ID
		}
		return err
	}))
	return out
}

// TestAssignToTeam: the API assigns conversations to users only (PATCH
// replace /assignTo refuses a team id), so assigning to a team gives the
// conversation to one of its members, as the mailbox's routing picks.
func TestAssignToTeam(t *testing.T) {
	type arrange struct {
		routing  func(members []int64) *parley.Routing // nil: routing off
		assigned int                                   // index of the member already assigned, -1 for none
	}
	for _, tc := range []struct {
		name  string
		setup arrange
		// want are the members (by index in the team's eligible members)
		// three successive conversations go to; -1 keeps the assignee.
		want []int
	}{
		{"routing off: round robin over the team", arrange{assigned: -1}, []int{0, 1, 2}},
		{"routing on: only members in its rotation", arrange{routing: func(m []int64) *parley.Routing {
			return &parley.Routing{State: parley.RoutingEnabled, AssignmentMethod: parley.RoundRobin, AssignmentLimit: 100, UserIDs: []int64{m[1], m[2]}}
		}, assigned: -1}, []int{1, 2, 1}},
		{"routing on: nobody of the team in rotation keeps the assignee", arrange{routing: func(m []int64) *parley.Routing {
			return &parley.Routing{State: parley.RoutingEnabled, AssignmentMethod: parley.RoundRobin, AssignmentLimit: 100, UserIDs: []int64{m[3]}}
		}, assigned: -1}, []int{3, 3, 3}},
		{"a member already assigned keeps the conversation", arrange{assigned: 2}, []int{2, 2, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, caller := setup(t)
			conv := firstConversation(t, db)
			// The team: three active members who may see the mailbox and
			// are not away; the outsider may see it too.
			var team parley.Team
			var members []int64
			var outsider int64
			_, err := db.Store().Update(context.Background(), func(tx parley.Tx) error {
				teams, err := tx.Teams(1)
				require.NoError(t, err)
				team = teams[0]
				users, err := tx.Users(1)
				require.NoError(t, err)
				for _, u := range users {
					if !u.Active || !u.CanAccessMailbox(conv.MailboxID) || u.CurrentStatus().Email == parley.EmailAway {
						continue
					}
					if len(members) < 3 {
						members = append(members, u.ID)
					} else if outsider == 0 {
						outsider = u.ID
					}
				}
				require.NotZero(t, outsider)
				team.MemberIDs = members
				members = append(members, outsider)
				if err := tx.PutTeam(&team); err != nil {
					return err
				}
				m, err := tx.Mailbox(1, conv.MailboxID)
				require.NoError(t, err)
				m.Routing = nil
				if tc.setup.routing != nil {
					m.Routing = tc.setup.routing(members)
				}
				return tx.PutMailbox(m)
			})
			require.NoError(t, err)
			ids := mailboxConversations(t, db, conv.MailboxID, 3)
			for _, id := range ids {
				_, err := db.Store().Update(context.Background(), func(tx parley.Tx) error {
					if tc.setup.assigned >= 0 {
						return parley.PatchConversation(tx, caller, id, []parley.PatchOp{{Op: "replace", Path: "/assignTo", Value: []byte(itoa(members[tc.setup.assigned]))}}, now)
					}
					return parley.PatchConversation(tx, caller, id, []parley.PatchOp{{Op: "replace", Path: "/assignTo", Value: []byte(itoa(outsider))}}, now)
				})
				require.NoError(t, err)
			}
			w := create(t, db, caller, parley.WorkflowInput{MailboxID: &conv.MailboxID, Name: ptr("To Tier 2"), Type: ptr(parley.WorkflowManual),
				Actions: []parley.WorkflowAction{{Type: parley.ActionAssign, UserID: &team.ID}}})
			var got []int
			for _, id := range ids {
				runOn(t, db, caller, w, id)
				got = append(got, indexOf(members, assigneeOf(t, db, id)))
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func indexOf(ids []int64, id int64) int {
	for i, x := range ids {
		if x == id {
			return i
		}
	}
	return -1
}

// TestSavedReplyAction sends the mailbox's saved reply as a reply from the
// acting user, through the API's own reply: a published message thread
// written from the saved reply, its e-mail queued, its event recorded.
func TestSavedReplyAction(t *testing.T) {
	db, caller := setup(t)
	conv := newConversation(t, db, caller, firstConversation(t, db).MailboxID, "Refund?")
	var reply parley.SavedReply
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		replies, err := tx.SavedReplies(1, conv.MailboxID)
		reply = replies[0]
		return err
	}))
	w := create(t, db, caller, parley.WorkflowInput{MailboxID: &conv.MailboxID, Name: ptr("Refund answer"), Type: ptr(parley.WorkflowManual),
		Actions: []parley.WorkflowAction{{Type: parley.ActionSavedReply, SavedReplyID: reply.ID}}})
	var mailBefore, eventsBefore int
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		mail, err := tx.ConversationMail(conv.CompanyID, conv.ID)
		mailBefore = len(mail)
		events, _ := tx.Events()
		eventsBefore = len(events)
		return err
	}))
	runOn(t, db, caller, w, conv.ID)
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		threads, err := tx.Threads(conv.CompanyID, conv.ID)
		require.NoError(t, err)
		var sent *parley.Thread
		for i := range threads {
			if threads[i].SavedReplyID == reply.ID {
				sent = &threads[i]
			}
		}
		require.NotNil(t, sent, "a thread written from the saved reply")
		assert.Equal(t, parley.ThreadMessage, sent.Type)
		assert.Equal(t, parley.ThreadPublished, sent.State)
		assert.Equal(t, reply.Text, sent.Body)
		assert.Equal(t, parley.Party{ID: caller.User.ID, Type: parley.PartyUser}, sent.CreatedBy)
		mail, err := tx.ConversationMail(conv.CompanyID, conv.ID)
		require.NoError(t, err)
		assert.Len(t, mail, mailBefore+1, "the reply's e-mail is queued")
		events, err := tx.Events()
		require.NoError(t, err)
		var kinds []string
		for _, e := range events[eventsBefore:] {
			kinds = append(kinds, e.Kind)
		}
		assert.Contains(t, kinds, parley.EventConvoAgentReply)
		return nil
	}))
	assert.Equal(t, []string{"Workflow Refund answer ran"}, lineItems(t, db, conv.ID))
}

// newConversation creates an e-mail conversation from a customer, as the
// API does (not imported, so its replies go out).
func newConversation(t *testing.T, db *storage.DB, caller parley.Caller, mailboxID int64, subject string) *parley.Conversation {
	t.Helper()
	var c *parley.Conversation
	_, err := db.Store().Update(context.Background(), func(tx parley.Tx) (err error) {
		n := &parley.NewConversation{Subject: &subject, Type: ptr("email"), MailboxID: &mailboxID, Status: ptr("active"),
			Customer: &parley.CustomerInput{Email: ptr("kim@example.com")}, AssignTo: parley.Nullable[int64]{Set: true, Null: true},
			Threads: []parley.NewThread{{Type: ptr("customer"), Text: ptr("When do I get my money back?")}}}
		require.NoError(t, n.Validate())
		c, err = parley.CreateConversation(tx, caller, n, nil, now)
		return err
	})
	require.NoError(t, err)
	return c
}
