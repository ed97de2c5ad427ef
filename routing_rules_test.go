package parley_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

func TestConfigureRouting(t *testing.T) {
	w := newWorld(t)
	plain := w.plainUser(t) // sees no mailbox
	owner := w.caller.User.ID
	configure := func(caller parley.Caller, in parley.RoutingInput) error {
		return w.write(func(tx parley.Tx) error { return parley.ConfigureRouting(tx, caller, w.mailbox, &in) })
	}
	enabled := parley.Ptr(parley.RoutingEnabled)
	limit := parley.Ptr(int64(5))
	rr := parley.Ptr(parley.RoundRobin)
	refused := []struct {
		name string
		in   parley.RoutingInput
		path string
		code string
	}{
		{"no state", parley.RoutingInput{}, "state", parley.CodeNullValue},
		{"enabled without a limit", parley.RoutingInput{State: enabled, AssignmentMethod: rr, UserIDs: []int64{owner}}, "assignmentLimit", parley.CodeNullValue},
		{"a limit out of range", parley.RoutingInput{State: enabled, AssignmentLimit: parley.Ptr(int64(0)), AssignmentMethod: rr, UserIDs: []int64{owner}}, "assignmentLimit", parley.CodeSize},
		{"enabled without users", parley.RoutingInput{State: enabled, AssignmentLimit: limit, AssignmentMethod: rr}, "userIds", parley.CodeEmptyValue},
		{"an inactive user", parley.RoutingInput{State: enabled, AssignmentLimit: limit, AssignmentMethod: rr, UserIDs: []int64{w.inactive}}, "userIds[0]", parley.CodeInvalidID},
		{"a user who cannot see the mailbox", parley.RoutingInput{State: enabled, AssignmentLimit: limit, AssignmentMethod: rr, UserIDs: []int64{plain.User.ID}}, "userIds[0]", parley.CodeInvalidID},
		{"a user twice", parley.RoutingInput{State: enabled, AssignmentLimit: limit, AssignmentMethod: rr, UserIDs: []int64{owner, owner}}, "userIds[1]", parley.CodeConflict},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			err := configure(w.caller, tt.in)
			require.Error(t, err)
			e := err.(*parley.Error)
			assert.Equal(t, []string{tt.path, tt.code}, []string{e.Errors[0].Path, e.Errors[0].Code})
		})
	}
	assert.Equal(t, parley.KindForbidden, parley.KindOf(configure(plain, parley.RoutingInput{State: parley.Ptr(parley.RoutingDisabled)})))

	require.NoError(t, configure(w.caller, parley.RoutingInput{State: enabled, AssignmentLimit: limit, AssignmentMethod: rr, UserIDs: []int64{owner}}))
	routing := func() *parley.Routing {
		var m *parley.Mailbox
		require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) (err error) {
			m, err = tx.Mailbox(w.caller.Company.ID, w.mailbox)
			return err
		}))
		return m.Routing
	}
	r := routing()
	require.NotNil(t, r)
	assert.True(t, r.Enabled())
	assert.Equal(t, []any{parley.RoundRobin, 5, []int64{owner}}, []any{r.AssignmentMethod, r.AssignmentLimit, r.UserIDs})

	// A new active conversation is routed to the only member.
	id, err := w.create(t, 1, "customer", "active")
	require.NoError(t, err)
	c, _ := w.load(t, id)
	require.NotNil(t, c.Assignee)
	assert.Equal(t, parley.Party{ID: owner, Type: parley.PartyUser}, *c.Assignee)

	require.NoError(t, configure(w.caller, parley.RoutingInput{State: parley.Ptr(parley.RoutingDisabled)}), "disabling needs nothing else")
	assert.False(t, routing().Enabled())
	id, err = w.create(t, 1, "customer", "active")
	require.NoError(t, err)
	c, _ = w.load(t, id)
	assert.Nil(t, c.Assignee, "no routing, no assignee")
}

// TestRoutingMembers: the rotation shows the active users who may see the
// mailbox, in the order given, each with their away status and the open
// conversations assigned to them in it.
func TestRoutingMembers(t *testing.T) {
	w := newWorld(t)
	plain := w.plainUser(t) // sees no mailbox
	away := &parley.User{CompanyID: w.caller.Company.ID, FirstName: "Ada", Email: "ada@acme.test", Role: parley.RoleUser, Active: true,
		MailboxIDs: []int64{w.mailbox}, Status: &parley.UserStatus{Email: parley.EmailAway, Chat: parley.ChatUnavailable}}
	invited := &parley.User{CompanyID: w.caller.Company.ID, FirstName: "Ivy", Email: "ivy@acme.test", Role: parley.RoleUser, MailboxIDs: []int64{w.mailbox}}
	require.NoError(t, w.write(func(tx parley.Tx) error {
		if err := tx.PutUser(away); err != nil {
			return err
		}
		return tx.PutUser(invited)
	}))
	for range 2 {
		id, err := w.create(t, 1, "customer", "active")
		require.NoError(t, err)
		require.NoError(t, w.patch(id, fmt.Sprintf(`[{"op":"replace","path":"/assignTo","value":%d}]`, w.caller.User.ID)))
	}
	closed, err := w.create(t, 1, "customer", "closed")
	require.NoError(t, err)
	require.NoError(t, w.patch(closed, fmt.Sprintf(`[{"op":"replace","path":"/assignTo","value":%d}]`, w.caller.User.ID)))

	var users []parley.User
	var members map[int64][]parley.RoutingMember
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
		inactive, err := tx.User(w.caller.Company.ID, w.inactive)
		if err != nil {
			return err
		}
		users = []parley.User{*away, *plain.User, *inactive, *invited, *w.caller.User}
		members = map[int64][]parley.RoutingMember{}
		for _, id := range []int64{w.mailbox, w.other} {
			m, err := tx.Mailbox(w.caller.Company.ID, id)
			if err != nil {
				return err
			}
			members[id] = parley.RoutingMembers(tx, users, m)
		}
		return nil
	}))
	assert.Equal(t, []parley.RoutingMember{{UserID: away.ID, Away: true}, {UserID: w.caller.User.ID, Open: 2}}, members[w.mailbox])
	assert.Equal(t, []parley.RoutingMember{{UserID: w.caller.User.ID}}, members[w.other], "the owner sees every mailbox; nothing is open in this one")
}
