package parley_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/storage"
)

// The rules of conversations and threads, applied to real bbolt storage
// through the domain's seam (db.Store()), without HTTP.

var ruleNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// world is one company with an owner, a second (inactive) user, a mailbox
// and a customer, in a fresh database.
type world struct {
	db       *storage.DB
	st       parley.Store
	caller   parley.Caller
	inactive int64
	mailbox  int64
	other    int64 // a second mailbox
	customer int64
}

func newWorld(t *testing.T) *world {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "parley.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	w := &world{db: db, st: db.Store()}
	_, err = w.st.Update(context.Background(), func(tx parley.Tx) error {
		co := &parley.Company{Name: "Acme", Plan: parley.PlanPro, APIEnabled: true, PaymentOK: true}
		if err := tx.PutCompany(co); err != nil {
			return err
		}
		owner := &parley.User{CompanyID: co.ID, FirstName: "Ann", LastName: "Owner", Email: "ann@acme.test", Role: parley.RoleOwner, Active: true}
		if err := tx.PutUser(owner); err != nil {
			return err
		}
		gone := &parley.User{CompanyID: co.ID, FirstName: "Gil", Email: "gil@acme.test", Role: parley.RoleUser, Deactivated: true}
		if err := tx.PutUser(gone); err != nil {
			return err
		}
		m := &parley.Mailbox{CompanyID: co.ID, Name: "Support", Email: "support@acme.test"}
		if err := tx.PutMailbox(m); err != nil {
			return err
		}
		m2 := &parley.Mailbox{CompanyID: co.ID, Name: "Sales", Email: "sales@acme.test"}
		if err := tx.PutMailbox(m2); err != nil {
			return err
		}
		cu := &parley.Customer{CompanyID: co.ID, FirstName: "Cara", Emails: []parley.Entry{{Value: "cara@example.com", Type: "work"}}}
		if err := tx.PutCustomer(cu); err != nil {
			return err
		}
		w.caller = parley.Caller{Company: co, User: owner}
		w.inactive, w.mailbox, w.other, w.customer = gone.ID, m.ID, m2.ID, cu.ID
		return nil
	})
	require.NoError(t, err)
	return w
}

// create stores a conversation with n threads of the given type and the
// given status; it returns the conversation's id.
func (w *world) create(t *testing.T, n int, threadType, status string) (int64, error) {
	t.Helper()
	threads := make([]parley.NewThread, n)
	for i := range threads {
		threads[i] = parley.NewThread{Type: parley.Ptr(threadType), Text: parley.Ptr(fmt.Sprintf("thread %d", i))}
	}
	in := &parley.NewConversation{Subject: parley.Ptr("Help"), Type: parley.Ptr("email"), MailboxID: parley.Ptr(w.mailbox),
		Status: parley.Ptr(status), Customer: &parley.CustomerInput{ID: parley.Ptr(w.customer)}, Threads: threads}
	var id int64
	_, err := w.st.Update(context.Background(), func(tx parley.Tx) error {
		if err := in.Validate(); err != nil {
			return err
		}
		c, err := parley.CreateConversation(tx, w.caller, in, parley.EICARScanner{}, ruleNow)
		if err == nil {
			id = c.ID
		}
		return err
	})
	return id, err
}

// oneConversation is a fresh world holding one conversation with one
// customer thread, in the given status.
func oneConversation(t *testing.T, status string) (*world, int64) {
	t.Helper()
	w := newWorld(t)
	id, err := w.create(t, 1, "customer", status)
	require.NoError(t, err)
	return w, id
}

func (w *world) add(id int64, kind parley.ThreadType, r *parley.ThreadRequest, at time.Time) error {
	if r.Text == nil {
		r.Text = parley.Ptr("more")
	}
	_, err := w.st.Update(context.Background(), func(tx parley.Tx) error {
		_, err := parley.AddThread(tx, w.caller, id, kind, r, parley.EICARScanner{}, at)
		return err
	})
	return err
}

func (w *world) patch(id int64, ops string) error {
	parsed, err := parley.ParsePatch([]byte(ops))
	if err != nil {
		return err
	}
	_, err = w.st.Update(context.Background(), func(tx parley.Tx) error {
		return parley.PatchConversation(tx, w.caller, id, parsed, ruleNow)
	})
	return err
}

func (w *world) load(t *testing.T, id int64) (*parley.Conversation, []parley.Thread) {
	t.Helper()
	var c *parley.Conversation
	var threads []parley.Thread
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
		var err error
		if c, err = tx.Conversation(w.caller.Company.ID, id); err != nil {
			return err
		}
		threads, err = tx.Threads(c.CompanyID, id)
		return err
	}))
	return c, threads
}

// code is the first error code of err, "" for nil.
func code(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	e, ok := err.(*parley.Error)
	require.True(t, ok, "not a domain error: %v", err)
	require.NotEmpty(t, e.Errors, "%v", err)
	return e.Errors[0].Code
}

func TestThreadLimit(t *testing.T) {
	w := newWorld(t)
	create := []struct {
		threads int
		want    string
	}{{99, ""}, {100, ""}, {101, parley.CodeTooManyThreads}}
	for _, tc := range create {
		_, err := w.create(t, tc.threads, "customer", "active")
		assert.Equal(t, tc.want, code(t, err), "create with %d threads", tc.threads)
	}
	// Adding refuses once the conversation holds 99 threads: the one added
	// would be the 100th of Help Scout's limit counted with the original message.
	add := []struct {
		threads int
		want    string
	}{{98, ""}, {99, parley.CodeTooManyThreads}, {100, parley.CodeTooManyThreads}}
	for _, tc := range add {
		id, err := w.create(t, tc.threads, "customer", "active")
		require.NoError(t, err)
		err = w.add(id, parley.ThreadNote, &parley.ThreadRequest{}, ruleNow)
		assert.Equal(t, tc.want, code(t, err), "add to %d threads", tc.threads)
		if tc.want != "" {
			assert.Equal(t, parley.KindLocked, parley.KindOf(err))
		}
	}
}

func TestThreadLimitIgnoresLineItems(t *testing.T) {
	w := newWorld(t)
	id, err := w.create(t, 98, "customer", "active")
	require.NoError(t, err)
	// Status changes leave line items, which do not count.
	require.NoError(t, w.patch(id, `[{"op":"replace","path":"/status","value":"pending"},{"op":"replace","path":"/status","value":"active"}]`))
	assert.NoError(t, w.add(id, parley.ThreadNote, &parley.ThreadRequest{}, ruleNow))
}

func TestReopenOnCustomerThread(t *testing.T) {
	cases := []struct {
		name string
		kind parley.ThreadType
		req  parley.ThreadRequest
		want parley.Status
	}{
		{"a customer thread reopens", parley.ThreadCustomer, parley.ThreadRequest{}, parley.StatusActive},
		{"a chat thread reopens", parley.ThreadChat, parley.ThreadRequest{}, parley.StatusActive},
		{"an imported customer thread does not", parley.ThreadCustomer, parley.ThreadRequest{Imported: true}, parley.StatusClosed},
		{"a draft changes nothing", parley.ThreadCustomer, parley.ThreadRequest{Draft: true}, parley.StatusClosed},
		{"a note does not", parley.ThreadNote, parley.ThreadRequest{}, parley.StatusClosed},
		{"a status given wins", parley.ThreadCustomer, parley.ThreadRequest{Status: parley.Ptr("pending")}, parley.StatusPending},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, id := oneConversation(t, "closed")
			c, _ := w.load(t, id)
			require.Equal(t, parley.StatusClosed, c.Status)
			require.NotNil(t, c.ClosedAt)
			req := tc.req
			require.NoError(t, w.add(id, tc.kind, &req, ruleNow.Add(time.Hour)))
			c, _ = w.load(t, id)
			assert.Equal(t, tc.want, c.Status)
			assert.Equal(t, tc.want == parley.StatusClosed, c.ClosedAt != nil, "closedAt follows the status")
		})
	}
}

func TestAssignmentRules(t *testing.T) {
	cases := []struct {
		name     string
		ops      func(w *world) string
		want     string // error code, "" for success
		assignee bool
		items    []string // texts of the line items left
	}{
		{"assign an active user", func(w *world) string {
			return fmt.Sprintf(`[{"op":"replace","path":"/assignTo","value":%d}]`, w.caller.User.ID)
		}, "", true, []string{"Assigned to Ann Owner"}},
		{"a deactivated user is no owner", func(w *world) string {
			return fmt.Sprintf(`[{"op":"replace","path":"/assignTo","value":%d}]`, w.inactive)
		}, parley.CodeConversationOwner, false, nil},
		{"an unknown user is no owner", func(*world) string {
			return `[{"op":"replace","path":"/assignTo","value":999}]`
		}, parley.CodeConversationOwner, false, nil},
		{"assign then unassign", func(w *world) string {
			return fmt.Sprintf(`[{"op":"replace","path":"/assignTo","value":%d},{"op":"remove","path":"/assignTo"}]`, w.caller.User.ID)
		}, "", false, []string{"Assigned to Ann Owner", "Unassigned"}},
		{"unassigning nobody leaves no line item", func(*world) string {
			return `[{"op":"remove","path":"/assignTo"}]`
		}, "", false, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, id := oneConversation(t, "active")
			err := w.patch(id, tc.ops(w))
			assert.Equal(t, tc.want, code(t, err))
			c, threads := w.load(t, id)
			assert.Equal(t, tc.assignee, c.Assignee != nil)
			var items []string
			for _, th := range threads {
				if th.Type == parley.ThreadLineItem {
					items = append(items, th.Action.Text)
				}
			}
			assert.Equal(t, tc.items, items)
		})
	}
}

func TestDerivedFields(t *testing.T) {
	at := func(h int) time.Time { return ruleNow.Add(time.Duration(h) * time.Hour) }
	customer := func(id int64, h int) parley.Thread {
		return parley.Thread{ID: id, Type: parley.ThreadCustomer, State: parley.ThreadPublished, Body: "c",
			CreatedBy: parley.Party{ID: 9, Type: parley.PartyCustomer}, CreatedAt: at(h)}
	}
	reply := func(id int64, h int, user int64) parley.Thread {
		return parley.Thread{ID: id, Type: parley.ThreadMessage, State: parley.ThreadPublished, Body: "r",
			CreatedBy: parley.Party{ID: user, Type: parley.PartyUser}, CreatedAt: at(h)}
	}
	note := func(id int64, h int) parley.Thread {
		t := reply(id, h, 1)
		t.Type = parley.ThreadNote
		return t
	}
	draft := func(id int64, h int) parley.Thread {
		t := reply(id, h, 1)
		t.State = parley.ThreadDraft
		return t
	}
	tp := func(h int) *time.Time { v := at(h); return &v }
	cases := []struct {
		name           string
		threads        []parley.Thread
		count          int
		waiting, users *time.Time
		repliers       []int64
	}{
		{"a customer waits", []parley.Thread{customer(1, 0)}, 1, tp(0), tp(0), nil},
		{"a reply ends the wait", []parley.Thread{customer(1, 0), reply(2, 1, 1)}, 2, nil, tp(1), []int64{1}},
		{"a later customer message waits again", []parley.Thread{customer(1, 0), reply(2, 1, 1), customer(3, 2)}, 3, tp(2), tp(2), []int64{1}},
		{"a note is a user's action but not counted", []parley.Thread{customer(1, 0), note(2, 1)}, 1, nil, tp(1), nil},
		{"a draft is neither", []parley.Thread{customer(1, 0), draft(2, 1)}, 1, tp(0), tp(0), nil},
		{"threads are taken in time order", []parley.Thread{reply(5, 1, 2), customer(6, 0)}, 2, nil, tp(1), []int64{2}},
		{"repliers once each, first reply first", []parley.Thread{reply(1, 0, 2), reply(2, 1, 1), reply(3, 2, 2)}, 3, nil, tp(2), []int64{2, 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c parley.Conversation
			c.Derive(tc.threads)
			assert.Equal(t, tc.count, c.ThreadCount)
			assert.Equal(t, tc.waiting, c.CustomerWaitingSince, "customerWaitingSince")
			assert.Equal(t, tc.users, c.UserUpdatedAt, "userUpdatedAt")
			assert.Equal(t, tc.repliers, c.ReplyUserIDs)
		})
	}
}

func TestConversationPatchPaths(t *testing.T) {
	op := func(o, path string, value any) string {
		b, _ := json.Marshal(map[string]any{"op": o, "path": path, "value": value})
		return string(b)
	}
	cases := []struct {
		name  string
		ops   func(w *world) string
		want  string
		check func(t *testing.T, w *world, c *parley.Conversation)
	}{
		{"replace /subject", func(*world) string { return op("replace", "/subject", "  New  ") }, "",
			func(t *testing.T, _ *world, c *parley.Conversation) { assert.Equal(t, "New", c.Subject) }},
		{"empty /subject", func(*world) string { return op("replace", "/subject", " ") }, parley.CodeEmptyValue, nil},
		{"mistyped /subject", func(*world) string { return op("replace", "/subject", 7) }, parley.CodeInvalidJSON, nil},
		{"replace /status", func(*world) string { return op("replace", "/status", "closed") }, "",
			func(t *testing.T, w *world, c *parley.Conversation) {
				assert.Equal(t, parley.StatusClosed, c.Status)
				assert.Equal(t, w.caller.User.ID, c.ClosedBy)
			}},
		{"unknown /status", func(*world) string { return op("replace", "/status", "open") }, parley.CodeEnumValue, nil},
		{"move /mailboxId", func(w *world) string { return op("move", "/mailboxId", w.other) }, "",
			func(t *testing.T, w *world, c *parley.Conversation) { assert.Equal(t, w.other, c.MailboxID) }},
		{"replace /mailboxId", func(w *world) string { return op("replace", "/mailboxId", w.other) }, "",
			func(t *testing.T, w *world, c *parley.Conversation) { assert.Equal(t, w.other, c.MailboxID) }},
		{"unknown /mailboxId", func(*world) string { return op("move", "/mailboxId", 999) }, parley.CodeInvalidID, nil},
		{"replace /primaryCustomer.id", func(w *world) string { return op("replace", "/primaryCustomer.id", w.customer) }, "",
			func(t *testing.T, w *world, c *parley.Conversation) { assert.Equal(t, w.customer, c.CustomerID) }},
		{"unknown /primaryCustomer.id", func(*world) string { return op("replace", "/primaryCustomer.id", 999) }, parley.CodeInvalidID, nil},
		{"replace /draft on a published conversation", func(*world) string { return op("replace", "/draft", false) }, "",
			func(t *testing.T, _ *world, c *parley.Conversation) { assert.Equal(t, parley.StatePublished, c.State) }},
		{"mistyped /draft", func(*world) string { return op("replace", "/draft", "yes") }, parley.CodeInvalidJSON, nil},
		{"remove /subject is refused", func(*world) string { return op("remove", "/subject", nil) }, parley.CodePatchOperation, nil},
		{"add /assignTo is refused", func(*world) string { return op("add", "/assignTo", 1) }, parley.CodePatchOperation, nil},
		{"an unknown path is refused", func(*world) string { return op("replace", "/tags", []string{"x"}) }, parley.CodePatchOperation, nil},
		{"a bad operation stops the whole patch", func(*world) string {
			return "[" + op("replace", "/subject", "Kept?") + "," + op("replace", "/status", "open") + "]"
		}, parley.CodeEnumValue, func(t *testing.T, _ *world, c *parley.Conversation) { assert.Equal(t, "Help", c.Subject) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, id := oneConversation(t, "active")
			err := w.patch(id, tc.ops(w))
			assert.Equal(t, tc.want, code(t, err), "%v", err)
			if tc.want != "" {
				e := err.(*parley.Error)
				assert.Equal(t, parley.KindInvalid, e.Kind)
				assert.Contains(t, []string{"[0].value", "[1].value", "[0]"}, e.Errors[0].Path)
			}
			if tc.check != nil {
				c, _ := w.load(t, id)
				tc.check(t, w, c)
			}
		})
	}
}

func TestThreadPatchPaths(t *testing.T) {
	cases := []struct {
		ops   string
		want  string
		state parley.ThreadState
		body  string
	}{
		{`[{"op":"replace","path":"/text","value":"edited"}]`, "", parley.ThreadPublished, "edited"},
		{`[{"op":"replace","path":"/text","value":" "}]`, parley.CodeEmptyValue, parley.ThreadPublished, "thread 0"},
		{`[{"op":"replace","path":"/hidden","value":true}]`, "", parley.ThreadHidden, "thread 0"},
		{`[{"op":"replace","path":"/hidden","value":true},{"op":"replace","path":"/hidden","value":false}]`, "", parley.ThreadPublished, "thread 0"},
		{`[{"op":"replace","path":"/hidden","value":"yes"}]`, parley.CodeInvalidJSON, parley.ThreadPublished, "thread 0"},
		{`[{"op":"remove","path":"/text"}]`, parley.CodePatchOperation, parley.ThreadPublished, "thread 0"},
	}
	for _, tc := range cases {
		t.Run(tc.ops, func(t *testing.T) {
			w, id := oneConversation(t, "active")
			_, threads := w.load(t, id)
			ops, err := parley.ParsePatch([]byte(tc.ops))
			require.NoError(t, err)
			_, err = w.st.Update(context.Background(), func(tx parley.Tx) error {
				return parley.PatchThread(tx, w.caller, id, threads[0].ID, ops, ruleNow)
			})
			assert.Equal(t, tc.want, code(t, err))
			_, threads = w.load(t, id)
			assert.Equal(t, tc.state, threads[0].State)
			assert.Equal(t, tc.body, threads[0].Body)
		})
	}
}
