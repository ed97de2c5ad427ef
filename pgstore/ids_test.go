package pgstore

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pressly/goose/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/internal/pgtest"
)

// TestDrawnIDsReadNoOtherCompany: new records that draw their ids, and
// the reads that name a record by id with its company, run no statement
// across companies (ByID); a record given an id runs the check of it.
func TestDrawnIDsReadNoOtherCompany(t *testing.T) {
	ctx := context.Background()
	url := migrated(t)
	rec := &pgtest.Recorder{}
	db, err := Open(ctx, url, Options{Tracer: rec})
	require.NoError(t, err)
	defer db.Close()
	byID := func() (n int) {
		for _, sql := range rec.Statements() {
			if strings.Contains(sql, ByID) {
				n++
			}
		}
		return n
	}
	conv := &parley.Conversation{CompanyID: 1, State: parley.StatePublished}
	_, err = db.Update(ctx, func(tx *Tx) error {
		if err := tx.PutConversation(conv); err != nil {
			return err
		}
		th := &parley.Thread{CompanyID: 1, ConversationID: conv.ID, Body: "hi"}
		if err := tx.PutThread(th); err != nil {
			return err
		}
		if err := tx.PutThreadSource(1, th.ID, []byte("raw")); err != nil {
			return err
		}
		if _, err := tx.Threads(1, conv.ID); err != nil {
			return err
		}
		_, err := tx.ThreadSource(1, th.ID)
		return err
	})
	require.NoError(t, err)
	assert.Zero(t, byID(), "drawn ids and reads by company")

	_, err = db.Update(ctx, func(tx *Tx) error {
		return tx.PutConversation(&parley.Conversation{ID: conv.ID + 10, CompanyID: 1, State: parley.StatePublished})
	})
	require.NoError(t, err)
	assert.Equal(t, []string{conversationIDs.held}, filter(rec.Statements(), func(sql string) bool { return strings.Contains(sql, ByID) }),
		"a given id is checked")
}

// TestGivenIDOfAnotherCompanyIsRefused: an id given to a new record that
// a record of another company holds is refused, for each family that
// checks; the same id given again in its own company is the record's.
func TestGivenIDOfAnotherCompanyIsRefused(t *testing.T) {
	ctx := context.Background()
	db, _ := open(t)
	puts := []struct {
		noun string
		put  func(tx *Tx, company, id int64) (int64, error)
	}{
		{"conversation", func(tx *Tx, company, id int64) (int64, error) {
			c := &parley.Conversation{ID: id, CompanyID: company, State: parley.StatePublished}
			return c.ID, tx.PutConversation(c)
		}},
		{"customer", func(tx *Tx, company, id int64) (int64, error) {
			c := &parley.Customer{ID: id, CompanyID: company, FirstName: "Cy"}
			return c.ID, tx.PutCustomer(c)
		}},
		{"mailbox", func(tx *Tx, company, id int64) (int64, error) {
			m := &parley.Mailbox{ID: id, CompanyID: company, Name: "Box"}
			return m.ID, tx.PutMailbox(m)
		}},
		{"organization", func(tx *Tx, company, id int64) (int64, error) {
			o := &parley.Organization{ID: id, CompanyID: company, Name: "Org"}
			return o.ID, tx.PutOrganization(o)
		}},
		{"thread", func(tx *Tx, company, id int64) (int64, error) {
			th := &parley.Thread{ID: id, CompanyID: company, ConversationID: 1, Body: "hi"}
			return th.ID, tx.PutThread(th)
		}},
		{"attachment", func(tx *Tx, company, id int64) (int64, error) {
			a := &parley.Attachment{ID: id, CompanyID: company, ConversationID: 1, FileName: "a.txt"}
			return a.ID, tx.PutAttachment(a, nil)
		}},
		{"webhook", func(tx *Tx, company, id int64) (int64, error) {
			w := &parley.Webhook{ID: id, CompanyID: company, URL: "https://hooks.example.com"}
			return w.ID, tx.PutWebhook(w)
		}},
	}
	for _, p := range puts {
		var id int64
		_, err := db.Update(ctx, func(tx *Tx) (err error) { id, err = p.put(tx, 1, 0); return err })
		require.NoError(t, err, p.noun)
		_, err = db.Update(ctx, func(tx *Tx) error { _, err := p.put(tx, 2, id); return err })
		assert.ErrorContains(t, err, p.noun+" "+itoa(id)+" belongs to another company", p.noun)
		_, err = db.Update(ctx, func(tx *Tx) error { _, err := p.put(tx, 1, id); return err })
		assert.NoError(t, err, "%s: its own company writes it again", p.noun)
	}
}

// TestOwnersDroppedAndIDsKeptPast: migration 8 drops owners and
// chat_owners, and moves each family's sequence past the ids its table
// holds (an id an earlier version kept without moving it, as a copy did
// until its end): the next id drawn lies past it. Rolled back, owners and
// chat_owners hold the records' ids again.
func TestOwnersDroppedAndIDsKeptPast(t *testing.T) {
	ctx := context.Background()
	url, cfg, conn := migratedTo(t, 7)
	for _, sql := range []string{
		`INSERT INTO threads (company_id, conversation_id, id, body) VALUES (3, 1, 5000, '{"id": 5000, "companyId": 3, "conversationId": 1}')`,
		`INSERT INTO owners (kind, id, company_id) VALUES ('thread', 5000, 3)`,
		`INSERT INTO chats (company_id, id, body) VALUES (3, 'c1', '{"id": "c1", "companyId": 3}')`,
		`INSERT INTO chat_owners (chat_id, company_id) VALUES ('c1', 3)`,
	} {
		_, err := conn.Exec(ctx, sql)
		require.NoError(t, err)
	}
	_, err := Migrate(ctx, url)
	require.NoError(t, err)
	var tables []string
	require.NoError(t, conn.QueryRow(ctx, `SELECT coalesce(array_agg(c.relname::text), '{}') FROM pg_class c WHERE c.relname IN ('owners', 'chat_owners')`).Scan(&tables))
	assert.Empty(t, tables, "owners and chat_owners are dropped")

	db, err := Open(ctx, url, Options{})
	require.NoError(t, err)
	defer db.Close()
	th := &parley.Thread{CompanyID: 3, ConversationID: 1, Body: "new"}
	_, err = db.Update(ctx, func(tx *Tx) error { return tx.PutThread(th) })
	require.NoError(t, err)
	assert.Greater(t, th.ID, int64(5000), "the next thread id lies past the kept one")
	require.NoError(t, db.View(ctx, func(tx *Tx) error {
		chat, err := tx.ChatByID("c1")
		require.NoError(t, err)
		assert.Equal(t, int64(3), chat.CompanyID)
		return nil
	}))

	require.NoError(t, withProvider(cfg, func(p *goose.Provider) error { _, err := p.DownTo(ctx, 7); return err }))
	rows, err := conn.Query(ctx, `SELECT o.kind || ' ' || o.id || ' ' || o.company_id FROM owners o ORDER BY o.id`)
	require.NoError(t, err)
	owners, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	assert.Equal(t, []string{"thread 5000 3", "thread " + itoa(th.ID) + " 3"}, owners)
	var chatOwner int64
	require.NoError(t, conn.QueryRow(ctx, `SELECT o.company_id FROM chat_owners o WHERE o.chat_id = 'c1'`).Scan(&chatOwner))
	assert.Equal(t, int64(3), chatOwner)
}

func filter(list []string, keep func(string) bool) []string {
	var out []string
	for _, s := range list {
		if keep(s) {
			out = append(out, s)
		}
	}
	return out
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestTwoWritesGivingOneIDTakeTurns: two writes give one conversation id
// to two companies at once, the first stopped after it found the id free.
// The second waits for the family's rule lock, runs again once the first
// committed, and is refused: on their own snapshots (REPEATABLE READ) both
// would find the id free.
func TestTwoWritesGivingOneIDTakeTurns(t *testing.T) {
	ctx := context.Background()
	db, url := open(t)
	const id = 4242
	give := func(company int64, between func()) (int, error) {
		runs := 0
		_, err := db.Update(ctx, func(tx *Tx) error {
			runs++
			if err := tx.PutConversation(&parley.Conversation{ID: id, CompanyID: company, State: parley.StatePublished}); err != nil {
				return err
			}
			tx.flush() // the given id's check and lock reach the server
			between()
			return nil
		})
		return runs, err
	}
	_, firstErr, secondRuns, secondErr := racePausedWrite(t, url,
		func(between func()) (int, error) { return give(1, between) },
		func(between func()) (int, error) { return give(2, between) })
	require.NoError(t, firstErr)
	require.Error(t, secondErr, "the id is company 1's")
	assert.Contains(t, secondErr.Error(), "belongs to another company")
	assert.Equal(t, 2, secondRuns, "the second write ran again after the first committed")
}
