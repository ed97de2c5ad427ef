package main

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/pgsearch"
	"github.com/parley/parley/pgstore"
	"github.com/parley/parley/query"
)

// TestAWriteIsSearchedOnAnotherNodeAtOnce: two nodes open one database;
// a write through A's store (a conversation's subject, a phone thread, a
// chat) is found by B's search engine the moment it returns, for every
// kind it touched (conversations, and the textless calls, messages and
// chats), with neither node running anything in the background: the write
// wrote its search rows before it committed.
func TestAWriteIsSearchedOnAnotherNodeAtOnce(t *testing.T) {
	ctx := context.Background()
	database, _ := migratedDemo(t)
	a, err := open(ctx, location{url: database}, false, fixedClock{}, quietLog(), nil)
	require.NoError(t, err)
	defer a.close()
	b, err := open(ctx, location{url: database}, false, fixedClock{}, quietLog(), nil)
	require.NoError(t, err)
	defer b.close()

	var conversation int64
	require.NoError(t, a.db.Store().View(context.Background(), func(tx parley.Tx) error {
		return tx.EachConversationID(func(_, id int64) { conversation = max(conversation, id) })
	}))
	phone := &parley.Thread{CompanyID: 1, ConversationID: conversation, Type: parley.ThreadPhone, State: parley.ThreadPublished,
		Body: "Called about the wombat", CreatedBy: parley.Party{ID: 1, Type: parley.PartyUser}, CreatedAt: time.Unix(1700000000, 0)}
	reply := &parley.Thread{CompanyID: 1, ConversationID: conversation, Type: parley.ThreadMessage, State: parley.ThreadPublished,
		Body: "Your wombat ships today", CreatedBy: parley.Party{ID: 1, Type: parley.PartyUser}, CreatedAt: time.Unix(1700000060, 0)}
	chat := &parley.Chat{ID: "2b7e1a52-3a5e-4a39-9d5c-1c0f7b0e5a11", CompanyID: 1, MailboxID: 1, CreatedAt: time.Unix(1700000120, 0)}
	_, err = a.db.Store().Update(context.Background(), func(tx parley.Tx) error {
		c, err := tx.Conversation(1, conversation)
		if err != nil {
			return err
		}
		c.Subject = "Wombat written on node A"
		if err := tx.PutConversation(c); err != nil {
			return err
		}
		if err := tx.PutThread(phone); err != nil {
			return err
		}
		if err := tx.PutThread(reply); err != nil {
			return err
		}
		return tx.PutChat(chat)
	})
	require.NoError(t, err)

	search := func(kind index.Kind, q query.Node) []string {
		t.Helper()
		res, err := b.search.Search(ctx, index.Request{Kind: kind, Company: 1, Query: q, Limit: 10000})
		require.NoError(t, err)
		return res.IDs
	}
	assert.Equal(t, []string{index.FormatID(conversation)}, search(index.Conversations, query.Match{Field: "subject", Text: "wombat"}),
		"the subject written on A, searched on B")
	assert.True(t, slices.Contains(search(index.Calls, nil), index.FormatID(phone.ID)), "the phone thread's call")
	assert.True(t, slices.Contains(search(index.Messages, nil), index.MessageID(conversation, reply.ID)), "the reply's message")
	assert.True(t, slices.Contains(search(index.Chats, nil), chat.ID), "the chat")
}

// stallCommit is a tracer that, once armed, holds the first COMMIT it
// sees until released: a node whose transaction is open, stalled
// between its last statement and its commit (a pause, a slow network).
type stallCommit struct {
	armed    chan struct{} // closed to arm
	stalled  chan struct{} // closed when a COMMIT is held
	released chan struct{} // closed to let it go
}

func (s *stallCommit) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	select {
	case <-s.armed:
	default:
		return ctx
	}
	if strings.EqualFold(strings.TrimSpace(data.SQL), "commit") {
		select {
		case <-s.stalled:
		default:
			close(s.stalled)
			<-s.released
		}
	}
	return ctx
}

func (s *stallCommit) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TestAWriteDoesNotWaitForAnotherNode: node A's write (a customer, which
// has a search document) is stalled just before its commit; node B's
// write of another customer commits meanwhile, and is searchable, and A's
// commits once let go. No node holds a lock, a role or a queue position
// another node's writes wait for.
func TestAWriteDoesNotWaitForAnotherNode(t *testing.T) {
	ctx := context.Background()
	database, _ := migratedDemo(t)
	stall := &stallCommit{armed: make(chan struct{}), stalled: make(chan struct{}), released: make(chan struct{})}
	a, err := pgstore.Open(ctx, database, pgstore.Options{Tracer: stall, Indexer: pgsearch.Write}) // as openStore does
	require.NoError(t, err)
	defer a.Close()
	b, err := open(ctx, location{url: database}, false, fixedClock{}, quietLog(), nil)
	require.NoError(t, err)
	defer b.close()

	close(stall.armed)
	aDone := make(chan error, 1)
	go func() {
		_, err := a.Store().Update(context.Background(), func(tx parley.Tx) error {
			return tx.PutCustomer(&parley.Customer{CompanyID: 1, FirstName: "Quokka", CreatedAt: time.Unix(1700000000, 0)})
		})
		aDone <- err
	}()
	<-stall.stalled

	bDone := make(chan error, 1)
	go func() {
		_, err := b.db.Store().Update(context.Background(), func(tx parley.Tx) error {
			return tx.PutCustomer(&parley.Customer{CompanyID: 1, FirstName: "Numbat", CreatedAt: time.Unix(1700000000, 0)})
		})
		bDone <- err
	}()
	select {
	case err := <-bDone:
		require.NoError(t, err)
	case <-aDone:
		t.Fatal("A committed before it was let go")
	case <-time.After(time.Minute):
		close(stall.released)
		t.Fatal("B's write waited for A's open transaction")
	}
	named := func(name string) int {
		t.Helper()
		res, err := b.search.Search(ctx, index.Request{Kind: index.Customers, Company: 1, Query: query.Match{Field: "firstName", Text: name}, Limit: 10})
		require.NoError(t, err)
		return res.Total
	}
	assert.Equal(t, 1, named("numbat"), "B's write is searchable while A's is still open")
	assert.Equal(t, 0, named("quokka"), "A's write is not, until it commits")

	close(stall.released)
	require.NoError(t, <-aDone)
	assert.Equal(t, 1, named("quokka"), "A's write is searchable once committed")
}
